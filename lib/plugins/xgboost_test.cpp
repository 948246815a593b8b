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

TrainerSpec WithNumNodes(std::int32_t n, const char* resources_per_node = nullptr) {
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

MLPolicy XGBoostPolicy() {
  MLPolicy ml;
  ml.xgboost = true;
  return ml;
}

std::unique_ptr<Plugin> New(bool legacy_image = false) {
  RenderOptions options;
  options.legacy_image = legacy_image;
  return plugins::NewXGBoost(options);
}

void Enforce(Info& info, TrainJob job, bool legacy_image = false) {
  auto plugin = New(legacy_image);
  dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job);
}

std::vector<std::string> Validate(const Info* info, const TrainJob& job) {
  auto plugin = New();
  Diagnostics errors;
  dynamic_cast<CustomValidationPlugin&>(*plugin).Validate(info, nullptr, job, errors);
  std::vector<std::string> out;
  for (const Diagnostic& d : errors.items()) out.push_back(d.field + ": " + d.message);
  return out;
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

const Container& TrainerContainer(const Info& info) { return info.template_spec.pod_sets[0].containers[0]; }

}  // namespace

// --- Validate ----------------------------------------------------------------------------------

TEST_CASE("XGBoost Validate: no error when runtimeInfo is nil") {
  CHECK(
      Validate(nullptr, NewTrainJob("test-job", WithEnv("[{name: DMLC_TRACKER_URI, value: custom-tracker}]"))).empty());
}

TEST_CASE("XGBoost Validate: no error when runtime is not XGBoost (e.g. Torch)") {
  MLPolicy ml;
  ml.torch = TorchPolicy{};
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  CHECK(Validate(&info, NewTrainJob("test-job", WithEnv("[{name: DMLC_TRACKER_URI, value: custom-tracker}]"))).empty());
}

TEST_CASE("XGBoost Validate: no error when trainer is nil") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  CHECK(Validate(&info, NewTrainJob("test-job", std::nullopt)).empty());
}

TEST_CASE("XGBoost Validate: no error when env does not contain reserved names") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  CHECK(
      Validate(&info, NewTrainJob("test-job", WithEnv("[{name: CUSTOM_VAR, value: x}, {name: DMLC_OTHER, value: y}]")))
          .empty());
}

TEST_CASE("XGBoost Validate: error when using reserved DMLC_TRACKER_URI env") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  CHECK(Validate(&info, NewTrainJob("test-job", WithEnv("[{name: DMLC_TRACKER_URI, value: custom-tracker}]"))) ==
        std::vector<std::string>{"spec.trainer.env[0]: DMLC_TRACKER_URI is reserved for the XGBoost runtime"});
}

TEST_CASE("XGBoost Validate: error when using reserved DMLC_NUM_WORKER env") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  CHECK(Validate(&info, NewTrainJob("test-job", WithEnv("[{name: DMLC_NUM_WORKER, value: \"10\"}]"))) ==
        std::vector<std::string>{"spec.trainer.env[0]: DMLC_NUM_WORKER is reserved for the XGBoost runtime"});
}

TEST_CASE("XGBoost Validate: multiple errors when using multiple reserved envs") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  CHECK(Validate(&info,
                 NewTrainJob("test-job", WithEnv("[{name: DMLC_TRACKER_URI, value: custom}, {name: A, value: b}, "
                                                 "{name: DMLC_TASK_ID, value: \"0\"}, {name: DMLC_TRACKER_PORT}]"))) ==
        std::vector<std::string>{"spec.trainer.env[0]: DMLC_TRACKER_URI is reserved for the XGBoost runtime",
                                 "spec.trainer.env[2]: DMLC_TASK_ID is reserved for the XGBoost runtime",
                                 "spec.trainer.env[3]: DMLC_TRACKER_PORT is reserved for the XGBoost runtime"});
}

// --- EnforceMLPolicy ---------------------------------------------------------------------------

TEST_CASE("XGBoost: no action when mlPolicySource is nil") {
  Info info = testing::NewTrainerInfo(nullptr, 1);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(2)));
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(TrainerContainer(info).env.empty());
}

TEST_CASE("XGBoost: no action when mlPolicySource XGBoost is null") {
  MLPolicy ml;
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(2)));
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(TrainerContainer(info).env.empty());
  CHECK(TrainerContainer(info).ports.empty());
}

TEST_CASE("XGBoost: no env injection when trainJob.Spec.Trainer is nil") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("test-job", std::nullopt));
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(TrainerContainer(info).env.empty());
  CHECK(TrainerContainer(info).ports.empty());
}

TEST_CASE("XGBoost: no action when the trainer PodSet is absent") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, std::nullopt);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(2)));
  CHECK(info.template_spec.pod_sets.empty());
}

TEST_CASE("XGBoost: single node XGBoost training (CPU)") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("test-job", WithNumNodes(1)));
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(TrainerContainer(info).env == DMLCEnv("test-job", "1"));
  CHECK(TrainerContainer(info).ports == kTrainerPorts);
}

TEST_CASE("XGBoost: multi-node XGBoost training (CPU)") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("multi-node-job", WithNumNodes(4)));
  CHECK(info.template_spec.pod_sets[0].count == 4);
  CHECK(TrainerContainer(info).env == DMLCEnv("multi-node-job", "4"));
  CHECK(TrainerContainer(info).ports == kTrainerPorts);
}

