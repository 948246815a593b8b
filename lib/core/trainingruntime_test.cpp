#include "core/trainingruntime.h"

#include <doctest/doctest.h>

#include <string>

#include "api/decode.h"
#include "api/defaults.h"
#include "tests/fixtures.h"
#include "util/error.h"

namespace trainer {

namespace {

const char* kRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: rt}
spec:
  template:
    spec:
      replicatedJobs:
      - {name: init, template: {spec: {template: {spec: {containers: [{name: dataset-initializer, image: i}]}}}}}
      - {name: node, template: {spec: {template: {spec: {containers: [{name: node, image: i}]}}}}}
)";

// The first patch only labels the JobSet: it has no template.spec, so it merges nothing.
const char* kJob = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job, namespace: default}
spec:
  runtimeRef: {name: rt}
  runtimePatches:
  - manager: a.io/one
    trainingRuntimeSpec: {template: {metadata: {labels: {p1: x}}}}
)";

// The runtime's JobSet spec, decoded as a loaded runtime holds it, and a TrainJob with the
// runtime patches of kJob, then `patches` (items of spec.runtimePatches).
struct Case {
  explicit Case(const std::string& patches) {
    Tree runtime = testing::Yaml(kRuntime);
    ApplyDefaults(runtime, DefaultRule::Scope::kRuntime);
    spec = DecodeRuntime(runtime).spec.template_.spec;
    Tree doc = testing::Yaml(kJob + patches);
    ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
    job = DecodeTrainJob(doc);
  }
  bool Merge() { return MergeRuntimePatches(job, spec); }
  const Tree& Jobs() const { return *spec.Find("replicatedJobs"); }
  const Tree& PodSpec(std::size_t job) const {
    return *Jobs().items()[job].Find("template")->Find("spec")->Find("template")->Find("spec");
  }

  Tree spec;
  TrainJob job;
};

std::string Names(const Tree& list) {
  std::string out;
  for (const Tree& item : list.items()) out += *item.FindString("name") + " ";
  return out;
}

}  // namespace

TEST_CASE("runtime patches without a template.spec merge nothing") {
  Case c("");
  CHECK(!c.Merge());
  CHECK(Names(c.Jobs()) == "init node ");
}

TEST_CASE("runtime patches merge in order, each on the result of the one before") {
  Case c(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      serviceAccountName: first, nodeSelector: {a: "1"}, containers: [{name: node, env: [{name: X, value: "1"}]}]}}}}}]}}}
  - manager: d.io/four
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      serviceAccountName: second, nodeSelector: {b: "2"}, containers: [{name: node, env: [{name: "Y", value: "2"}, {name: X, value: "3"}]}]}}}}}]}}}
)");
  CHECK(c.Merge());
  const Tree& pod = c.PodSpec(1);
  CHECK(*pod.FindString("serviceAccountName") == "second");
  CHECK(pod.Find("nodeSelector")->size() == 2);
  const Tree& env = *pod.Find("containers")->items()[0].Find("env");
  CHECK(Names(env) == "Y X ");  // X listed after Y in the second patch
  CHECK(*env.items()[1].FindString("value") == "3");
  CHECK(env.items()[1].Find("value")->origin().Position() == "test.yaml:14:133");
}

TEST_CASE("a job a runtime patch adds sorts as the runtime's first job") {
  auto order = [](const std::string& jobs) {
    Case c("  - manager: c.io/three\n    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [" + jobs + "]}}}\n");
    CHECK(c.Merge());
    return Names(c.Jobs());
  };
  // SMP gives [init, node, extra]; extra ranks 0 like init, so the stable sort puts it after init
  // and before node.
  CHECK(order("{name: node}, {name: extra}") == "init extra node ");
  // Leading the patch, it leads the merge, and stays first.
  CHECK(order("{name: extra}, {name: node}") == "extra init node ");
}

TEST_CASE("a runtime patch item without its merge key fails with upstream's message at the patch field") {
  // The second patch gives the pod an imagePullSecrets list; the third one's nameless item cannot
  // be matched against it.
  Case c(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      imagePullSecrets: [{name: a}]}}}}}]}}}
  - manager: d.io/four
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      imagePullSecrets: [{name: ""}]}}}}}]}}}
)");
  try {
    c.Merge();
    FAIL("expected an error");
  } catch (const Error& e) {
    REQUIRE(e.diagnostics().size() == 1);
    const Diagnostic& d = e.diagnostics()[0];
    CHECK(d.field ==
          "spec.runtimePatches[2].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec."
          "imagePullSecrets[0]");
    CHECK(d.message == "cannot merge the runtime patch: map: map[] does not contain declared merge key: name");
    CHECK(d.where.line == 14);  // the nameless item
  }
}

TEST_CASE("a runtime patch's pointer fields apply even when they hold a zero value") {
  Case c(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: init, template: {spec: {template: {spec: {
      serviceAccountName: "", terminationGracePeriodSeconds: 0, nodeSelector: {}, tolerations: []}}}}}]}}}
)");
  CHECK(c.Merge());
  const Tree& pod = c.PodSpec(0);
  CHECK(pod.Find("serviceAccountName") == nullptr);  // "" patched in, then dropped by omitempty
  REQUIRE(pod.Find("terminationGracePeriodSeconds") != nullptr);
  CHECK(pod.Find("terminationGracePeriodSeconds")->AsInt() == 0);
  CHECK(pod.Find("nodeSelector") == nullptr);
  CHECK(pod.Find("tolerations") == nullptr);
}

}  // namespace trainer
