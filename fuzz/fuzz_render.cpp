// libFuzzer target for the paths that read untrusted input: the loader (YAML reader, typed decode,
// CRD defaults), `trainer render` under each --validate mode, in both image modes, both output
// formats and --output-dir, --explain, the legacy/current comparison of `trainer diff --legacy`,
// and `trainer diff FROM TO` on the input and on the rendered output. TRAINER_FUZZ_MODE=growth
// runs fewer paths, for large inputs under a time budget. Build and run: fuzz/README.md.
//
// trainer::Error is the expected way to reject an input. Anything else (a crash, a sanitizer
// report, another exception, a rendered output that does not read back as what was written or
// that a YAML 1.1 reader would split at other line breaks, a file written outside the
// --output-dir folder or left behind) is a finding.
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/output_dir.h"
#include "diff/baseline.h"
#include "diff/migration.h"
#include "diff/report.h"
#include "diff/stream.h"
#include "input/loader.h"
#include "render/render.h"
#include "util/error.h"
#include "util/staged_files.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace {

using trainer::FileSystem;
using trainer::ValidationMode;

// One in-memory file, "input.yaml", that the loader reads as a path argument.
class OneFileSystem : public FileSystem {
 public:
  explicit OneFileSystem(std::string content) : content_(std::move(content)) {}
  Kind Stat(const std::string& path) override { return path == kPath ? Kind::kFile : Kind::kMissing; }
  std::string ReadFile(const std::string&) override { return content_; }
  std::string ReadStdin() override { return ""; }
  std::vector<std::string> ListInputFiles(const std::string&) override { return {}; }
  std::string Identity(const std::string& path) override { return path; }

  static constexpr const char* kPath = "input.yaml";

 private:
  std::string content_;
};

// Which paths run, set once from TRAINER_FUZZ_MODE. Growth mode is for large inputs under a time
// budget (fuzz/README.md): --validate=warn only, which runs every check and still renders what
// they find, and no --output-dir, whose cost is the file system's, so that the budget goes to the
// code whose cost grows with the input.
struct Mode {
  std::vector<ValidationMode> validate{ValidationMode::kStrict, ValidationMode::kWarn, ValidationMode::kIgnore};
  bool output_dir = true;
};

Mode mode;
std::string scratch_parent;  // holds the one scratch folder of the input being run, and nothing else

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_render: %s\n%s\n", what, detail.c_str());
  // The scratch folders stay for a look when --output-dir wrote something, and go when empty.
  std::error_code ignored;
  if (!scratch_parent.empty() && !std::filesystem::remove(scratch_parent, ignored)) {
    std::fprintf(stderr, "fuzz_render: the --output-dir scratch folders are in %s\n", scratch_parent.c_str());
  }
  std::abort();
}

// ---- Written YAML as a YAML 1.1 reader sees it ---------------------------------------------------
// kubectl's reader (go-yaml v2) and PyYAML take NEL, U+2028, U+2029 and a lone CR for line breaks,
// which trainer's reader does not: reading the output back with trainer's reader alone cannot see
// a value that ends its line there. These checks look at the text by rules of their own, sharing
// no code with trainer's reader or writer.

