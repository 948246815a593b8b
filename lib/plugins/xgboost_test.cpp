#include "plugins/xgboost.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;

// A JobSet spec whose replicatedJob `node` has a `node` container with these resources, as
// upstream's WithTemplateSpecObjApply.
Tree ObjApplyWithResources(const std::string& resources) {
  return Yaml(
      "replicatedJobs:\n- name: node\n  template: {spec: {template: {spec: {containers: [{name: node, resources: " +
      resources + "}]}}}}\n");
}

TrainJob NewTrainJob(std::string name, std::optional<TrainerSpec> trainer) {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  job.spec.trainer = std::move(trainer);
  return job;
}

TrainerSpec WithNumNodes(std::optional<std::int32_t> n, const char* resources_per_node = nullptr) {
  TrainerSpec trainer;
  trainer.num_nodes = n;
  if (resources_per_node) trainer.resources_per_node = Yaml(resources_per_node);
  return trainer;
}

TrainerSpec WithEnv(const std::string& env) {
  TrainerSpec trainer = WithNumNodes(1);
  trainer.env = Yaml(env).items();
  return trainer;
}

// The runtime's ML policy in a Validate row: none at all, Torch, or XGBoost.
enum class Policy { kNil, kTorch, kXGBoost };

MLPolicy PolicyOf(Policy policy) {
  MLPolicy ml;
  if (policy == Policy::kTorch) ml.torch = TorchPolicy{};
  if (policy == Policy::kXGBoost) ml.xgboost = true;
  return ml;
}

std::vector<Tree> DMLCEnv(const std::string& job, const std::string& workers) {
  return Yaml("- {name: DMLC_TRACKER_URI, value: " + job + "-node-0-0." + job +
              "}\n"
              "- {name: DMLC_TRACKER_PORT, value: \"29500\"}\n"
              "- {name: DMLC_TASK_ID, valueFrom: {fieldRef: {fieldPath: "
              "\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}}\n"
              "- {name: DMLC_NUM_WORKER, value: \"" +
              workers + "\"}\n")
      .items();
}

const std::vector<Tree> kTrainerPorts = Yaml("[{containerPort: 29500}]").items();

}  // namespace

// As upstream's TestValidate: the reserved DMLC env of an XGBoost runtime's TrainJob.
TEST_CASE("XGBoost Validate") {
  struct Case {
    const char* name;
    std::optional<Policy> policy;  // no runtime Info at all when unset
    std::optional<TrainerSpec> trainer;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"no error when runtimeInfo is nil",
       std::nullopt,
       WithEnv("[{name: DMLC_TRACKER_URI, value: custom-tracker}]"),
       {}},
      {"no error when runtime is not XGBoost (e.g. Torch)",
       Policy::kTorch,
       WithEnv("[{name: DMLC_TRACKER_URI, value: custom-tracker}]"),
       {}},
      {"no error when trainer is nil", Policy::kXGBoost, std::nullopt, {}},
      {"no error when env does not contain reserved names",
       Policy::kXGBoost,
       WithEnv("[{name: CUSTOM_VAR, value: x}, {name: DMLC_OTHER, value: y}]"),
       {}},
      {"error when using reserved DMLC_TRACKER_URI env",
       Policy::kXGBoost,
       WithEnv("[{name: DMLC_TRACKER_URI, value: custom-tracker}]"),
       {"spec.trainer.env[0]: DMLC_TRACKER_URI is reserved for the XGBoost runtime"}},
      {"error when using reserved DMLC_NUM_WORKER env",
       Policy::kXGBoost,
       WithEnv("[{name: DMLC_NUM_WORKER, value: \"10\"}]"),
       {"spec.trainer.env[0]: DMLC_NUM_WORKER is reserved for the XGBoost runtime"}},
      {"multiple errors when using multiple reserved envs",
       Policy::kXGBoost,
       WithEnv("[{name: DMLC_TRACKER_URI, value: custom}, {name: A, value: b}, {name: DMLC_TASK_ID, value: \"0\"}, "
               "{name: DMLC_TRACKER_PORT}]"),
       {"spec.trainer.env[0]: DMLC_TRACKER_URI is reserved for the XGBoost runtime",
        "spec.trainer.env[2]: DMLC_TASK_ID is reserved for the XGBoost runtime",
        "spec.trainer.env[3]: DMLC_TRACKER_PORT is reserved for the XGBoost runtime"}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml = PolicyOf(c.policy.value_or(Policy::kNil));
      Info info = testing::NewTrainerInfo(&ml, std::nullopt);
      auto plugin = plugins::NewXGBoost(RenderOptions{});
      CHECK(testing::ValidationErrors(*plugin, c.policy ? &info : nullptr, NewTrainJob("test-job", c.trainer)) ==
            c.want);
    }
  }
}

