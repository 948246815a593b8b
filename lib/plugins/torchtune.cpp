// TorchTune: recipe and config choice, runtime overrides and admission rules for `tune run`
// TrainJobs. Follows upstream pkg/runtime/framework/plugins/torch/torchtune.go.
#include "plugins/torchtune.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "util/go_format.h"

namespace trainer::plugins {

namespace {

constexpr const char* kArgRdzvEndpoint = "--rdzv_endpoint";
constexpr const char* kArgConfig = "--config";

constexpr const char* kFullFinetuneSingleDevice = "full_finetune_single_device";
constexpr const char* kFullFinetuneDistributed = "full_finetune_distributed";
constexpr const char* kLoRAFinetuneSingleDevice = "lora_finetune_single_device";
constexpr const char* kLoRAFinetuneDistributed = "lora_finetune_distributed";

constexpr const char* kFullSingleDeviceSuffix = "_full_single_device";
constexpr const char* kFullMultiDevicesSuffix = "_full";
constexpr const char* kFullMultiNodesSuffix = "_full_multinode";
constexpr const char* kLoRASingleDeviceSuffix = "_lora_single_device";
constexpr const char* kQLoRASingleDeviceSuffix = "_qlora_single_device";
constexpr const char* kLoRADistributedSuffix = "_lora";
constexpr const char* kQLoRADistributedSuffix = "_qlora";

constexpr const char* kLoraAttnModules = "model.lora_attn_modules";
constexpr const char* kQuantizeBase = "model.quantize_base";
constexpr const char* kUseDora = "model.use_dora";

constexpr const char* kModelLlama3_2_1B = "llama3_2/1B";
constexpr const char* kModelLlama3_2_3B = "llama3_2/3B";
constexpr const char* kModelLlama3_3_70B = "llama3_3/70B";
constexpr const char* kModelQwen2_5_1_5B = "qwen2_5/1.5B";

constexpr std::array<std::string_view, 4> kSupportedModels = {kModelLlama3_2_1B, kModelLlama3_2_3B, kModelLlama3_3_70B,
                                                              kModelQwen2_5_1_5B};
// Settings the runtime owns: taken from its command, refused in the TrainJob's args.
constexpr std::array<std::string_view, 4> kImmutableConfigs = {"output_dir", "tokenizer.path",
                                                               "checkpointer.checkpoint_dir", "tokenizer.merges_file"};

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

template <std::size_t N>
bool OneOf(const std::array<std::string_view, N>& set, std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

// strings.Split(s, "=")[0]: the text before the first "=", or all of it.
std::string_view KeyOf(std::string_view arg) { return arg.substr(0, arg.find('=')); }

bool EqualFold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

const std::vector<std::string>& ArgsOf(const TrainJob& job) {
  static const std::vector<std::string> kNone;
  return job.spec.trainer && job.spec.trainer->args ? *job.spec.trainer->args : kNone;
}

}  // namespace

bool IsTorchTuneEntrypoint(const std::optional<std::vector<std::string>>& command) {
  return command && *command == std::vector<std::string>{"tune", "run"};
}

std::string GetModelFromRuntimeRef(std::string_view runtime_ref_name) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    std::size_t dash = runtime_ref_name.find('-', start);
    fields.push_back(runtime_ref_name.substr(start, dash == std::string_view::npos ? dash : dash - start));
    if (dash == std::string_view::npos) break;
    start = dash + 1;
  }
  if (fields.size() != 3) return "";
  std::string family(fields[1]);
  std::replace(family.begin(), family.end(), '.', '_');
  std::string size(fields[2]);
  std::transform(size.begin(), size.end(), size.begin(), [](unsigned char c) { return std::toupper(c); });
  return family + "/" + size;
}

bool IsLoraConfigEnabled(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return Contains(a, kLoraAttnModules); });
}

bool IsBoolArgEnabled(const std::vector<std::string>& args, std::string_view config_item) {
  for (std::string_view arg : args) {
    std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos) continue;
    if (Contains(arg.substr(0, eq), config_item) && EqualFold(GoTrimSpace(arg.substr(eq + 1)), "true")) return true;
  }
  return false;
}

bool IsUseQLoraFinetune(const std::vector<std::string>& args) {
  if (IsBoolArgEnabled(args, kUseDora)) return false;
  return IsBoolArgEnabled(args, kQuantizeBase);
}

std::pair<std::string, std::string> GetRecipeAndConfig(std::int32_t num_nodes, const ProcsPerNode& procs, int gpus,
                                                       const TrainJob& job) {
  const std::vector<std::string>& args = ArgsOf(job);
  const char* recipe = kFullFinetuneDistributed;
  const char* suffix = kFullMultiDevicesSuffix;
  if (num_nodes == 1 && ((procs.count && *procs.count == 1) || gpus == 1)) {
    if (IsUseQLoraFinetune(args)) {
      recipe = kLoRAFinetuneSingleDevice;
      suffix = kQLoRASingleDeviceSuffix;
    } else if (IsLoraConfigEnabled(args)) {
      recipe = kLoRAFinetuneSingleDevice;
      suffix = kLoRASingleDeviceSuffix;
    } else {
      recipe = kFullFinetuneSingleDevice;
      suffix = kFullSingleDeviceSuffix;
    }
  } else if (num_nodes == 1 && IsUseQLoraFinetune(args)) {
    recipe = kLoRAFinetuneDistributed;
    suffix = kQLoRADistributedSuffix;
  } else if (num_nodes == 1 && IsLoraConfigEnabled(args)) {
    recipe = kLoRAFinetuneDistributed;
    suffix = kLoRADistributedSuffix;
  } else if (num_nodes > 1) {
    // LoRA arguments are dropped here; ValidateTorchTune refuses them on several nodes.
    suffix = kFullMultiNodesSuffix;
  }
  return {recipe, GetModelFromRuntimeRef(job.spec.runtime_ref.name) + suffix};
}