// The code point at text[i], advancing i; kNotUtf8 (and one byte) where no valid UTF-8 starts.
constexpr char32_t kNotUtf8 = 0xFFFFFFFF;
char32_t NextCodePoint(std::string_view text, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(text[i++]);
  if (lead < 0x80) return lead;
  const std::size_t extra = lead >= 0xF5 ? 0 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC2 ? 1 : 0;
  if (extra == 0 || i + extra > text.size()) return kNotUtf8;
  char32_t c = lead & (0x3F >> extra);
  for (std::size_t k = 0; k < extra; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return kNotUtf8;
    c = c << 6 | (next & 0x3F);
  }
  static constexpr char32_t kLeast[] = {0, 0x80, 0x800, 0x10000};
  if (c < kLeast[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return kNotUtf8;
  i += extra;
  return c;
}

// Whether `c`, raw, is a line break to a YAML 1.1 reader other than LF, or a character a YAML
// reader refuses or may drop: trainer's YAML holds none, not even in double quotes, where it writes
// them as escapes. JSON holds no raw control character below 0x20, U+2028 or U+2029 (encoding/json
// writes DEL, C1 and NEL raw, which no JSON reader takes for a break).
bool ForbiddenRaw(char32_t c, bool json) {
  if (c == kNotUtf8 || (c < 0x20 && c != '\n') || c == 0x2028 || c == 0x2029) return true;
  return !json && ((c >= 0x7F && c <= 0x9F) || c == 0xFEFF || c == 0xFFFE || c == 0xFFFF);
}

void CheckRawCharacters(std::string_view text, bool json, const char* what) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const char32_t c = NextCodePoint(text, i);
    if (ForbiddenRaw(c, json)) {
      char where[96];
      std::snprintf(where, sizeof where, "line %zu, byte %zu: raw U+%04X", line, at, static_cast<unsigned>(c));
      Finding(what, std::string(where) + "\n" + std::string(text));
    }
    if (c == '\n') ++line;
  }
}

// Documents, map keys and list items, counted in YAML as trainer writes it (block style, every
// multi-line string a literal block, nothing else over two lines) from its lines as a YAML 1.1
// reader splits them: at LF, CR LF, CR, NEL, U+2028 and U+2029.
struct Shape {
  std::size_t documents = 0;  // "---" lines
  std::size_t keys = 0;
  std::size_t items = 0;
  bool operator==(const Shape&) const = default;
};

std::vector<std::string_view> YamlLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const char32_t c = NextCodePoint(text, i);
    if (c != '\n' && c != '\r' && c != 0x85 && c != 0x2028 && c != 0x2029) continue;
    if (c == '\r' && i < text.size() && text[i] == '\n') ++i;
    lines.push_back(text.substr(start, at - start));
    start = i;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

// The length of the quoted scalar at the start of `s` (its quotes included), or npos if it is
// not closed on this line.
std::size_t QuotedLength(std::string_view s) {
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[0] == '"' && s[i] == '\\') {
      ++i;
    } else if (s[i] == s[0]) {
      if (s[0] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
        ++i;
      } else {
        return i + 1;
      }
    }
  }
  return std::string_view::npos;
}

Shape TextShape(std::string_view yaml) {
  Shape shape;
  std::size_t block = std::string_view::npos;  // in a literal block: the column its content is deeper than
  for (std::string_view line : YamlLines(yaml)) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    if (block != std::string_view::npos && (indent == line.size() || indent > block)) continue;
    block = std::string_view::npos;
    if (line == "---") {
      ++shape.documents;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;  // comments start lines only at column 0
    std::string_view rest = line.substr(indent);
    std::size_t column = indent;  // of the dash or key `rest` starts with
    while (rest.substr(0, 2) == "- ") {
      ++shape.items;
      column = line.size() - rest.size();
      rest.remove_prefix(2);
    }
    std::size_t key_length = 0;
    if (!rest.empty() && (rest[0] == '"' || rest[0] == '\'')) {
      key_length = QuotedLength(rest);
      if (key_length == std::string_view::npos || rest.substr(key_length, 1) != ":") key_length = 0;
    } else if (const std::size_t colon = rest.find(": "); colon != std::string_view::npos) {
      key_length = colon;
    } else if (!rest.empty() && rest.back() == ':') {
      key_length = rest.size() - 1;
    }
    std::string_view value = rest;
    if (key_length > 0) {
      ++shape.keys;
      column = line.size() - rest.size();
      value = rest.substr(std::min(key_length + 2, rest.size()));
    }
    if (!value.empty() && value[0] == '|') block = column;
  }
  return shape;
}

