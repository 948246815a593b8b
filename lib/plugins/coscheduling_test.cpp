#include "plugins/coscheduling.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

namespace trainer {

namespace {

using testing::NewPodSet;
using testing::Requests;
using testing::Text;
using testing::Yaml;

PodGroupPolicy Coscheduling(std::optional<std::int32_t> timeout) {
  PodGroupPolicy policy;
  policy.coscheduling = CoschedulingPolicy{timeout};
  return policy;
}

// As upstream's MakeTrainJobWrapper(default, "trainJob").UID("trainJob").
TrainJob NewTrainJob(std::string name = "trainJob") {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  job.metadata.uid = "trainJob";
  return job;
}

// Runs EnforcePodGroupPolicy, then Build, as the pipeline does.
std::vector<Tree> Run(Info& info, const TrainJob& job) {
  auto plugin = plugins::NewCoscheduling(RenderOptions{});
  dynamic_cast<EnforcePodGroupPolicyPlugin&>(*plugin).EnforcePodGroupPolicy(info, job);
  std::vector<Tree> objects;
  dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
  return objects;
}

// The PodGroup upstream's MakeSchedulerPluginsPodGroup(default, "trainJob") builds, with `spec`.
std::string ExpectedPodGroup(std::string_view spec) {
  return Text(Yaml(std::string(R"(
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: trainJob
  namespace: default
  ownerReferences:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    name: trainJob
    uid: trainJob
    controller: true
    blockOwnerDeletion: true
spec:
)") + std::string(spec)));
}

const StringMap kPodGroupLabel = {{"scheduling.x-k8s.io/pod-group", "trainJob"}};

}  // namespace

// Upstream's "no action when info is nil" and "no action when trainJob is nil" have no C++
// counterpart: both are references here.

TEST_CASE("Coscheduling: no action when podGroupPolicy is nil") {
  Info info;
  info.labels = {{"key", "value"}};
  CHECK(Run(info, NewTrainJob()).empty());
  CHECK(info.scheduler.pod_labels.empty());
  CHECK(info.labels == StringMap{{"key", "value"}});
}

TEST_CASE("Coscheduling: no action when coscheduling is nil") {
  PodGroupPolicy policy;
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  CHECK(Run(info, NewTrainJob()).empty());
  CHECK(info.scheduler.pod_labels.empty());
}

TEST_CASE("Coscheduling: no action when volcano is the policy") {
  PodGroupPolicy policy;
  policy.volcano = VolcanoPolicy{};
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  CHECK(Run(info, NewTrainJob()).empty());
  CHECK(info.scheduler.pod_labels.empty());
}

TEST_CASE("Coscheduling: succeeded to build PodGroup") {
  PodGroupPolicy policy = Coscheduling(30);
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.pod_sets.push_back(NewPodSet(kNode, 1));
  std::vector<Tree> objects = Run(info, NewTrainJob());
  CHECK(info.scheduler.pod_labels == kPodGroupLabel);
  REQUIRE(objects.size() == 1);
  // An empty minResources still prints: the apply configuration holds a pointer to the map.
  CHECK(Text(objects[0]) == ExpectedPodGroup(R"(
  minMember: 1
  minResources: {}
  scheduleTimeoutSeconds: 30
)"));
}

TEST_CASE("Coscheduling: succeeded to build PodGroup with multiple PodSets") {
  PodGroupPolicy policy = Coscheduling(30);
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.pod_sets.push_back(NewPodSet(kNode, 2, Requests({{"cpu", "500m"}, {"memory", "1Gi"}})));
  info.template_spec.pod_sets.push_back(
      NewPodSet(kDatasetInitializer, 1, Requests({{"cpu", "250m"}, {"memory", "512Mi"}})));
  std::vector<Tree> objects = Run(info, NewTrainJob());
  CHECK(info.scheduler.pod_labels == kPodGroupLabel);
  REQUIRE(objects.size() == 1);
  // 2 x 500m + 250m = 1250m (upstream's "1.25"); 2 x 1Gi + 512Mi = 2560Mi (upstream's "2.5Gi").
  CHECK(Text(objects[0]) == ExpectedPodGroup(R"(
  minMember: 3
  minResources: {cpu: 1250m, memory: 2560Mi}
  scheduleTimeoutSeconds: 30
)"));
}

TEST_CASE("Coscheduling: succeeded to build PodGroup with MinResources") {
  PodGroupPolicy policy = Coscheduling(30);
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.pod_sets.push_back(NewPodSet(kNode, 2, Requests({{"cpu", "500m"}, {"memory", "1Gi"}})));
  std::vector<Tree> objects = Run(info, NewTrainJob());
  REQUIRE(objects.size() == 1);
  CHECK(Text(objects[0]) == ExpectedPodGroup(R"(
  minMember: 2
  minResources: {cpu: "1", memory: 2Gi}
  scheduleTimeoutSeconds: 30
)"));
}

// Upstream's "failed to get PodGroup due to API error", "no action when PodGroup already exists
// and TrainJob is not suspended" and "no action when TrainJob is not suspended" need a cluster:
// offline there is no PodGroup yet, so it is built whatever the TrainJob's suspend says.
TEST_CASE("Coscheduling: the PodGroup is built whether or not the TrainJob is suspended") {
  PodGroupPolicy policy = Coscheduling(30);
  for (std::optional<bool> suspend : {std::optional<bool>(), std::optional<bool>(false), std::optional<bool>(true)}) {
    Info info;
    info.runtime_policy.pod_group_policy = &policy;
    info.template_spec.pod_sets.push_back(NewPodSet(kNode, 2, Requests({{"cpu", "500m"}, {"memory", "1Gi"}})));
    TrainJob job = NewTrainJob("existingTrainJob");
    job.spec.suspend = suspend;
    std::vector<Tree> objects = Run(info, job);
    CHECK(info.scheduler.pod_labels == StringMap{{"scheduling.x-k8s.io/pod-group", "existingTrainJob"}});
    CHECK(objects.size() == 1);
  }
}

TEST_CASE("Coscheduling: the label joins the pod labels other plugins set") {
  PodGroupPolicy policy = Coscheduling(60);
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.scheduler.pod_labels = {{"team", "ml"}};
  Run(info, NewTrainJob());
  CHECK(info.scheduler.pod_labels == StringMap{{"scheduling.x-k8s.io/pod-group", "trainJob"}, {"team", "ml"}});
}

TEST_CASE("Coscheduling: 30 trainer nodes and two initializers with one CPU each ask for 32 members and 32 CPUs") {
  // Upstream's trainingruntime_test "succeeded to build PodGroup and JobSet with NumNodes from the
  // TrainJob and container from the Runtime."
  PodGroupPolicy policy = Coscheduling(120);
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.pod_sets.push_back(NewPodSet(kDatasetInitializer, 1, Requests({{"cpu", "1"}})));
  info.template_spec.pod_sets.push_back(NewPodSet(kModelInitializer, 1, Requests({{"cpu", "1"}})));
  info.template_spec.pod_sets.push_back(NewPodSet(kNode, 30, Requests({{"cpu", "1"}})));
  std::vector<Tree> objects = Run(info, NewTrainJob());
  REQUIRE(objects.size() == 1);
  CHECK(Text(objects[0]) == ExpectedPodGroup(R"(
  minMember: 32
  minResources: {cpu: "32"}
  scheduleTimeoutSeconds: 120
)"));
}

TEST_CASE("Coscheduling: a sum takes the format of the first PodSet that requests the resource") {
  PodGroupPolicy policy = Coscheduling(60);
  SUBCASE("binary first") {
    Info info;
    info.runtime_policy.pod_group_policy = &policy;
    info.template_spec.pod_sets.push_back(NewPodSet("a", 1, Requests({{"memory", "1Gi"}})));
    info.template_spec.pod_sets.push_back(NewPodSet("b", 2, Requests({{"memory", "2G"}})));
    std::vector<Tree> objects = Run(info, NewTrainJob());
    // 1073741824 + 2 x 2000000000 = 5073741824 = 4954826 x 1024.
    CHECK(objects.at(0).Find("spec")->Find("minResources")->Find("memory")->text() == "4954826Ki");
  }
  SUBCASE("decimal first") {
    Info info;
    info.runtime_policy.pod_group_policy = &policy;
    info.template_spec.pod_sets.push_back(NewPodSet("b", 2, Requests({{"memory", "2G"}})));
    info.template_spec.pod_sets.push_back(NewPodSet("a", 1, Requests({{"memory", "1Gi"}})));
    std::vector<Tree> objects = Run(info, NewTrainJob());
    CHECK(objects.at(0).Find("spec")->Find("minResources")->Find("memory")->text() == "5073741824");
  }
  SUBCASE("a PodSet without the resource does not decide the format") {
    Info info;
    info.runtime_policy.pod_group_policy = &policy;
    info.template_spec.pod_sets.push_back(NewPodSet("a", 1, Requests({{"cpu", "1"}})));
    info.template_spec.pod_sets.push_back(NewPodSet("b", 1, Requests({{"cpu", "1"}, {"memory", "512Mi"}})));
    info.template_spec.pod_sets.push_back(NewPodSet("c", 1, Requests({{"memory", "512M"}})));
    std::vector<Tree> objects = Run(info, NewTrainJob());
    CHECK(objects.at(0).Find("spec")->Find("minResources")->Find("memory")->text() == "1024288Ki");
  }
}

TEST_CASE("Coscheduling: scheduleTimeoutSeconds falls back to the CRD default") {
  PodGroupPolicy policy = Coscheduling(std::nullopt);
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  std::vector<Tree> objects = Run(info, NewTrainJob());
  REQUIRE(objects.size() == 1);
  CHECK(objects[0].Find("spec")->Find("scheduleTimeoutSeconds")->AsInt() == 60);
}

}  // namespace trainer
