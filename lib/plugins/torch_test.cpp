#include "plugins/torch.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;

using Targets = std::optional<std::vector<EnvInjectionTarget>>;

// The runtime's ML policy in a row: no Info at all, an Info without a policy, a policy without
// Torch, or Torch.
enum class Policy { kNilInfo, kNone, kEmpty, kTorch };

MLPolicy PolicyOf(Policy policy, Targets targets) {
  MLPolicy ml;
  if (policy == Policy::kTorch) ml.torch = TorchPolicy{std::move(targets)};
  return ml;
}

// As upstream's runtime.NewInfo(WithMLPolicySource, WithPodSet(node, trainer, count, ...)): one
// trainer PodSet `node` with the given init containers and containers.
Info NewInfo(const MLPolicy* ml, std::int32_t count, const std::vector<std::string>& containers = {"node"},
             const std::vector<std::string>& init_containers = {}) {
  Info info;
  info.runtime_policy.ml_policy = ml;
  PodSet ps;
  ps.name = kNode;
  ps.ancestor = kAncestorTrainer;
  ps.count = count;
  for (const auto& name : containers) ps.containers.push_back(Container{.name = name});
  for (const auto& name : init_containers) ps.init_containers.push_back(Container{.name = name});
  info.template_spec.pod_sets.push_back(std::move(ps));
  return info;
}

// A second PodSet `worker` of one pod: a `worker-check` init container and a `worker` container.
PodSet WorkerPodSet() {
  PodSet worker;
  worker.name = "worker";
  worker.count = 1;
  worker.init_containers.push_back(Container{.name = "worker-check"});
  worker.containers.push_back(Container{.name = "worker"});
  return worker;
}

TrainJob NewTrainJob(std::string name, std::optional<TrainerSpec> trainer, std::string runtime = "") {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  job.spec.runtime_ref.name = std::move(runtime);
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

TrainerSpec With(TrainerSpec trainer, std::optional<std::int32_t> num_nodes,
                 std::optional<std::int32_t> num_proc_per_node = std::nullopt) {
  trainer.num_nodes = num_nodes;
  trainer.num_proc_per_node = num_proc_per_node;
  return trainer;
}

TrainerSpec WithCommand(TrainerSpec trainer, std::vector<std::string> command, std::vector<std::string> args = {}) {
  trainer.command = std::move(command);
  if (!args.empty()) trainer.args = std::move(args);
  return trainer;
}

TrainerSpec WithEnv(const char* env) { return TrainerSpec{.env = Yaml(env).items()}; }

std::unique_ptr<Plugin> New(bool legacy_image = false) {
  RenderOptions options;
  options.legacy_image = legacy_image;
  return plugins::NewTorch(options);
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

// What one container holds after EnforceMLPolicy: the named container of the named PodSet, regular
// containers before init containers.
struct ContainerWant {
  const char* pod_set;
  const char* container;
  std::vector<Tree> env;
  std::vector<Tree> ports;
};

// The trainer node container with the PET env of a TrainJob that gets the trainer port.
ContainerWant Node(std::vector<Tree> env, std::vector<Tree> ports = kTrainerPorts) {
  return ContainerWant{kNode, kNode, std::move(env), std::move(ports)};
}

const std::vector<std::string> kLoRA = {"model.lora_attn_modules=[q_proj, v_proj, output_proj]"};
const std::vector<std::string> kQLoRA = {"model.lora_attn_modules=[q_proj, v_proj, output_proj]",
                                         "model.quantize_base=True"};

// A `tune run` TrainJob "test" of `nodes` nodes on a torchtune runtime.
TrainJob TorchTuneJob(const std::string& runtime, std::int32_t nodes, std::vector<std::string> args,
                      const std::string& requests = "{}") {
  return NewTrainJob("test", WithCommand(With(WithRequests(requests), nodes), {"tune", "run"}, std::move(args)),
                     runtime);
}

}  // namespace

// --- getNumCPUPerNode --------------------------------------------------------------------------

TEST_CASE("GetNumCPUPerNode counts requests before limits, rounding up") {
  struct Case {
    const char* name;
    const char* resources;  // none when null
    int want;
  };
  const Case cases[] = {
      {"no resources", nullptr, 0},
      {"empty requests and limits", "{limits: {}, requests: {}}", 0},
      {"requests before limits", "{requests: {cpu: \"3\"}, limits: {cpu: \"8\"}}", 3},
      {"a zero request falls back to the limit", "{requests: {cpu: \"0\"}, limits: {cpu: \"6\"}}", 6},
      {"millicores round up", "{limits: {cpu: 2500m}}", 3},
      {"a fraction rounds up", "{requests: {cpu: \"0.7\"}}", 1},
      {"memory only", "{requests: {memory: 1Gi}}", 0},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      Tree resources = c.resources ? Yaml(c.resources) : Tree();
      CHECK(plugins::GetNumCPUPerNode(c.resources ? &resources : nullptr) == c.want);
    }
  }
}

