// The trainer.kubeflow.org/v1alpha1 API: TrainJob, TrainingRuntime and ClusterTrainingRuntime.
//
// Follows upstream pkg/apis/trainer/v1alpha1 (trainjob_types.go, trainingruntime_types.go) field
// for field. std::optional stands where Go has a pointer or a nil-able slice, so "unset" and
// "empty" stay distinct. Embedded Kubernetes core types (EnvVar, ResourceRequirements, Volume,
// Affinity, ...) are kept as Trees checked against lib/k8s/typed_roundtrip's tables, and the
// JobSet template stays a Tree so that no field is lost.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/key_index.h"
#include "yaml/tree.h"

namespace trainer {

inline constexpr const char* kTrainerGroup = "trainer.kubeflow.org";

// The group of an apiVersion: "" (the core group) for "v1", "jobset.x-k8s.io" for
// "jobset.x-k8s.io/v1alpha2".
inline std::string_view ApiGroup(std::string_view api_version) {
  const std::size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}
inline constexpr const char* kTrainerApiVersion = "trainer.kubeflow.org/v1alpha1";
inline constexpr const char* kTrainJobKind = "TrainJob";
inline constexpr const char* kTrainingRuntimeKind = "TrainingRuntime";
inline constexpr const char* kClusterTrainingRuntimeKind = "ClusterTrainingRuntime";

using StringMap = std::map<std::string, std::string>;

// Where each decoded field stands in its file, by field path ("spec.trainer.numNodes").
class FieldPositions {
 public:
  FieldPositions() = default;

  // Keeps the first origin recorded for a path: the decoder records a field's key and then, at
  // once, its value, and the key's is the one kept.
  void Record(std::string_view path, const Origin& origin);
  // The origin of `path`, or of its nearest recorded ancestor.
  Origin Find(std::string_view path) const;
  // Calls visit(path, origin) for every recorded field, in the order recorded.
  template <class Visit>
  void ForEach(Visit visit) const {
    for (const Entry& e : entries_) visit(PathOf(e), e.origin);
  }

 private:
  // A decoded TrainJob records a hundred or so paths: they share one buffer rather than each
  // taking a string (and a hash node) of its own.
  struct Entry {
    std::uint32_t offset;
    std::uint32_t size;
    Origin origin;
  };
  std::string_view PathOf(const Entry& e) const { return std::string_view(text_).substr(e.offset, e.size); }
  const Entry* Lookup(std::string_view path) const;

