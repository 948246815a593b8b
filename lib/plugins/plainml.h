#pragma once

#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

std::unique_ptr<Plugin> NewPlainML(const RenderOptions& options);

}  // namespace trainer::plugins
