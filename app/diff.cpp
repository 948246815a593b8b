// `trainer diff`: compares the legacy and the current rendering of TrainJobs (--legacy PATH...), or
// two streams of rendered objects (FROM TO, also as KUBECTL_EXTERNAL_DIFF). Exit codes as diff(1).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <string>

#include "app/commands.h"
#include "app/trainer_files.h"
#include "app/validate_option.h"
#include "diff/baseline.h"
#include "diff/migration.h"
#include "diff/report.h"
#include "diff/stream.h"
#include "render/render.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/staged_files.h"

namespace trainer::app {

namespace {

constexpr int kNoDifferences = 0;
constexpr int kDifferences = 1;
constexpr const char* kPathHelp =
    "With --legacy: TrainJob and runtime files or directories, as for render. Without: FROM and TO, rendered objects "
    "(files, or directories of which every file is read, recursively); - for stdin";
// More context than any rendered object has lines.
constexpr int kMaxContext = 1'000'000;

struct DiffFlags {
  std::vector<std::string> paths;
  std::vector<std::string> filenames;  // -f (--legacy): inputs as kubectl takes them, after PATH
  bool legacy = false;
  std::vector<std::string> runtimes;
  std::string namespace_ = "default";
  const CLI::Option* namespace_option = nullptr;  // to tell whether -n was given
  std::string flux_templates;
  bool skip_non_trainer = false;  // see app/trainer_files.h
  std::string validate = "strict";
  std::string output = "human";
  int context = 3;
  std::vector<std::string> ignore;
  bool exit_zero = false;
  bool quiet = false;        // --quiet: the exit status says it all
  bool allow_empty = false;  // --allow-empty: see RejectEmptyInputs
  std::string color = "auto";
  bool summary = false;          // --summary: the summary by runtime and the totals only
  bool runtimes_only = false;    // --runtimes-only: probe each runtime instead of TrainJobs
  bool verbose = false;          // -v: list the unchanged and not affected TrainJobs too
  std::string baseline;          // --baseline FILE: the changes already reviewed (diff/baseline.h)
  bool update_baseline = false;  // --update-baseline: record every change of this run in FILE
  // The options that apply to --legacy only, to tell when they were given.
  std::vector<const CLI::Option*> legacy_only;
};

// --color auto: only on a terminal, and neither NO_COLOR (non-empty) nor TERM=dumb is set.
bool UseColor(const std::string& when) {
  if (when == "always") return true;
  if (when == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) != 0;
}

// Every regular file under `dir`, recursively, sorted: kubectl's diff directories hold one file
// per object, named without an extension.
std::vector<std::string> ListFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::follow_directory_symlink, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(it->path().string());
  }
  if (ec) throw Error(fmt::format("{}: cannot list: {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

// Reads the objects of one side of `trainer diff FROM TO`, collecting problems in `errors`.
class StreamReader {
 public:
  explicit StreamReader(FileSystem& fs) : fs_(fs) {}

  std::vector<Tree> Read(const std::string& path) {
    std::vector<Tree> objects;
    if (path == "-") {
      if (stdin_read_) {
        errors_.push_back(Diagnostic{.message = "standard input (-) can be only one of FROM and TO"});
        return objects;
      }
      stdin_read_ = true;
      ReadStream(fs_.ReadStdin(), "<stdin>", objects);
      return objects;
    }
    switch (fs_.Stat(path)) {
      case FileSystem::Kind::kMissing:
        errors_.push_back(Diagnostic{.message = fmt::format("{}: no such file or directory", path)});
        break;
      case FileSystem::Kind::kDirectory:
        for (const std::string& file : ListFiles(path)) ReadFile(file, objects);
        break;
      case FileSystem::Kind::kFile:
      case FileSystem::Kind::kOther:  // pipes, as in `trainer diff <(...) <(...)`
        ReadFile(path, objects);
        break;
    }
    return objects;
  }

  void Checkpoint() {
    if (!errors_.empty()) throw Error(std::move(errors_));
  }

 private:
  void ReadFile(const std::string& path, std::vector<Tree>& objects) {
    try {
      ReadStream(fs_.ReadFile(path), path, objects);
    } catch (const Error& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }

  void ReadStream(const std::string& content, const std::string& name, std::vector<Tree>& objects) {
    names_.push_back(name);
    try {
      for (Tree& object : ReadObjectStream(content, &names_.back())) objects.push_back(std::move(object));
    } catch (const Error& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }

  FileSystem& fs_;
  std::deque<std::string> names_;  // origins point into this; it lives as long as the reader
  std::vector<Diagnostic> errors_;
  bool stdin_read_ = false;
};

ReportOptions Options(const DiffFlags& flags) {
  ReportOptions options;
  options.format = *ParseReportFormat(flags.output);
  options.context = static_cast<std::size_t>(flags.context);
  options.summary_only = flags.summary;
  options.verbose = flags.verbose;
  options.color =
      (options.format == ReportFormat::kHuman || options.format == ReportFormat::kUnified) && UseColor(flags.color);
  return options;
}

int Finish(const Report& report, const DiffFlags& flags) {
  const int status = Summarize(report).Differs() && !flags.exit_zero ? kDifferences : kNoDifferences;
  if (flags.quiet) return status;
  std::string out = FormatReport(report, Options(flags));
  WriteStdout(out);
  return status;
}

// A migration check of inputs that hold no TrainJob checks nothing, which is an error (exit 2), so
// that a wrong path or an empty dump does not pass unseen; --allow-empty lets it pass.
void RejectEmptyInputs(const Inputs& inputs, const DiffFlags& flags) {
  if (!inputs.jobs.empty() || flags.allow_empty) return;
  throw Error(
      "no TrainJob in the inputs: the migration check checked nothing (--allow-empty lets an input without "
      "TrainJobs pass)");
}

// The content of --baseline FILE, or nullopt when it is missing and --update-baseline creates it.
std::optional<std::string> ReadBaseline(const DiffFlags& flags, FileSystem& fs) {
  switch (fs.Stat(flags.baseline)) {
    case FileSystem::Kind::kMissing:
      if (flags.update_baseline) return std::nullopt;
      throw Error(
          fmt::format("{}: no such file or directory (--update-baseline creates it)", Printable(flags.baseline)));
    case FileSystem::Kind::kDirectory:
      throw Error(fmt::format("{}: is a directory, not a baseline file", Printable(flags.baseline)));
    case FileSystem::Kind::kFile:
    case FileSystem::Kind::kOther: break;
  }
  return fs.ReadFile(flags.baseline);
}

// Writes --baseline FILE at once (a temporary renamed over it), unless it holds these changes
// already: then it is not touched. `unchecked`: the TrainJobs whose old entries were kept.
void WriteBaseline(const DiffFlags& flags, const Baseline& baseline, const std::optional<std::string>& old_text,
                   std::size_t unchecked) {
  const std::string text = baseline.Format();
  const std::size_t n = baseline.entries().size();
  std::string notice =
      fmt::format("{}: {} recorded", Printable(flags.baseline), n == 1 ? "1 change" : fmt::format("{} changes", n));
  if (old_text && *old_text == text) {
    notice += " (unchanged)";
  } else {
    auto writer = NewRealFileWriter();
    StagedFiles staged(*writer, "--update-baseline: ");
    staged.Stage(flags.baseline, text);
    staged.Commit();
  }
  if (unchecked > 0) {
    notice += fmt::format("; the entries of {} that could not be checked kept as they were",
                          unchecked == 1 ? "the TrainJob" : fmt::format("the {} TrainJobs", unchecked));
  }
  if (!flags.quiet) std::cerr << "trainer: " << notice << '\n';
}

int RunDiff(const DiffFlags& flags) {
  std::vector<IgnoreRule> ignore;
  std::vector<Diagnostic> usage;
  for (const std::string& pattern : flags.ignore) {
    try {
      ignore.push_back(IgnoreRule::Parse(pattern));
    } catch (const Error& e) {
      usage.insert(usage.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!flags.legacy) {
    for (const CLI::Option* option : flags.legacy_only) {
      if (option->count() > 0) {
        usage.push_back(Diagnostic{.message = fmt::format("{} applies to --legacy only", option->get_name())});
      }
    }
    if (flags.paths.size() != 2) {
      std::string message = fmt::format(
          "expected FROM and TO, got {} path{} (use --legacy PATH... to compare the legacy and the current rendering "
          "of TrainJobs)",
          flags.paths.size(), flags.paths.size() == 1 ? "" : "s");
      usage.push_back(Diagnostic{.message = std::move(message)});
    }
  }
  if (flags.legacy && flags.paths.empty() && flags.filenames.empty()) {
    usage.push_back(Diagnostic{
        .message = "no input: give the TrainJob and runtime files as PATH... or -f PATH (see 'trainer diff --help')"});
  }
  if (flags.summary && flags.output != "human" && flags.output != "json") {
    usage.push_back(
        Diagnostic{.message = fmt::format("--summary applies to -o human and -o json, not -o {}", flags.output)});
  }
  if (flags.verbose && flags.output != "human") {
    usage.push_back(Diagnostic{.message = fmt::format("-v applies to -o human, not -o {}", flags.output)});
  }
  if (flags.update_baseline && flags.baseline.empty()) {
    usage.push_back(Diagnostic{.message = "--update-baseline needs --baseline FILE, the file it writes"});
  }
  if (!flags.baseline.empty() && flags.runtimes_only) {
    usage.push_back(Diagnostic{.message = "--baseline applies to TrainJobs, not to --runtimes-only"});
  }
  if (!usage.empty()) throw Error(std::move(usage));

  auto fs = NewRealFileSystem();
  if (!flags.legacy) {
    StreamReader reader(*fs);
    std::vector<Tree> from = reader.Read(flags.paths[0]);
    std::vector<Tree> to = reader.Read(flags.paths[1]);
    reader.Checkpoint();
    return Finish(CompareStreams(from, to, ignore), flags);
  }

  LoadOptions load;
  std::vector<std::string> paths = flags.paths;
  paths.insert(paths.end(), flags.filenames.begin(), flags.filenames.end());
  load.paths = flags.skip_non_trainer ? KeepTrainerFiles(paths, *fs) : paths;
  load.runtime_paths = flags.skip_non_trainer ? KeepTrainerFiles(flags.runtimes, *fs) : flags.runtimes;
  if (flags.runtimes_only) {  // every input holds runtimes only: TrainJobs in them are not read
    load.runtime_paths.insert(load.runtime_paths.begin(), load.paths.begin(), load.paths.end());
    load.paths.clear();
  }
  load.default_namespace = flags.namespace_;
  load.namespace_given = flags.namespace_option != nullptr && flags.namespace_option->count() > 0;
  load.validate = *ParseValidationMode(flags.validate);
  // Read first, so that a wrong FILE fails before any work, and is never overwritten by
  // --update-baseline unless it reads as a baseline.
  std::optional<std::string> old_baseline_text;
  Baseline old_baseline;
  if (!flags.baseline.empty()) {
    old_baseline_text = ReadBaseline(flags, *fs);
    if (old_baseline_text) old_baseline = Baseline::Parse(*old_baseline_text, &flags.baseline);
  }
  Inputs inputs = Load(load, *fs);
  inputs.hint_runtimes = false;  // said once, after every TrainJob's problems
  if (!flags.quiet) {
    for (const auto& notice : inputs.notices) std::cerr << "trainer: " << Printable(notice) << '\n';
  }
  // Inputs with problems end in them anyway; --runtimes-only checks runtimes, not TrainJobs.
  if (inputs.errors.empty() && !flags.runtimes_only) RejectEmptyInputs(inputs, flags);
  RenderOptions render;
  render.flux_templates_dir = flags.flux_templates;
  if (const char* order = std::getenv("TRAINER_PLUGIN_ORDER")) render.plugin_order = order;
  render.validate = load.validate;
  std::vector<Diagnostic> warnings = inputs.warnings;
  // Keep going: the problems of the inputs and of each TrainJob are reported after the report of
  // every TrainJob that could be checked, and the exit status is then 2.
  const ReportOptions options = Options(flags);
  const bool unified = options.format == ReportFormat::kUnified && !flags.quiet;
  Report report = CheckMigration(inputs, render, ignore, &warnings, flags.runtimes_only, unified ? &options : nullptr);
  for (const Diagnostic& warning : warnings) std::cerr << FormatWarning(warning) << '\n';
  std::vector<Diagnostic> errors = inputs.errors;
  for (const ReportGroup& group : report.groups) errors.insert(errors.end(), group.errors.begin(), group.errors.end());
  if (inputs.missed_runtimes.cluster || inputs.missed_runtimes.namespaced) {
    errors.push_back(Diagnostic{.message = "no runtime loaded: " + GetRuntimesHint(inputs.missed_runtimes)});
  }
  // Nothing loaded that could be reported on (a missing or malformed input): the errors alone.
  if (report.groups.empty() && !errors.empty()) throw Error(std::move(errors));
  if (!flags.baseline.empty()) Acknowledge(report, old_baseline);
  if (flags.update_baseline) {
    // The entries of a TrainJob that could not be checked are kept as the old baseline has them.
    // TrainJobs that did not load have no name to keep entries by: then the file is left as it is.
    if (!inputs.errors.empty()) {
      std::string message =
          fmt::format("{}: not updated, as not every input loaded (a rewrite would drop the entries of what did not)",
                      Printable(flags.baseline));
      errors.push_back(Diagnostic{.message = std::move(message)});
      throw Error(std::move(errors));
    }
    std::size_t unchecked = 0;
    for (const ReportGroup& group : report.groups) unchecked += group.Checked() ? 0 : 1;
    WriteBaseline(flags, Baseline::Of(report, &old_baseline), old_baseline_text, unchecked);
    Finish(report, flags);
    if (!errors.empty()) throw Error(std::move(errors));
    return kNoDifferences;
  }
  int status = Finish(report, flags);
  if (!errors.empty()) throw Error(std::move(errors));
  return status;
}

}  // namespace

Run SetupDiff(CLI::App& command) {
  auto flags = std::make_shared<DiffFlags>();
  command.add_option("PATH", flags->paths, kPathHelp)->type_name("PATH");
  AddRecursiveFlag(command);
  CLI::Option* filename = command.add_option("-f,--filename", flags->filenames,
                                             "--legacy: an input as PATH is, as kubectl takes them (repeatable)");
  filename->allow_extra_args(false)->type_name("PATH");
  command.add_flag("--legacy", flags->legacy,
                   "Render every TrainJob with the legacy and with the current image behaviour and compare the two");
  CLI::Option* runtime = command.add_option("-r,--runtime", flags->runtimes,
                                            "--legacy: add runtimes from this file or directory (repeatable)");
  runtime->allow_extra_args(false)->type_name("PATH");
  CLI::Option* ns =
      command.add_option("-n,--namespace", flags->namespace_,
                         "--legacy: namespace of objects that set none (objects naming another are an error)");
  flags->namespace_option = ns;
  ns->capture_default_str()->type_name("NAME");
  CLI::Option* flux =
      command.add_option("--flux-templates", flags->flux_templates,
                         "--legacy: render the Flux entrypoint scripts from upstream's templates in DIR");
  flux->type_name("DIR")->check(CLI::ExistingDirectory);
  CLI::Option* skip = command.add_flag("--skip-non-trainer", flags->skip_non_trainer,
                                       "--legacy: skip files that hold no Trainer object silently");
  CLI::Option* validate = AddValidateOption(command, flags->validate, "--legacy: check");
  CLI::Option* allow_empty = command.add_flag("--allow-empty", flags->allow_empty,
                                              "--legacy: pass inputs that hold no TrainJob (an error otherwise)");
  CLI::Option* summary = command.add_flag(
      "--summary", flags->summary,
      "--legacy: print only the changed TrainJobs by runtime and reason, and the totals (human and json)");
  CLI::Option* runtimes_only =
      command.add_flag("--runtimes-only", flags->runtimes_only,
                       "--legacy: check each runtime in the inputs with a probe TrainJob, without TrainJobs");
  CLI::Option* verbose =
      command.add_flag("-v,--verbose", flags->verbose,
                       "--legacy: list the unchanged and the not affected TrainJobs by name too (human)");
  CLI::Option* baseline = command.add_option(
      "--baseline", flags->baseline,
      "--legacy: changes recorded in this YAML file are acknowledged: shown as such, not counted in the exit status");
  baseline->type_name("FILE");
  CLI::Option* update_baseline = command.add_flag(
      "--update-baseline", flags->update_baseline,
      "--legacy: write every change of this run to the --baseline file, and exit 0 unless something could not be "
      "checked");
  flags->legacy_only = {filename, runtime,       ns,      flux,     skip,           validate, allow_empty,
                        summary,  runtimes_only, verbose, baseline, update_baseline};
  command.add_option("-o,--output", flags->output, "Report format: human, unified, brief, json or github")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kReportFormatNames), std::end(kReportFormatNames))))
      ->capture_default_str()
      ->type_name("FORMAT");
  command.add_option("-C,--context", flags->context, "unified: lines of context around each change")
      ->check(CLI::Range(0, kMaxContext))
      ->capture_default_str()
      ->type_name("N");
  command.add_option("--ignore", flags->ignore, "Leave out differences at [KIND:]PATH or below ([*]: any item)")
      ->allow_extra_args(false)
      ->type_name("PATH");
  command.add_flag("--exit-zero", flags->exit_zero, "Exit 0 even when there are differences");
  command.add_flag("-q,--quiet", flags->quiet,
                   "Print nothing but errors and warnings: the exit status tells whether anything changes");
  command.add_option("--color", flags->color, "Colour human and unified output: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str()
      ->type_name("WHEN");
  return [flags] { return RunDiff(*flags); };
}

}  // namespace trainer::app
