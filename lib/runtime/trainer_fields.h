// Where spec.trainer's image, command, args and env go: the `node` container of the runtime's
// replicatedJobs labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer (and, for env, of
// the MPI `node` job when the launcher runs as a node). Without one, the controller drops those
// fields without a word; trainer warns.
#pragma once

#include <vector>

#include "api/types.h"
#include "util/error.h"

namespace trainer {

// A warning for each of spec.trainer.image, command, args and env that `job` sets and no
// container of `runtime` receives (the runtime's labels as `job`'s runtime patches leave them),
// at the field, naming the runtime; empty when every field set has a container to go to. Not an
// upstream check: trainer's own, as a warning, since the rendering goes on without the values.
std::vector<Diagnostic> UnreceivedTrainerFields(const TrainJob& job, const Runtime& runtime);

}  // namespace trainer
