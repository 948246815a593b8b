// XGBoost: the ML policy of runtimes with mlPolicy.xgboost, for XGBoost's collective (Rabit).
//
// The TrainJob's numNodes becomes the trainer PodSet's count, and the trainer `node` container
// gets the tracker settings: DMLC_TRACKER_URI (the first node pod), DMLC_TRACKER_PORT (29500),
// DMLC_TASK_ID (the Job completion index) and DMLC_NUM_WORKER (one worker per GPU of a node, or
// one per node without GPUs), plus the port. Validate refuses TrainJob env that sets any of these
// names. PlainML also handles XGBoost runtimes (it adds the TrainJob env to the same container);
// it runs first in our registry. Follows upstream pkg/runtime/framework/plugins/xgboost/xgboost.go.
#include "plugins/xgboost.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "k8s/apply.h"
#include "runtime/image.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "XGBoost";
constexpr const char* kEnvTrackerURI = "DMLC_TRACKER_URI";
constexpr const char* kEnvTrackerPort = "DMLC_TRACKER_PORT";
constexpr const char* kEnvTaskID = "DMLC_TASK_ID";
constexpr const char* kEnvNumWorker = "DMLC_NUM_WORKER";
constexpr std::array<std::string_view, 4> kReservedEnvNames = {kEnvTrackerURI, kEnvTrackerPort, kEnvTaskID,
                                                               kEnvNumWorker};

const Origin kByXGBoost = Origin::Plugin(kName);

bool HasXGBoostPolicy(const Info* info) {
  return info != nullptr && info->runtime_policy.ml_policy != nullptr && info->runtime_policy.ml_policy->xgboost;
}

// Go multiplies two int32s with wrap-around; so do we.
std::int32_t MulInt32(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

class XGBoost : public EnforceMLPolicyPlugin, public CustomValidationPlugin {
 public:
  explicit XGBoost(const RenderOptions& options) : options_(options) {}

  std::string_view Name() const override { return kName; }

  void Validate(const Info* info, const TrainJob*, const TrainJob& job, Diagnostics& errors) override {
    if (!HasXGBoostPolicy(info) || !job.spec.trainer) return;
    const std::vector<Tree>& env = job.spec.trainer->env;
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string* name = env[i].FindString("name");
      if (name == nullptr ||
          std::find(kReservedEnvNames.begin(), kReservedEnvNames.end(), *name) == kReservedEnvNames.end()) {
        continue;
      }
      std::string field = fmt::format("spec.trainer.env[{}]", i);
      errors.Add(job.positions.Find(field), field, fmt::format("{} is reserved for the XGBoost runtime", *name));
    }
  }

  void EnforceMLPolicy(Info& info, TrainJob& job) override {
    if (!HasXGBoostPolicy(&info)) return;
    PodSet* trainer_ps = info.FindPodSetByAncestor(kAncestorTrainer);
    if (trainer_ps == nullptr) return;
    const auto& trainer = job.spec.trainer;
    if (trainer_ps->count && trainer && trainer->num_nodes) {
      *trainer_ps->count = *trainer->num_nodes;
      trainer_ps->count_origin = job.positions.Find("spec.trainer.numNodes");
    }
    if (!trainer) return;
    Container* node = info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode);
    if (node == nullptr) return;
    std::int32_t num_nodes = trainer_ps->count.value_or(1);
    // The TrainJob's resourcesPerNode replaces the runtime's outright here (not merged key by key
    // as in the container), so GPUs only the runtime asks for count as none.
    std::optional<Tree> resources = trainer->resources_per_node;
    if (!resources) resources = ExtractResourcePerNodeFromRuntime(info.template_spec.obj_apply);
    std::int32_t workers_per_node = 1;
    if (int gpus = NumGPUPerNode(resources ? &*resources : nullptr); gpus > 0) workers_per_node = gpus;
    std::int32_t total_workers = MulInt32(num_nodes, workers_per_node);

    std::string tracker_uri = fmt::format("{}-{}-0-0.{}", job.metadata.name, kNode, job.metadata.name);
    UpsertEnvVars(node->env, {
                                 EnvVarValue(kEnvTrackerURI, tracker_uri, kByXGBoost),
                                 EnvVarValue(kEnvTrackerPort, std::to_string(kContainerTrainerPort), kByXGBoost),
                                 EnvVarFieldRef(kEnvTaskID, kJobCompletionIndexFieldPath, kByXGBoost),
                                 EnvVarValue(kEnvNumWorker, std::to_string(total_workers), kByXGBoost),
                             });
    UpsertPorts(node->ports, {ContainerPort(kContainerTrainerPort, kByXGBoost)});
    if (!options_.legacy_image) SetTrainJobImage(node, job, "XGBoost");
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Plugin> NewXGBoost(const RenderOptions& options) { return std::make_unique<XGBoost>(options); }

}  // namespace trainer::plugins