// --- EnforceMLPolicy ---------------------------------------------------------------------------

// As upstream's TestTorch: each row's Info is one trainer PodSet `node` of `runtime_count` pods with
// the row's containers (and a `worker` PodSet when asked); the row says what the PodSet count and
// the listed containers hold after EnforceMLPolicy, or the error it throws.
TEST_CASE("Torch EnforceMLPolicy") {
  struct Case {
    const char* name;
    Policy policy = Policy::kTorch;
    Targets targets;
    std::int32_t runtime_count = 1;
    std::vector<std::string> runtime_containers = {"node"};
    std::vector<std::string> runtime_init_containers;
    bool worker = false;  // a second PodSet `worker`
    Tree runtime_spec;    // the JobSet spec
    const char* runtime_image = nullptr;
    TrainJob job;
    bool legacy_image = false;
    std::int32_t count = 1;
    std::vector<ContainerWant> containers;
    const char* image = nullptr;  // of the node container; none when null
    std::optional<std::vector<std::string>> command;
    const char* error = nullptr;
  };
  const Case cases[] = {
      {.name = "no action when mlPolicySource torch is null",
       .policy = Policy::kEmpty,
       .job = NewTrainJob("trainJob", TrainerSpec{.num_nodes = 2}),
       .containers = {Node({}, {})}},
      {.name = "trainJob numNodes is respected rather than mlPolicy one",
       .job = NewTrainJob("trainJob", TrainerSpec{.num_nodes = 2}),
       .count = 2,
       .containers = {Node(PetEnv("trainJob", "2", "1"))}},
      // nproc_per_node=auto becomes the CPU count without GPUs.
      {.name = "nproc_per_node=auto with CPU limit",
       .job = NewTrainJob("test-job", WithRequests("{cpu: \"4\"}")),
       .containers = {Node(PetEnv("test-job", "1", "4"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with no CPU resources",
       .job = NewTrainJob("test-job", TrainerSpec{.image = "test:image"}),
       .containers = {Node(PetEnv("test-job", "1", "1"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with low CPU limit",
       .job = NewTrainJob("test-job", WithRequests("{cpu: \"2\"}")),
       .containers = {Node(PetEnv("test-job", "1", "2"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with millicore CPU limit",
       .job = NewTrainJob("test-job", WithRequests("{cpu: \"2.5\"}")),
       .containers = {Node(PetEnv("test-job", "1", "3"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with fractional CPU (0.7)",
       .job = NewTrainJob("test-job", WithRequests("{cpu: \"0.7\"}")),
       .containers = {Node(PetEnv("test-job", "1", "1"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with millicore format",
       .job = NewTrainJob("test-job", WithRequests("{cpu: 2500m}")),
       .containers = {Node(PetEnv("test-job", "1", "3"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with fractional CPU (3.7)",
       .job = NewTrainJob("test-job", WithRequests("{cpu: \"3.7\"}")),
       .containers = {Node(PetEnv("test-job", "1", "4"))},
       .image = "test:image"},
      // nproc_per_node=auto stays with GPUs.
      {.name = "nproc_per_node=auto with GPUs",
       .job = NewTrainJob("test-job", WithRequests("{example.com/gpu: \"2\"}")),
       .containers = {Node(PetEnv("test-job", "1", "auto"))},
       .image = "test:image"},
      {.name = "nproc_per_node=auto with mixed CPU and GPU",
       .job = NewTrainJob("test-job", WithRequests("{cpu: \"6\", example.com/gpu: \"2\"}")),
       .containers = {Node(PetEnv("test-job", "1", "auto"))},
       .image = "test:image"},
      {.name = "nproc_per_node from the TrainJob is kept",
       .job = NewTrainJob("test-job", With(WithRequests("{cpu: \"8\"}"), std::nullopt, 3)),
       .containers = {Node(PetEnv("test-job", "1", "3"))},
       .image = "test:image"},
      {.name = "the runtime's node resources count when the TrainJob sets none",
       .runtime_spec = Yaml("replicatedJobs:\n- name: node\n  template: {spec: {template: {spec: {containers: [{name: "
                            "node, resources: {requests: {cpu: \"5\"}}}]}}}}\n"),
       .job = NewTrainJob("test-job", TrainerSpec{}),
       .containers = {Node(PetEnv("test-job", "1", "5"))}},
      {.name = "multi-node GPU training keeps auto and uses the TrainJob numNodes",
       .runtime_count = 2,
       .job = NewTrainJob("gpu-job", With(WithRequests("{cpu: \"8\", memory: 16Gi, example.com/gpu: \"4\"}"), 4)),
       .count = 4,
       .containers = {Node(PetEnv("gpu-job", "4", "auto"))},
       .image = "test:image"},
      {.name = "the TrainJob env comes before the PET env",
       .job = NewTrainJob("env-job", WithEnv("[{name: FIRST, value: \"1\"}]")),
       .containers = {Node(
           testing::Concat(Yaml("[{name: FIRST, value: \"1\"}]").items(), PetEnv("env-job", "1", "1")))}},
      {.name = "no trainer env without spec.trainer, but envInjection targets still get it",
       .targets = std::vector<EnvInjectionTarget>{{"node", {"preflight-check"}}},
       .runtime_count = 2,
       .runtime_init_containers = {"preflight-check"},
       .job = NewTrainJob("test-job", std::nullopt),
       .count = 2,
       .containers = {Node({}, {}), {kNode, "preflight-check", PetEnv("test-job", "2", "1"), {}}}},
      {.name = "envInjection reaches init containers, sidecars and other Jobs",
       .targets = std::vector<EnvInjectionTarget>{{"node", {"sidecar", "nccl-check"}}, {"worker", {"worker-check"}}},
       .runtime_count = 2,
       .runtime_containers = {"sidecar", "node"},
       .runtime_init_containers = {"nccl-check"},
       .worker = true,
       .job = NewTrainJob("test-job", TrainerSpec{}),
       .count = 2,
       .containers = {{kNode, "sidecar", PetEnv("test-job", "2", "1"), {}},
                      {kNode, "nccl-check", PetEnv("test-job", "2", "1"), {}},
                      Node(PetEnv("test-job", "2", "1")),
                      {"worker", "worker-check", PetEnv("test-job", "2", "1"), {}},
                      {"worker", "worker", {}, {}}}},
      {.name = "envInjection with a missing container is an error",
       .targets = std::vector<EnvInjectionTarget>{{"node", {"non-existent-container"}}},
       .runtime_init_containers = {"preflight-check"},
       .job = NewTrainJob("test-job", TrainerSpec{}),
       .error = "spec.runtimeRef: envInjection target podSet \"node\" container \"non-existent-container\" not found "
                "in runtime template"},
      {.name = "envInjection with a missing Job is an error",
       .targets = std::vector<EnvInjectionTarget>{{"missing-job", {"preflight-check"}}},
       .job = NewTrainJob("test-job", TrainerSpec{}),
       .error = "spec.runtimeRef: envInjection target podSet \"missing-job\" container \"preflight-check\" not found "
                "in runtime template"},
      {.name = "torchtune gets no master env and its command is completed",
       .job =
           NewTrainJob("test-job", WithCommand(WithRequests("{cpu: \"8\", example.com/gpu: \"4\"}"), {"tune", "run"}),
                       "torchtune-llama3.3-70b"),
       .containers = {Node(PetEnv("test-job", "1", "auto", false))},
       .image = "test:image",
       .command = std::vector<std::string>{"tune", "run", "--rdzv_endpoint=test-job-node-0-0.test-job:29500",
                                           "full_finetune_distributed", "--config", "llama3_3/70B_full"}},
      {.name = "sets the TrainJob image on the trainer node container",
       .runtime_image = "runtime:image",
       .job = NewTrainJob("test-job", TrainerSpec{.image = "trainjob:image"}),
       .containers = {Node(PetEnv("test-job", "1", "1"))},
       .image = "trainjob:image"},
      {.name = "keeps the runtime's image under the legacy image rule",
       .runtime_image = "runtime:image",
       .job = NewTrainJob("test-job", TrainerSpec{.image = "trainjob:image"}),
       .legacy_image = true,
       .containers = {Node(PetEnv("test-job", "1", "1"))},
       .image = "runtime:image"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml = PolicyOf(c.policy, c.targets);
      Info info = NewInfo(&ml, c.runtime_count, c.runtime_containers, c.runtime_init_containers);
      if (c.worker) info.template_spec.pod_sets.push_back(WorkerPodSet());
      info.template_spec.obj_apply = c.runtime_spec;
      if (c.runtime_image) info.FindContainerByPodSetName(kNode, kNode)->image = Tree::String(c.runtime_image);
      TrainJob job = c.job;
      auto plugin = New(c.legacy_image);
      auto enforce = [&] { dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job); };
      if (c.error) {
        CHECK_THROWS_WITH(enforce(), c.error);
      } else {
        enforce();
        CHECK(info.template_spec.pod_sets[0].count == c.count);
        for (const ContainerWant& want : c.containers) {
          const std::string container_name = std::string(want.pod_set) + "/" + want.container;
          CAPTURE(container_name);
          const Container* container = info.FindContainerByPodSetName(want.pod_set, want.container);
          REQUIRE(container != nullptr);
          CHECK(container->env == want.env);
          CHECK(container->ports == want.ports);
        }
        CHECK(info.FindContainerByPodSetName(kNode, kNode)->image == (c.image ? Tree::String(c.image) : Tree()));
        if (c.command) CHECK(job.spec.trainer->command == c.command);
      }
    }
  }
}

// --- Validate ----------------------------------------------------------------------------------

// As upstream's TestValidate: each row's Info, when there is one, has one trainer PodSet `node`.
TEST_CASE("Torch Validate") {
  struct Case {
    const char* name;
    Policy policy = Policy::kTorch;
    Targets targets;
    TrainJob job;
    std::vector<std::string> want;
  };
  const TrainJob reserved = NewTrainJob("test", WithEnv("[{name: PET_NNODES, value: x}]"));
  const Case cases[] = {
      {.name = "no action when info is nil", .policy = Policy::kNilInfo, .job = reserved},
      {.name = "no action when info has no MLPolicy", .policy = Policy::kNone, .job = reserved},
      {.name = "no action when info has no Torch policy", .policy = Policy::kEmpty, .job = reserved},
      {.name = "envInjection target container does not exist",
       .targets = std::vector<EnvInjectionTarget>{{"node", {"missing-container"}}},
       .job = NewTrainJob("test", std::nullopt),
       .want = {"spec.runtimeRef: envInjection target podSet \"node\" container \"missing-container\" not found in "
                "runtime template"}},
      {.name = "valid environment variable present",
       .job = NewTrainJob("test", WithEnv("[{name: test, value: value}, {name: test2, value: value}]"))},
      {.name = "reserved environment variable present",
       .job = NewTrainJob("test", WithEnv("[{name: test, value: value}, {name: PET_NPROC_PER_NODE, value: value}]")),
       .want = {"spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_NPROC_PER_NODE]"}},
      {.name = "reserved environment variables in one error, each name once, sorted",
       .job = NewTrainJob("test", WithEnv("[{name: PET_NODE_RANK}, {name: PET_MASTER_PORT}, {name: PET_NODE_RANK}]")),
       .want = {"spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_MASTER_PORT "
                "PET_NODE_RANK]"}},
      {.name = "unsupported pretrained model",
       .job = TorchTuneJob("torchtune-llama3.1-70b", 1, {}),
       .want = {"spec.runtimeRef.name: must have a supported pretrained model, invalid model configured: "
                "llama3_1/70B"}},
      {.name = "multi-node mode is only enabled for Llama-3.3-70b",
       .job = TorchTuneJob("torchtune-llama3.2-3b", 2, {}),
       .want = {"spec.trainer.numNodes: must be 1 for llama3_2/3B model"}},
      {.name = "qlora is not supported for qwen in torchtune",
       .job = TorchTuneJob("torchtune-qwen2.5-1.5b", 1, kQLoRA),
       .want = {"spec.runtimeRef.name: QLoRA is not supported for qwen2_5/1.5B model"}},
      {.name = "muti-devices qlora is not supported for llama3.2-1b in torchtune",
       .job = TorchTuneJob("torchtune-llama3.2-1b", 1, kQLoRA, "{example.com/gpu: \"2\"}"),
       .want = {"spec.trainer.numProcPerNode: must be auto or 1 for llama3_2/1B model when using QLoRA",
                "spec.trainer.resourcesPerNode: must have gpu resource with value 1 for llama3_2/1B model when using "
                "QLoRA"}},
      // One GPU selects the single-device QLoRA config, which is allowed.
      {.name = "single-device qlora is supported for llama3.2-1b in torchtune",
       .job = TorchTuneJob("torchtune-llama3.2-1b", 1, kQLoRA, "{example.com/gpu: \"1\"}")},
      {.name = "lora is not supported for multi-node training in torchtune",
       .job = TorchTuneJob("torchtune-llama3.3-70b", 2, kLoRA),
       .want = {"spec.trainer.numNodes: LoRA fine-tuning is not supported for multi-node training in TorchTune"}},
      {.name = "lora is supported for single-node training in torchtune",
       .job = TorchTuneJob("torchtune-llama3.3-70b", 1, kLoRA)},
      {.name = "immutable runtime configs must not be set in trainer args",
       .job = TorchTuneJob("torchtune-llama3.2-1b", 1, {"output_dir=custom-output", "tokenizer.path=/some/path"}),
       .want = {"spec.trainer.args[0]: must not set immutable config \"output_dir\" in trainer args; it is managed by "
                "the runtime",
                "spec.trainer.args[1]: must not set immutable config \"tokenizer.path\" in trainer args; it is managed "
                "by the runtime"}},
      {.name = "torchtune rules apply only to exactly `tune run`",
       .job = NewTrainJob("test", WithCommand(TrainerSpec{}, {"tune", "run", "x"}, {"output_dir=/x"}), "unsupported")},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml = PolicyOf(c.policy, c.targets);
      Info info = c.policy == Policy::kNone ? Info{} : NewInfo(&ml, 1);
      CHECK(testing::ValidationErrors(*New(), c.policy == Policy::kNilInfo ? nullptr : &info, c.job) == c.want);
    }
  }
}

}  // namespace trainer