TEST_CASE("XGBoost: XGBoost training with GPU resources") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("gpu-job", WithNumNodes(2, "limits: {cpu: \"8\", memory: 32Gi, example.com/gpu: \"4\"}")));
  CHECK(info.template_spec.pod_sets[0].count == 2);
  CHECK(TrainerContainer(info).env == DMLCEnv("gpu-job", "8"));
}

TEST_CASE("XGBoost: trainJob numNodes is respected") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("trainJob", WithNumNodes(3)));
  CHECK(info.template_spec.pod_sets[0].count == 3);
  CHECK(TrainerContainer(info).env == DMLCEnv("trainJob", "3"));
}

TEST_CASE("XGBoost: resources not set - defaults to 1 worker per node") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 2);
  Enforce(info, NewTrainJob("no-res-job", WithNumNodes(2)));
  CHECK(TrainerContainer(info).env == DMLCEnv("no-res-job", "2"));
}

TEST_CASE("XGBoost: resources set in Runtime only") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  info.template_spec.obj_apply = ObjApplyWithResources("{requests: {example.com/gpu: \"2\"}}");
  Enforce(info, NewTrainJob("runtime-res-job", WithNumNodes(3)));
  CHECK(info.template_spec.pod_sets[0].count == 3);
  CHECK(TrainerContainer(info).env == DMLCEnv("runtime-res-job", "6"));
}

TEST_CASE("XGBoost: resources set in TrainJob only") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info, NewTrainJob("trainjob-res", WithNumNodes(2, "limits: {example.com/gpu: \"4\"}")));
  CHECK(TrainerContainer(info).env == DMLCEnv("trainjob-res", "8"));
}

TEST_CASE("XGBoost: resources set in both Runtime and TrainJob") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  info.template_spec.obj_apply = ObjApplyWithResources("{requests: {example.com/gpu: \"1\"}}");
  Enforce(info, NewTrainJob("both-res-job", WithNumNodes(2, "limits: {example.com/gpu: \"3\"}")));
  CHECK(TrainerContainer(info).env == DMLCEnv("both-res-job", "6"));
}

TEST_CASE("XGBoost counts no GPUs when the TrainJob's resources name none, whatever the runtime asks for") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  info.template_spec.obj_apply = ObjApplyWithResources("{limits: {nvidia.com/gpu: \"2\"}}");
  Enforce(info, NewTrainJob("cpu-override", WithNumNodes(3, "requests: {cpu: \"16\"}")));
  CHECK(TrainerContainer(info).env == DMLCEnv("cpu-override", "3"));
}

TEST_CASE("XGBoost counts GPU requests before GPU limits") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Enforce(info,
          NewTrainJob("job", WithNumNodes(2, "{requests: {nvidia.com/gpu: \"1\"}, limits: {nvidia.com/gpu: \"4\"}}")));
  CHECK(TrainerContainer(info).env == DMLCEnv("job", "2"));
}

TEST_CASE("XGBoost finds runtime GPUs in a replicatedJob labelled trainer, whatever its name") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 2);
  info.template_spec.obj_apply = Yaml(
      "replicatedJobs:\n"
      "- name: workers\n"
      "  template:\n"
      "    metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"
      "    spec: {template: {spec: {containers: [{name: node, resources: {limits: {amd.com/gpu: \"8\"}}}]}}}\n");
  Enforce(info, NewTrainJob("job", TrainerSpec{}));
  CHECK(TrainerContainer(info).env == DMLCEnv("job", "16"));
}

TEST_CASE("XGBoost replaces its variables in place when the container already sets them") {
  MLPolicy ml = XGBoostPolicy();
  Info info = testing::NewTrainerInfo(&ml, 1);
  Container& node = info.template_spec.pod_sets[0].containers[0];
  node.env = Yaml("[{name: DMLC_NUM_WORKER, value: \"99\"}, {name: KEEP, value: x}]").items();
  Enforce(info, NewTrainJob("job", WithNumNodes(2)));
  REQUIRE(node.env.size() == 5);
  CHECK(node.env[0] == Yaml("{name: DMLC_NUM_WORKER, value: \"2\"}"));
  CHECK(*node.env[1].FindString("name") == "KEEP");
  CHECK(*node.env[4].FindString("name") == "DMLC_TASK_ID");
}

TEST_CASE("XGBoost sets the TrainJob image on the trainer node container, unless the image rule is legacy") {
  MLPolicy ml = XGBoostPolicy();
  TrainerSpec trainer;
  trainer.image = "registry.example.com/app:2";
  for (bool legacy : {false, true}) {
    CAPTURE(legacy);
    Info info = testing::NewTrainerInfo(&ml, 1);
    info.template_spec.pod_sets[0].containers[0].image = Tree::String("registry.example.com/runtime:1");
    Enforce(info, NewTrainJob("job", trainer), legacy);
    CHECK(TrainerContainer(info).image.text() ==
          (legacy ? "registry.example.com/runtime:1" : "registry.example.com/app:2"));
  }
}

}  // namespace trainer
