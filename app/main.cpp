// trainer: shows what the Kubeflow Trainer controller will create for a TrainJob, offline.
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/commands.h"
#include "util/error.h"

#ifndef TRAINER_VERSION
#define TRAINER_VERSION "0.0.0"
#endif

namespace {

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
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainer: see what the Kubeflow Trainer controller will create for your TrainJobs, before anything "
               "touches a cluster.",
               "trainer"};
  app.set_version_flag("--version", std::string("trainer ") + TRAINER_VERSION);
  app.require_subcommand(1, 1);
  std::vector<std::pair<CLI::App*, trainer::app::Run>> runs;
  for (const Command& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runs.emplace_back(sub, c.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "trainer: error: " << e.what() << "\nRun 'trainer --help' for usage.\n";
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
