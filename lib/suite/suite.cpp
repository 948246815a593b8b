#include "suite/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "api/validation.h"
#include "diff/diff.h"
#include "diff/unified.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/strings.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

namespace stdfs = std::filesystem;

constexpr const char* kInput = "input.yaml";
constexpr const char* kArgs = "args";
constexpr const char* kCurrent = "current.yaml";
constexpr const char* kLegacy = "legacy.yaml";
constexpr const char* kError = "error";
constexpr const char* kOrderDependent = "order-dependent";
constexpr const char* kCaseFiles[] = {kInput, kArgs, kCurrent, kLegacy, kError};
constexpr const char* kArrow = " → ";

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  return s;
}

// Appends the lines of `text` to `lines`, each indented.
void AppendIndented(std::vector<std::string>& lines, const std::string& text, const std::string& indent) {
  if (text.empty()) return;
  std::string_view body = text;
  if (body.back() == '\n') body.remove_suffix(1);  // a final line break ends the last line
  for (std::string_view line : Split(body, '\n')) lines.push_back(indent + std::string(line));
}

// The error as `trainer render` prints it on stderr (not on a terminal), which is what an `error`
// file is matched against.
std::string ErrorText(const Error& e) {
  std::string text;
  for (const Diagnostic& d : e.diagnostics()) {
    if (!text.empty()) text += '\n';
    text += (d.HasLocation() ? "" : "trainer: error: ") + d.Format();
  }
  return text;
}

// A path in the report form; the root (a document that is not a map) has none.
std::string ReportPath(const Path& path) {
  std::string text = FormatPath(path);
  return text.empty() ? "(the whole object)" : text;
}

std::string FormatChange(const FieldChange& change) {
  std::string path = ReportPath(change.path);
  switch (change.kind) {
    case FieldChange::Kind::kAdded: return path + ": (absent)" + kArrow + FlowValue(*change.to);
    case FieldChange::Kind::kRemoved: return path + ": " + FlowValue(*change.from) + kArrow + "(absent)";
    case FieldChange::Kind::kReordered:
      return path + ": order " + FlowValue(*change.from) + kArrow + FlowValue(*change.to);
    case FieldChange::Kind::kModified: break;
  }
  // A changed multi-line string, line by line (a line of the report per line of the diff).
  if (std::vector<std::string> lines = StringLineDiff(change, 3); !lines.empty()) {
    std::string text = path + ": the string changed:";
    for (const std::string& line : lines) text += "\n      " + line;
    return text;
  }
  return path + ": " + FlowValue(*change.from) + kArrow + FlowValue(*change.to);
}

std::string Label(const Tree& object) { return ObjectId::Of(object).Label(); }

}  // namespace

std::vector<Tree> ExpectedObjects(std::vector<Tree> documents) {
  std::vector<Tree> objects;
  for (Tree& doc : documents) {
    const Tree* items = doc.IsMap() ? doc.Find("items") : nullptr;
    const std::string* api_version = doc.IsMap() ? doc.FindString("apiVersion") : nullptr;
    const std::string* kind = doc.IsMap() ? doc.FindString("kind") : nullptr;
    if (items && items->IsList() && api_version && *api_version == "v1" && kind && *kind == "List") {
      for (const Tree& item : items->items()) objects.push_back(item);
    } else {
      objects.push_back(std::move(doc));
    }
  }
  return objects;
}

std::vector<std::string> CompareObjects(const std::string& file, const std::vector<Tree>& expected,
                                        const std::vector<Tree>& rendered) {
  std::vector<std::string> lines;
  std::vector<std::size_t> order;  // the rendered position of each paired object, in expected order
  for (const ObjectDiff& d : DiffObjects(expected, rendered)) {
    std::string id = d.id.Label();
    switch (d.type) {
      case ChangeType::kUnchanged: break;
      case ChangeType::kModify:
        lines.push_back(fmt::format("{}: {}:", file, id));
        for (const FieldChange& change : d.changes) lines.push_back("  " + FormatChange(change));
        break;
      case ChangeType::kRemove: lines.push_back(fmt::format("{}: {}: expected, not rendered", file, id)); break;
      case ChangeType::kAdd: lines.push_back(fmt::format("{}: {}: rendered, not expected", file, id)); break;
    }
    if (d.from != nullptr && d.to != nullptr) order.push_back(static_cast<std::size_t>(d.to - rendered.data()));
  }
  if (!std::is_sorted(order.begin(), order.end())) {
    std::vector<std::string> want;
    std::vector<std::string> got;
    for (const Tree& t : expected) want.push_back(Label(t));
    for (const Tree& t : rendered) got.push_back(Label(t));
    lines.push_back(file + ": the objects are rendered in another order:");
    lines.push_back(fmt::format("  expected: {}", fmt::join(want, ", ")));
    lines.push_back(fmt::format("  rendered: {}", fmt::join(got, ", ")));
  }
  return lines;
}