  std::string text_;            // the recorded paths, one after another
  std::vector<Entry> entries_;  // in the order recorded
  // Paths by position in entries_, for objects with many fields, built on the first lookup after a
  // change. It holds positions, so a copy (each render copies its TrainJob) keeps it valid.
  mutable KeyIndex index_;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::optional<StringMap> labels;
  std::optional<StringMap> annotations;
  std::vector<std::string> finalizers;
};

struct LocalObjectReference {
  std::string name;
};

// --- TrainJob ---------------------------------------------------------------------------------

struct RuntimeRef {
  std::string name;
  std::optional<std::string> api_group;
  std::optional<std::string> kind;
};

// DatasetInitializer and ModelInitializer have the same shape upstream.
struct InitializerSource {
  std::optional<std::string> storage_uri;
  std::vector<Tree> env;  // core/v1 EnvVar
  std::optional<LocalObjectReference> secret_ref;
};

struct Initializer {
  std::optional<InitializerSource> dataset;
  std::optional<InitializerSource> model;
};

struct TrainerSpec {
  std::optional<std::string> image;
  std::optional<std::vector<std::string>> command;
  std::optional<std::vector<std::string>> args;
  std::vector<Tree> env;  // core/v1 EnvVar
  std::optional<std::int32_t> num_nodes;
  std::optional<Tree> resources_per_node;  // core/v1 ResourceRequirements
  std::optional<std::int32_t> num_proc_per_node;
};

struct ContainerPatch {
  std::string name;
  std::vector<Tree> env;            // core/v1 EnvVar
  std::vector<Tree> volume_mounts;  // core/v1 VolumeMount
  std::optional<Tree> security_context;
};

struct PodSpecPatch {
  std::optional<std::string> service_account_name;
  std::vector<Tree> volumes;  // core/v1 Volume
  std::vector<ContainerPatch> init_containers;
  std::vector<ContainerPatch> containers;
  std::vector<LocalObjectReference> image_pull_secrets;
  std::optional<Tree> security_context;  // core/v1 PodSecurityContext
  std::optional<StringMap> node_selector;
  std::optional<Tree> affinity;       // core/v1 Affinity
  std::vector<Tree> tolerations;      // core/v1 Toleration
  std::vector<std::string> scheduling_gates;  // PodSchedulingGate names
  std::optional<std::int64_t> termination_grace_period_seconds;
};

struct PodTemplatePatch {
  std::optional<ObjectMeta> metadata;
  std::optional<PodSpecPatch> spec;
};

struct ReplicatedJobPatch {
  std::string name;
  std::optional<ObjectMeta> job_metadata;        // template.metadata
  std::optional<PodTemplatePatch> pod_template;  // template.spec.template
};

struct JobSetTemplatePatch {
  std::optional<ObjectMeta> metadata;
  // template.spec: nullopt when absent; the list may be empty.
  std::optional<std::vector<ReplicatedJobPatch>> replicated_jobs;
  // template.spec as written (after checking), for the strategic merge of runtime patches.
  Tree spec_tree;
};

struct RuntimePatch {
  std::string manager;
  std::optional<std::string> time;
  // trainingRuntimeSpec.template; nullopt when trainingRuntimeSpec or its template is absent.
  std::optional<JobSetTemplatePatch> template_;
};

struct TrainJobSpec {
  RuntimeRef runtime_ref;
  std::optional<Initializer> initializer;
  std::optional<TrainerSpec> trainer;
  std::vector<RuntimePatch> runtime_patches;
  std::optional<bool> suspend;
  std::int64_t active_deadline_seconds = 0;
  std::optional<std::string> managed_by;
};

// What a TrainJob's status says about its state in a cluster dump. The controller writes status
// and the API server ignores it on create, so it is read leniently and never validated.
struct TrainJobStatus {
  bool complete = false;         // condition Complete is "True"
  bool failed = false;           // condition Failed is "True"
  bool suspended = false;        // condition Suspended is "True"
  bool has_jobs_status = false;  // status.jobsStatus is a non-empty list: the JobSet exists
};

// The controller's own name in spec.managedBy (its CRD default); any other value hands the
// TrainJob to another controller, and this one creates nothing for it.
inline constexpr const char* kTrainJobControllerName = "trainer.kubeflow.org/trainjob-controller";

struct TrainJob {
  ObjectMeta metadata;
  TrainJobSpec spec;
  TrainJobStatus status;
  FieldPositions positions;
  Origin origin;  // where the document starts
};

// Whether spec.managedBy hands the TrainJob to another controller (e.g. Kueue's MultiKueue): the
// Trainer controller then skips it and creates nothing.
inline bool ManagedByAnotherController(const TrainJob& job) {
  return job.spec.managed_by.value_or(kTrainJobControllerName) != kTrainJobControllerName;
}

// Whether a condition Complete or Failed is true: the controller no longer reconciles the TrainJob.
inline bool Finished(const TrainJob& job) { return job.status.complete || job.status.failed; }

// --- Runtimes ---------------------------------------------------------------------------------

struct EnvInjectionTarget {
  std::string job_name;
  std::vector<std::string> container_names;
};

struct TorchPolicy {
  // envInjection.targets; nullopt when envInjection is absent.
  std::optional<std::vector<EnvInjectionTarget>> env_injection_targets;
};

struct MPIPolicy {
  std::optional<std::int32_t> num_proc_per_node;
  std::optional<std::string> mpi_implementation;
  std::optional<std::string> ssh_auth_mount_path;
  std::optional<bool> run_launcher_as_node;
};

struct FluxPolicy {
  std::optional<std::int32_t> num_proc_per_node;
};

struct MLPolicy {
  std::optional<std::int32_t> num_nodes;
  std::optional<TorchPolicy> torch;
  std::optional<MPIPolicy> mpi;
  std::optional<FluxPolicy> flux;
  bool jax = false;
  bool xgboost = false;
};

struct NetworkTopology {
  std::optional<std::string> mode;
  std::optional<std::int32_t> highest_tier_allowed;
};

struct CoschedulingPolicy {
  std::optional<std::int32_t> schedule_timeout_seconds;
};

struct VolcanoPolicy {
  std::optional<NetworkTopology> network_topology;
};

struct PodGroupPolicy {
  std::optional<CoschedulingPolicy> coscheduling;
  std::optional<VolcanoPolicy> volcano;
};

struct JobSetTemplateSpec {
  std::optional<StringMap> labels;
  std::optional<StringMap> annotations;
  Tree spec;  // jobset.x-k8s.io/v1alpha2 JobSetSpec, after the typed round trip
};

struct TrainingRuntimeSpec {
  std::optional<MLPolicy> ml_policy;
  std::optional<PodGroupPolicy> pod_group_policy;
  JobSetTemplateSpec template_;
};

// A TrainingRuntime or a ClusterTrainingRuntime.
struct Runtime {
  std::string kind;  // kTrainingRuntimeKind or kClusterTrainingRuntimeKind
  ObjectMeta metadata;
  TrainingRuntimeSpec spec;
  FieldPositions positions;
  Origin origin;
  Tree source;  // the document as read and defaulted, to tell identical definitions apart
};

}  // namespace trainer
