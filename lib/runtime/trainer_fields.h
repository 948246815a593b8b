// Where spec.trainer's fields go: the `node` container of the runtime's replicatedJobs labelled
// trainer.kubeflow.org/trainjob-ancestor-step: trainer (and, for env, of the MPI `node` job when
// the launcher runs as a node), and numNodes to those jobs' counts. Without one, the controller
// drops those fields without a word; trainer warns.
#pragma once

#include <vector>

#include "api/types.h"
#include "util/error.h"

namespace trainer {

// A warning for each of spec.trainer.image, command, args, env, numNodes, numProcPerNode and
// resourcesPerNode that `job` sets and nothing of `runtime` receives (the runtime's labels as
// `job`'s runtime patches leave them), at the field, naming the runtime; and for numNodes: 0,
// valid but starting no training pods. Empty when every field set has somewhere to go. Not an
// upstream check: trainer's own, as a warning, since the rendering goes on without the values.
std::vector<Diagnostic> UnreceivedTrainerFields(const TrainJob& job, const Runtime& runtime);

}  // namespace trainer
