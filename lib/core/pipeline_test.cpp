#include "core/pipeline.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "input/loader.h"
#include "tests/fake_fs.h"
#include "util/error.h"

namespace trainer {

namespace {

// Loads one runtime and one TrainJob from YAML.
struct Case {
  explicit Case(const std::string& yaml) {
    fs.files["in.yaml"] = yaml;
    LoadOptions options;
    options.paths = {"in.yaml"};
    // The fixtures are pipeline inputs, not all admissible runtimes (the quantity-format one has an
    // initializer Job without its container): the pipeline runs on what admission would refuse too.
    options.validate = ValidationMode::kIgnore;
    inputs = Load(options, fs);
    inputs.Checkpoint();
    REQUIRE(inputs.jobs.size() == 1);
    REQUIRE(inputs.runtimes.size() == 1);
  }
  Info NewInfo() { return NewRuntimeInfo(inputs.jobs[0], inputs.runtimes[0]); }

  testing::FakeFileSystem fs;
  Inputs inputs;
};

std::string RuntimeYaml(const std::string& ml_policy, const std::string& trainer_job_extra = "") {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt}\nspec:\n" + ml_policy +
         R"(  template:
    metadata: {labels: {from-runtime: "1", shared: runtime}}
    spec:
      replicatedJobs:
      - name: init
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}}
          spec:
            parallelism: 5
            template: {spec: {containers: [{name: dataset-initializer, image: i}]}}
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            parallelism: 7
            template:
              spec:
                initContainers:
                - {name: prep, resources: {requests: {cpu: "2"}}}
                - {name: side, restartPolicy: Always, resources: {requests: {cpu: 500m, memory: 1Gi}}}
                containers:
                - name: node
                  image: i
                  resources:
                    requests: {cpu: "1", memory: 2Gi}
                    claims: [{name: gpu}]
)" + trainer_job_extra;
}

const char* kJob = R"(---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job}
spec:
  runtimeRef: {name: rt}
  trainer:
    resourcesPerNode: {requests: {cpu: "4"}, limits: {memory: 8Gi}}
  runtimePatches:
  - manager: a.io/one
    trainingRuntimeSpec: {template: {metadata: {labels: {shared: first, p1: x}}}}
  - manager: b.io/two
    trainingRuntimeSpec: {template: {metadata: {labels: {shared: second}, annotations: {note: "y"}}}}
)";

const Tree& NodeContainer(const Info& info) {
  return info.template_spec.obj_apply.Find("replicatedJobs")->items()[1].Find("template")->Find("spec")->Find("template")
      ->Find("spec")->Find("containers")->items()[0];
}

}  // namespace

TEST_CASE("PodSet counts come from numNodes for the trainer and from parallelism otherwise") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 3}\n") + kJob);
  Info info = c.NewInfo();
  REQUIRE(info.template_spec.pod_sets.size() == 2);
  CHECK(info.template_spec.pod_sets[0].count == 5);
  CHECK(info.template_spec.pod_sets[0].ancestor == "dataset-initializer");
  CHECK(info.template_spec.pod_sets[1].count == 3);
  CHECK(info.template_spec.pod_sets[1].ancestor == "trainer");
}

TEST_CASE("without an mlPolicy the trainer PodSet keeps its parallelism and resourcesPerNode is not merged") {
  Case c(RuntimeYaml("") + kJob);
  Info info = c.NewInfo();
  CHECK(info.template_spec.pod_sets[1].count == 7);
  const Tree& resources = *NodeContainer(info).Find("resources");
  CHECK(resources.Find("requests")->Find("cpu")->text() == "1");
  CHECK(resources.Find("claims") != nullptr);
}

TEST_CASE("an mlPolicy without numNodes gives the trainer one node") {
  Case c(RuntimeYaml("  mlPolicy: {}\n") + kJob);
  CHECK(c.NewInfo().template_spec.pod_sets[1].count == 1);
}

TEST_CASE("resourcesPerNode merges key by key into the trainer node container and drops claims") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + kJob);
  Info info = c.NewInfo();
  const Tree& resources = *NodeContainer(info).Find("resources");
  CHECK(resources.Find("requests")->Find("cpu")->text() == "4");
  CHECK(resources.Find("requests")->Find("memory")->text() == "2Gi");
  CHECK(resources.Find("limits")->Find("memory")->text() == "8Gi");
  CHECK(resources.Find("claims") == nullptr);
  CHECK(resources.Find("requests")->Find("cpu")->origin().Position() == "in.yaml:39:40");
}

TEST_CASE("labels propagate from the runtime template, then each runtime patch, later winning") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + kJob);
  Info info = c.NewInfo();
  CHECK(info.labels == StringMap{{"from-runtime", "1"}, {"p1", "x"}, {"shared", "second"}});
  CHECK(info.annotations == StringMap{{"note", "y"}});
}

TEST_CASE("single-pod requests count sidecars alongside and init containers by their maximum") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + kJob);
  Info info = c.NewInfo();
  const ResourceList& requests = info.template_spec.pod_sets[1].single_pod_requests;
  // containers: cpu 4 (merged) + sidecar 500m = 4500m; init phase: prep 2 + sidecar 0 -> max stays 4500m.
  CHECK(requests.at("cpu").String() == "4500m");
  CHECK(requests.at("memory").String() == "3Gi");
}

TEST_CASE("pod requests keep the runtime's quantity formats unless a runtime patch re-encoded the spec") {
  // 1.5Ki is BinarySI as written; its canonical text "1536" reads back as DecimalSI.
  std::string runtime = RuntimeYaml("  mlPolicy: {numNodes: 1}\n");
  const std::string init = "[{name: dataset-initializer, image: i}]";
  runtime.replace(runtime.find(init), init.size(),
                  "[{name: a, image: i, resources: {requests: {memory: 1.5Ki}}}, {name: b, resources: {requests: {memory: 1.5Ki}}}]");
  SUBCASE("as written") {
    Case c(runtime + kJob);
    ResourceList requests = c.NewInfo().template_spec.pod_sets[0].single_pod_requests;
    CHECK(requests.at("memory").String() == "3Ki");
  }
  SUBCASE("after a runtime patch") {
    Case c(runtime + kJob + "  - manager: c.io/three\n    trainingRuntimeSpec: {template: {spec: {}}}\n");
    ResourceList requests = c.NewInfo().template_spec.pod_sets[0].single_pod_requests;
    CHECK(requests.at("memory").String() == "3072");
  }
}

}  // namespace trainer
