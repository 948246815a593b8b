// The TrainJob validating webhook, as it judges a TrainJob on create against its runtime. Follows
// upstream pkg/webhooks/trainjob_webhook.go (ValidateCreate) and the runtimes' ValidateObjects
// (pkg/runtime/core/{trainingruntime.go,clustertrainingruntime.go}), which warn about a deprecated
// ClusterTrainingRuntime and run every plugin's Validate.
#pragma once

#include <optional>

#include "api/types.h"
#include "api/validation.h"
#include "framework/framework.h"

namespace trainer {

// Admission of `job`: the deprecation warning, the plugins' Validate on the runtime Info, and the
// runtime patch rules; besides, in every mode, trainer's own warnings about spec.trainer fields no
// container receives (runtime/trainer_fields.h). Rejections go to `findings` by its mode; with ValidationMode::kIgnore
// nothing is checked. Diagnostics name the TrainJob and point into its file. Returns the runtime
// Info the plugins judged (nothing when it could not be built, or nothing was checked), which the
// pipeline takes as its input.
std::optional<Info> ValidateTrainJob(const TrainJob& job, const Runtime& runtime, Framework& framework,
                                     Findings& findings);

// The runtime patch half of the JobSet plugin's Validate (jobset.go): every manager is a
// domain-prefixed path; the replicatedJobs, init containers and containers a patch names exist in
// the runtime; and a patch sets no env on the node, dataset-initializer and model-initializer
// containers. Upstream checks names against the runtime with the patches already merged, so those
// checks never fire there; `runtime_spec` here is the runtime's JobSet spec before any patch.
void ValidateRuntimePatches(const TrainJob& job, const Tree& runtime_spec, Diagnostics& errors);

// validation.IsDomainPrefixedPath's messages for `value`, empty when it is valid.
std::vector<std::string> IsDomainPrefixedPath(std::string_view value);

}  // namespace trainer
