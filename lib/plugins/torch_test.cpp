#include "plugins/torch.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;

MLPolicy TorchMLPolicy(std::optional<std::vector<EnvInjectionTarget>> targets = std::nullopt) {
  MLPolicy ml;
  ml.torch = TorchPolicy{std::move(targets)};
  return ml;
}

// As upstream's runtime.NewInfo(WithMLPolicySource, WithPodSet(node, trainer, count, ...)): one
// trainer PodSet `node` with the given init containers and containers.
Info NewInfo(const MLPolicy* ml, std::int32_t count, std::vector<std::string> containers = {"node"},
             std::vector<std::string> init_containers = {}) {
  Info info;
  info.runtime_policy.ml_policy = ml;
  PodSet ps;
  ps.name = kNode;
  ps.ancestor = kAncestorTrainer;
  ps.count = count;
  for (auto& name : containers) ps.containers.push_back(Container{.name = name});
  for (auto& name : init_containers) ps.init_containers.push_back(Container{.name = name});
  info.template_spec.pod_sets.push_back(std::move(ps));
  return info;
}

TrainJob NewTrainJob(std::string name, std::optional<TrainerSpec> trainer) {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  job.spec.trainer = std::move(trainer);
  return job;
}

// As upstream's trainer wrapper Container(image, command, args, resources): resources are requests.
TrainerSpec WithRequests(const std::string& requests) {
  TrainerSpec trainer;
  trainer.image = "test:image";
  trainer.resources_per_node = Yaml("{requests: " + requests + "}");
  return trainer;
}

std::unique_ptr<Plugin> New(bool legacy_image = false) {
  RenderOptions options;
  options.legacy_image = legacy_image;
  return plugins::NewTorch(options);
}

void Enforce(Info& info, TrainJob& job, bool legacy_image = false) {
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

// The five torchrun env, as upstream lists them.
std::vector<Tree> PetEnv(const std::string& job, const std::string& nodes, const std::string& procs,
                         bool master = true) {
  std::vector<Tree> env =
      Yaml("- {name: PET_NNODES, value: \"" + nodes + "\"}\n- {name: PET_NPROC_PER_NODE, value: \"" + procs +
           "\"}\n- {name: PET_NODE_RANK, valueFrom: {fieldRef: {fieldPath: "
           "\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}}\n")
          .items();
  if (master) {
    Tree more = Yaml("- {name: PET_MASTER_ADDR, value: " + job + "-node-0-0." + job +
                     "}\n- {name: PET_MASTER_PORT, value: \"29500\"}\n");
    for (Tree& e : more.items()) env.push_back(std::move(e));
  }
  return env;
}

const std::vector<Tree> kTrainerPorts = Yaml("[{containerPort: 29500}]").items();

const Container& NodeContainer(const Info& info) {
  for (const Container& c : info.template_spec.pod_sets[0].containers) {
    if (c.name == kNode) return c;
  }
  FAIL("no node container");
  throw;
}

// The PET_NPROC_PER_NODE value EnforceMLPolicy sets for a TrainJob with these resources.
std::string ProcsFor(TrainerSpec trainer) {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  TrainJob job = NewTrainJob("test-job", std::move(trainer));
  Enforce(info, job);
  return NodeContainer(info).env.at(1).Find("value")->text();
}

}  // namespace

// --- getNumCPUPerNode --------------------------------------------------------------------------

