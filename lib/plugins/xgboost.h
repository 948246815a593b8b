#pragma once

#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

// The XGBoost ML policy: the DMLC_* tracker settings of XGBoost's collective, and their admission check.
std::unique_ptr<Plugin> NewXGBoost(const RenderOptions& options);

}  // namespace trainer::plugins
