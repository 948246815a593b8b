#include "plugins/volcano.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

namespace trainer {

namespace {

using testing::NewPodSet;
using testing::Requests;
using testing::Text;
using testing::Yaml;

PodGroupPolicy Volcano(std::optional<NetworkTopology> topology = std::nullopt) {
  PodGroupPolicy policy;
  policy.volcano = VolcanoPolicy{std::move(topology)};
  return policy;
}

TrainJob NewTrainJob(std::string name, std::string namespace_ = "", std::string uid = "") {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = std::move(namespace_);
  job.metadata.uid = std::move(uid);
  return job;
}

// As upstream's createBaseInfo: a launcher (300m, 1Gi) and four workers (500m, 0.5Gi), and a
// JobSet spec whose launcher pods have the priority class `high-priority`.
Info BaseInfo(const PodGroupPolicy* policy) {
  Info info;
  info.runtime_policy.pod_group_policy = policy;
  info.template_spec.obj_apply = Yaml(R"(
replicatedJobs:
- name: launcher
  template:
    spec:
      template:
        spec:
          priorityClassName: high-priority
)");
  info.template_spec.pod_sets.push_back(NewPodSet(kLauncher, 1, Requests({{"cpu", "300m"}, {"memory", "1Gi"}})));
  info.template_spec.pod_sets.push_back(NewPodSet("worker", 4, Requests({{"cpu", "500m"}, {"memory", "0.5Gi"}})));
  return info;
}

std::vector<Tree> Run(Info& info, const TrainJob& job) {
  auto plugin = plugins::NewVolcano(RenderOptions{});
  dynamic_cast<EnforcePodGroupPolicyPlugin&>(*plugin).EnforcePodGroupPolicy(info, job);
  std::vector<Tree> objects;
  dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
  return objects;
}

Diagnostics Validate(const Info* info, const TrainJob& job) {
  auto plugin = plugins::NewVolcano(RenderOptions{});
  Diagnostics errors;
  dynamic_cast<CustomValidationPlugin&>(*plugin).Validate(info, nullptr, job, errors);
  return errors;
}

// A JobSet spec whose replicatedJobs have these priority classes ("" for none).
Tree WithPriorityClasses(std::initializer_list<const char*> names) {
  Tree spec = Tree::Map();
  Tree& rjobs = spec.Set("replicatedJobs", Tree::List());
  for (const char* name : names) {
    Tree rjob = Yaml("template: {spec: {template: {spec: {}}}}");
    if (*name) {
      rjob.Find("template")->Find("spec")->Find("template")->Find("spec")->Set("priorityClassName", Tree::String(name));
    }
    rjobs.Append(std::move(rjob));
  }
  return spec;
}

}  // namespace

// Upstream's "Test nil info" has no C++ counterpart: Info is a reference here.

TEST_CASE("Volcano: no action when podGroupPolicy is nil or coscheduling") {
  PodGroupPolicy coscheduling;
  coscheduling.coscheduling = CoschedulingPolicy{60};
  for (const PodGroupPolicy* policy : std::initializer_list<const PodGroupPolicy*>{nullptr, &coscheduling}) {
    Info info = BaseInfo(policy);
    CHECK(Run(info, NewTrainJob("test-trainjob")).empty());
    CHECK(!info.scheduler.pod_annotations);
  }
}

TEST_CASE("Volcano: inject group-name annotation") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  std::vector<Tree> objects = Run(info, NewTrainJob("test-trainjob"));
  CHECK(info.scheduler.pod_annotations == StringMap{{"scheduling.k8s.io/group-name", "test-trainjob"}});
  REQUIRE(objects.size() == 1);
  // The apply configuration prints minMember and minResources even when zero or empty (upstream's
  // test compares typed objects, where both are omitted), and the empty namespace it was given.
  CHECK(Text(objects[0]) == Text(Yaml(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: test-trainjob
  namespace: ""
  ownerReferences:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    name: test-trainjob
    uid: ""
    controller: true
    blockOwnerDeletion: true
spec:
  minMember: 0
  minResources: {}
)")));
}

// Upstream's "PodGroup exists but trainjob suspended"; its "PodGroup exists and trainjob not
// suspended" and "Error when getting existing PodGroup" need a cluster, so offline the PodGroup is
// always built.
TEST_CASE("Volcano: PodGroup exists but trainjob suspended") {
  PodGroupPolicy policy = Volcano(NetworkTopology{"hard", 1});
  Info info = BaseInfo(&policy);
  info.annotations = {{"scheduling.volcano.sh/queue-name", "q1"}};
  TrainJob job = NewTrainJob("job-update", "test-ns", "2");
  job.spec.suspend = true;
  std::vector<Tree> objects = Run(info, job);
  CHECK(info.scheduler.pod_annotations == StringMap{{"scheduling.k8s.io/group-name", "job-update"}});
  REQUIRE(objects.size() == 1);
  // cpu: 300m + 4 x 500m = 2300m; memory: 1Gi + 4 x 512Mi = 3Gi.
  CHECK(Text(objects[0]) == Text(Yaml(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: job-update
  namespace: test-ns
  ownerReferences:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    name: job-update
    uid: "2"
    controller: true
    blockOwnerDeletion: true
spec:
  minMember: 5
  minResources: {cpu: 2300m, memory: 3Gi}
  queue: q1
  priorityClassName: high-priority
  networkTopology: {mode: hard, highestTierAllowed: 1}
)")));
}

TEST_CASE("Volcano: the last replicatedJob that sets a priorityClassName wins") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.obj_apply = WithPriorityClasses({"first", "second", ""});
  std::vector<Tree> objects = Run(info, NewTrainJob("job"));
  CHECK(objects.at(0).Find("spec")->Find("priorityClassName")->text() == "second");
}

TEST_CASE("Volcano: no priorityClassName, queue or networkTopology unless the runtime sets them") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.obj_apply = WithPriorityClasses({"", ""});
  std::vector<Tree> objects = Run(info, NewTrainJob("job"));
  const Tree& spec = *objects.at(0).Find("spec");
  CHECK(spec.keys() == std::vector<std::string>{"minMember", "minResources"});
}

TEST_CASE("Volcano: an empty queue annotation still prints") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.annotations = {{"scheduling.volcano.sh/queue-name", ""}};
  std::vector<Tree> objects = Run(info, NewTrainJob("job"));
  const Tree* queue = objects.at(0).Find("spec")->Find("queue");
  REQUIRE(queue != nullptr);
  CHECK(queue->text().empty());
}

TEST_CASE("Volcano Validate: no action when info is nil") {
  CHECK(Validate(nullptr, NewTrainJob("test", "default")).empty());
}

TEST_CASE("Volcano Validate: no action when Volcano policy not enabled") {
  Info info;
  info.annotations = {{"scheduling.volcano.sh/queue-name", ""}};
  CHECK(Validate(&info, NewTrainJob("test", "default")).empty());
}

TEST_CASE("Volcano Validate: queue annotation is empty") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.annotations = {{"scheduling.volcano.sh/queue-name", ""}};
  Diagnostics errors = Validate(&info, NewTrainJob("test", "default"));
  REQUIRE(errors.items().size() == 1);
  CHECK(errors.items()[0].field == "spec.annotations[scheduling.volcano.sh/queue-name]");
  CHECK(errors.items()[0].message == "Volcano queue name must not be empty");
}

TEST_CASE("Volcano Validate: a queue name passes") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.annotations = {{"scheduling.volcano.sh/queue-name", "q1"}};
  CHECK(Validate(&info, NewTrainJob("test", "default")).empty());
}

// Upstream looks the class up in the cluster ("PriorityClass %q doesn't exist: ..."); offline
// every class is taken to exist, so "priorityClassName does not exist" passes here.
TEST_CASE("Volcano Validate: priorityClassName does not exist (not checked offline)") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.obj_apply = WithPriorityClasses({"non-existent"});
  CHECK(Validate(&info, NewTrainJob("test", "default")).empty());
}

TEST_CASE("Volcano Validate: priorityClassName exists") {
  PodGroupPolicy policy = Volcano();
  Info info;
  info.runtime_policy.pod_group_policy = &policy;
  info.template_spec.obj_apply = WithPriorityClasses({"existing-priority"});
  CHECK(Validate(&info, NewTrainJob("test", "default")).empty());
}

}  // namespace trainer
