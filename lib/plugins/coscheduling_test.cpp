#include "plugins/coscheduling.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

namespace trainer {

namespace {

using testing::NewPodSet;
using testing::Requests;
using testing::Text;
using testing::Yaml;

// The runtime's PodGroup policy in a row: none, one without a scheduler, Volcano, or coscheduling.
enum class Policy { kNone, kEmpty, kVolcano, kCoscheduling };

// As upstream's MakeTrainJobWrapper(default, name).UID("trainJob").
TrainJob NewTrainJob(std::string name = "trainJob", std::optional<bool> suspend = std::nullopt) {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  job.metadata.uid = "trainJob";
  job.spec.suspend = suspend;
  return job;
}

// The PodGroup upstream's MakeSchedulerPluginsPodGroup(default, name) builds, with `spec`.
std::string ExpectedPodGroup(const std::string& name, std::string_view spec) {
  return Text(Yaml(R"(
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: )" + name + R"(
  namespace: default
  ownerReferences:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    name: )" + name +
                   R"(
    uid: trainJob
    controller: true
    blockOwnerDeletion: true
spec:
)" + std::string(spec)));
}

StringMap PodGroupLabel(const std::string& name) { return {{"scheduling.x-k8s.io/pod-group", name}}; }

// Two nodes of 500m and 1Gi each.
PodSet TwoNodes() { return NewPodSet(kNode, 2, Requests({{"cpu", "500m"}, {"memory", "1Gi"}})); }

}  // namespace

// As upstream's TestCoScheduling, EnforcePodGroupPolicy then Build, as the pipeline runs them.
// Upstream's "no action when info is nil" and "no action when trainJob is nil" have no C++
// counterpart: both are references here. Its "failed to get PodGroup due to API error", "no action
// when PodGroup already exists and TrainJob is not suspended" and "no action when TrainJob is not
// suspended" need a cluster: offline there is no PodGroup yet, so it is built whatever the
// TrainJob's suspend says.
TEST_CASE("Coscheduling EnforcePodGroupPolicy and Build") {
  struct Case {
    const char* name;
    Policy policy = Policy::kCoscheduling;
    std::optional<std::int32_t> timeout = 30;
    StringMap labels;
    StringMap pod_labels;  // set by other plugins before
    std::vector<PodSet> pod_sets;
    TrainJob job = NewTrainJob();
    StringMap want_pod_labels = PodGroupLabel("trainJob");
    std::optional<std::string> pod_group;  // none built when unset
  };
  const Case cases[] = {
      {.name = "no action when podGroupPolicy is nil",
       .policy = Policy::kNone,
       .labels = {{"key", "value"}},
       .want_pod_labels = {}},
      {.name = "no action when coscheduling is nil", .policy = Policy::kEmpty, .want_pod_labels = {}},
      {.name = "no action when volcano is the policy", .policy = Policy::kVolcano, .want_pod_labels = {}},
      // An empty minResources still prints: the apply configuration holds a pointer to the map.
      {.name = "succeeded to build PodGroup",
       .pod_sets = {NewPodSet(kNode, 1)},
       .pod_group = ExpectedPodGroup("trainJob", "  minMember: 1\n  minResources: {}\n  scheduleTimeoutSeconds: 30\n")},
      // 2 x 500m + 250m = 1250m (upstream's "1.25"); 2 x 1Gi + 512Mi = 2560Mi (upstream's "2.5Gi").
      {.name = "succeeded to build PodGroup with multiple PodSets",
       .pod_sets = {TwoNodes(), NewPodSet(kDatasetInitializer, 1, Requests({{"cpu", "250m"}, {"memory", "512Mi"}}))},
       .pod_group = ExpectedPodGroup(
           "trainJob", "  minMember: 3\n  minResources: {cpu: 1250m, memory: 2560Mi}\n  scheduleTimeoutSeconds: 30\n")},
      {.name = "succeeded to build PodGroup with MinResources",
       .pod_sets = {TwoNodes()},
       .pod_group = ExpectedPodGroup(
           "trainJob", "  minMember: 2\n  minResources: {cpu: \"1\", memory: 2Gi}\n  scheduleTimeoutSeconds: 30\n")},
      {.name = "the PodGroup is built when the TrainJob's suspend is unset",
       .pod_sets = {TwoNodes()},
       .job = NewTrainJob("existingTrainJob"),
       .want_pod_labels = PodGroupLabel("existingTrainJob"),
       .pod_group = ExpectedPodGroup("existingTrainJob",
                                     "  minMember: 2\n  minResources: {cpu: \"1\", memory: 2Gi}\n"
                                     "  scheduleTimeoutSeconds: 30\n")},
      {.name = "the PodGroup is built when the TrainJob is not suspended",
       .pod_sets = {TwoNodes()},
       .job = NewTrainJob("existingTrainJob", false),
       .want_pod_labels = PodGroupLabel("existingTrainJob"),
       .pod_group = ExpectedPodGroup("existingTrainJob",
                                     "  minMember: 2\n  minResources: {cpu: \"1\", memory: 2Gi}\n"
                                     "  scheduleTimeoutSeconds: 30\n")},
      {.name = "the PodGroup is built when the TrainJob is suspended",
       .pod_sets = {TwoNodes()},
       .job = NewTrainJob("existingTrainJob", true),
       .want_pod_labels = PodGroupLabel("existingTrainJob"),
       .pod_group = ExpectedPodGroup("existingTrainJob",
                                     "  minMember: 2\n  minResources: {cpu: \"1\", memory: 2Gi}\n"
                                     "  scheduleTimeoutSeconds: 30\n")},
      {.name = "the label joins the pod labels other plugins set",
       .timeout = 60,
       .pod_labels = {{"team", "ml"}},
       .want_pod_labels = {{"scheduling.x-k8s.io/pod-group", "trainJob"}, {"team", "ml"}},
       .pod_group = ExpectedPodGroup("trainJob", "  minMember: 0\n  minResources: {}\n  scheduleTimeoutSeconds: 60\n")},
      // Upstream's trainingruntime_test "succeeded to build PodGroup and JobSet with NumNodes from
      // the TrainJob and container from the Runtime."
      {.name = "30 trainer nodes and two initializers with one CPU each ask for 32 members and 32 CPUs",
       .timeout = 120,
       .pod_sets = {NewPodSet(kDatasetInitializer, 1, Requests({{"cpu", "1"}})),
                    NewPodSet(kModelInitializer, 1, Requests({{"cpu", "1"}})),
                    NewPodSet(kNode, 30, Requests({{"cpu", "1"}}))},
       .pod_group = ExpectedPodGroup(
           "trainJob", "  minMember: 32\n  minResources: {cpu: \"32\"}\n  scheduleTimeoutSeconds: 120\n")},
      // A sum takes the format of the first PodSet that requests the resource.
      // 1073741824 + 2 x 2000000000 = 5073741824 = 4954826 x 1024.
      {.name = "a sum takes the binary format when the first PodSet's is binary",
       .timeout = 60,
       .pod_sets = {NewPodSet("a", 1, Requests({{"memory", "1Gi"}})), NewPodSet("b", 2, Requests({{"memory", "2G"}}))},
       .pod_group = ExpectedPodGroup(
           "trainJob", "  minMember: 3\n  minResources: {memory: 4954826Ki}\n  scheduleTimeoutSeconds: 60\n")},
      {.name = "a sum takes the decimal format when the first PodSet's is decimal",
       .timeout = 60,
       .pod_sets = {NewPodSet("b", 2, Requests({{"memory", "2G"}})), NewPodSet("a", 1, Requests({{"memory", "1Gi"}}))},
       .pod_group = ExpectedPodGroup(
           "trainJob", "  minMember: 3\n  minResources: {memory: \"5073741824\"}\n  scheduleTimeoutSeconds: 60\n")},
      {.name = "a PodSet without the resource does not decide the format",
       .timeout = 60,
       .pod_sets = {NewPodSet("a", 1, Requests({{"cpu", "1"}})),
                    NewPodSet("b", 1, Requests({{"cpu", "1"}, {"memory", "512Mi"}})),
                    NewPodSet("c", 1, Requests({{"memory", "512M"}}))},
       .pod_group = ExpectedPodGroup(
           "trainJob",
           "  minMember: 3\n  minResources: {cpu: \"2\", memory: 1024288Ki}\n  scheduleTimeoutSeconds: 60\n")},
      {.name = "scheduleTimeoutSeconds falls back to the CRD default",
       .timeout = std::nullopt,
       .pod_group = ExpectedPodGroup("trainJob", "  minMember: 0\n  minResources: {}\n  scheduleTimeoutSeconds: 60\n")},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      PodGroupPolicy policy;
      if (c.policy == Policy::kVolcano) policy.volcano = VolcanoPolicy{};
      if (c.policy == Policy::kCoscheduling) policy.coscheduling = CoschedulingPolicy{c.timeout};
      Info info;
      if (c.policy != Policy::kNone) info.runtime_policy.pod_group_policy = &policy;
      info.labels = c.labels;
      info.scheduler.pod_labels = c.pod_labels;
      info.template_spec.pod_sets = c.pod_sets;
      auto plugin = plugins::NewCoscheduling(RenderOptions{});
      dynamic_cast<EnforcePodGroupPolicyPlugin&>(*plugin).EnforcePodGroupPolicy(info, c.job);
      std::vector<Tree> objects;
      dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, c.job, objects);
      CHECK(info.labels == c.labels);
      CHECK(info.scheduler.pod_labels == c.want_pod_labels);
      REQUIRE(objects.size() == (c.pod_group ? 1 : 0));
      if (c.pod_group) CHECK(Text(objects[0]) == *c.pod_group);
    }
  }
}

}  // namespace trainer
