// The plugin registry: one row per plugin, in the order plugins run within an extension point.
//
// Upstream registers plugins in a Go map, so their order within one extension point changes from
// one controller start to the next. We fix it: PlainML runs before the framework plugins, so the
// TrainJob's env comes before framework env where both touch one container (XGBoost); JobSet runs
// last among the builders' peers, and the render output lists the JobSet first regardless.
#include "plugins/registry.h"

#include "plugins/coscheduling.h"
#include "plugins/flux.h"
#include "plugins/jax.h"
#include "plugins/jobset.h"
#include "plugins/mpi.h"
#include "plugins/plainml.h"
#include "plugins/torch.h"
#include "plugins/volcano.h"
#include "plugins/xgboost.h"

namespace trainer {

namespace {

constexpr PluginEntry kRegistry[] = {
    {"PlainML", plugins::NewPlainML},
    {"Torch", plugins::NewTorch},
    {"JAX", plugins::NewJAX},
    {"XGBoost", plugins::NewXGBoost},
    {"MPI", plugins::NewMPI},
    {"Flux", plugins::NewFlux},
    {"Coscheduling", plugins::NewCoscheduling},
    {"Volcano", plugins::NewVolcano},
    {"JobSet", plugins::NewJobSet},
};

}  // namespace

std::span<const PluginEntry> PluginRegistry() { return kRegistry; }

}  // namespace trainer