TEST_CASE("GetNumCPUPerNode counts requests before limits, rounding up") {
  using plugins::GetNumCPUPerNode;
  CHECK(GetNumCPUPerNode(nullptr) == 0);
  Tree none = Yaml("{limits: {}, requests: {}}");
  CHECK(GetNumCPUPerNode(&none) == 0);
  Tree both = Yaml("{requests: {cpu: \"3\"}, limits: {cpu: \"8\"}}");
  CHECK(GetNumCPUPerNode(&both) == 3);
  Tree zero_request = Yaml("{requests: {cpu: \"0\"}, limits: {cpu: \"6\"}}");
  CHECK(GetNumCPUPerNode(&zero_request) == 6);
  Tree milli = Yaml("{limits: {cpu: 2500m}}");
  CHECK(GetNumCPUPerNode(&milli) == 3);
  Tree fraction = Yaml("{requests: {cpu: \"0.7\"}}");
  CHECK(GetNumCPUPerNode(&fraction) == 1);
  Tree memory_only = Yaml("{requests: {memory: 1Gi}}");
  CHECK(GetNumCPUPerNode(&memory_only) == 0);
}

// --- EnforceMLPolicy ---------------------------------------------------------------------------

TEST_CASE("Torch: no action when mlPolicySource torch is null") {
  MLPolicy ml;
  Info info = NewInfo(&ml, 1);
  TrainJob job = NewTrainJob("trainJob", TrainerSpec{.num_nodes = 2});
  Enforce(info, job);
  CHECK(info.template_spec.pod_sets[0].count == 1);
  CHECK(NodeContainer(info).env.empty());
  CHECK(NodeContainer(info).ports.empty());
}

TEST_CASE("Torch: trainJob numNodes is respected rather than mlPolicy one") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  TrainJob job = NewTrainJob("trainJob", TrainerSpec{.num_nodes = 2});
  Enforce(info, job);
  CHECK(info.template_spec.pod_sets[0].count == 2);
  CHECK(NodeContainer(info).env == PetEnv("trainJob", "2", "1"));
  CHECK(NodeContainer(info).ports == kTrainerPorts);
}

TEST_CASE("Torch: nproc_per_node=auto becomes the CPU count without GPUs") {
  CHECK(ProcsFor(WithRequests("{cpu: \"4\"}")) == "4");        // with CPU limit
  CHECK(ProcsFor(TrainerSpec{.image = "test:image"}) == "1");  // with no CPU resources
  CHECK(ProcsFor(WithRequests("{cpu: \"2\"}")) == "2");        // with low CPU limit
  CHECK(ProcsFor(WithRequests("{cpu: \"2.5\"}")) == "3");      // with millicore CPU limit
  CHECK(ProcsFor(WithRequests("{cpu: \"0.7\"}")) == "1");      // with fractional CPU (0.7)
  CHECK(ProcsFor(WithRequests("{cpu: 2500m}")) == "3");        // with millicore format
  CHECK(ProcsFor(WithRequests("{cpu: \"3.7\"}")) == "4");      // with fractional CPU (3.7)
}

TEST_CASE("Torch: nproc_per_node=auto stays with GPUs") {
  CHECK(ProcsFor(WithRequests("{example.com/gpu: \"2\"}")) == "auto");
  CHECK(ProcsFor(WithRequests("{cpu: \"6\", example.com/gpu: \"2\"}")) == "auto");  // mixed CPU and GPU
}

TEST_CASE("Torch: nproc_per_node from the TrainJob is kept") {
  TrainerSpec trainer = WithRequests("{cpu: \"8\"}");
  trainer.num_proc_per_node = 3;
  CHECK(ProcsFor(trainer) == "3");
}

TEST_CASE("Torch: the runtime's node resources count when the TrainJob sets none") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  info.template_spec.obj_apply = Yaml(
      "replicatedJobs:\n- name: node\n  template: {spec: {template: {spec: {containers: [{name: node, resources: "
      "{requests: {cpu: \"5\"}}}]}}}}\n");
  TrainJob job = NewTrainJob("test-job", TrainerSpec{});
  Enforce(info, job);
  CHECK(NodeContainer(info).env == PetEnv("test-job", "1", "5"));
}

