#pragma once

#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

std::unique_ptr<Plugin> NewFlux(const RenderOptions& options);

}  // namespace trainer::plugins
