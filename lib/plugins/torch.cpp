// Torch: the ML policy of runtimes with mlPolicy.torch, run with torchrun (or torchtune).
//
// The TrainJob's numNodes becomes the trainer PodSet's count. numProcPerNode is the TrainJob's, or
// "auto", which stays when the node has GPUs and otherwise becomes its CPU count. The trainer
// `node` container gets the TrainJob's env, then PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK and
// (except for torchtune, which takes a rendezvous argument instead) PET_MASTER_ADDR and
// PET_MASTER_PORT, and port 29500; envInjection targets get all five. For `tune run` TrainJobs the
// command is completed by torchtune.cpp. Under the current image behaviour the plugin also sets the
// TrainJob image. Follows upstream pkg/runtime/framework/plugins/torch/torch.go.
#include "plugins/torch.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "k8s/apply.h"
#include "plugins/torchtune.h"
#include "runtime/image.h"
#include "util/quote.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "Torch";
constexpr const char* kEnvNumNodes = "PET_NNODES";
constexpr const char* kEnvNumProcPerNode = "PET_NPROC_PER_NODE";
constexpr const char* kEnvNodeRank = "PET_NODE_RANK";
constexpr const char* kEnvMasterAddr = "PET_MASTER_ADDR";
constexpr const char* kEnvMasterPort = "PET_MASTER_PORT";

// torchrun's own settings, which a TrainJob must not set.
constexpr std::array<std::string_view, 5> kReservedEnvNames = {kEnvMasterAddr, kEnvMasterPort, kEnvNumNodes,
                                                               kEnvNodeRank, kEnvNumProcPerNode};

const Origin kByTorch = Origin::Plugin(kName);


std::string TargetNotFound(const EnvInjectionTarget& target, const std::string& container) {
  return fmt::format("envInjection target podSet {} container {} not found in runtime template", GoQuote(target.job_name),
                     GoQuote(container));
}

// Info::FindContainerByPodSetName for a const Info: regular containers before init containers.
const Container* FindContainer(const Info& info, std::string_view pod_set, std::string_view name) {
  for (const PodSet& ps : info.template_spec.pod_sets) {
    if (ps.name != pod_set) continue;
    for (const auto* list : {&ps.containers, &ps.init_containers}) {
      for (const Container& c : *list) {
        if (c.name == name) return &c;
      }
    }
    return nullptr;
  }
  return nullptr;
}

std::optional<Quantity> Cpu(const Tree& resources, std::string_view field) {
  const Tree* list = resources.Find(field);
  const Tree* cpu = list && list->IsMap() ? list->Find("cpu") : nullptr;
  if (cpu == nullptr || !cpu->IsScalar() || cpu->IsNull()) return std::nullopt;
  return Quantity::Parse(cpu->text());
}

// Upstream appends the torchtune arguments to the TrainJob's own spec.trainer.command, which the
// JobSet builder then writes into every trainer-ancestor `node` container (the pipeline's working
// copy of the TrainJob).
void AppendTrainerCommand(TrainJob& job, const std::vector<std::string>& args) {
  std::vector<std::string>& command = *job.spec.trainer->command;
  command.insert(command.end(), args.begin(), args.end());
}

class Torch : public EnforceMLPolicyPlugin, public CustomValidationPlugin {
 public:
  explicit Torch(const RenderOptions& options) : options_(options) {}

  std::string_view Name() const override { return kName; }

  void Validate(const Info* info, const TrainJob*, const TrainJob& job, Diagnostics& errors) override {
    if (info == nullptr || info->runtime_policy.ml_policy == nullptr || !info->runtime_policy.ml_policy->torch) return;
    const TorchPolicy& torch = *info->runtime_policy.ml_policy->torch;
    if (torch.env_injection_targets) {
      for (const EnvInjectionTarget& target : *torch.env_injection_targets) {
        for (const std::string& container : target.container_names) {
          if (FindContainer(*info, target.job_name, container) != nullptr) continue;
          errors.Add(job.positions.Find("spec.runtimeRef"), "spec.runtimeRef", TargetNotFound(target, container));
        }
      }
    }
    if (!job.spec.trainer) return;
    const TrainerSpec& trainer = *job.spec.trainer;
    std::vector<std::string_view> reserved;
    std::optional<std::size_t> first;
    for (std::size_t i = 0; i < trainer.env.size(); ++i) {
      const std::string* name = trainer.env[i].FindString("name");
      if (name == nullptr ||
          std::find(kReservedEnvNames.begin(), kReservedEnvNames.end(), *name) == kReservedEnvNames.end())
        continue;
      if (!first) first = i;
      if (std::find(reserved.begin(), reserved.end(), *name) == reserved.end()) reserved.push_back(*name);
    }
    if (first) {
      std::sort(reserved.begin(), reserved.end());
      // One error for the whole list, as upstream; it points at the first reserved entry.
      errors.Add(job.positions.Find(fmt::format("spec.trainer.env[{}]", *first)), "spec.trainer.env",
                 fmt::format("must not have reserved envs, invalid envs configured: [{}]", fmt::join(reserved, " ")));
    }
    if (IsTorchTuneEntrypoint(trainer.command)) ValidateTorchTune(*info, job, errors);
  }