TEST_CASE("Torch: multi-node GPU training keeps auto and uses the TrainJob numNodes") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 2);
  TrainerSpec trainer = WithRequests("{cpu: \"8\", memory: 16Gi, example.com/gpu: \"4\"}");
  trainer.num_nodes = 4;
  TrainJob job = NewTrainJob("gpu-job", trainer);
  Enforce(info, job);
  CHECK(info.template_spec.pod_sets[0].count == 4);
  CHECK(NodeContainer(info).env == PetEnv("gpu-job", "4", "auto"));
}

TEST_CASE("Torch: the TrainJob env comes before the PET env") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  TrainerSpec trainer;
  trainer.env = Yaml("[{name: FIRST, value: \"1\"}]").items();
  TrainJob job = NewTrainJob("env-job", trainer);
  Enforce(info, job);
  std::vector<Tree> want = Yaml("[{name: FIRST, value: \"1\"}]").items();
  for (Tree& e : PetEnv("env-job", "1", "1")) want.push_back(std::move(e));
  CHECK(NodeContainer(info).env == want);
}

TEST_CASE("Torch: no trainer env without spec.trainer, but envInjection targets still get it") {
  MLPolicy ml = TorchMLPolicy(std::vector<EnvInjectionTarget>{{"node", {"preflight-check"}}});
  Info info = NewInfo(&ml, 2, {"node"}, {"preflight-check"});
  TrainJob job = NewTrainJob("test-job", std::nullopt);
  Enforce(info, job);
  CHECK(NodeContainer(info).env.empty());
  CHECK(NodeContainer(info).ports.empty());
  CHECK(info.template_spec.pod_sets[0].init_containers[0].env == PetEnv("test-job", "2", "1"));
}

TEST_CASE("Torch: envInjection reaches init containers, sidecars and other Jobs") {
  MLPolicy ml =
      TorchMLPolicy(std::vector<EnvInjectionTarget>{{"node", {"sidecar", "nccl-check"}}, {"worker", {"worker-check"}}});
  Info info = NewInfo(&ml, 2, {"sidecar", "node"}, {"nccl-check"});
  PodSet worker;
  worker.name = "worker";
  worker.count = 1;
  worker.init_containers.push_back(Container{.name = "worker-check"});
  worker.containers.push_back(Container{.name = "worker"});
  info.template_spec.pod_sets.push_back(std::move(worker));
  TrainJob job = NewTrainJob("test-job", TrainerSpec{});
  Enforce(info, job);
  const PodSet& node = info.template_spec.pod_sets[0];
  CHECK(node.containers[0].env == PetEnv("test-job", "2", "1"));
  CHECK(node.containers[0].ports.empty());
  CHECK(node.init_containers[0].env == PetEnv("test-job", "2", "1"));
  CHECK(NodeContainer(info).env == PetEnv("test-job", "2", "1"));
  CHECK(info.template_spec.pod_sets[1].init_containers[0].env == PetEnv("test-job", "2", "1"));
  CHECK(info.template_spec.pod_sets[1].containers[0].env.empty());
}

TEST_CASE("Torch: envInjection with a missing container or Job is an error") {
  MLPolicy ml = TorchMLPolicy(std::vector<EnvInjectionTarget>{{"node", {"non-existent-container"}}});
  Info info = NewInfo(&ml, 1, {"node"}, {"preflight-check"});
  TrainJob job = NewTrainJob("test-job", TrainerSpec{});
  CHECK_THROWS_WITH(Enforce(info, job),
                    "spec.runtimeRef: envInjection target podSet \"node\" container \"non-existent-container\" not "
                    "found in runtime template");

  MLPolicy missing_job = TorchMLPolicy(std::vector<EnvInjectionTarget>{{"missing-job", {"preflight-check"}}});
  Info info2 = NewInfo(&missing_job, 1);
  CHECK_THROWS_WITH(Enforce(info2, job),
                    "spec.runtimeRef: envInjection target podSet \"missing-job\" container \"preflight-check\" not "
                    "found in runtime template");
}