namespace {

// The limits for reading an expected file and the rendering compared with it. Both hold what
// `trainer test` wrote from a rendering, and a rendering may hold more values than one input may
// (a TrainJob's env goes into every trainer container, a runtime patch into each job it names),
// so they must admit whatever a rendering is: it has no aliases, and is in memory whole before it
// is read, so neither its size nor its number of values is limited. Nesting keeps the inputs'
// limit: a rendering is no deeper than the inputs it comes from.
ReadLimits ExpectedFileLimits() {
  ReadLimits limits;
  limits.max_values = std::numeric_limits<std::size_t>::max();
  limits.max_bytes = std::numeric_limits<std::size_t>::max();
  return limits;
}

// The result of rendering a case one way: the output text, or the error message.
struct Outcome {
  bool ok = false;
  std::string text;
};

// The temporary files (lib/util/staged_files.h) in the folder `dir`, by name, in order: what an
// interrupted trainer left behind.
std::vector<std::string> StrayTemporaries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (IsTemporaryName(name)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

class CaseRunner {
 public:
  CaseRunner(SuiteMode mode, const SuiteOptions& options, FileSystem& fs, CaseResult& result)
      : mode_(mode), options_(options), fs_(fs), result_(result) {
    request_.render.plugin_order = options.plugin_order;
  }

  void Run() {
    for (const std::string& name : StrayTemporaries(result_.dir)) {
      Unfixable(Printable(name) + ": a temporary file left by an interrupted trainer run; remove it");
    }
    bool has_input = Has(kInput);
    bool has_args = Has(kArgs);
    if (!has_input && !has_args) return RunWithoutInput();
    std::vector<std::string> args_paths;
    if (has_args) {
      if (!options_.parse_args) throw Error("args: trainer test cannot read args here");
      request_ = options_.parse_args(Words(fs_.ReadFile(PathOf(kArgs))));
      request_.render.plugin_order = options_.plugin_order;
    }
    // Paths in args are relative to the case folder, as helm and kustomize read paths relative to
    // the file that names them: the case means the same from any folder.
    std::vector<std::string> written;  // as args writes them, parallel to args_paths
    if (has_args) {
      auto resolve = [&](std::string& p) {
        if (p.empty() || p == "-" || stdfs::path(p).is_absolute()) return;
        written.push_back(p);
        p = (stdfs::path(result_.dir) / p).lexically_normal().string();
        args_paths.push_back(p);
      };
      for (std::string& p : request_.load.paths) resolve(p);
      for (std::string& p : request_.load.runtime_paths) resolve(p);
      if (!request_.render.flux_templates_dir.empty()) resolve(request_.render.flux_templates_dir);
    }
    if (has_input) request_.load.paths.insert(request_.load.paths.begin(), PathOf(kInput));
    // A file of ../shared (the upstream files beside a checkout of trainer) that is absent: the
    // case is skipped, so that the suite also runs where only trainer was cloned.
    for (std::size_t i = 0; i < args_paths.size(); ++i) {
      if (!NamesShared(written[i]) || fs_.Stat(args_paths[i]) != FileSystem::Kind::kMissing) continue;
      result_.status = CaseResult::Status::kSkipped;
      result_.report.push_back(Printable(args_paths[i]) + " is absent (../shared is not beside this checkout)");
      return;
    }
    // Checked before rendering, so that a wrong path cannot make --update replace the expected
    // files by a "no such file" error.
    for (std::size_t i = 0; i < args_paths.size(); ++i) {
      if (fs_.Stat(args_paths[i]) != FileSystem::Kind::kMissing) continue;
      throw Error(fmt::format("args: {}: no such file or folder ({}: paths in args are relative to the case folder)",
                              written[i], args_paths[i]));
    }
    Outcome current = RenderAs(false);
    if (current.ok) {
      RunRenderingCase(current);
    } else {
      RunErrorCase(current.text);
    }
  }

  // Sets the status and the action from what was found.
  void Finish() {
    if (result_.status == CaseResult::Status::kSkipped) return;
    bool failed = unfixable_ || (differs_ && mode_ != SuiteMode::kUpdate);
    result_.status = failed ? CaseResult::Status::kFailed : CaseResult::Status::kPassed;
    std::vector<std::string> wrote;
    std::vector<std::string> removed;
    for (const ExpectedFileChange& c : result_.changes) {
      std::string name = stdfs::path(c.path).filename().string();
      (c.content ? wrote : removed).push_back(name);
    }
    std::vector<std::string> parts;
    if (!wrote.empty()) parts.push_back(fmt::format("wrote {}", fmt::join(wrote, ", ")));
    if (!removed.empty()) parts.push_back(fmt::format("removed {}", fmt::join(removed, ", ")));
    result_.action = fmt::format("{}", fmt::join(parts, "; "));
  }

 private:
  // Whether an args path, as written, goes up to a folder `shared` (../../../shared/upstream/...).
  static bool NamesShared(std::string_view p) {
    if (!p.starts_with("../")) return false;
    while (p.starts_with("../")) p.remove_prefix(3);
    return p.starts_with("shared/") && p.size() > 7;
  }

  std::string PathOf(const char* name) const { return (stdfs::path(result_.dir) / name).string(); }
  bool Has(const char* name) const { return fs_.Stat(PathOf(name)) == FileSystem::Kind::kFile; }

  // A difference that --update repairs.
  void Differs(const std::string& line) {
    differs_ = true;
    result_.report.push_back(line);
  }
  // A problem that no update repairs.
  void Unfixable(const std::string& line) {
    unfixable_ = true;
    result_.report.push_back(line);
  }
  void Write(const char* name, const std::string& content) { result_.changes.push_back({PathOf(name), content}); }
  void Remove(const char* name) { result_.changes.push_back({PathOf(name), std::nullopt}); }
  bool updating() const { return mode_ == SuiteMode::kUpdate; }

  std::vector<const char*> PresentOutputs() const {
    std::vector<const char*> names;
    for (const char* name : {kCurrent, kLegacy}) {
      if (Has(name)) names.push_back(name);
    }
    return names;
  }

  Outcome RenderAs(bool legacy) {
    RenderRequest request = request_;
    request.render.legacy_image = legacy;
    try {
      StringSink sink;
      RenderTo(request, fs_, sink);
      return {true, sink.text()};
    } catch (const Error& e) {
      return {false, ErrorText(e)};
    }
  }

  // Expected files without input.yaml or args: nothing produces them any more.
  void RunWithoutInput() {
    std::vector<std::string> names;
    for (const char* name : {kCurrent, kLegacy, kError}) {
      if (!Has(name)) continue;
      names.emplace_back(name);
      if (updating()) Remove(name);
    }
    Differs(fmt::format("obsolete {}: no input.yaml or args produces {}", fmt::join(names, ", "),
                        names.size() == 1 ? "it" : "them"));
  }

  void RunErrorCase(const std::string& message) {
    std::vector<const char*> outputs = PresentOutputs();
    bool has_error = Has(kError);
    if (!outputs.empty()) {
      Differs(fmt::format("obsolete {}: the rendering now fails:",
                          fmt::join(outputs, ", ")));
      AppendIndented(result_.report, message, "  ");
      if (updating()) {
        for (const char* name : outputs) Remove(name);
        if (!has_error) Write(kError, message + "\n");
      }
    }
    if (has_error) {
      std::string want = Trim(fs_.ReadFile(PathOf(kError)));
      if (message.find(want) != std::string::npos) return;
      Differs("error: the message does not contain the expected text");
      AppendIndented(result_.report, want, "  expected: ");
      AppendIndented(result_.report, message, "  message:  ");
      if (updating()) Write(kError, message + "\n");
      return;
    }
    if (!outputs.empty()) return;
    // A new case whose rendering fails: recorded by --update only, since it was most likely meant
    // to render.
    if (updating()) {
      Differs("the rendering fails:");
      AppendIndented(result_.report, message, "  ");
      Write(kError, message + "\n");
      result_.recorded = true;
      return;
    }
    Unfixable(mode_ == SuiteMode::kCheck
                  ? "no expected file (current.yaml, legacy.yaml or error), and the rendering fails:"
                  : "the rendering fails (trainer test --update records this message in error):");
    AppendIndented(result_.report, message, "  ");
  }

  void RunRenderingCase(const Outcome& current) {
    std::vector<const char*> outputs = PresentOutputs();
    bool has_error = Has(kError);
    if (has_error) {
      Differs("obsolete error: the case now renders; the error it expects:");
      AppendIndented(result_.report, Trim(fs_.ReadFile(PathOf(kError))), "  ");
      if (updating()) Remove(kError);
    }
    if (outputs.empty()) return RecordNewCase(current, has_error);
    bool order_dependent = !options_.plugin_order.empty() && Has(kOrderDependent);
    bool any_difference = false;
    for (const char* name : {kCurrent, kLegacy}) {
      bool legacy = std::string_view(name) == kLegacy;
      const char* expected = Has(name) ? name : legacy && LegacyDefaultsToCurrent() ? kCurrent : nullptr;
      if (expected == nullptr) continue;
      Outcome outcome = legacy ? RenderAs(true) : current;
      if (!outcome.ok) {
        Unfixable(fmt::format("{}: the rendering with --legacy fails:", name));
        AppendIndented(result_.report, outcome.text, "  ");
        continue;
      }
      bool same_as_current = legacy && LegacyDefaultsToCurrent() && outcome.text == current.text;
      // current.yaml's own comparison says it all, once.
      if (same_as_current && !Has(kLegacy)) continue;
      std::vector<std::string> lines = CompareWithFile(expected, outcome.text, legacy);
      if (same_as_current && lines.empty()) {
        // It asserts what the case asserts without it: no failure, and --update removes it.
        if (!order_dependent) NoteRedundantLegacy();
        continue;
      }
      if (same_as_current) {
        lines.push_back(
            "obsolete legacy.yaml: the rendering with --legacy is the same as without, which current.yaml holds");
      }
      if (lines.empty()) continue;
      any_difference = true;
      if (order_dependent) continue;
      for (const std::string& line : lines) Differs(line);
      if (!updating()) continue;
      if (same_as_current) {
        Remove(kLegacy);
      } else {
        Write(name, outcome.text);
      }
    }
    if (order_dependent && !any_difference) {
      Unfixable(fmt::format(
          "the case says it depends on the plugin order, but TRAINER_PLUGIN_ORDER={} changes nothing: update or "
          "remove {}",
          options_.plugin_order, Printable(PathOf(kOrderDependent))));
    }
  }

  // A legacy.yaml that holds the rendering with --legacy, which is current.yaml's: --update
  // removes it, saying why; other runs pass the case and count it for the note.
  void NoteRedundantLegacy() {
    if (!updating()) {
      result_.redundant_legacy = true;
      return;
    }
    result_.report.push_back(
        "redundant legacy.yaml: the rendering with --legacy is the same as without, which current.yaml holds");
    Remove(kLegacy);
  }

  // Whether a missing legacy.yaml stands for current.yaml: legacy.yaml is kept only where the image
  // behaviour change shows, so that a change to a case is reviewed once; one that no longer
  // differs is redundant, or obsolete when it does not hold the rendering either.
  bool LegacyDefaultsToCurrent() const { return Has(kCurrent); }

  // A case with no current.yaml or legacy.yaml.
  void RecordNewCase(const Outcome& current, bool has_error) {
    if (mode_ == SuiteMode::kCheck) {
      if (!has_error)
        Unfixable("no expected file: current.yaml, legacy.yaml or error (trainer test without --check writes them)");
      return;
    }
    // An obsolete error is replaced by --update only.
    if (has_error && !updating()) return;
    Outcome legacy = RenderAs(true);
    if (!legacy.ok) {
      Unfixable("legacy.yaml: the rendering with --legacy fails:");
      AppendIndented(result_.report, legacy.text, "  ");
      return;
    }
    Write(kCurrent, current.text);
    if (legacy.text != current.text) Write(kLegacy, legacy.text);
    result_.recorded = !has_error;
  }

  // Report lines for the differences between the expected file `name` and `rendered`, the
  // rendering with --legacy when `legacy`.
  std::vector<std::string> CompareWithFile(const char* name, const std::string& rendered, bool legacy) {
    std::string path = PathOf(name);
    // current.yaml standing for a missing legacy.yaml.
    bool stands_in = legacy && std::string_view(name) == kCurrent;
    if (options_.exact) return CompareBytes(path, rendered, legacy, stands_in);
    std::string rendered_name = "<rendering>";
    std::string label = stands_in ? std::string(name) + " (rendered with --legacy, as legacy.yaml is absent)" : name;
    std::vector<Tree> expected;
    try {
      expected = ReadYamlStream(fs_.ReadFile(path), &path, ExpectedFileLimits());
    } catch (const Error& e) {
      std::vector<std::string> lines = {fmt::format("{}: cannot be read:", label)};
      AppendIndented(lines, e.what(), "  ");
      return lines;
    }
    return CompareObjects(label, ExpectedObjects(std::move(expected)),
                          ExpectedObjects(ReadYamlStream(rendered, &rendered_name, ExpectedFileLimits())));
  }

  // SuiteOptions::exact: a unified diff from the expected file at `path` to `rendered`.
  std::vector<std::string> CompareBytes(const std::string& path, const std::string& rendered, bool legacy,
                                        bool stands_in) {
    std::string expected = fs_.ReadFile(path);
    if (expected == rendered) return {};
    std::vector<std::string> lines;
    if (!options_.plugin_order.empty()) lines.push_back("with TRAINER_PLUGIN_ORDER=" + options_.plugin_order + ":");
    lines.push_back(fmt::format("--- {} (expected{})", Printable(path), stands_in ? ", as legacy.yaml is absent" : ""));
    lines.push_back(fmt::format("+++ trainer{} output (actual)", legacy ? " --legacy" : ""));
    std::string hunks = UnifiedHunks(SplitLines(expected), SplitLines(rendered), 3);
    if (hunks.empty()) hunks = "(the lines are the same: the two differ in the newline at the end)";
    AppendIndented(lines, hunks, "");
    return lines;
  }

  SuiteMode mode_;
  const SuiteOptions& options_;
  FileSystem& fs_;
  CaseResult& result_;
  RenderRequest request_;
  bool differs_ = false;
  bool unfixable_ = false;
};

// `path` without "./", "a/../" and a trailing separator.
std::string Normalize(const stdfs::path& path) {
  stdfs::path p = path.lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s.empty() ? "." : s;
}

void CollectCases(const stdfs::path& dir, std::vector<std::string>& out) {
  std::vector<stdfs::path> children;
  std::error_code ec;
  for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    // Symbolic links are not followed, so that a loop cannot recurse forever.
    std::error_code entry_ec;
    if (name.empty() || name[0] == '.' || !stdfs::is_directory(it->symlink_status(entry_ec))) continue;
    children.push_back(it->path());
  }
  if (ec) throw Error(fmt::format("{}: {}", dir.string(), ec.message()));
  std::sort(children.begin(), children.end());
  for (const stdfs::path& child : children) {
    std::string normalized = Normalize(child);
    if (IsCaseDir(normalized)) {
      out.push_back(normalized);
    } else {
      CollectCases(child, out);
    }
  }
}

// `text` with each of its lines Printable (util/quote.h), the line breaks between them kept.
std::string PrintableLines(std::string_view text) {
  std::string out;
  for (std::size_t start = 0;;) {
    std::size_t end = text.find('\n', start);
    AppendPrintable(text.substr(start, end == std::string_view::npos ? end : end - start), out);
    if (end == std::string_view::npos) return out;
    out.push_back('\n');
    start = end + 1;
  }
}

// `text` as XML 1.0 character data or, for an `attribute`, as a quoted attribute value that keeps
// its line breaks. Well-formed whatever `text` holds: its lines are Printable, which leaves no
// control character, no invalid UTF-8 and no noncharacter that XML 1.0 cannot hold.
std::string XmlEscape(std::string_view text, bool attribute = false) {
  std::string out;
  for (char c : PrintableLines(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      default: out += c;
    }
  }
  return out;
}

// The first report line, for JUnit's one-line failure message.
std::string FailureMessage(const CaseResult& c) {
  if (c.report.empty()) return "failed";
  std::string line = c.report.front();
  if (!line.empty() && line.back() == ':') line.pop_back();
  return line;
}

}  // namespace