void AddShape(const trainer::Tree& tree, Shape& shape) {
  if (tree.IsMap()) shape.keys += tree.size();
  if (tree.IsList()) shape.items += tree.size();
  for (const trainer::Tree& item : tree.items()) AddShape(item, shape);
}

// `yaml`, written by trainer for `objects` (with `separators` "---" lines), holds no forbidden raw
// character, and a YAML 1.1 reader finds in it as many documents, keys and list items as they hold.
void CheckWrittenYaml(std::string_view yaml, const std::vector<trainer::Tree>& objects, std::size_t separators,
                      const char* what) {
  CheckRawCharacters(yaml, false, what);
  Shape want;
  want.documents = separators;
  for (const trainer::Tree& object : objects) AddShape(object, want);
  const Shape got = TextShape(yaml);
  if (got != want) {
    char counts[160];
    std::snprintf(counts, sizeof counts, "read: %zu documents, %zu keys, %zu items; written: %zu, %zu, %zu",
                  got.documents, got.keys, got.items, want.documents, want.keys, want.items);
    Finding(what, std::string(counts) + "\n" + std::string(yaml));
  }
}

// The trees of a YAML stream trainer wrote; a stream that does not read back is a finding.
std::vector<trainer::Tree> ReadBack(const std::string& text, const char* what) {
  static const std::string kName = "rendered.yaml";
  try {
    return trainer::ReadYamlStream(text, &kName);
  } catch (const trainer::Error& e) {
    Finding(what, std::string(e.what()) + "\n" + text);
  }
}

// The rendered YAML must read back as the objects that were written.
void CheckReadsBack(const std::vector<trainer::RenderedJob>& jobs) {
  for (const auto& job : jobs) {
    for (const trainer::Tree& object : job.objects) {
      std::string yaml;
      trainer::WriteYaml(object, yaml);
      CheckWrittenYaml(yaml, {object}, 0, "a YAML 1.1 reader reads the rendered YAML as something else");
      std::vector<trainer::Tree> back = ReadBack(yaml, "rendered YAML does not read back");
      if (back.size() != 1 || back[0] != object) Finding("rendered YAML reads back as something else", yaml);
      std::string json;
      trainer::WriteJson(object, json);
      CheckRawCharacters(json, true, "the rendered JSON holds a raw line break or control character");
      back = ReadBack(json, "rendered JSON does not read back");
      if (back.size() != 1 || back[0] != object) Finding("rendered JSON reads back as something else", json);
    }
  }
}

trainer::RenderRequest Request(ValidationMode validate) {
  trainer::RenderRequest request;
  request.load.paths = {OneFileSystem::kPath};
  request.load.validate = request.render.validate = validate;
  // Loading first renders an input without TrainJobs as nothing: so does render --allow-empty.
  request.allow_empty = true;
  return request;
}

// `trainer render`'s streaming path (each TrainJob rendered as it loads) must print what loading
// everything first and then rendering prints: `expected` is that text, or nothing when that failed.
// The printed stream, `# Source:` comments included, must read back as exactly `objects`: a name
// that ends a comment would add or change documents.
void CheckStreamingRender(const std::string& content, ValidationMode validate,
                          const std::optional<std::string>& expected, const std::vector<trainer::Tree>& objects = {}) {
  OneFileSystem fs(content);
  std::optional<std::string> streamed;
  try {
    trainer::StringSink sink;
    trainer::RenderTo(Request(validate), fs, sink);
    streamed = sink.text();
  } catch (const trainer::Error&) {
  }
  if (streamed.has_value() != expected.has_value()) {
    Finding(streamed ? "the streaming render succeeds where loading first fails"
                     : "the streaming render fails where loading first succeeds",
            streamed.value_or(expected.value_or("")));
  }
  if (!streamed) return;
  if (*streamed != *expected) Finding("the streaming render prints something else", *streamed + "\n----\n" + *expected);
  CheckWrittenYaml(*streamed, objects, objects.size(),
                   "a YAML 1.1 reader reads the rendered stream as other documents");
  if (ReadBack(*streamed, "the rendered stream does not read back") != objects) {
    Finding("the rendered stream reads back as other documents than the objects rendered", *streamed);
  }
}