TEST_CASE("Torch: torchtune gets no master env and its command is completed") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  TrainerSpec trainer = WithRequests("{cpu: \"8\", example.com/gpu: \"4\"}");
  trainer.command = std::vector<std::string>{"tune", "run"};
  TrainJob job = NewTrainJob("test-job", trainer);
  job.spec.runtime_ref.name = "torchtune-llama3.3-70b";
  Enforce(info, job);
  CHECK(NodeContainer(info).env == PetEnv("test-job", "1", "auto", false));
  CHECK(NodeContainer(info).ports == kTrainerPorts);
  CHECK(*job.spec.trainer->command ==
        std::vector<std::string>{"tune", "run", "--rdzv_endpoint=test-job-node-0-0.test-job:29500",
                                 "full_finetune_distributed", "--config", "llama3_3/70B_full"});
}

TEST_CASE("Torch sets the TrainJob image on the trainer node container, unless legacy") {
  MLPolicy ml = TorchMLPolicy();
  for (bool legacy : {false, true}) {
    CAPTURE(legacy);
    Info info = NewInfo(&ml, 1);
    NodeContainer(info);
    info.template_spec.pod_sets[0].containers[0].image = Tree::String("runtime:image");
    TrainJob job = NewTrainJob("test-job", TrainerSpec{.image = "trainjob:image"});
    Enforce(info, job, legacy);
    CHECK(NodeContainer(info).image.text() == (legacy ? "runtime:image" : "trainjob:image"));
  }
}

// --- Validate ----------------------------------------------------------------------------------

TEST_CASE("Torch Validate: no action when info is nil or has no Torch policy") {
  TrainJob job = NewTrainJob("test", TrainerSpec{.env = Yaml("[{name: PET_NNODES, value: x}]").items()});
  CHECK(Validate(nullptr, job).empty());
  Info no_policy;
  CHECK(Validate(&no_policy, job).empty());
  MLPolicy ml;
  Info no_torch = NewInfo(&ml, 1);
  CHECK(Validate(&no_torch, job).empty());
}

TEST_CASE("Torch Validate: envInjection target container does not exist") {
  MLPolicy ml = TorchMLPolicy(std::vector<EnvInjectionTarget>{{"node", {"missing-container"}}});
  Info info = NewInfo(&ml, 1);
  CHECK(Validate(&info, NewTrainJob("test", std::nullopt)) ==
        std::vector<std::string>{"spec.runtimeRef: envInjection target podSet \"node\" container \"missing-container\" "
                                 "not found in runtime template"});
}

TEST_CASE("Torch Validate: valid environment variable present") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  CHECK(Validate(&info, NewTrainJob("test", TrainerSpec{.env = Yaml("[{name: test, value: value}, {name: test2, "
                                                                    "value: value}]")
                                                                   .items()}))
            .empty());
}

TEST_CASE("Torch Validate: reserved environment variable present") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  CHECK(Validate(&info, NewTrainJob("test", TrainerSpec{.env = Yaml("[{name: test, value: value}, {name: "
                                                                    "PET_NPROC_PER_NODE, value: value}]")
                                                                   .items()})) ==
        std::vector<std::string>{"spec.trainer.env: must not have reserved envs, invalid envs configured: "
                                 "[PET_NPROC_PER_NODE]"});
  // One error for all of them, each name once, sorted.
  CHECK(Validate(&info, NewTrainJob("test", TrainerSpec{.env = Yaml("[{name: PET_NODE_RANK}, {name: PET_MASTER_PORT}, "
                                                                    "{name: PET_NODE_RANK}]")
                                                                   .items()})) ==
        std::vector<std::string>{"spec.trainer.env: must not have reserved envs, invalid envs configured: "
                                 "[PET_MASTER_PORT PET_NODE_RANK]"});
}

namespace {

std::vector<std::string> ValidateTorchTune(const std::string& runtime, std::int32_t nodes,
                                           std::vector<std::string> args, const std::string& requests = "{}") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  TrainerSpec trainer = WithRequests(requests);
  trainer.num_nodes = nodes;
  trainer.command = std::vector<std::string>{"tune", "run"};
  if (!args.empty()) trainer.args = std::move(args);
  TrainJob job = NewTrainJob("test", trainer);
  job.spec.runtime_ref.name = runtime;
  return Validate(&info, job);
}

