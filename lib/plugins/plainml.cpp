// PlainML: the ML policy of runtimes that run the trainer as written, with no framework launcher.
//
// It handles every runtime whose mlPolicy has none of torch, mpi or jax (xgboost and flux
// runtimes included, and runtimes with no mlPolicy at all): the TrainJob's numNodes becomes the
// count of the trainer PodSet, and the TrainJob's env goes into its `node` container. Under the
// current image behaviour it also sets the TrainJob image there. Follows upstream
// pkg/runtime/framework/plugins/plainml/plainml.go.
#include "plugins/plainml.h"

#include "k8s/apply.h"
#include "runtime/image.h"

namespace trainer::plugins {

namespace {

class PlainML : public EnforceMLPolicyPlugin {
 public:
  explicit PlainML(const RenderOptions& options) : options_(options) {}

  std::string_view Name() const override { return "PlainML"; }

  void EnforceMLPolicy(Info& info, TrainJob& job) override {
    if (const MLPolicy* ml = info.runtime_policy.ml_policy; ml && (ml->torch || ml->mpi || ml->jax)) return;
    const auto& trainer = job.spec.trainer;
    if (trainer && trainer->num_nodes) {
      if (PodSet* ps = info.FindPodSetByAncestor(kAncestorTrainer); ps && ps->count) {
        *ps->count = *trainer->num_nodes;
        ps->count_origin = job.positions.Find("spec.trainer.numNodes");
      }
    }
    if (!trainer) return;
    Container* node = info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode);
    if (node == nullptr) return;
    UpsertEnvVars(node->env, EnvVarsApply(trainer->env));
    if (!options_.legacy_image) SetTrainJobImage(node, job, "PlainML");
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Plugin> NewPlainML(const RenderOptions& options) { return std::make_unique<PlainML>(options); }

}  // namespace trainer::plugins