std::vector<std::string> ExtractOverridesFromRuntime(const Info& info) {
  std::vector<std::string> overrides;
  const Tree* rjobs = info.template_spec.obj_apply.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return overrides;
  for (const Tree& rjob : rjobs->items()) {
    const Tree* job_template = rjob.Find("template");
    const Tree* meta = job_template ? job_template->Find("metadata") : nullptr;
    const Tree* labels = meta ? meta->Find("labels") : nullptr;
    const std::string* ancestor = labels && labels->IsMap() ? labels->FindString(kLabelTrainJobAncestor) : nullptr;
    if (ancestor == nullptr || *ancestor != kAncestorTrainer) continue;
    const Tree* pod_spec = job_template->Find("spec");
    for (const char* key : {"template", "spec"}) pod_spec = pod_spec ? pod_spec->Find(key) : nullptr;
    const Tree* containers = pod_spec ? pod_spec->Find("containers") : nullptr;
    if (containers == nullptr || !containers->IsList()) continue;
    for (const Tree& c : containers->items()) {
      const std::string* name = c.FindString("name");
      const Tree* command = c.Find("command");
      if (name == nullptr || *name != kNode || command == nullptr || !command->IsList()) continue;
      for (const Tree& part : command->items()) {
        if (part.IsString() && OneOf(kImmutableConfigs, KeyOf(part.text()))) overrides.push_back(part.text());
      }
    }
  }
  return overrides;
}

std::vector<std::string> TorchTuneCommandArgs(const Info& info, const TrainJob& job, std::int32_t num_nodes,
                                              const ProcsPerNode& procs, int gpus) {
  std::vector<std::string> args;
  // The rendezvous endpoint only matters when more than one process trains.
  if (num_nodes > 1 || (procs.count && *procs.count > 1) || (procs.IsAuto() && gpus > 1)) {
    args.push_back(fmt::format("{}={}-{}-0-0.{}:{}", kArgRdzvEndpoint, job.metadata.name, kNode, job.metadata.name,
                               kContainerTrainerPort));
  }
  auto [recipe, config] = GetRecipeAndConfig(num_nodes, procs, gpus, job);
  args.push_back(std::move(recipe));
  args.push_back(kArgConfig);
  args.push_back(std::move(config));
  for (std::string& o : ExtractOverridesFromRuntime(info)) args.push_back(std::move(o));
  return args;
}

void ValidateTorchTune(const Info& info, const TrainJob& job, Diagnostics& errors) {
  const TrainerSpec& trainer = *job.spec.trainer;
  const std::string& runtime_name = job.spec.runtime_ref.name;
  auto add = [&](const std::string& field, std::string message) {
    errors.Add(job.positions.Find(field), field, std::move(message));
  };

  std::string model = GetModelFromRuntimeRef(runtime_name);
  if (!OneOf(kSupportedModels, model)) {
    add("spec.runtimeRef.name",
        fmt::format("must have a supported pretrained model, invalid model configured: {}", model));
  }
  std::int32_t num_nodes = trainer.num_nodes.value_or(1);
  if (num_nodes > 1 && model != kModelLlama3_3_70B) {
    add("spec.trainer.numNodes", fmt::format("must be 1 for {} model", model));
  }

  // Unlike EnforceMLPolicy, "auto" stays "auto" here even without GPUs.
  ProcsPerNode procs{trainer.num_proc_per_node};
  std::optional<Tree> resources = ExtractResourcePerNodeFromRuntime(info.template_spec.obj_apply);
  if (trainer.resources_per_node) resources = trainer.resources_per_node;
  auto [recipe, config] = GetRecipeAndConfig(num_nodes, procs, NumGPUPerNode(resources ? &*resources : nullptr), job);
  if (Contains(config, kQLoRADistributedSuffix)) {
    if (model == kModelQwen2_5_1_5B) {
      add("spec.runtimeRef.name", fmt::format("QLoRA is not supported for {} model", model));
    }
    if (!Contains(config, kQLoRASingleDeviceSuffix) && (model == kModelLlama3_2_1B || model == kModelLlama3_2_3B)) {
      add("spec.trainer.numProcPerNode", fmt::format("must be auto or 1 for {} model when using QLoRA", model));
      add("spec.trainer.resourcesPerNode",
          fmt::format("must have gpu resource with value 1 for {} model when using QLoRA", model));
    }
  }

  const std::vector<std::string>& args = ArgsOf(job);
  if (num_nodes > 1 && (IsLoraConfigEnabled(args) || IsUseQLoraFinetune(args))) {
    add("spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune");
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view key = KeyOf(args[i]);
    if (!OneOf(kImmutableConfigs, key)) continue;
    add(fmt::format("spec.trainer.args[{}]", i),
        fmt::format("must not set immutable config \"{}\" in trainer args; it is managed by the runtime", key));
  }
}

}  // namespace trainer::plugins
