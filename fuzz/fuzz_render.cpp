// libFuzzer target for the paths that read untrusted input: the loader (YAML reader, typed decode,
// CRD defaults), `trainer render` under each --validate mode, in both image modes and both output
// formats, --explain, the legacy/current comparison of `trainer diff --legacy`, and `trainer diff
// FROM TO` on the input and on the rendered output. Build and run: fuzz/README.md.
//
// trainer::Error is the expected way to reject an input. Anything else (a crash, a sanitizer
// report, another exception, a rendered output that does not read back as what was written) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diff/report.h"
#include "diff/stream.h"
#include "input/loader.h"
#include "render/render.h"
#include "util/error.h"
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
  std::vector<std::string> ListYamlFiles(const std::string&) override { return {}; }
  std::string Identity(const std::string& path) override { return path; }

  static constexpr const char* kPath = "input.yaml";

 private:
  std::string content_;
};

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_render: %s\n%s\n", what, detail.c_str());
  std::abort();
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
      std::vector<trainer::Tree> back = ReadBack(yaml, "rendered YAML does not read back");
      if (back.size() != 1 || back[0] != object) Finding("rendered YAML reads back as something else", yaml);
      std::string json;
      trainer::WriteJson(object, json);
      back = ReadBack(json, "rendered JSON does not read back");
      if (back.size() != 1 || back[0] != object) Finding("rendered JSON reads back as something else", json);
    }
  }
}

trainer::RenderRequest Request(ValidationMode validate) {
  trainer::RenderRequest request;
  request.load.paths = {OneFileSystem::kPath};
  request.load.validate = request.render.validate = validate;
  return request;
}

// `trainer render`'s streaming path (each TrainJob rendered as it loads) must print what loading
// everything first and then rendering prints: `expected` is that text, or nothing when that failed.
// The printed stream, `# Source:` comments included, must read back as exactly `objects`: a name
// that ends a comment would add or change documents.
void CheckStreamingRender(const std::string& content, ValidationMode validate, const std::optional<std::string>& expected,
                          const std::vector<trainer::Tree>& objects = {}) {
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
  if (ReadBack(*streamed, "the rendered stream does not read back") != objects) {
    Finding("the rendered stream reads back as other documents than the objects rendered", *streamed);
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
    inputs.Checkpoint();
  } catch (const trainer::Error&) {
    CheckStreamingRender(content, validate, std::nullopt);
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
    return;
  }
  CheckReadsBack(current_jobs);
  std::vector<std::string> texts;  // each object as `trainer render` prints it
  std::vector<trainer::Tree> objects;
  for (const auto& job : current_jobs) {
    for (const trainer::Tree& object : job.objects) {
      std::string text = "---\n" + trainer::SourceComment(*job.job, *job.runtime);
      trainer::WriteYaml(object, text);
      texts.push_back(std::move(text));
      objects.push_back(object);
    }
  }
  std::string expected;
  for (const std::string& text : texts) expected += text;
  CheckStreamingRender(content, validate, expected, objects);
  try {
    legacy_jobs = trainer::RenderJobs(inputs, legacy);
  } catch (const trainer::Error&) {
    return;
  }

  // --explain's comments are escaped as the Source comment is: the text reads back as the object.
  for (const auto& job : current_jobs) {
    trainer::Explain explain = trainer::OriginExplainer(*job.job, *job.runtime);
    for (const trainer::Tree& object : job.objects) {
      std::string yaml = trainer::SourceComment(*job.job, *job.runtime);
      trainer::WriteYaml(object, yaml, &explain);
      std::vector<trainer::Tree> back = ReadBack(yaml, "YAML rendered with --explain does not read back");
      if (back.size() != 1 || back[0] != object) Finding("YAML rendered with --explain reads back as something else", yaml);
    }
  }

  trainer::Report report = trainer::CompareRenderings(legacy_jobs, current_jobs, {});
  for (trainer::ReportFormat format : {trainer::ReportFormat::kHuman, trainer::ReportFormat::kUnified,
                                       trainer::ReportFormat::kBrief, trainer::ReportFormat::kJson,
                                       trainer::ReportFormat::kGithub}) {
    trainer::ReportOptions options;
    options.format = format;
    (void)trainer::FormatReport(report, options);
  }
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

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string content(reinterpret_cast<const char*>(data), size);
  for (ValidationMode validate : {ValidationMode::kStrict, ValidationMode::kWarn, ValidationMode::kIgnore}) {
    FuzzRender(content, validate);
  }
  FuzzDiffStreams(content);
  return 0;
}
