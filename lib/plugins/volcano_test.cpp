#include "plugins/volcano.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

namespace trainer {

namespace {

using testing::NewPodSet;
using testing::Requests;
using testing::Text;
using testing::Yaml;

// The runtime's PodGroup policy in a row: no Info at all, none, coscheduling, or Volcano with or
// without a network topology.
enum class Policy { kNilInfo, kNone, kCoscheduling, kVolcano, kVolcanoHardTier1 };

PodGroupPolicy PolicyOf(Policy policy) {
  PodGroupPolicy out;
  if (policy == Policy::kCoscheduling) out.coscheduling = CoschedulingPolicy{60};
  if (policy == Policy::kVolcano) out.volcano = VolcanoPolicy{};
  if (policy == Policy::kVolcanoHardTier1) out.volcano = VolcanoPolicy{NetworkTopology{"hard", 1}};
  return out;
}

TrainJob NewTrainJob(std::string name, std::string namespace_ = "", std::string uid = "",
                     std::optional<bool> suspend = std::nullopt) {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = std::move(namespace_);
  job.metadata.uid = std::move(uid);
  job.spec.suspend = suspend;
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

// The Volcano PodGroup of TrainJob `name`, with `spec`. The apply configuration prints minMember
// and minResources even when zero or empty (upstream's test compares typed objects, where both are
// omitted), and the namespace and uid it was given, even empty.
std::string PodGroup(const std::string& name, const std::string& namespace_, const std::string& uid,
                     const std::string& spec) {
  return Text(
      Yaml("apiVersion: scheduling.volcano.sh/v1beta1\n"
           "kind: PodGroup\n"
           "metadata:\n"
           "  name: " +
           name + "\n  namespace: \"" + namespace_ +
           "\"\n"
           "  ownerReferences:\n"
           "  - apiVersion: trainer.kubeflow.org/v1alpha1\n"
           "    kind: TrainJob\n"
           "    name: " +
           name + "\n    uid: \"" + uid +
           "\"\n"
           "    controller: true\n"
           "    blockOwnerDeletion: true\n"
           "spec:\n" +
           spec));
}

const StringMap kQueueQ1 = {{"scheduling.volcano.sh/queue-name", "q1"}};
const StringMap kEmptyQueue = {{"scheduling.volcano.sh/queue-name", ""}};

}  // namespace

// As upstream's TestVolcano, EnforcePodGroupPolicy then Build. Upstream's "Test nil info" has no
// C++ counterpart: Info is a reference here. Its "PodGroup exists and trainjob not suspended" and
// "Error when getting existing PodGroup" need a cluster, so offline the PodGroup is always built.
TEST_CASE("Volcano EnforcePodGroupPolicy and Build") {
  struct Case {
    const char* name;
    Policy policy = Policy::kVolcano;
    bool base = false;  // BaseInfo's PodSets and JobSet spec, else none
    StringMap annotations;
    Tree runtime_spec;  // the JobSet spec, when set
    TrainJob job;
    std::optional<StringMap> pod_annotations;
    std::optional<std::string> pod_group;  // none built when unset
  };
  const Case cases[] = {
      {.name = "no action when podGroupPolicy is nil",
       .policy = Policy::kNone,
       .base = true,
       .job = NewTrainJob("test-trainjob")},
      {.name = "no action when podGroupPolicy is coscheduling",
       .policy = Policy::kCoscheduling,
       .base = true,
       .job = NewTrainJob("test-trainjob")},
      {.name = "inject group-name annotation",
       .job = NewTrainJob("test-trainjob"),
       .pod_annotations = StringMap{{"scheduling.k8s.io/group-name", "test-trainjob"}},
       .pod_group = PodGroup("test-trainjob", "", "", "  minMember: 0\n  minResources: {}\n")},
      // cpu: 300m + 4 x 500m = 2300m; memory: 1Gi + 4 x 512Mi = 3Gi.
      {.name = "PodGroup exists but trainjob suspended",
       .policy = Policy::kVolcanoHardTier1,
       .base = true,
       .annotations = kQueueQ1,
       .job = NewTrainJob("job-update", "test-ns", "2", true),
       .pod_annotations = StringMap{{"scheduling.k8s.io/group-name", "job-update"}},
       .pod_group = PodGroup("job-update", "test-ns", "2",
                             "  minMember: 5\n"
                             "  minResources: {cpu: 2300m, memory: 3Gi}\n"
                             "  queue: q1\n"
                             "  priorityClassName: high-priority\n"
                             "  networkTopology: {mode: hard, highestTierAllowed: 1}\n")},
      {.name = "the last replicatedJob that sets a priorityClassName wins",
       .runtime_spec = WithPriorityClasses({"first", "second", ""}),
       .job = NewTrainJob("job"),
       .pod_annotations = StringMap{{"scheduling.k8s.io/group-name", "job"}},
       .pod_group = PodGroup("job", "", "", "  minMember: 0\n  minResources: {}\n  priorityClassName: second\n")},
      {.name = "no priorityClassName, queue or networkTopology unless the runtime sets them",
       .runtime_spec = WithPriorityClasses({"", ""}),
       .job = NewTrainJob("job"),
       .pod_annotations = StringMap{{"scheduling.k8s.io/group-name", "job"}},
       .pod_group = PodGroup("job", "", "", "  minMember: 0\n  minResources: {}\n")},
      {.name = "an empty queue annotation still prints",
       .annotations = kEmptyQueue,
       .job = NewTrainJob("job"),
       .pod_annotations = StringMap{{"scheduling.k8s.io/group-name", "job"}},
       .pod_group = PodGroup("job", "", "", "  minMember: 0\n  minResources: {}\n  queue: \"\"\n")},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      PodGroupPolicy policy = PolicyOf(c.policy);
      const PodGroupPolicy* policy_or_nil = c.policy == Policy::kNone ? nullptr : &policy;
      Info info = c.base ? BaseInfo(policy_or_nil) : Info{};
      info.runtime_policy.pod_group_policy = policy_or_nil;
      info.annotations = c.annotations;
      if (!c.runtime_spec.IsNull()) info.template_spec.obj_apply = c.runtime_spec;
      auto plugin = plugins::NewVolcano(RenderOptions{});
      dynamic_cast<EnforcePodGroupPolicyPlugin&>(*plugin).EnforcePodGroupPolicy(info, c.job);
      std::vector<Tree> objects;
      dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, c.job, objects);
      CHECK(info.scheduler.pod_annotations == c.pod_annotations);
      REQUIRE(objects.size() == (c.pod_group ? 1 : 0));
      if (c.pod_group) CHECK(Text(objects[0]) == *c.pod_group);
    }
  }
}

