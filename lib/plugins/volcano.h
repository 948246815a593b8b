#pragma once

#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

std::unique_ptr<Plugin> NewVolcano(const RenderOptions& options);

}  // namespace trainer::plugins