  void EnforceMLPolicy(Info& info, TrainJob& job) override {
    if (info.runtime_policy.ml_policy == nullptr || !info.runtime_policy.ml_policy->torch) return;
    const auto& trainer = job.spec.trainer;
    PodSet* trainer_ps = info.FindPodSetByAncestor(kAncestorTrainer);
    if (trainer_ps && trainer_ps->count && trainer && trainer->num_nodes) {
      *trainer_ps->count = *trainer->num_nodes;
      trainer_ps->count_origin = job.positions.Find("spec.trainer.numNodes");
    }

    ProcsPerNode procs;
    if (trainer && trainer->num_proc_per_node) procs.count = *trainer->num_proc_per_node;
    std::optional<Tree> resources = ExtractResourcePerNodeFromRuntime(info.template_spec.obj_apply);
    if (trainer && trainer->resources_per_node) resources = trainer->resources_per_node;
    const Tree* resources_ptr = resources ? &*resources : nullptr;
    int gpus = NumGPUPerNode(resources_ptr);
    if (procs.IsAuto() && gpus == 0) {
      // intstr.FromInt keeps the low 32 bits, as here.
      procs.count = static_cast<std::int32_t>(std::max<std::int64_t>(1, GetNumCPUPerNode(resources_ptr)));
    }

    Container* node = nullptr;
    if (trainer) {
      node = info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode);
      if (node) UpsertEnvVars(node->env, EnvVarsApply(trainer->env));
    }
    std::int32_t num_nodes = trainer_ps && trainer_ps->count ? *trainer_ps->count : 1;
    std::vector<Tree> pet_envs = {
        EnvVarValue(kEnvNumNodes, std::to_string(num_nodes), kByTorch),
        EnvVarValue(kEnvNumProcPerNode, procs.String(), kByTorch),
        EnvVarFieldRef(kEnvNodeRank, kJobCompletionIndexFieldPath, kByTorch),
    };
    // Named after the TrainJob and `node` whatever the replicatedJob and subdomain are called, as upstream.
    std::vector<Tree> master_envs = {
        EnvVarValue(kEnvMasterAddr, fmt::format("{}-{}-0-0.{}", job.metadata.name, kNode, job.metadata.name), kByTorch),
        EnvVarValue(kEnvMasterPort, std::to_string(kContainerTrainerPort), kByTorch),
    };

    if (node) {
      UpsertEnvVars(node->env, pet_envs);
      if (!IsTorchTuneEntrypoint(trainer->command)) {
        UpsertEnvVars(node->env, master_envs);
      } else {
        AppendTrainerCommand(job, TorchTuneCommandArgs(info, job, num_nodes, procs, gpus));
      }
      UpsertPorts(node->ports, {ContainerPort(kContainerTrainerPort, kByTorch)});
      if (!options_.legacy_image) SetTrainJobImage(node, job, "Torch");
    }

    // Auxiliary containers always get the master address too, torchtune or not.
    const TorchPolicy& torch = *info.runtime_policy.ml_policy->torch;
    if (!torch.env_injection_targets) return;
    for (const EnvInjectionTarget& target : *torch.env_injection_targets) {
      for (const std::string& name : target.container_names) {
        Container* container = info.FindContainerByPodSetName(target.job_name, name);
        if (container == nullptr)
          throw Error(Diagnostic{.field = "spec.runtimeRef", .message = TargetNotFound(target, name)});
        UpsertEnvVars(container->env, pet_envs);
        UpsertEnvVars(container->env, master_envs);
      }
    }
  }

 private:
  RenderOptions options_;
};

}  // namespace

std::int64_t GetNumCPUPerNode(const Tree* resources) {
  if (resources == nullptr || !resources->IsMap()) return 0;
  std::optional<Quantity> request = Cpu(*resources, "requests");
  if (!request || request->IsZero()) {
    std::optional<Quantity> limit = Cpu(*resources, "limits");
    return limit ? limit->Value() : 0;
  }
  return request->Value();
}

std::unique_ptr<Plugin> NewTorch(const RenderOptions& options) { return std::make_unique<Torch>(options); }

}  // namespace trainer::plugins
