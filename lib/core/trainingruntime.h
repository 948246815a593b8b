// A TrainJob's runtime patches merged into its runtime's JobSet spec, as upstream's
// pkg/runtime/core/trainingruntime.go merges them.
#pragma once

#include "api/types.h"
#include "yaml/tree.h"

namespace trainer {

// mergeRuntimePatches: the TrainJob's runtime patches merged into `spec` (the runtime's JobSet
// spec) in turn, each result re-decoded, then the runtime's replicatedJobs order restored. Returns
// whether any patch was merged. Throws Error where upstream fails, at the patch's field.
bool MergeRuntimePatches(const TrainJob& job, Tree& spec);

}  // namespace trainer
