// TorchTune: what the Torch plugin does when spec.trainer.command is the torchtune entrypoint
// (`tune run`): the recipe and config chosen from nodes, processes, GPUs and the LoRA/QLoRA/DoRA
// arguments, the overrides taken from the runtime's command, and the admission rules.
// Follows upstream pkg/runtime/framework/plugins/torch/torchtune.go.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/types.h"
#include "runtime/info.h"
#include "util/error.h"

namespace trainer::plugins {

// Upstream's intstr numProcPerNode: "auto" (no count) or a number.
struct ProcsPerNode {
  std::optional<std::int32_t> count;  // nullopt for "auto"

  bool IsAuto() const { return !count.has_value(); }
  std::string String() const { return count ? std::to_string(*count) : "auto"; }
};


// `tune run`: the command that selects the torchtune path.
bool IsTorchTuneEntrypoint(const std::optional<std::vector<std::string>>& command);

// "torchtune-llama3.2-1b" -> "llama3_2/1B"; "" unless the name has exactly three dash-separated parts.
std::string GetModelFromRuntimeRef(std::string_view runtime_ref_name);

// Whether any argument mentions model.lora_attn_modules.
bool IsLoraConfigEnabled(const std::vector<std::string>& args);
// Whether some "key=value" argument has a key containing `config_item` and a value that is "true"
// in any case, spaces trimmed.
bool IsBoolArgEnabled(const std::vector<std::string>& args, std::string_view config_item);
// model.quantize_base enabled, unless model.use_dora is.
bool IsUseQLoraFinetune(const std::vector<std::string>& args);

// The recipe and the config file name (model + suffix) for the run.
std::pair<std::string, std::string> GetRecipeAndConfig(std::int32_t num_nodes, const ProcsPerNode& procs, int gpus,
                                                       const TrainJob& job);

// The runtime's immutable settings (output_dir=, tokenizer.path=, ...) from the command of the
// `node` container of each trainer-ancestor replicatedJob, in order.
std::vector<std::string> ExtractOverridesFromRuntime(const Info& info);

// What follows `tune run` in the rewritten command: the rendezvous endpoint when more than one
// process runs, the recipe, --config and the config, then the runtime's overrides.
std::vector<std::string> TorchTuneCommandArgs(const Info& info, const TrainJob& job, std::int32_t num_nodes,
                                              const ProcsPerNode& procs, int gpus);

// validateTorchTune: the admission rules for a torchtune TrainJob (supported model, one node
// except for Llama 3.3 70B, QLoRA limits, no LoRA on several nodes, no immutable args).
void ValidateTorchTune(const Info& info, const TrainJob& job, Diagnostics& errors);

}  // namespace trainer::plugins
