// THE table of plugins, in the one fixed order they run in within each extension point.
#pragma once

#include <memory>
#include <span>

#include "framework/framework.h"

namespace trainer {

std::span<const PluginEntry> PluginRegistry();

}  // namespace trainer