void ApplyChanges(const std::vector<ExpectedFileChange>& changes, FileWriter& writer) {
  StagedFiles staged(writer, "cannot update the expected files: ");
  for (const ExpectedFileChange& c : changes) {
    if (c.content) staged.Stage(c.path, *c.content);
  }
  staged.Commit();
  for (const ExpectedFileChange& c : changes) {
    if (c.content) continue;
    try {
      writer.Remove(c.path);
    } catch (const Error& e) {
      throw Error(fmt::format("cannot remove an obsolete expected file: {}", e.what()));
    }
  }
}

// Why the case file `name` of `dir` is there but cannot be read as a file (a folder, a FIFO, a
// symbolic link to nothing), or nullopt. Such a file would be skipped as absent, and a FIFO would
// block the read; a symbolic link to a file is read.
std::optional<std::string> UnreadableCaseFile(const std::string& dir, const char* name) {
  const stdfs::path path = stdfs::path(dir) / name;
  std::error_code ec;
  if (!stdfs::exists(stdfs::symlink_status(path, ec))) return std::nullopt;
  const stdfs::file_status target = stdfs::status(path, ec);
  if (stdfs::is_regular_file(target)) return std::nullopt;
  std::string what = "is not a regular file";
  if (stdfs::is_directory(target)) {
    what = "is a folder";
  } else if (stdfs::is_fifo(target)) {
    what = "is a FIFO (named pipe)";
  } else if (target.type() == stdfs::file_type::not_found) {
    what = "is a symbolic link to nothing";
  } else if (ec) {
    what = "cannot be read: " + ec.message();  // a loop of symbolic links
  }
  return fmt::format("{}: {}; a test case's {} must be a file", path.string(), what, name);
}

