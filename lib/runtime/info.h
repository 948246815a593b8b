// Info, PodSet and Container: what the plugins read and change, as upstream pkg/runtime/runtime.go.
//
// Info.template_spec.obj_apply is the JobSet spec the controller will send (a Tree); PodSets are
// views of its replicatedJobs, one per replicatedJob in the same order, that the plugins edit and
// the JobSet plugin syncs back in Build.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "k8s/quantity.h"
#include "yaml/tree.h"

namespace trainer {

inline constexpr const char* kLabelTrainJobAncestor = "trainer.kubeflow.org/trainjob-ancestor-step";
inline constexpr const char* kAncestorTrainer = "trainer";
inline constexpr const char* kDatasetInitializer = "dataset-initializer";
inline constexpr const char* kModelInitializer = "model-initializer";
inline constexpr const char* kNode = "node";
inline constexpr const char* kLauncher = "launcher";
inline constexpr std::int32_t kDefaultJobReplicas = 1;
// The port the frameworks' rendezvous and trackers listen on.
inline constexpr std::int32_t kContainerTrainerPort = 29500;

using ResourceList = std::map<std::string, Quantity>;

struct Container {
  std::string name;
  Tree image;    // a string, or null when the runtime sets none
  Tree command;  // a list, or null
  std::vector<Tree> env;
  std::vector<Tree> ports;
  std::vector<Tree> volume_mounts;
};

// Parameters of a PodSet's endpoints, set by the JobSet plugin's PreBuildSync. The endpoints are
// computed when asked for, from the PodSet's count at that time, as upstream's iterator is.
struct EndpointSource {
  std::string job_set_name;
  std::string replicated_job_name;
  std::int32_t replicas = kDefaultJobReplicas;
  std::string subdomain;
};

struct PodSet {
  std::string name;
  std::optional<std::string> ancestor;
  std::optional<std::int32_t> count;
  Origin count_origin;  // where the count came from
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<Tree> volumes;
  std::optional<EndpointSource> endpoints;
  ResourceList single_pod_requests;

  // Calls visit(endpoint) for each pod endpoint "<job>-<rjob>-<replica>-<pod>.<subdomain>" in
  // order, until visit returns false.
  template <class Visit>
  void ForEachEndpoint(Visit visit) const {
    if (!endpoints) return;
    std::int32_t pods = count.value_or(1);
    std::string prefix = endpoints->job_set_name + "-" + endpoints->replicated_job_name + "-";
    for (std::int32_t r = 0; r < endpoints->replicas; ++r) {
      for (std::int32_t p = 0; p < pods; ++p) {
        if (!visit(prefix + std::to_string(r) + "-" + std::to_string(p) + "." + endpoints->subdomain)) return;
      }
    }
  }
};

struct RuntimePolicy {
  const MLPolicy* ml_policy = nullptr;  // upstream keeps only the MLPolicySource part
  const PodGroupPolicy* pod_group_policy = nullptr;
};

struct Scheduler {
  StringMap pod_labels;
  std::optional<StringMap> pod_annotations;
};

struct TemplateSpec {
  // jobset.x-k8s.io/v1alpha2 JobSetSpec apply configuration. The JobSet builder completes it and
  // moves it into the JobSet it builds: builders read it with BuiltSpec.
  Tree obj_apply;
  std::vector<PodSet> pod_sets;
};

struct Info {
  StringMap labels;
  StringMap annotations;
  RuntimePolicy runtime_policy;
  Scheduler scheduler;
  TemplateSpec template_spec;

  PodSet* FindPodSetByAncestor(std::string_view ancestor);
  PodSet* FindPodSetByName(std::string_view name);
  // The named container of the first PodSet with that ancestor.
  Container* FindContainerByPodSetAncestorContainerName(std::string_view ancestor, std::string_view container);
  // The named container of the named PodSet, regular containers before init containers.
  Container* FindContainerByPodSetName(std::string_view pod_set, std::string_view container);
};

// GetNumGPUPerNode: the count of the first resource whose name contains "gpu", requests before
// limits. `resources` is a ResourceRequirements tree (limits, requests).
int NumGPUPerNode(const Tree* resources);

// The JobSet spec as it stands during Build, which upstream's builders share: in the JobSet among
// `objects` once the JobSet builder ran, in `info` before.
const Tree& BuiltSpec(const Info& info, const std::vector<Tree>& objects);

// ExtractResourcePerNodeFromRuntime: the resources of the `node` container of the first
// replicatedJob that is named `node` or labelled with the trainer ancestor and whose `node`
// container sets resources; a tree with `limits` and `requests` maps (possibly empty). nullopt
// when no such container exists. `jobset_spec` is the Info's obj_apply, or BuiltSpec in Build.
std::optional<Tree> ExtractResourcePerNodeFromRuntime(const Tree& jobset_spec);

// resourcehelpers.PodRequests for a pod spec tree (containers summed, init containers by max,
// restartable init containers as sidecars, overhead added).
ResourceList PodRequests(const Tree& pod_spec);

}  // namespace trainer
