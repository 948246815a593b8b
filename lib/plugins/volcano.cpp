// Volcano: gang scheduling with the Volcano scheduler, for runtimes with podGroupPolicy.volcano.
//
// EnforcePodGroupPolicy annotates every pod with `scheduling.k8s.io/group-name: <TrainJob name>`
// (the JobSet plugin writes the annotation into each pod template). Build makes the
// scheduling.volcano.sh/v1beta1 PodGroup of that name: minMember and minResources summed over the
// PodSets as for Coscheduling, the queue from the JobSet annotation
// `scheduling.volcano.sh/queue-name` (the runtime template's, overridden by runtime patches), the
// priorityClassName of the pod templates (the last replicatedJob that sets one wins) and the
// runtime's networkTopology. Validate rejects an empty queue name. Upstream's Validate also looks
// the PriorityClass up in the cluster and leaves an existing PodGroup alone unless the TrainJob is
// suspended; offline neither can be known, so the class is taken to exist and the PodGroup is
// always built. Follows upstream pkg/runtime/framework/plugins/volcano/volcano.go.
#include "plugins/volcano.h"

#include <fmt/format.h>

#include "runtime/pod_group.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "Volcano";
constexpr const char* kApiVersion = "scheduling.volcano.sh/v1beta1";
constexpr const char* kGroupNameAnnotation = "scheduling.k8s.io/group-name";
constexpr const char* kQueueNameAnnotation = "scheduling.volcano.sh/queue-name";

const Origin kByVolcano = Origin::Plugin(kName);

const VolcanoPolicy* Policy(const Info* info) {
  const PodGroupPolicy* policy = info ? info->runtime_policy.pod_group_policy : nullptr;
  return policy && policy->volcano ? &*policy->volcano : nullptr;
}

// The queue annotation's field in the last runtime patch that sets it: upstream merges patch
// annotations over the runtime's, later patches winning. Empty when no patch sets it.
std::string QueuePatchField(const TrainJob& job) {
  std::string field;
  for (std::size_t i = 0; i < job.spec.runtime_patches.size(); ++i) {
    const auto& patch = job.spec.runtime_patches[i].template_;
    if (!patch || !patch->metadata || !patch->metadata->annotations) continue;
    if (patch->metadata->annotations->count(kQueueNameAnnotation) == 0) continue;
    field = fmt::format("spec.runtimePatches[{}].trainingRuntimeSpec.template.metadata.annotations[{}]", i,
                        kQueueNameAnnotation);
  }
  return field;
}

// The priorityClassName of the last replicatedJob whose pod template sets a non-empty one (the
// typed pod spec drops an empty one).
const Tree* PriorityClassName(const Tree& jobset_spec) {
  const Tree* found = nullptr;
  const Tree* rjobs = jobset_spec.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return nullptr;
  for (const Tree& rjob : rjobs->items()) {
    const Tree* pod_spec = &rjob;
    for (const char* key : {"template", "spec", "template", "spec"}) {
      pod_spec = pod_spec->IsMap() ? pod_spec->Find(key) : nullptr;
      if (pod_spec == nullptr) break;
    }
    const Tree* name = pod_spec && pod_spec->IsMap() ? pod_spec->Find("priorityClassName") : nullptr;
    if (name && name->IsString() && !name->text().empty()) found = name;
  }
  return found;
}

class Volcano : public EnforcePodGroupPolicyPlugin, public ComponentBuilderPlugin, public CustomValidationPlugin {
 public:
  std::string_view Name() const override { return kName; }

  void Validate(const Info* info, const TrainJob*, const TrainJob& job, Diagnostics& errors) override {
    if (Policy(info) == nullptr) return;
    auto queue = info->annotations.find(kQueueNameAnnotation);
    if (queue != info->annotations.end() && queue->second.empty()) {
      std::string patch_field = QueuePatchField(job);
      errors.Add(job.positions.Find(patch_field.empty() ? "spec.runtimeRef" : patch_field),
                 fmt::format("spec.annotations[{}]", kQueueNameAnnotation), "Volcano queue name must not be empty");
    }
  }

  void EnforcePodGroupPolicy(Info& info, const TrainJob& job) override {
    if (Policy(&info) == nullptr) return;
    if (!info.scheduler.pod_annotations) info.scheduler.pod_annotations.emplace();
    (*info.scheduler.pod_annotations)[kGroupNameAnnotation] = job.metadata.name;
  }

  void Build(Info& info, const TrainJob& job, std::vector<Tree>& objects) override {
    const VolcanoPolicy* policy = Policy(&info);
    if (policy == nullptr) return;
    PodGroupTotals totals = SumPodSets(info.template_spec.pod_sets);
    Tree pod_group = NewPodGroup(kApiVersion, job, kByVolcano);
    // The apply configuration holds pointers: minMember and minResources always print (an empty
    // minResources as {}), the others when set.
    Tree& spec = pod_group.Child("spec", kByVolcano);
    spec.Set("minMember", Tree::Int(totals.min_member, kByVolcano));
    spec.Set("minResources", ResourceListTree(totals.min_resources, kByVolcano));
    if (auto queue = info.annotations.find(kQueueNameAnnotation); queue != info.annotations.end()) {
      std::string patch_field = QueuePatchField(job);
      Origin origin = patch_field.empty() ? kByVolcano : job.positions.Find(patch_field).SetBy(kName);
      spec.Set("queue", Tree::String(queue->second, origin));
    }
    if (const Tree* priority_class = PriorityClassName(BuiltSpec(info, objects))) {
      spec.Set("priorityClassName", Tree::String(priority_class->text(), priority_class->origin().SetBy(kName)));
    }
    if (policy->network_topology) {
      const NetworkTopology& topology = *policy->network_topology;
      Tree& out = spec.Child("networkTopology", kByVolcano);
      // Both carry CRD defaults (hard, 1); upstream sets the mode even when empty.
      out.Set("mode", Tree::String(topology.mode.value_or(""), kByVolcano));
      if (topology.highest_tier_allowed)
        out.Set("highestTierAllowed", Tree::Int(*topology.highest_tier_allowed, kByVolcano));
    }
    objects.push_back(std::move(pod_group));
  }
};

}  // namespace

std::unique_ptr<Plugin> NewVolcano(const RenderOptions&) { return std::make_unique<Volcano>(); }

}  // namespace trainer::plugins
