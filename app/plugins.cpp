// `trainer plugins`: the registry, as it runs.
#include <fmt/format.h>

#include "app/commands.h"
#include "framework/framework.h"
#include "plugins/registry.h"

namespace trainer::app {

Run SetupPlugins(CLI::App&) {
  return [] {
    Framework framework{PluginRegistry(), RenderOptions{}};
    std::string out = "PLUGIN        EXTENSION POINTS\n";
    for (const auto& row : framework.Plugins()) {
      std::string points;
      for (const auto& p : row.points) points += (points.empty() ? "" : ", ") + p;
      out += fmt::format("{:<13} {}\n", row.name, points);
    }
    WriteStdout(out);
    return 0;
  };
}

}  // namespace trainer::app
