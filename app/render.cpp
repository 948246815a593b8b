// `trainer render`: options and output.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "app/commands.h"
#include "app/output_dir.h"
#include "app/trainer_files.h"
#include "app/validate_option.h"
#include "render/render.h"
#include "util/error.h"
#include "util/quote.h"

namespace trainer::app {

namespace {

struct RenderFlags {
  std::vector<std::string> paths;
  std::vector<std::string> filenames;  // -f, as kubectl takes its inputs: after the PATH arguments

  std::vector<std::string> Inputs() const {
    std::vector<std::string> all = paths;
    all.insert(all.end(), filenames.begin(), filenames.end());
    return all;
  }
  std::vector<std::string> runtimes;
  std::string namespace_ = "default";
  const CLI::Option* namespace_option = nullptr;  // to tell whether -n was given
  std::string output = "yaml";
  std::vector<std::string> show_only;
  std::string output_dir;
  bool legacy = false;
  bool generate_ssh_keys = false;
  bool explain = false;
  bool snapshots = false;
  std::string flux_templates;
  bool quiet = false;             // --quiet: the exit status says it all
  bool skip_non_trainer = false;  // --skip-non-trainer: see app/trainer_files.h
  std::string validate = "strict";
  bool probe = false;        // --probe: see RenderRequest::probe
  bool allow_empty = false;  // --allow-empty: see RenderRequest::allow_empty
};

void PrintSummary(const RenderResult& summary, bool quiet) {
  if (!quiet) {
    for (const auto& notice : summary.notices) std::cerr << "trainer: " << Printable(notice) << '\n';
    for (const auto& notice : summary.unmanaged) std::cerr << "trainer: " << notice << '\n';
  }
  for (const Diagnostic& warning : summary.warnings) std::cerr << FormatWarning(warning) << '\n';
}

// What the flags ask to render (not where the output goes). Throws Error.
RenderRequest MakeRequest(const RenderFlags& flags) {
  RenderRequest request;
  request.load.paths = flags.Inputs();
  request.load.runtime_paths = flags.runtimes;
  request.load.default_namespace = flags.namespace_;
  request.load.namespace_given = flags.namespace_option != nullptr && flags.namespace_option->count() > 0;
  request.render.legacy_image = flags.legacy;
  request.render.generate_ssh_keys = flags.generate_ssh_keys;
  request.render.flux_templates_dir = flags.flux_templates;
  request.load.validate = request.render.validate = *ParseValidationMode(flags.validate);
  request.format = flags.output == "json"   ? RenderRequest::Format::kJson
                   : flags.output == "name" ? RenderRequest::Format::kName
                                            : RenderRequest::Format::kYaml;
  request.show_only = flags.show_only;
  request.explain = flags.explain;
  request.snapshots = flags.snapshots;
  request.probe = flags.probe;
  request.allow_empty = flags.allow_empty;
  if (flags.explain && request.format != RenderRequest::Format::kYaml) throw Error("--explain works with -o yaml only");
  if (!flags.output_dir.empty() && request.format == RenderRequest::Format::kName) {
    throw Error("--output-dir writes -o yaml or -o json files, not -o name");
  }
  return request;
}

int RunRender(const RenderFlags& flags) {
  if (flags.paths.empty() && flags.filenames.empty()) {
    throw Error("no input: give the TrainJob and runtime files as PATH... or -f PATH (see 'trainer render --help')");
  }
  RenderRequest request = MakeRequest(flags);
  if (const char* order = std::getenv("TRAINER_PLUGIN_ORDER")) request.render.plugin_order = order;
  auto fs = NewRealFileSystem();
  if (flags.skip_non_trainer) {
    request.load.paths = KeepTrainerFiles(flags.Inputs(), *fs);
    request.load.runtime_paths = KeepTrainerFiles(flags.runtimes, *fs);
  }
  if (!flags.output_dir.empty()) {
    auto writer = NewRealFileWriter();
    DirSink sink(flags.output_dir, *writer);
    RenderResult result = RenderTo(request, *fs, sink);
    sink.Commit();
    PrintSummary(result, flags.quiet);
    return 0;
  }
  // All or nothing: the output is written once every TrainJob rendered.
  StringSink sink(!flags.quiet);
  RenderResult result = RenderTo(request, *fs, sink);
  PrintSummary(result, flags.quiet);
  for (const std::string& piece : sink.pieces()) {
    if (!piece.empty()) WriteStdout(piece);
  }
  return 0;
}

// `trainer render`'s option table, which a golden case's args are read with too.
void AddRenderOptions(CLI::App& command, RenderFlags& flags) {
  command.add_option("PATH", flags.paths,
                     "TrainJob and runtime files or directories (*.yaml, *.yml, *.json, recursively); - for stdin")
      ->type_name("PATH");
  AddRecursiveFlag(command);
  command.add_option("-f,--filename", flags.filenames, "An input as PATH is, as kubectl takes them (repeatable)")
      ->allow_extra_args(false)
      ->type_name("PATH");
  command.add_option("-r,--runtime", flags.runtimes, "Add runtimes from this file or directory (repeatable)")
      ->allow_extra_args(false)
      ->type_name("PATH");
  CLI::Option* ns = command.add_option("-n,--namespace", flags.namespace_,
                                       "Namespace of objects that set none (objects naming another are an error)");
  ns->capture_default_str()->type_name("NAME");
  flags.namespace_option = ns;
  command.add_option("-o,--output", flags.output, "Output format")
      ->check(CLI::IsMember({"yaml", "json", "name"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  command.add_option("-s,--show-only", flags.show_only, "Print only objects of this KIND or KIND/NAME (repeatable)")
      ->allow_extra_args(false)
      ->type_name("KIND[/NAME]");
  command.add_option("--output-dir", flags.output_dir, "Write one file per object into DIR instead of stdout")
      ->type_name("DIR");
  command.add_flag("--legacy", flags.legacy,
                   "Use the controller's old image behaviour: the TrainJob image on every trainer-ancestor node "
                   "container, set by the JobSet builder");
  command.add_flag("--explain", flags.explain,
                   "End each value's line with a comment saying where it came from: a line of the TrainJob or runtime, "
                   "a CRD default, or the plugin that set it");
  command.add_flag("--snapshots", flags.snapshots,
                   "Print the runtime snapshot ConfigMap (<trainjob>-runtime-snapshot) that the controller creates "
                   "for each TrainJob, first among its objects; a snapshot the input holds is rendered from, not "
                   "printed");
  command.add_flag("--generate-ssh-keys", flags.generate_ssh_keys,
                   "MPI: put a fresh ECDSA P-521 key pair in the SSH auth Secret instead of fixed placeholder data");
  command.add_option("--flux-templates", flags.flux_templates,
                     "Flux: render the entrypoint scripts from upstream's templates (broker.toml, entrypoint.sh, "
                     "init.sh) in DIR")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  AddValidateOption(command, flags.validate);
  command.add_flag("-q,--quiet", flags.quiet,
                   "Print nothing but errors and warnings: the exit status tells whether every TrainJob renders");
  command.add_flag("--skip-non-trainer", flags.skip_non_trainer,
                   "Skip files that hold no Trainer object (other kinds, YAML that is no Kubernetes object) silently");
  command.add_flag(
      "--probe", flags.probe,
      "Render each runtime of the inputs with a probe TrainJob (image trainer-probe:latest, nothing else), "
      "as diff --legacy --runtimes-only does; TrainJobs in the inputs are not read");
  command.add_flag("--allow-empty", flags.allow_empty,
                   "Pass inputs that hold no TrainJob (with --probe: no runtime), which render nothing (an error "
                   "otherwise)");
}

}  // namespace

Run SetupRender(CLI::App& command) {
  auto flags = std::make_shared<RenderFlags>();
  AddRenderOptions(command, *flags);
  return [flags] { return RunRender(*flags); };
}

RenderRequest ParseCaseArgs(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "-") != args.end()) {
    throw Error("args: - (standard input) cannot be used in a test case");
  }
  CLI::App command;
  RenderFlags flags;
  AddRenderOptions(command, flags);
  // Paths in args are checked by the suite, which skips a case whose ../shared files are absent.
  command.get_option("--flux-templates")->get_validator()->active(false);
  command.allow_extras();
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    command.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw Error(fmt::format("args: {}", e.what()));
  }
  if (!command.remaining().empty()) throw Error(fmt::format("args: unknown option {}", command.remaining().front()));
  // The render options that a comparison of renderings cannot take.
  static constexpr std::pair<const char*, const char*> kRefused[] = {
      {"--legacy", "must not be in args: trainer test renders every case both ways, into current.yaml and legacy.yaml"},
      {"--generate-ssh-keys", "cannot be used in a test case: its keys are random, no expected file can match them"},
      {"--output-dir", "cannot be used in a test case: the rendering is compared, not written"},
      {"--quiet", "cannot be used in a test case: the rendering is compared, so it must be printed"},
      {"--skip-non-trainer", "cannot be used in a test case: a case's files are its inputs, all of them"},
      {"--probe", "cannot be used in a test case: a case renders its TrainJobs"},
      {"--allow-empty", "cannot be used in a test case: a case renders its TrainJobs"},
  };
  for (const auto& [name, why] : kRefused) {
    if (command.count(name) > 0) throw Error(fmt::format("args: {} {}", name, why));
  }
  if (flags.output == "name") throw Error("args: -o name cannot be used in a test case: the objects are compared");
  try {
    return MakeRequest(flags);
  } catch (const Error& e) {
    // One diagnostic each, as a diagnostic is one line.
    std::vector<Diagnostic> diagnostics;
    for (const Diagnostic& d : e.diagnostics()) diagnostics.push_back(Diagnostic{.message = "args: " + d.Format()});
    throw Error(std::move(diagnostics));
  }
}

namespace {

// On a terminal, the input line a diagnostic points at, as it was read, and a caret under its
// column.
void PrintSourceLine(const Diagnostic& d) {
  if (d.source_line.empty()) return;
  auto col_sep = d.location.rfind(':');
  std::size_t column = col_sep == std::string::npos ? 0 : std::strtoul(d.location.c_str() + col_sep + 1, nullptr, 10);
  std::cerr << "  " << d.source_line << '\n';
  if (column >= 1 && column <= d.source_line.size() + 1) std::cerr << "  " << std::string(column - 1, ' ') << "^\n";
}

}  // namespace

namespace {

bool stdout_closed = false;

}  // namespace

void GuardStandardDescriptors() {
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == STDOUT_FILENO) stdout_closed = true;
    // The lowest free descriptor: this one, as those below it are open.
    const int null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (null >= 0 && null != fd) close(null);
  }
}

bool StdoutClosed() { return stdout_closed; }

void WriteStdout(std::string_view text) {
  if (stdout_closed) throw Error(fmt::format("cannot write to standard output: {}", std::strerror(EBADF)));
  std::fflush(stdout);
  while (!text.empty()) {
    const ssize_t n = write(STDOUT_FILENO, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(fmt::format("cannot write to standard output: {}", std::strerror(n < 0 ? errno : EIO)));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void PrintError(const std::exception& e) {
  if (const auto* error = dynamic_cast<const Error*>(&e)) {
    bool terminal = isatty(STDERR_FILENO) != 0;
    for (const Diagnostic& d : error->diagnostics()) {
      std::cerr << (d.HasLocation() ? "" : "trainer: error: ") << d.Format() << '\n';
      if (terminal) PrintSourceLine(d);
    }
    return;
  }
  std::cerr << "trainer: error: " << (dynamic_cast<const std::bad_alloc*>(&e) ? "out of memory" : Printable(e.what()))
            << '\n';
}

}  // namespace trainer::app
