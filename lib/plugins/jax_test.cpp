#include "plugins/jax.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;


TrainJob NewTrainJob(std::string name, std::optional<TrainerSpec> trainer) {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  job.spec.trainer = std::move(trainer);
  return job;
}

TrainerSpec WithNumNodes(std::int32_t n) {
  TrainerSpec trainer;
  trainer.num_nodes = n;
  return trainer;
}

MLPolicy JAXPolicy() {
  MLPolicy ml;
  ml.jax = true;
  return ml;
}

void Enforce(Info& info, TrainJob job, bool legacy_image = false) {
  RenderOptions options;
  options.legacy_image = legacy_image;
  auto plugin = plugins::NewJAX(options);
  dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job);
}

std::vector<Tree> JAXEnv(const std::string& processes, const std::string& coordinator) {
  return Yaml("- {name: JAX_NUM_PROCESSES, value: \"" + processes +
              "\"}\n"
              "- {name: JAX_PROCESS_ID, valueFrom: {fieldRef: {fieldPath: "
              "\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}}\n"
              "- {name: JAX_COORDINATOR_ADDRESS, value: \"" +
              coordinator + "\"}\n")
      .items();
}

const std::vector<Tree> kTrainerPorts = Yaml("[{containerPort: 29500}]").items();

}  // namespace

TEST_CASE("JAX: no action when mlPolicySource is nil") {
  Info info = testing::NewTrainerInfo(nullptr, 1);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(2)));
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
}

TEST_CASE("JAX: no action when mlPolicySource JAX is null") {
  MLPolicy ml;
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(2)));
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  CHECK(info.template_spec.pod_sets[0].containers[0].ports.empty());
}

TEST_CASE("JAX: no panic when JAX policy is set but trainer PodSet is absent") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(2)));
  CHECK(info.template_spec.pod_sets.empty());
}

TEST_CASE("JAX: single node JAX training") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(1)));
  const PodSet& ps = info.template_spec.pod_sets[0];
  CHECK(ps.count == 1);
  CHECK(ps.containers[0].env == JAXEnv("1", "test-job-node-0-0.test-job:29500"));
  CHECK(ps.containers[0].ports == kTrainerPorts);
}

TEST_CASE("JAX: multi-node JAX training") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 2);
  Enforce(info, NewTrainJob("multi-node-job", WithNumNodes(4)));
  const PodSet& ps = info.template_spec.pod_sets[0];
  CHECK(ps.count == 4);
  CHECK(ps.containers[0].env == JAXEnv("4", "multi-node-job-node-0-0.multi-node-job:29500"));
  CHECK(ps.containers[0].ports == kTrainerPorts);
}

TEST_CASE("JAX: trainJob numNodes is respected") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("trainJob", WithNumNodes(3)));
  CHECK(info.template_spec.pod_sets[0].count == 3);
  CHECK(info.template_spec.pod_sets[0].containers[0].env == JAXEnv("3", "trainJob-node-0-0.trainJob:29500"));
}

TEST_CASE("JAX: JAX training with GPU resources") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  TrainerSpec trainer = WithNumNodes(2);
  trainer.resources_per_node = Yaml("limits: {cpu: \"8\", memory: 32Gi, nvidia.com/gpu: \"4\"}");
  Enforce(info, NewTrainJob("gpu-job", trainer));
  // GPUs do not change the process count: one JAX process per node.
  CHECK(info.template_spec.pod_sets[0].count == 2);
  CHECK(info.template_spec.pod_sets[0].containers[0].env == JAXEnv("2", "gpu-job-node-0-0.gpu-job:29500"));
}

TEST_CASE("JAX uses the runtime's node count when the TrainJob sets none") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 5);
  Enforce(info, NewTrainJob("job", TrainerSpec{}));
  CHECK(info.template_spec.pod_sets[0].count == 5);
  CHECK(info.template_spec.pod_sets[0].containers[0].env == JAXEnv("5", "job-node-0-0.job:29500"));
}

TEST_CASE("JAX sets the count but no env when the TrainJob has no trainer") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 2);
  Enforce(info, NewTrainJob("job", std::nullopt));
  CHECK(info.template_spec.pod_sets[0].count == 2);
  CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  CHECK(info.template_spec.pod_sets[0].containers[0].ports.empty());
}

TEST_CASE("JAX leaves the TrainJob env to the JobSet builder and keeps the container's own env first") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  info.template_spec.pod_sets[0].containers[0].env = Yaml("[{name: XLA_FLAGS, value: x}]").items();
  TrainerSpec trainer;
  trainer.env = Yaml("[{name: EPOCHS, value: \"3\"}]").items();
  Enforce(info, NewTrainJob("job", trainer));
  const std::vector<Tree>& env = info.template_spec.pod_sets[0].containers[0].env;
  REQUIRE(env.size() == 4);
  CHECK(*env[0].FindString("name") == "XLA_FLAGS");
  CHECK(*env[3].FindString("name") == "JAX_COORDINATOR_ADDRESS");
}

TEST_CASE("JAX replaces an unnamed runtime port, as ports without names match upstream") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  info.template_spec.pod_sets[0].containers[0].ports =
      Yaml("[{name: metrics, containerPort: 9090}, {containerPort: 8080}]").items();
  Enforce(info, NewTrainJob("job", TrainerSpec{}));
  CHECK(info.template_spec.pod_sets[0].containers[0].ports ==
        Yaml("[{name: metrics, containerPort: 9090}, {containerPort: 29500}]").items());
}

TEST_CASE("JAX sets the TrainJob image on the trainer node container, unless the image rule is legacy") {
  MLPolicy ml = JAXPolicy();
  TrainerSpec trainer;
  trainer.image = "registry.example.com/app:2";
  for (bool legacy : {false, true}) {
    CAPTURE(legacy);
    Info info = testing::NewTrainerInfo(&ml, 1);
    info.template_spec.pod_sets[0].containers[0].image = Tree::String("registry.example.com/runtime:1");
    Enforce(info, NewTrainJob("job", trainer), legacy);
    CHECK(info.template_spec.pod_sets[0].containers[0].image.text() ==
          (legacy ? "registry.example.com/runtime:1" : "registry.example.com/app:2"));
  }
}

TEST_CASE("JAX accepts every TrainJob, as upstream's webhook hook does") {
  MLPolicy ml = JAXPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  TrainerSpec trainer;
  trainer.env = Yaml("[{name: JAX_NUM_PROCESSES, value: \"9\"}]").items();
  auto plugin = plugins::NewJAX(RenderOptions{});
  Diagnostics errors;
  dynamic_cast<CustomValidationPlugin&>(*plugin).Validate(&info, nullptr, NewTrainJob("job", trainer), errors);
  CHECK(errors.empty());
}

}  // namespace trainer
