// JAX: the ML policy of runtimes with mlPolicy.jax, one JAX process per node.
//
// The TrainJob's numNodes becomes the trainer PodSet's count, and the trainer `node` container
// gets JAX_NUM_PROCESSES, JAX_PROCESS_ID (the Job completion index) and JAX_COORDINATOR_ADDRESS
// (the first node pod, port 29500), plus that port. The TrainJob's own env is not added here: the
// JobSet builder adds it after these. Under the current image behaviour it also sets the TrainJob
// image. Follows upstream pkg/runtime/framework/plugins/jax/jax.go.
#include "plugins/jax.h"

#include <fmt/format.h>

#include "k8s/apply.h"
#include "runtime/image.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "JAX";

const Origin kByJAX = Origin::Plugin(kName);

class JAX : public EnforceMLPolicyPlugin, public CustomValidationPlugin {
 public:
  explicit JAX(const RenderOptions& options) : options_(options) {}

  std::string_view Name() const override { return kName; }

  // Upstream declares a webhook hook for JAX that accepts everything; kept so both list the same points.
  void Validate(const Info*, const TrainJob*, const TrainJob&, Diagnostics&) override {}

  void EnforceMLPolicy(Info& info, TrainJob& job) override {
    if (info.runtime_policy.ml_policy == nullptr || !info.runtime_policy.ml_policy->jax) return;
    const auto& trainer = job.spec.trainer;
    PodSet* trainer_ps = info.FindPodSetByAncestor(kAncestorTrainer);
    if (trainer_ps && trainer_ps->count && trainer && trainer->num_nodes) {
      *trainer_ps->count = *trainer->num_nodes;
      trainer_ps->count_origin = job.positions.Find("spec.trainer.numNodes");
    }
    if (!trainer) return;
    Container* node = info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode);
    if (node == nullptr) return;
    std::int32_t num_nodes = trainer_ps && trainer_ps->count ? *trainer_ps->count : 1;
    // The coordinator is named after the TrainJob and `node` whatever the replicatedJob and
    // subdomain are called, as upstream does.
    std::string coordinator =
        fmt::format("{}-{}-0-0.{}:{}", job.metadata.name, kNode, job.metadata.name, kContainerTrainerPort);
    UpsertEnvVars(node->env, {
                                 EnvVarValue("JAX_NUM_PROCESSES", std::to_string(num_nodes), kByJAX),
                                 EnvVarFieldRef("JAX_PROCESS_ID", kJobCompletionIndexFieldPath, kByJAX),
                                 EnvVarValue("JAX_COORDINATOR_ADDRESS", coordinator, kByJAX),
                             });
    UpsertPorts(node->ports, {ContainerPort(kContainerTrainerPort, kByJAX)});
    if (!options_.legacy_image) SetTrainJobImage(node, job, "JAX");
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Plugin> NewJAX(const RenderOptions& options) { return std::make_unique<JAX>(options); }

}  // namespace trainer::plugins
