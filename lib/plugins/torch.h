#pragma once

#include <cstdint>
#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

std::unique_ptr<Plugin> NewTorch(const RenderOptions& options);

// getNumCPUPerNode: the CPU count of a ResourceRequirements tree, requests before limits (a zero
// request counts as none), each rounded up to a whole CPU; 0 when neither is set.
std::int64_t GetNumCPUPerNode(const Tree* resources);

}  // namespace trainer::plugins
