// The TrainingRuntime and ClusterTrainingRuntime validating webhooks, as they judge a runtime on
// create. Follows upstream pkg/webhooks/{trainingruntime_webhook.go,clustertrainingruntime_webhook.go}
// and the webhook configuration's objectSelector (manifests/base/webhook/patch_validating.yaml).
#pragma once

#include <string_view>

#include "api/types.h"
#include "api/validation.h"

namespace trainer {

// A runtime carrying this label with the value "disabled" is never sent to the runtime webhooks.
inline constexpr std::string_view kLabelWebhookValidation = "trainer.kubeflow.org/webhook-validation";
// A runtime carrying this label with the value "deprecated" draws a warning.
inline constexpr std::string_view kLabelSupport = "trainer.kubeflow.org/support";
inline constexpr std::string_view kRuntimeDeprecationPolicyURL =
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy";

// IsSupportDeprecated: labelled trainer.kubeflow.org/support: deprecated.
bool IsSupportDeprecated(const Runtime& runtime);

// validateReplicatedJobs: every replicatedJob whose ancestor label names the trainer, the dataset
// or the model initializer has one replica and the container that ancestor needs (node,
// dataset-initializer, model-initializer). A ClusterTrainingRuntime marked deprecated draws a
// warning. Nothing is checked for a runtime that opts out of the webhook.
void ValidateRuntime(const Runtime& runtime, Findings& findings);

}  // namespace trainer