// As upstream's TestXGBoost: each row's Info is one trainer PodSet `node` of `runtime_count` pods
// with one `node` container, and the row's JobSet spec; the row says what that PodSet and
// container hold after EnforceMLPolicy.
TEST_CASE("XGBoost EnforceMLPolicy") {
  using Case = testing::TrainerNodeCase;
  std::vector<Case> cases = {
      {.name = "no action when mlPolicySource is nil", .policy = Case::kNil, .trainer = WithNumNodes(2), .count = 1},
      {.name = "no action when mlPolicySource XGBoost is null",
       .policy = Case::kOther,
       .trainer = WithNumNodes(2),
       .count = 1},
      {.name = "no env injection when trainJob.Spec.Trainer is nil", .trainer = std::nullopt, .count = 1},
      {.name = "no action when the trainer PodSet is absent",
       .runtime_count = std::nullopt,
       .trainer = WithNumNodes(2),
       .count = std::nullopt},
      {.name = "single node XGBoost training (CPU)",
       .trainer = WithNumNodes(1),
       .count = 1,
       .env = DMLCEnv("test-job", "1"),
       .ports = kTrainerPorts},
      {.name = "multi-node XGBoost training (CPU)",
       .job = "multi-node-job",
       .trainer = WithNumNodes(4),
       .count = 4,
       .env = DMLCEnv("multi-node-job", "4"),
       .ports = kTrainerPorts},
      {.name = "XGBoost training with GPU resources",
       .job = "gpu-job",
       .trainer = WithNumNodes(2, "limits: {cpu: \"8\", memory: 32Gi, example.com/gpu: \"4\"}"),
       .count = 2,
       .env = DMLCEnv("gpu-job", "8"),
       .ports = kTrainerPorts},
      {.name = "trainJob numNodes is respected",
       .job = "trainJob",
       .trainer = WithNumNodes(3),
       .count = 3,
       .env = DMLCEnv("trainJob", "3"),
       .ports = kTrainerPorts},
      {.name = "resources not set - defaults to 1 worker per node",
       .runtime_count = 2,
       .job = "no-res-job",
       .trainer = WithNumNodes(2),
       .count = 2,
       .env = DMLCEnv("no-res-job", "2"),
       .ports = kTrainerPorts},
      {.name = "resources set in Runtime only",
       .runtime_spec = ObjApplyWithResources("{requests: {example.com/gpu: \"2\"}}"),
       .job = "runtime-res-job",
       .trainer = WithNumNodes(3),
       .count = 3,
       .env = DMLCEnv("runtime-res-job", "6"),
       .ports = kTrainerPorts},
      {.name = "resources set in TrainJob only",
       .job = "trainjob-res",
       .trainer = WithNumNodes(2, "limits: {example.com/gpu: \"4\"}"),
       .count = 2,
       .env = DMLCEnv("trainjob-res", "8"),
       .ports = kTrainerPorts},
      {.name = "resources set in both Runtime and TrainJob",
       .runtime_spec = ObjApplyWithResources("{requests: {example.com/gpu: \"1\"}}"),
       .job = "both-res-job",
       .trainer = WithNumNodes(2, "limits: {example.com/gpu: \"3\"}"),
       .count = 2,
       .env = DMLCEnv("both-res-job", "6"),
       .ports = kTrainerPorts},
      {.name = "counts no GPUs when the TrainJob's resources name none, whatever the runtime asks for",
       .runtime_spec = ObjApplyWithResources("{limits: {nvidia.com/gpu: \"2\"}}"),
       .job = "cpu-override",
       .trainer = WithNumNodes(3, "requests: {cpu: \"16\"}"),
       .count = 3,
       .env = DMLCEnv("cpu-override", "3"),
       .ports = kTrainerPorts},
      {.name = "counts GPU requests before GPU limits",
       .job = "job",
       .trainer = WithNumNodes(2, "{requests: {nvidia.com/gpu: \"1\"}, limits: {nvidia.com/gpu: \"4\"}}"),
       .count = 2,
       .env = DMLCEnv("job", "2"),
       .ports = kTrainerPorts},
      {.name = "finds runtime GPUs in a replicatedJob labelled trainer, whatever its name",
       .runtime_count = 2,
       .runtime_spec = Yaml("replicatedJobs:\n"
                            "- name: workers\n"
                            "  template:\n"
                            "    metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"
                            "    spec: {template: {spec: {containers: [{name: node, resources: {limits: {amd.com/gpu: "
                            "\"8\"}}}]}}}\n"),
       .job = "job",
       .trainer = TrainerSpec{},
       .count = 2,
       .env = DMLCEnv("job", "16"),
       .ports = kTrainerPorts},
      // The variable the container already sets keeps its place; the others follow its own env.
      {.name = "replaces its variables in place when the container already sets them",
       .runtime_env = Yaml("[{name: DMLC_NUM_WORKER, value: \"99\"}, {name: KEEP, value: x}]").items(),
       .job = "job",
       .trainer = WithNumNodes(2),
       .count = 2,
       .env = Yaml("- {name: DMLC_NUM_WORKER, value: \"2\"}\n"
                   "- {name: KEEP, value: x}\n"
                   "- {name: DMLC_TRACKER_URI, value: job-node-0-0.job}\n"
                   "- {name: DMLC_TRACKER_PORT, value: \"29500\"}\n"
                   "- {name: DMLC_TASK_ID, valueFrom: {fieldRef: {fieldPath: "
                   "\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}}\n")
                  .items(),
       .ports = kTrainerPorts},
  };
  for (Case& image : testing::ImageCases(DMLCEnv("job", "1"), kTrainerPorts)) cases.push_back(std::move(image));
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      testing::RunTrainerNodeCase(
          c, [](MLPolicy& ml) { ml.xgboost = true; }, plugins::NewXGBoost);
    }
  }
}

}  // namespace trainer
