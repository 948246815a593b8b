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
  struct Case {
    const char* name;
    const char* runtime;
    const char* want;
  };
  const Case cases[] = {
      {"llama3.2 1B is normalized", "torchtune-llama3.2-1b", "llama3_2/1B"},
      {"qwen2.5 1.5B is normalized", "torchtune-qwen2.5-1.5b", "qwen2_5/1.5B"},
      {"fewer than three parts", "torchtune-llama3.2", ""},
      {"more than three parts", "torchtune-llama3.2-1b-extra", ""},
      {"empty name", "", ""},
      {"empty parts still count", "a--b", "/B"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::GetModelFromRuntimeRef(c.runtime) == c.want); }
  }
}

TEST_CASE("IsLoraConfigEnabled looks for model.lora_attn_modules in any arg") {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    bool want;
  };
  const Case cases[] = {
      {"lora_attn_modules set", {"batch_size=32", "model.lora_attn_modules=['q_proj','v_proj']"}, true},
      {"other args only", {"batch_size=32", "epochs=10"}, false},
      {"empty args", {}, false},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::IsLoraConfigEnabled(c.args) == c.want); }
  }
}

TEST_CASE("IsUseQLoraFinetune needs quantize_base true and DoRA off") {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    bool want;
  };
  const Case cases[] = {
      {"quantize base enabled", {"model.quantize_base=True"}, true},
      {"explicitly disabled", {"model.quantize_base=False"}, false},
      {"dora short-circuits", {"model.quantize_base=True", "model.use_dora=True"}, false},
      {"dora disabled", {"model.quantize_base=True", "model.use_dora=False"}, true},
      {"neither", {"batch_size=32"}, false},
      {"empty args", {}, false},
      {"case and spaces ignored", {"model.quantize_base= tRuE "}, true},
      {"no value", {"model.quantize_base"}, false},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::IsUseQLoraFinetune(c.args) == c.want); }
  }
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
    SUBCASE(c.name) {
      auto [recipe, config] =
          plugins::GetRecipeAndConfig(c.nodes, c.procs, c.gpus, TorchTuneJob("torchtune-llama3.2-1b", c.args));
      CHECK(recipe == c.recipe);
      CHECK(config == model + c.suffix);
    }
  }
}

TEST_CASE("ExtractOverridesFromRuntime keeps only the immutable settings of trainer node containers") {
  struct Case {
    const char* name;
    Info info;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"no jobset template", Info{}, {}},
      {"trainer node container", InfoWithCommand("trainer", "node"), {"output_dir=/out", "tokenizer.path=/tok"}},
      {"other ancestor", InfoWithCommand("other", "node"), {}},
      {"other container", InfoWithCommand("trainer", "sidecar"), {}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::ExtractOverridesFromRuntime(c.info) == c.want); }
  }
}

// A TrainJob `tune` on torchtune-llama3.2-1b, whose runtime's trainer node container sets the two
// immutable configs.
TEST_CASE("TorchTuneCommandArgs adds the rendezvous endpoint only when several processes train") {
  struct Case {
    const char* name;
    std::int32_t nodes;
    ProcsPerNode procs;
    int gpus;
    std::vector<std::string> want;
  };
  const std::string endpoint = "--rdzv_endpoint=tune-node-0-0.tune:29500";
  const Case cases[] = {
      {"one node of one GPU",
       1,
       kAuto,
       1,
       {"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device", "output_dir=/out",
        "tokenizer.path=/tok"}},
      {"one node of two GPUs",
       1,
       kAuto,
       2,
       {endpoint, "full_finetune_distributed", "--config", "llama3_2/1B_full", "output_dir=/out",
        "tokenizer.path=/tok"}},
      {"two nodes of one process",
       2,
       Procs(1),
       0,
       {endpoint, "full_finetune_distributed", "--config", "llama3_2/1B_full_multinode", "output_dir=/out",
        "tokenizer.path=/tok"}},
      {"one node of three processes",
       1,
       Procs(3),
       0,
       {endpoint, "full_finetune_distributed", "--config", "llama3_2/1B_full", "output_dir=/out",
        "tokenizer.path=/tok"}},
      // A number of processes is taken as it is, whatever the GPUs say.
      {"one process on eight GPUs",
       1,
       Procs(1),
       8,
       {"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device", "output_dir=/out",
        "tokenizer.path=/tok"}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      Info info = InfoWithCommand("trainer", "node");
      TrainJob job = TorchTuneJob("torchtune-llama3.2-1b", {});
      job.metadata.name = "tune";
      CHECK(plugins::TorchTuneCommandArgs(info, job, c.nodes, c.procs, c.gpus) == c.want);
    }
  }
}

TEST_CASE("IsTorchTuneEntrypoint matches exactly tune run") {
  struct Case {
    const char* name;
    std::optional<std::vector<std::string>> command;
    bool want;
  };
  const Case cases[] = {
      {"tune run", std::vector<std::string>{"tune", "run"}, true},
      {"tune run and more", std::vector<std::string>{"tune", "run", "x"}, false},
      {"tune alone", std::vector<std::string>{"tune"}, false},
      {"no command", std::nullopt, false},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::IsTorchTuneEntrypoint(c.command) == c.want); }
  }
}

}  // namespace trainer