bool IsCaseDir(const std::string& dir) {
  std::error_code ec;
  return std::any_of(std::begin(kCaseFiles), std::end(kCaseFiles),
                     [&](const char* name) { return stdfs::is_regular_file(stdfs::path(dir) / name, ec); });
}

std::vector<std::string> FindCases(const std::vector<std::string>& dirs) {
  std::vector<std::string> cases;
  Diagnostics problems;
  auto problem = [&problems](std::string message) { problems.Add(Diagnostic{.message = std::move(message)}); };
  for (const std::string& dir : dirs) {
    std::error_code ec;
    stdfs::file_status status = stdfs::status(dir, ec);
    if (!stdfs::exists(status)) {
      problem(fmt::format("{}: no such folder", dir));
      continue;
    }
    if (!stdfs::is_directory(status)) {
      problem(fmt::format("{}: not a folder", dir));
      continue;
    }
    std::size_t before = cases.size();
    std::string normalized = Normalize(dir);
    if (IsCaseDir(normalized)) {
      cases.push_back(normalized);
    } else {
      CollectCases(normalized, cases);
    }
    if (cases.size() == before) {
      problem(fmt::format(
          "{}: no test case in it (a folder holding input.yaml, args, current.yaml, legacy.yaml or error)", dir));
    }
  }
  // A case named by two DIRs runs once.
  std::set<std::string> seen;
  std::erase_if(cases, [&seen](const std::string& c) { return !seen.insert(c).second; });
  for (const std::string& c : cases) {
    for (const char* name : kCaseFiles) {
      if (std::optional<std::string> why = UnreadableCaseFile(c, name)) problem(std::move(*why));
    }
  }
  problems.Checkpoint();
  return cases;
}