// DirSink, checking each file name before it is written: a plain name, so that it lands directly
// in the folder. It notes a second object of one file name (two TrainJobs of one name render two
// JobSets of one name), which DirSink refuses as trainer(1) says.
class CheckedDirSink : public trainer::app::DirSink {
 public:
  using DirSink::DirSink;
  void File(const std::string& name, std::string_view yaml, trainer::FileAccess access) override {
    if (name.empty() || name == "." || name == ".." ||
        name.find_first_of(std::string_view("/\0", 2)) != std::string::npos) {
      Finding("--output-dir is given a file name that is no plain name", name);
    }
    duplicate_ = duplicate_ || !names_.insert(name).second;
    DirSink::File(name, yaml, access);
  }
  bool duplicate() const { return duplicate_; }

 private:
  std::set<std::string> names_;
  bool duplicate_ = false;
};

std::string Names(const std::filesystem::path& dir) {
  std::string names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names += entry.path().filename().string() + "\n";
  return names;
}

// `trainer render --output-dir` through the real file-writing code, into a new scratch folder: on
// success the folder holds one file per object, each holding `expected`'s text for it (nothing when
// the render to stdout failed), every file directly in it and no temporary file left; on failure it
// holds nothing. Nothing may appear beside the scratch folder.
void CheckOutputDir(const std::string& content, ValidationMode validate,
                    const std::optional<std::vector<std::string>>& expected) {
  std::string scratch = scratch_parent + "/input-XXXXXX";
  if (mkdtemp(scratch.data()) == nullptr) Finding("cannot make a scratch folder", std::strerror(errno));
  const std::filesystem::path out = scratch + "/out";
  bool rendered = false;
  {
    OneFileSystem fs(content);
    auto writer = trainer::NewRealFileWriter();
    CheckedDirSink sink(out.string(), *writer);
    try {
      trainer::RenderTo(Request(validate), fs, sink);
      rendered = true;
    } catch (const trainer::Error&) {
    } catch (const trainer::app::OutputDirError& e) {
      if (!sink.duplicate()) Finding("--output-dir cannot write a file into an empty folder", e.what());
    }
    if (rendered) {
      try {
        sink.Commit();
      } catch (const trainer::Error& e) {
        Finding("--output-dir cannot rename its files into an empty folder", e.what());
      }
    }
  }
  if (rendered && !expected) Finding("--output-dir renders where the render to stdout fails", content);

  const std::string beside = Names(scratch_parent);
  if (beside != std::filesystem::path(scratch).filename().string() + "\n") {
    Finding("a file appeared beside the --output-dir folder's parent", beside);
  }
  const std::string in_scratch = Names(scratch);
  if (!in_scratch.empty() && in_scratch != "out\n") {
    Finding("a file appeared beside the --output-dir folder", in_scratch);
  }
  if (!rendered && !in_scratch.empty()) Finding("a failed --output-dir render left its folder behind", Names(out));
  std::multiset<std::string> left;
  if (rendered) left.insert(expected->begin(), expected->end());
  if (!in_scratch.empty()) {
    if (std::filesystem::is_symlink(out) || !std::filesystem::is_directory(out)) {
      Finding("--output-dir is no folder", out.string());
    }
    for (const auto& entry : std::filesystem::directory_iterator(out)) {
      const std::string name = entry.path().filename().string();
      if (trainer::IsTemporaryName(name)) Finding("--output-dir left a temporary file behind", name);
      if (!entry.is_regular_file() || entry.is_symlink()) {
        Finding("--output-dir holds something else than a file", name);
      }
      std::ifstream file(entry.path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      auto it = left.find(text);
      if (it == left.end()) Finding("--output-dir holds a file that is no rendered object's", name + "\n" + text);
      left.erase(it);
    }
  }
  if (!left.empty()) Finding("--output-dir lacks the file of a rendered object", *left.begin());
  std::filesystem::remove_all(scratch);
}

// A migration report in each format of `trainer diff --legacy`.
void FormatEveryWay(const trainer::Report& report) {
  for (trainer::ReportFormat format :
       {trainer::ReportFormat::kHuman, trainer::ReportFormat::kUnified, trainer::ReportFormat::kBrief,
        trainer::ReportFormat::kJson, trainer::ReportFormat::kGithub}) {
    trainer::ReportOptions options;
    options.format = format;
    (void)trainer::FormatReport(report, options);
  }
}

// `trainer diff --legacy` on the loaded inputs, which keeps going past TrainJobs it cannot check:
// with the JobSets and runtime snapshots of the input as the cluster's state (the next apply on a
// live JobSet, the JobSet webhook), in every report format.
void FuzzMigration(const trainer::Inputs& inputs, ValidationMode validate) {
  trainer::RenderOptions options;
  options.validate = validate;
  std::vector<trainer::Diagnostic> warnings;
  trainer::Report report;
  try {
    report = trainer::CheckMigration(inputs, options, {}, &warnings);
  } catch (const trainer::Error&) {
    return;
  }
  FormatEveryWay(report);
  // --update-baseline's file reads back as itself, and acknowledging every change of a report
  // formats in every way.
  static const std::string kBaselineName = "baseline.yaml";
  const std::string written = trainer::Baseline::Of(report).Format();
  try {
    if (trainer::Baseline::Parse(written, &kBaselineName).Format() != written) {
      Finding("a baseline written by --update-baseline reads back as another", written);
    }
  } catch (const trainer::Error& e) {
    Finding("a baseline written by --update-baseline does not read back", written + "\n----\n" + e.what());
  }
  trainer::Acknowledge(report, trainer::Baseline::Parse(written, &kBaselineName));
  FormatEveryWay(report);
}

// The input read as a --baseline FILE: rejected with an Error, or read into a baseline that writes
// and reads back as itself.
void FuzzBaseline(const std::string& content) {
  static const std::string kName = "baseline.yaml";
  std::string written;
  try {
    written = trainer::Baseline::Parse(content, &kName).Format();
  } catch (const trainer::Error&) {
    return;
  }
  try {
    if (trainer::Baseline::Parse(written, &kName).Format() != written) {
      Finding("a baseline reads back as another once written", written);
    }
  } catch (const trainer::Error& e) {
    Finding("a baseline does not read back once written", written + "\n----\n" + e.what());
  }
}

void FuzzRender(const std::string& content, ValidationMode validate) {
  OneFileSystem fs(content);
  trainer::LoadOptions load;
  load.paths = {OneFileSystem::kPath};
  load.validate = validate;
  trainer::Inputs inputs;
  try {
    inputs = trainer::Load(load, fs);
    FuzzMigration(inputs, validate);
    inputs.Checkpoint();
  } catch (const trainer::Error&) {
    CheckStreamingRender(content, validate, std::nullopt);
    if (mode.output_dir) CheckOutputDir(content, validate, std::nullopt);
    return;
  }
  trainer::RenderOptions current;
  current.validate = validate;
  trainer::RenderOptions legacy = current;
  legacy.legacy_image = true;
  std::vector<trainer::RenderedJob> current_jobs;
  std::vector<trainer::RenderedJob> legacy_jobs;
  try {
    current_jobs = trainer::RenderJobs(inputs, current);
  } catch (const trainer::Error&) {
    CheckStreamingRender(content, validate, std::nullopt);
    if (mode.output_dir) CheckOutputDir(content, validate, std::nullopt);
    return;
  }
  CheckReadsBack(current_jobs);
  std::vector<std::string> texts;  // each object as `trainer render` prints it
  std::vector<trainer::Tree> objects;
  for (const auto& job : current_jobs) {
    // `trainer render` prints nothing for a TrainJob another controller manages (the controller
    // skips it); RenderJobs, made for diff --legacy, which leaves those out itself, renders it.
    if (trainer::ManagedByAnotherController(*job.job)) continue;
    for (const trainer::Tree& object : job.objects) {
      std::string text = "---\n" + trainer::SourceComment(*job.job, *job.runtime, job.snapshot);
      trainer::WriteYaml(object, text);
      texts.push_back(std::move(text));
      objects.push_back(object);
    }
  }
  std::string expected;
  for (const std::string& text : texts) expected += text;
  CheckStreamingRender(content, validate, expected, objects);
  if (mode.output_dir) CheckOutputDir(content, validate, texts);
  try {
    legacy_jobs = trainer::RenderJobs(inputs, legacy);
  } catch (const trainer::Error&) {
    return;
  }

  // --explain's comments are escaped as the Source comment is: the text reads back as the object.
  for (const auto& job : current_jobs) {
    trainer::Explain explain = trainer::OriginExplainer(*job.job, *job.runtime, job.snapshot);
    for (const trainer::Tree& object : job.objects) {
      std::string yaml = trainer::SourceComment(*job.job, *job.runtime, job.snapshot);
      trainer::WriteYaml(object, yaml, &explain);
      CheckWrittenYaml(yaml, {object}, 0, "a YAML 1.1 reader reads YAML rendered with --explain as something else");
      std::vector<trainer::Tree> back = ReadBack(yaml, "YAML rendered with --explain does not read back");
      if (back.size() != 1 || back[0] != object) {
        Finding("YAML rendered with --explain reads back as something else", yaml);
      }
    }
  }

  FormatEveryWay(trainer::CompareRenderings(legacy_jobs, current_jobs, {}));
}

// `trainer diff FROM TO` with the input's objects as FROM and, as TO, the same objects with the
// first and the last swapped and the last dropped (so that objects are matched, added and removed).
void FuzzDiffStreams(const std::string& content) {
  static const std::string kName = "objects.yaml";
  std::vector<trainer::Tree> from;
  try {
    from = trainer::ReadObjectStream(content, &kName);
  } catch (const trainer::Error&) {
    return;
  }
  std::vector<trainer::Tree> to = from;
  if (!to.empty()) std::swap(to.front(), to.back());
  if (to.size() > 1) to.pop_back();
  trainer::Report report = trainer::CompareStreams(from, to, {});
  for (trainer::ReportFormat format : {trainer::ReportFormat::kHuman, trainer::ReportFormat::kUnified,
                                       trainer::ReportFormat::kJson, trainer::ReportFormat::kGithub}) {
    trainer::ReportOptions options;
    options.format = format;
    options.context = 1;
    (void)trainer::FormatReport(report, options);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("TRAINER_FUZZ_MODE");
  const std::string_view value = name ? name : "";
  if (value == "growth") {
    mode.validate = {ValidationMode::kWarn};
    mode.output_dir = false;
  } else if (!value.empty()) {
    Finding("TRAINER_FUZZ_MODE must be unset or growth", std::string(value));
  }
  if (mode.output_dir) {
    // A folder of this process's own: another program's files in /tmp cannot pass for findings.
    scratch_parent = (std::filesystem::temp_directory_path() / "fuzz_render-XXXXXX").string();
    if (mkdtemp(scratch_parent.data()) == nullptr) Finding("cannot make a scratch folder", std::strerror(errno));
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove(scratch_parent, ignored);
    });  // empty unless a finding stopped the run
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string content(reinterpret_cast<const char*>(data), size);
  for (ValidationMode validate : mode.validate) FuzzRender(content, validate);
  FuzzDiffStreams(content);
  FuzzBaseline(content);
  return 0;
}
