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

TrainerSpec WithNumNodes(std::int32_t n, const char* resources_per_node = nullptr) {
  TrainerSpec trainer;
  trainer.num_nodes = n;
  if (resources_per_node) trainer.resources_per_node = Yaml(resources_per_node);
  return trainer;
}

TrainerSpec WithEnv(const char* env) {
  TrainerSpec trainer;
  trainer.env = Yaml(env).items();
  return trainer;
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

// As upstream's TestJAX: each row's Info is one trainer PodSet `node` of `runtime_count` pods with
// one `node` container; the row says what that PodSet and container hold after EnforceMLPolicy.
TEST_CASE("JAX EnforceMLPolicy") {
  using Case = testing::TrainerNodeCase;
  std::vector<Case> cases = {
      {.name = "no action when mlPolicySource is nil", .policy = Case::kNil, .trainer = WithNumNodes(2), .count = 1},
      {.name = "no action when mlPolicySource JAX is null",
       .policy = Case::kOther,
       .trainer = WithNumNodes(2),
       .count = 1},
      {.name = "no panic when JAX policy is set but trainer PodSet is absent",
       .runtime_count = std::nullopt,
       .trainer = WithNumNodes(2),
       .count = std::nullopt},
      {.name = "single node JAX training",
       .trainer = WithNumNodes(1),
       .count = 1,
       .env = JAXEnv("1", "test-job-node-0-0.test-job:29500"),
       .ports = kTrainerPorts},
      {.name = "multi-node JAX training",
       .runtime_count = 2,
       .job = "multi-node-job",
       .trainer = WithNumNodes(4),
       .count = 4,
       .env = JAXEnv("4", "multi-node-job-node-0-0.multi-node-job:29500"),
       .ports = kTrainerPorts},
      {.name = "trainJob numNodes is respected",
       .job = "trainJob",
       .trainer = WithNumNodes(3),
       .count = 3,
       .env = JAXEnv("3", "trainJob-node-0-0.trainJob:29500"),
       .ports = kTrainerPorts},
      // GPUs do not change the process count: one JAX process per node.
      {.name = "JAX training with GPU resources",
       .job = "gpu-job",
       .trainer = WithNumNodes(2, "limits: {cpu: \"8\", memory: 32Gi, nvidia.com/gpu: \"4\"}"),
       .count = 2,
       .env = JAXEnv("2", "gpu-job-node-0-0.gpu-job:29500"),
       .ports = kTrainerPorts},
      {.name = "uses the runtime's node count when the TrainJob sets none",
       .runtime_count = 5,
       .job = "job",
       .trainer = TrainerSpec{},
       .count = 5,
       .env = JAXEnv("5", "job-node-0-0.job:29500"),
       .ports = kTrainerPorts},
      {.name = "sets the count but no env when the TrainJob has no trainer",
       .runtime_count = 2,
       .job = "job",
       .trainer = std::nullopt,
       .count = 2},
      // The TrainJob's env is the JobSet builder's to add.
      {.name = "leaves the TrainJob env to the JobSet builder and keeps the container's own env first",
       .runtime_env = Yaml("[{name: XLA_FLAGS, value: x}]").items(),
       .job = "job",
       .trainer = WithEnv("[{name: EPOCHS, value: \"3\"}]"),
       .count = 1,
       .env = testing::Concat(Yaml("[{name: XLA_FLAGS, value: x}]").items(), JAXEnv("1", "job-node-0-0.job:29500")),
       .ports = kTrainerPorts},
      {.name = "replaces an unnamed runtime port, as ports without names match upstream",
       .runtime_ports = Yaml("[{name: metrics, containerPort: 9090}, {containerPort: 8080}]").items(),
       .job = "job",
       .trainer = TrainerSpec{},
       .count = 1,
       .env = JAXEnv("1", "job-node-0-0.job:29500"),
       .ports = Yaml("[{name: metrics, containerPort: 9090}, {containerPort: 29500}]").items()},
  };
  for (Case& image : testing::ImageCases(JAXEnv("1", "job-node-0-0.job:29500"), kTrainerPorts))
    cases.push_back(std::move(image));
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      testing::RunTrainerNodeCase(
          c, [](MLPolicy& ml) { ml.jax = true; }, plugins::NewJAX);
    }
  }
}

TEST_CASE("JAX accepts every TrainJob, as upstream's webhook hook does") {
  MLPolicy ml;
  ml.jax = true;
  Info info = testing::NewTrainerInfo(&ml, 1);
  auto plugin = plugins::NewJAX(RenderOptions{});
  CHECK(testing::ValidationErrors(*plugin, &info,
                                  NewTrainJob("job", WithEnv("[{name: JAX_NUM_PROCESSES, value: \"9\"}]")))
            .empty());
}

}  // namespace trainer
