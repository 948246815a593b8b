#pragma once

#include <memory>

#include "framework/interface.h"

namespace trainer::plugins {

// The JAX ML policy: process count, process id and coordinator address for jax.distributed.
std::unique_ptr<Plugin> NewJAX(const RenderOptions& options);

}  // namespace trainer::plugins
