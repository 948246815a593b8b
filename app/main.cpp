// trainer: shows what the Kubeflow Trainer controller will create for a TrainJob, offline.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/releases.h"
#include "app/commands.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/staged_files.h"
#include "util/suggest.h"
#include "yaml/tree.h"
#include "yaml/writer.h"

#ifndef TRAINER_VERSION
#define TRAINER_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kVersionLine = "trainer " TRAINER_VERSION;

// What `trainer` follows upstream, as `kubectl version` says what it talks to.
constexpr const char* kUpstreamRepository = "github.com/kubeflow/trainer";
constexpr const char* kUpstreamCommit = "8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3";  // August 2026
constexpr const char* kImageChange = "https://github.com/kubeflow/trainer/pull/4301";
constexpr const char* kJobSetVersion = "v0.12.0";

// `trainer version`: the line of `trainer --version`, then the upstream controller it follows
// (the ported commit, and the image behaviour change it renders by default); -o json for scripts.
trainer::app::Run SetupVersion(CLI::App& command) {
  auto output = std::make_shared<std::string>("text");
  command.add_option("-o,--output", *output, "Output format: text, or json for scripts")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  return [output] {
    if (*output == "json") {
      trainer::Tree root = trainer::Tree::Map();
      root.Set("version", trainer::Tree::String(TRAINER_VERSION));
      trainer::Tree& upstream = root.Set("upstream", trainer::Tree::Map());
      upstream.Set("follows", trainer::Tree::String(std::string(trainer::kFollowedTrainer)));
      upstream.Set("repository", trainer::Tree::String(kUpstreamRepository));
      upstream.Set("commit", trainer::Tree::String(kUpstreamCommit));
      upstream.Set("imageBehaviour", trainer::Tree::String(kImageChange));
      upstream.Set("jobSet", trainer::Tree::String(kJobSetVersion));
      std::string text;
      trainer::WriteJson(root, text);
      trainer::app::WriteStdout(text + "\n");
      return 0;
    }
    trainer::app::WriteStdout(fmt::format(
        "{}\n"
        "Follows: {}\n"
        "Kubeflow Trainer controller: {} at commit {}\n"
        "Image behaviour: {} (the TrainJob image on the MPI launcher and nodes); --legacy renders the one before\n"
        "JobSet API: jobset.x-k8s.io/v1alpha2 ({})\n",
        kVersionLine, trainer::kFollowedTrainer, kUpstreamRepository, kUpstreamCommit, kImageChange, kJobSetVersion));
    return 0;
  };
}

// How help and errors name the program: "kubectl trainer" when kubectl runs it as its plugin
// kubectl-trainer (kubectl-foo_bar is `kubectl foo-bar`), "trainer" otherwise.
std::string ProgramName(const char* argv0) {
  std::string_view path = argv0 == nullptr ? "" : argv0;
  std::string_view base = path.substr(path.find_last_of('/') + 1);
  constexpr std::string_view kPluginPrefix = "kubectl-";
  if (base.substr(0, kPluginPrefix.size()) != kPluginPrefix || base.size() == kPluginPrefix.size()) return "trainer";
  std::string name = "kubectl ";
  for (char c : base.substr(kPluginPrefix.size())) name += c == '-' ? ' ' : c == '_' ? '-' : c;
  return name;
}

struct Command {
  const char* name;
  const char* description;
  trainer::app::Run (*setup)(CLI::App&);
};

// Every command, in the order `trainer --help` lists them.
constexpr Command kCommands[] = {
    {"render", "Print every object the Trainer controller would create for the TrainJobs in PATH...",
     trainer::app::SetupRender},
    {"diff", "Compare the legacy and current renderings, or two rendered streams", trainer::app::SetupDiff},
    {"plugins", "List the controller plugins trainer runs, in order, with their extension points",
     trainer::app::SetupPlugins},
    {"test", "Render every golden case in DIR... and compare it with its expected files", trainer::app::SetupTest},
    {"version", "Print the version of trainer and the upstream controller it follows", SetupVersion},
};

// Help and --version, printed by CLI11 to std::cout: exit 2 when they could not be written.
int ExitAfterPrinting(CLI::App& app, const CLI::ParseError& e) {
  errno = 0;
  const int code = app.exit(e);
  std::cout.flush();
  if (std::cout.good() && !trainer::app::StdoutClosed()) return code;
  std::cerr << "trainer: error: cannot write to standard output: "
            << std::strerror(trainer::app::StdoutClosed() ? EBADF : errno != 0 ? errno : EIO) << '\n';
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // A descriptor 0, 1 or 2 closed by the caller (`>&-`) would be taken by the next file opened,
  // so that output meant for it would land in that file: each is opened on /dev/null, and output
  // meant for a closed standard output fails (WriteStdout).
  trainer::app::GuardStandardDescriptors();
  // Ctrl-C, a closed terminal or a CI timeout while files are staged: no temporary file is left.
  trainer::RemoveTemporariesOnSignals();
  const std::string program = ProgramName(argc > 0 ? argv[0] : nullptr);
  CLI::App app{"trainer: see what the Kubeflow Trainer controller will create for your TrainJobs, before anything "
               "touches a cluster.",
               program};
  app.set_version_flag("--version", kVersionLine);
  app.require_subcommand(1, 1);
  // When the first argument names a command, only that command is set up, as only it parses.
  // Otherwise (--help, --version, a mistake) all are, as help and errors list them.
  const std::string_view first = argc > 1 ? argv[1] : "";
  const bool named =
      std::any_of(std::begin(kCommands), std::end(kCommands), [&](const Command& c) { return first == c.name; });
  // A first word that is neither an option nor a command: name it, and the command it is nearest to.
  if (!named && !first.empty() && first.front() != '-') {
    std::vector<std::string_view> names;
    for (const Command& c : kCommands) names.emplace_back(c.name);
    std::string message = fmt::format("unknown command \"{}\"", trainer::GoEscape(first));
    if (std::optional<std::string_view> near = trainer::NearestName(first, names)) {
      message += fmt::format("; did you mean \"{}\"?", *near);
    }
    std::cerr << "trainer: error: " << message << "\nRun '" << program << " --help' for usage.\n";
    return 2;
  }
  std::vector<std::pair<CLI::App*, trainer::app::Run>> runs;
  for (const Command& c : kCommands) {
    if (named && first != c.name) continue;
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runs.emplace_back(sub, c.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return ExitAfterPrinting(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return ExitAfterPrinting(app, e);
  } catch (const CLI::CallForVersion& e) {
    return ExitAfterPrinting(app, e);
  } catch (const CLI::ParseError& e) {
    // A mistake in a command's arguments points at that command's help.
    const std::string help = named ? fmt::format("{} {} --help", program, first) : program + " --help";
    std::cerr << "trainer: error: " << trainer::Printable(e.what()) << "\nRun '" << help << "' for usage.\n";
    return 2;
  }
  try {
    for (auto& [sub, run] : runs) {
      if (sub->parsed()) return run();
    }
  } catch (const std::exception& e) {
    trainer::app::PrintError(e);
    return 2;
  }
  return 2;
}
