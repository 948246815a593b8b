#pragma once

#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

std::unique_ptr<Plugin> NewCoscheduling(const RenderOptions& options);

}  // namespace trainer::plugins
