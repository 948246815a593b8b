// THE table of plugins, in the one fixed order they run in within each extension point.
#pragma once

#include <memory>
#include <span>

#include "framework/interface.h"

namespace trainer {

struct PluginEntry {
  const char* name;
  std::unique_ptr<Plugin> (*factory)(const RenderOptions& options);
};

std::span<const PluginEntry> PluginRegistry();

}  // namespace trainer
