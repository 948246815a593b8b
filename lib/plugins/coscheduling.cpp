// Coscheduling: gang scheduling with the Kubernetes scheduler-plugins coscheduling plugin, for
// runtimes with podGroupPolicy.coscheduling.
//
// EnforcePodGroupPolicy labels every pod with `scheduling.x-k8s.io/pod-group: <TrainJob name>`
// (the JobSet plugin writes the label into each pod template). Build makes the
// scheduling.x-k8s.io/v1alpha1 PodGroup of that name: minMember is the sum of the PodSet counts,
// minResources the sum of count x single-pod requests, and scheduleTimeoutSeconds comes from the
// runtime. Upstream leaves an existing PodGroup alone unless the TrainJob is suspended; offline
// there is none, so the PodGroup is always built. Follows upstream
// pkg/runtime/framework/plugins/coscheduling/coscheduling.go.
#include "plugins/coscheduling.h"

#include "runtime/pod_group.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "Coscheduling";
constexpr const char* kApiVersion = "scheduling.x-k8s.io/v1alpha1";
constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
// The CRD default; the API server always sets it before the controller reads the runtime.
constexpr std::int32_t kDefaultScheduleTimeoutSeconds = 60;

const Origin kByCoscheduling = Origin::Plugin(kName);

const CoschedulingPolicy* Policy(const Info& info) {
  const PodGroupPolicy* policy = info.runtime_policy.pod_group_policy;
  return policy && policy->coscheduling ? &*policy->coscheduling : nullptr;
}

class Coscheduling : public EnforcePodGroupPolicyPlugin, public ComponentBuilderPlugin {
 public:
  std::string_view Name() const override { return kName; }

  void EnforcePodGroupPolicy(Info& info, const TrainJob& job) override {
    if (Policy(info) == nullptr) return;
    info.scheduler.pod_labels[kPodGroupLabel] = job.metadata.name;
  }

  void Build(Info& info, const TrainJob& job, std::vector<Tree>& objects) override {
    const CoschedulingPolicy* policy = Policy(info);
    if (policy == nullptr) return;
    PodGroupTotals totals = SumPodSets(info.template_spec.pod_sets);
    Tree pod_group = NewPodGroup(kApiVersion, job, kByCoscheduling);
    // The apply configuration holds pointers: all three fields print, an empty minResources as {}.
    Tree& spec = pod_group.Child("spec", kByCoscheduling);
    spec.Set("minMember", Tree::Int(totals.min_member, kByCoscheduling));
    spec.Set("minResources", ResourceListTree(totals.min_resources, kByCoscheduling));
    spec.Set("scheduleTimeoutSeconds",
             Tree::Int(policy->schedule_timeout_seconds.value_or(kDefaultScheduleTimeoutSeconds), kByCoscheduling));
    objects.push_back(std::move(pod_group));
  }
};

}  // namespace

std::unique_ptr<Plugin> NewCoscheduling(const RenderOptions&) { return std::make_unique<Coscheduling>(); }

}  // namespace trainer::plugins