CaseResult RunCase(const std::string& dir, SuiteMode mode, FileSystem& fs, const SuiteOptions& options) {
  CaseResult result;
  result.dir = dir;
  CaseRunner runner(mode, options, fs, result);
  try {
    runner.Run();
    runner.Finish();
  } catch (const Error& e) {
    // The case cannot be run as written (unreadable file, bad args): it fails, and changes nothing.
    result.changes.clear();
    result.recorded = false;
    result.action.clear();
    AppendIndented(result.report, e.what(), "");
    result.status = CaseResult::Status::kFailed;
  }
  return result;
}

SuiteResult RunSuite(const std::vector<std::string>& case_dirs, SuiteMode mode, FileSystem& fs,
                     const SuiteOptions& options) {
  SuiteResult suite;
  for (const std::string& dir : case_dirs) {
    CaseResult result = RunCase(dir, mode, fs, options);
    switch (result.status) {
      case CaseResult::Status::kPassed: ++suite.passed; break;
      case CaseResult::Status::kFailed: ++suite.failed; break;
      case CaseResult::Status::kSkipped: ++suite.skipped; break;
    }
    suite.cases.push_back(std::move(result));
  }
  return suite;
}

std::vector<std::string> Notices(const SuiteResult& result) {
  std::size_t redundant = static_cast<std::size_t>(
      std::count_if(result.cases.begin(), result.cases.end(), [](const CaseResult& c) { return c.redundant_legacy; }));
  if (redundant == 0) return {};
  return {fmt::format("{} a legacy.yaml that repeats current.yaml (the rendering with --legacy is the same as "
                      "without); trainer test --update removes {}",
                      redundant == 1 ? "1 case holds" : fmt::format("{} cases hold", redundant),
                      redundant == 1 ? "it" : "them")};
}

