#include "plugins/torchtune.h"

#include <doctest/doctest.h>

#include "yaml/reader.h"

namespace trainer {

namespace {

using plugins::ProcsPerNode;

const ProcsPerNode kAuto{};
ProcsPerNode Procs(std::int32_t n) { return ProcsPerNode{n}; }

TrainJob TorchTuneJob(const std::string& runtime, std::vector<std::string> args) {
  TrainJob job;
  job.metadata.name = "torchtune-job";
  job.metadata.namespace_ = "default";
  job.spec.runtime_ref.name = runtime;
  TrainerSpec trainer;
  trainer.command = std::vector<std::string>{"tune", "run"};
  if (!args.empty()) trainer.args = std::move(args);
  job.spec.trainer = std::move(trainer);
  return job;
}

Info InfoWithTemplate(std::string_view yaml) {
  static const std::string kFile = "test.yaml";
  Info info;
  info.template_spec.obj_apply = ReadYamlStream(yaml, &kFile).at(0);
  return info;
}

// One replicatedJob with the given ancestor label and one container with the given name and command.
Info InfoWithCommand(const std::string& ancestor, const std::string& container) {
  return InfoWithTemplate(
      "replicatedJobs:\n- name: node\n  template:\n    metadata: {labels: "
      "{trainer.kubeflow.org/trainjob-ancestor-step: " +
      ancestor +
      "}}\n"
      "    spec: {template: {spec: {containers: [{name: " +
      container + ", command: [output_dir=/out, tokenizer.path=/tok, batch_size=32]}]}}}\n");
}

}  // namespace

TEST_CASE("GetModelFromRuntimeRef normalizes three-part runtime names") {
  using plugins::GetModelFromRuntimeRef;
  CHECK(GetModelFromRuntimeRef("torchtune-llama3.2-1b") == "llama3_2/1B");    // llama3.2 1B is normalized
  CHECK(GetModelFromRuntimeRef("torchtune-qwen2.5-1.5b") == "qwen2_5/1.5B");  // qwen2.5 1.5B is normalized
  CHECK(GetModelFromRuntimeRef("torchtune-llama3.2").empty());                // fewer than three parts
  CHECK(GetModelFromRuntimeRef("torchtune-llama3.2-1b-extra").empty());       // more than three parts
  CHECK(GetModelFromRuntimeRef("").empty());                                  // empty name
  CHECK(GetModelFromRuntimeRef("a--b") == "/B");                              // empty parts still count
}

TEST_CASE("IsLoraConfigEnabled looks for model.lora_attn_modules in any arg") {
  using plugins::IsLoraConfigEnabled;
  CHECK(IsLoraConfigEnabled({"batch_size=32", "model.lora_attn_modules=['q_proj','v_proj']"}));
  CHECK_FALSE(IsLoraConfigEnabled({"batch_size=32", "epochs=10"}));
  CHECK_FALSE(IsLoraConfigEnabled({}));
}

TEST_CASE("IsUseQLoraFinetune needs quantize_base true and DoRA off") {
  using plugins::IsUseQLoraFinetune;
  CHECK(IsUseQLoraFinetune({"model.quantize_base=True"}));                               // quantize base enabled
  CHECK_FALSE(IsUseQLoraFinetune({"model.quantize_base=False"}));                        // explicitly disabled
  CHECK_FALSE(IsUseQLoraFinetune({"model.quantize_base=True", "model.use_dora=True"}));  // dora short-circuits
  CHECK(IsUseQLoraFinetune({"model.quantize_base=True", "model.use_dora=False"}));       // dora disabled
  CHECK_FALSE(IsUseQLoraFinetune({"batch_size=32"}));                                    // neither
  CHECK_FALSE(IsUseQLoraFinetune({}));                                                   // empty args
  CHECK(IsUseQLoraFinetune({"model.quantize_base= tRuE "}));                             // case and spaces ignored
  CHECK_FALSE(IsUseQLoraFinetune({"model.quantize_base"}));                              // no value
}

TEST_CASE("GetRecipeAndConfig picks the recipe from nodes, processes, GPUs and LoRA args") {
  const std::string model = "llama3_2/1B";
  const std::vector<std::string> lora = {"model.lora_attn_modules=['q_proj']"};
  const std::vector<std::string> qlora = {"model.quantize_base=True"};
  struct Case {
    const char* name;
    std::int32_t nodes;
    ProcsPerNode procs;
    int gpus;
    std::vector<std::string> args;
    std::string recipe;
    std::string suffix;
  };
  const Case cases[] = {
      {"single device full", 1, kAuto, 1, {}, "full_finetune_single_device", "_full_single_device"},
      {"single device lora", 1, kAuto, 1, lora, "lora_finetune_single_device", "_lora_single_device"},
      {"single device qlora", 1, kAuto, 1, qlora, "lora_finetune_single_device", "_qlora_single_device"},
      {"single node multi-gpu full", 1, kAuto, 4, {}, "full_finetune_distributed", "_full"},
      {"single node multi-gpu lora", 1, kAuto, 4, lora, "lora_finetune_distributed", "_lora"},
      {"single node multi-gpu qlora", 1, kAuto, 4, qlora, "lora_finetune_distributed", "_qlora"},
      {"multi-node full", 2, kAuto, 8, {}, "full_finetune_distributed", "_full_multinode"},
      {"numProcPerNode=1 forces single device even with multiple gpus",
       1,
       Procs(1),
       4,
       {},
       "full_finetune_single_device",
       "_full_single_device"},
      {"numProcPerNode>1 uses distributed", 1, Procs(4), 4, {}, "full_finetune_distributed", "_full"},
      {"multi-node drops LoRA args", 2, kAuto, 8, lora, "full_finetune_distributed", "_full_multinode"},
      {"no GPU and auto is distributed", 1, kAuto, 0, {}, "full_finetune_distributed", "_full"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    auto [recipe, config] =
        plugins::GetRecipeAndConfig(c.nodes, c.procs, c.gpus, TorchTuneJob("torchtune-llama3.2-1b", c.args));
    CHECK(recipe == c.recipe);
    CHECK(config == model + c.suffix);
  }
}

TEST_CASE("ExtractOverridesFromRuntime keeps only the immutable settings of trainer node containers") {
  using plugins::ExtractOverridesFromRuntime;
  const std::vector<std::string> want = {"output_dir=/out", "tokenizer.path=/tok"};
  CHECK(ExtractOverridesFromRuntime(Info{}).empty());                                 // no jobset template
  CHECK(ExtractOverridesFromRuntime(InfoWithCommand("trainer", "node")) == want);     // trainer node container
  CHECK(ExtractOverridesFromRuntime(InfoWithCommand("other", "node")).empty());       // other ancestor
  CHECK(ExtractOverridesFromRuntime(InfoWithCommand("trainer", "sidecar")).empty());  // other container
}

TEST_CASE("TorchTuneCommandArgs adds the rendezvous endpoint only when several processes train") {
  Info info = InfoWithCommand("trainer", "node");
  TrainJob job = TorchTuneJob("torchtune-llama3.2-1b", {});
  job.metadata.name = "tune";
  const std::string endpoint = "--rdzv_endpoint=tune-node-0-0.tune:29500";
  CHECK(plugins::TorchTuneCommandArgs(info, job, 1, kAuto, 1) ==
        std::vector<std::string>{"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device",
                                 "output_dir=/out", "tokenizer.path=/tok"});
  CHECK(plugins::TorchTuneCommandArgs(info, job, 1, kAuto, 2).front() == endpoint);
  CHECK(plugins::TorchTuneCommandArgs(info, job, 2, Procs(1), 0).front() == endpoint);
  CHECK(plugins::TorchTuneCommandArgs(info, job, 1, Procs(3), 0).front() == endpoint);
  // A number of processes is taken as it is, whatever the GPUs say.
  CHECK(plugins::TorchTuneCommandArgs(info, job, 1, Procs(1), 8).front() == "full_finetune_single_device");
}

TEST_CASE("IsTorchTuneEntrypoint matches exactly tune run") {
  using plugins::IsTorchTuneEntrypoint;
  CHECK(IsTorchTuneEntrypoint(std::vector<std::string>{"tune", "run"}));
  CHECK_FALSE(IsTorchTuneEntrypoint(std::vector<std::string>{"tune", "run", "x"}));
  CHECK_FALSE(IsTorchTuneEntrypoint(std::vector<std::string>{"tune"}));
  CHECK_FALSE(IsTorchTuneEntrypoint(std::nullopt));
}

}  // namespace trainer