// As upstream's TestValidate. Upstream looks the priority class up in the cluster ("PriorityClass
// %q doesn't exist: ..."); offline every class is taken to exist.
TEST_CASE("Volcano Validate") {
  struct Case {
    const char* name;
    Policy policy = Policy::kVolcano;
    StringMap annotations;
    Tree runtime_spec;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {.name = "no action when info is nil", .policy = Policy::kNilInfo},
      {.name = "no action when Volcano policy not enabled", .policy = Policy::kNone, .annotations = kEmptyQueue},
      {.name = "queue annotation is empty",
       .annotations = kEmptyQueue,
       .want = {"spec.annotations[scheduling.volcano.sh/queue-name]: Volcano queue name must not be empty"}},
      {.name = "a queue name passes", .annotations = kQueueQ1},
      {.name = "priorityClassName does not exist (not checked offline)",
       .runtime_spec = WithPriorityClasses({"non-existent"})},
      {.name = "priorityClassName exists", .runtime_spec = WithPriorityClasses({"existing-priority"})},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      PodGroupPolicy policy = PolicyOf(c.policy);
      Info info;
      if (c.policy != Policy::kNone) info.runtime_policy.pod_group_policy = &policy;
      info.annotations = c.annotations;
      info.template_spec.obj_apply = c.runtime_spec;
      auto plugin = plugins::NewVolcano(RenderOptions{});
      CHECK(testing::ValidationErrors(*plugin, c.policy == Policy::kNilInfo ? nullptr : &info,
                                      NewTrainJob("test", "default")) == c.want);
    }
  }
}

}  // namespace trainer
