// The pipeline: what the controller does with one TrainJob and its runtime, in upstream order.
#pragma once

#include <optional>
#include <vector>

#include "api/types.h"
#include "framework/framework.h"
#include "runtime/info.h"

namespace trainer {

// newRuntimeInfo: labels and annotations to propagate, PodSets from the runtime's replicatedJobs,
// and the TrainJob's resourcesPerNode merged into the trainer `node` container. Throws Error.
Info NewRuntimeInfo(const TrainJob& job, const Runtime& runtime);

// Every object the controller creates for `job`, the JobSet first. Admission is not run here: the
// TrainJob webhook (webhooks/trainjob.h) judges a TrainJob before the controller sees it, and
// lib/render runs it first. Throws Error, with the TrainJob as subject and positions filled in
// where the field is known. `info` is the Info the webhook judged (ValidateTrainJob's result),
// used up here; when there is none, NewRuntimeInfo(job, runtime) builds it.
std::vector<Tree> RenderTrainJob(const TrainJob& job, const Runtime& runtime, Framework& framework,
                                 std::optional<Info> info);

}  // namespace trainer