std::string FormatText(const SuiteResult& result) {
  std::string out;
  for (const CaseResult& c : result.cases) {
    switch (c.status) {
      case CaseResult::Status::kSkipped:
        out += fmt::format("SKIP {}: {}\n", Printable(c.dir), PrintableLines(fmt::format("{}", fmt::join(c.report, " "))));
        continue;
      case CaseResult::Status::kFailed: out += fmt::format("FAIL {}\n", Printable(c.dir)); break;
      case CaseResult::Status::kPassed:
        if (c.action.empty()) continue;
        out += fmt::format("{} {}: {}\n", c.recorded ? "NEW" : "UPDATED", Printable(c.dir), c.action);
        break;
    }
    for (const std::string& line : c.report) out += "  " + PrintableLines(line) + "\n";
    if (c.status == CaseResult::Status::kFailed && !c.action.empty()) out += "  updated: " + c.action + "\n";
  }
  out += fmt::format("{} passed, {} failed", result.passed, result.failed);
  if (result.skipped > 0) out += fmt::format(", {} skipped", result.skipped);
  return out + "\n";
}

std::string FormatJUnit(const SuiteResult& result) {
  std::size_t total = result.cases.size();
  std::string counts =
      fmt::format(R"(tests="{}" failures="{}" errors="0" skipped="{}")", total, result.failed, result.skipped);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"trainer test\" {}>\n", counts);
  out += fmt::format("  <testsuite name=\"trainer test\" {}>\n", counts);
  for (const CaseResult& c : result.cases) {
    stdfs::path dir(c.dir);
    std::string parent = dir.parent_path().string();
    std::string open = fmt::format(R"(    <testcase classname="{}" name="{}")",
                                   XmlEscape(Printable(parent.empty() ? "." : parent), true),
                                   XmlEscape(Printable(dir.filename().string()), true));
    std::string report = fmt::format("{}", fmt::join(c.report, "\n"));
    switch (c.status) {
      case CaseResult::Status::kPassed:
        if (c.action.empty()) {
          out += open + "/>\n";
        } else {
          out += open + ">\n      <system-out>" + XmlEscape(c.action + (report.empty() ? "" : "\n" + report)) +
                 "</system-out>\n    </testcase>\n";
        }
        break;
      case CaseResult::Status::kFailed:
        out += open + ">\n" +
               fmt::format("      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n",
                           XmlEscape(FailureMessage(c), true), XmlEscape(report)) +
               "    </testcase>\n";
        break;
      case CaseResult::Status::kSkipped:
        out += open + ">\n" + fmt::format("      <skipped message=\"{}\"/>\n", XmlEscape(report, true)) +
               "    </testcase>\n";
        break;
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace trainer