const std::vector<std::string> kLoRA = {"model.lora_attn_modules=[q_proj, v_proj, output_proj]"};
const std::vector<std::string> kQLoRA = {"model.lora_attn_modules=[q_proj, v_proj, output_proj]",
                                         "model.quantize_base=True"};

}  // namespace

TEST_CASE("Torch Validate: unsupported pretrained model") {
  CHECK(ValidateTorchTune("torchtune-llama3.1-70b", 1, {}) ==
        std::vector<std::string>{"spec.runtimeRef.name: must have a supported pretrained model, invalid model "
                                 "configured: llama3_1/70B"});
}

TEST_CASE("Torch Validate: multi-node mode is only enabled for Llama-3.3-70b") {
  CHECK(ValidateTorchTune("torchtune-llama3.2-3b", 2, {}) ==
        std::vector<std::string>{"spec.trainer.numNodes: must be 1 for llama3_2/3B model"});
}

TEST_CASE("Torch Validate: qlora is not supported for qwen in torchtune") {
  CHECK(ValidateTorchTune("torchtune-qwen2.5-1.5b", 1, kQLoRA) ==
        std::vector<std::string>{"spec.runtimeRef.name: QLoRA is not supported for qwen2_5/1.5B model"});
}

TEST_CASE("Torch Validate: muti-devices qlora is not supported for llama3.2-1b in torchtune") {
  CHECK(
      ValidateTorchTune("torchtune-llama3.2-1b", 1, kQLoRA, "{example.com/gpu: \"2\"}") ==
      std::vector<std::string>{
          "spec.trainer.numProcPerNode: must be auto or 1 for llama3_2/1B model when using QLoRA",
          "spec.trainer.resourcesPerNode: must have gpu resource with value 1 for llama3_2/1B model when using QLoRA"});
  // One GPU selects the single-device QLoRA config, which is allowed.
  CHECK(ValidateTorchTune("torchtune-llama3.2-1b", 1, kQLoRA, "{example.com/gpu: \"1\"}").empty());
}

TEST_CASE("Torch Validate: lora is not supported for multi-node training in torchtune") {
  CHECK(ValidateTorchTune("torchtune-llama3.3-70b", 2, kLoRA) ==
        std::vector<std::string>{
            "spec.trainer.numNodes: LoRA fine-tuning is not supported for multi-node training in TorchTune"});
}

TEST_CASE("Torch Validate: lora is supported for single-node training in torchtune") {
  CHECK(ValidateTorchTune("torchtune-llama3.3-70b", 1, kLoRA).empty());
}

TEST_CASE("Torch Validate: immutable runtime configs must not be set in trainer args") {
  CHECK(ValidateTorchTune("torchtune-llama3.2-1b", 1, {"output_dir=custom-output", "tokenizer.path=/some/path"}) ==
        std::vector<std::string>{
            "spec.trainer.args[0]: must not set immutable config \"output_dir\" in trainer args; it is managed by the "
            "runtime",
            "spec.trainer.args[1]: must not set immutable config \"tokenizer.path\" in trainer args; it is managed by "
            "the runtime"});
}

TEST_CASE("Torch Validate: torchtune rules apply only to exactly `tune run`") {
  MLPolicy ml = TorchMLPolicy();
  Info info = NewInfo(&ml, 1);
  TrainerSpec trainer;
  trainer.command = std::vector<std::string>{"tune", "run", "x"};
  trainer.args = std::vector<std::string>{"output_dir=/x"};
  TrainJob job = NewTrainJob("test", trainer);
  job.spec.runtime_ref.name = "unsupported";
  CHECK(Validate(&info, job).empty());
}

}  // namespace trainer
