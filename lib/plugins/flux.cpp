// Flux: the ML policy that runs the trainer under the Flux workload manager.
//
// EnforceMLPolicy adds the flux-installer init container (it copies a Flux view into a shared
// volume), the volumes and mounts Flux needs, and wraps the trainer command in the Flux
// entrypoint; broker settings come from FLUX_* env vars of the runtime and the TrainJob. Build
// creates the `<job>-flux-entrypoint` ConfigMap (flux_entrypoint.h) and the `<job>-flux-curve`
// Secret (flux_curve.h). Validate reserves the installer's name. Follows upstream
// pkg/runtime/framework/plugins/flux/flux.go.
#include "plugins/flux.h"

#include <fmt/format.h>

#include "k8s/apply.h"
#include "plugins/flux_curve.h"
#include "plugins/flux_entrypoint.h"
#include "runtime/image.h"
#include "runtime/objects.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "Flux";
constexpr const char* kInstallerContainer = "flux-installer";
constexpr const char* kInstallVolume = "flux-install";
constexpr const char* kInstallPath = "/mnt/flux";
constexpr const char* kConfigPath = "/etc/flux-config";  // upstream calls it FluxConfigVolumeName
constexpr const char* kCurveVolume = "flux-curve";
constexpr const char* kCurvePath = "/curve";
constexpr const char* kMemoryVolume = "shared-memory";
constexpr const char* kMemoryPath = "/dev/shm";
constexpr const char* kSpackViewVolume = "spack-install";
constexpr const char* kSpackViewPath = "/opt/software";
constexpr std::int64_t kConfigMapMode = 0755;
constexpr std::int64_t kCurveSecretMode = 0400;

const Origin kByFlux = Origin::Plugin(kName);

bool HasFluxPolicy(const Info& info) {
  const MLPolicy* ml = info.runtime_policy.ml_policy;
  return ml != nullptr && ml->flux.has_value();
}

std::string ConfigMapName(const TrainJob& job) { return job.metadata.name + "-flux-entrypoint"; }
std::string CurveSecretName(const TrainJob& job) { return job.metadata.name + "-flux-curve"; }

// Upstream dereferences spec.trainer and spec.trainer.numNodes without a check, so such a
// TrainJob crashes the controller; we report it.
const TrainerSpec& RequireTrainer(const TrainJob& job) {
  constexpr const char* kWhy =
      "is required by a runtime with mlPolicy.flux: the controller's Flux plugin reads it unconditionally{} and "
      "crashes without it";
  if (!job.spec.trainer) throw Error(Diagnostic{.field = "spec.trainer", .message = fmt::format(kWhy, "")});
  if (!job.spec.trainer->num_nodes) {
    throw Error(Diagnostic{.field = "spec.trainer.numNodes",
                           .message = fmt::format(kWhy, " (not the runtime's mlPolicy.numNodes)")});
  }
  return *job.spec.trainer;
}

const std::string* StringField(const Tree& map, std::string_view key) {
  const Tree* value = map.IsMap() ? map.Find(key) : nullptr;
  return value && value->IsString() ? &value->text() : nullptr;
}

// brokerSettingsFromEnvironment: the defaults, then the trainer container's env (entries with a
// value), then the TrainJob's env (a valueFrom entry counts as "").
FluxBrokerSettings BrokerSettingsFromEnvironment(Info& info, const TrainerSpec& trainer) {
  FluxBrokerSettings settings;
  if (Container* node = info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode)) {
    for (const Tree& env : node->env) {
      const std::string* name = StringField(env, "name");
      const std::string* value = StringField(env, "value");
      if (name && value) settings.Set(*name, *value);
    }
  }
  for (const Tree& env : trainer.env) {
    const std::string* name = StringField(env, "name");
    const std::string* value = StringField(env, "value");
    if (name) settings.Set(*name, value ? *value : std::string());
  }
  return settings;
}

// getOriginalCommand: the TrainJob's command (else the trainer container's) and args, as one line.
std::string OriginalCommand(Info& info, const TrainerSpec& trainer) {
  std::vector<std::string> command;
  if (Container* node = info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode);
      node && node->command.IsList()) {
    for (const Tree& word : node->command.items()) command.push_back(word.text());
  }
  if (trainer.command) command = *trainer.command;
  return JoinOriginalCommand(command, trainer.args.value_or(std::vector<std::string>{}));
}

Tree StringList(std::initializer_list<std::string> words) {
  Tree list = Tree::List(kByFlux);
  for (const std::string& w : words) list.Append(Tree::String(w, kByFlux));
  return list;
}

// Upstream assigns the wrapped command to the TrainJob's own spec.trainer.command and clears its
// args; the JobSet builder then copies the command into every trainer-ancestor `node` container
// and, args being nil, leaves the runtime's args there (the pipeline's working copy of the TrainJob).
void SetTrainerCommand(TrainJob& job, std::vector<std::string> command) {
  TrainerSpec& trainer = *job.spec.trainer;
  trainer.command = std::move(command);
  trainer.args.reset();
}

Tree VolumeMount(std::string_view name, std::string_view path, bool read_only) {
  Tree mount = Tree::Map(kByFlux);
  mount.Set("name", Tree::String(std::string(name), kByFlux));
  mount.Set("mountPath", Tree::String(std::string(path), kByFlux));
  if (read_only) mount.Set("readOnly", Tree::Bool(true, kByFlux));
  return mount;
}

Tree EmptyDirVolume(std::string_view name, const char* medium = nullptr) {
  Tree volume = Tree::Map(kByFlux);
  volume.Set("name", Tree::String(std::string(name), kByFlux));
  Tree& empty_dir = volume.Set("emptyDir", Tree::Map(kByFlux));
  if (medium != nullptr) empty_dir.Set("medium", Tree::String(medium, kByFlux));
  return volume;
}

// getViewVolumes: everything but the curve certificate, in upstream's order.
std::vector<Tree> ViewVolumes(const std::string& config_map) {
  Tree config = Tree::Map(kByFlux);
  config.Set("name", Tree::String(config_map, kByFlux));
  Tree& source = config.Set("configMap", Tree::Map(kByFlux));
  source.Set("name", Tree::String(config_map, kByFlux));
  source.Set("defaultMode", Tree::Int(kConfigMapMode, kByFlux));
  return {EmptyDirVolume(kSpackViewVolume), EmptyDirVolume(kInstallVolume), std::move(config),
          EmptyDirVolume(kMemoryVolume, "Memory")};
}

Tree CurveVolume(const std::string& secret) {
  Tree volume = Tree::Map(kByFlux);
  volume.Set("name", Tree::String(kCurveVolume, kByFlux));
  Tree& source = volume.Set("secret", Tree::Map(kByFlux));
  source.Set("secretName", Tree::String(secret, kByFlux));
  source.Set("defaultMode", Tree::Int(kCurveSecretMode, kByFlux));
  return volume;
}

Tree StringMapTree(std::initializer_list<std::pair<const char*, std::string>> entries) {
  Tree map = Tree::Map(kByFlux);
  for (const auto& [key, value] : entries) map.Set(key, Tree::String(value, kByFlux));
  return map;
}

class Flux : public EnforceMLPolicyPlugin, public ComponentBuilderPlugin, public CustomValidationPlugin {
 public:
  explicit Flux(const RenderOptions& options) : options_(options) {}

  std::string_view Name() const override { return kName; }

  void EnforceMLPolicy(Info& info, TrainJob& job) override {
    if (!HasFluxPolicy(info)) return;
    const TrainerSpec& trainer = RequireTrainer(job);
    FluxBrokerSettings settings = BrokerSettingsFromEnvironment(info, trainer);
    std::string config_map = ConfigMapName(job);
    std::string curve_secret = CurveSecretName(job);

    std::string original = OriginalCommand(info, trainer);
    SetTrainerCommand(job, {"/bin/bash", std::string(kConfigPath) + "/entrypoint.sh", original});

    Container installer;
    installer.name = kInstallerContainer;
    installer.image = Tree::String(settings.view_image, kByFlux);
    installer.command = StringList({"/bin/bash", std::string(kConfigPath) + "/init.sh"});
    installer.volume_mounts = {VolumeMount(kInstallVolume, kInstallPath, false),
                               VolumeMount(config_map, kConfigPath, true)};

    // By PodSet name, where the command and the image go by ancestor.
    for (PodSet& ps : info.template_spec.pod_sets) {
      if (ps.name != kNode) continue;
      UpsertVolumes(ps.volumes, ViewVolumes(config_map));
      UpsertVolumes(ps.volumes, {CurveVolume(curve_secret)});
      ps.init_containers.push_back(installer);
      for (Container& c : ps.containers) {
        if (c.name != kNode) continue;
        UpsertVolumeMounts(
            c.volume_mounts,
            {VolumeMount(kInstallVolume, kInstallPath, false), VolumeMount(kSpackViewVolume, kSpackViewPath, false),
             VolumeMount(config_map, kConfigPath, true), VolumeMount(kCurveVolume, kCurvePath, true),
             VolumeMount(kMemoryVolume, kMemoryPath, true)});
      }
    }
    if (!options_.legacy_image)
      SetTrainJobImage(info.FindContainerByPodSetAncestorContainerName(kAncestorTrainer, kNode), job, "Flux");
  }

  void Build(Info& info, const TrainJob& job, std::vector<Tree>& objects) override {
    if (!HasFluxPolicy(info)) return;
    const TrainerSpec& trainer = RequireTrainer(job);
    FluxBrokerSettings settings = BrokerSettingsFromEnvironment(info, trainer);

    // The CRD defaults the policy's numProcPerNode to 1, so upstream's dereference is safe there.
    std::int32_t tasks = trainer.num_proc_per_node ? *trainer.num_proc_per_node
                                                   : info.runtime_policy.ml_policy->flux->num_proc_per_node.value_or(1);
    // The TrainJob's resourcesPerNode as written, else the runtime's (already merged with it).
    std::optional<Tree> from_runtime;
    const Tree* resources = nullptr;
    if (trainer.resources_per_node) {
      resources = &*trainer.resources_per_node;
    } else if ((from_runtime = ExtractResourcePerNodeFromRuntime(BuiltSpec(info, objects)))) {
      resources = &*from_runtime;
    }
    FluxScriptValues values = FluxEntrypointValues(job.metadata.name, job.metadata.namespace_, *trainer.num_nodes,
                                                   tasks, NumGPUPerNode(resources), settings);
    FluxScripts scripts = RenderFluxScripts(values, Templates());

    Tree config_map = NewOwnedObject("v1", "ConfigMap", ConfigMapName(job), job, kByFlux);
    config_map.Set("data", StringMapTree({{"entrypoint.sh", scripts.entrypoint}, {"init.sh", scripts.init}}));
    objects.push_back(std::move(config_map));

    Tree secret = NewOwnedObject("v1", "Secret", CurveSecretName(job), job, kByFlux);
    std::string cert = CurveCertificate(job.metadata.name, CurveKeyPairFromUID(job.metadata.uid));
    secret.Set("data", StringMapTree({{"curve.cert", Base64(cert)}}));
    objects.push_back(std::move(secret));
  }

  void Validate(const Info* info, const TrainJob*, const TrainJob&, Diagnostics& errors) override {
    if (info == nullptr || !HasFluxPolicy(*info)) return;
    for (const PodSet& ps : info->template_spec.pod_sets) {
      if (ps.name != kNode) continue;
      for (const Container& c : ps.init_containers) {
        if (c.name == kInstallerContainer) {
          errors.Add(Origin{}, "spec.trainer.initContainers",
                     fmt::format("InitContainer '{}' is reserved", kInstallerContainer));
        }
      }
    }
  }

 private:
  // Upstream's templates, read once when a Flux TrainJob first needs them; null without a directory.
  const FluxTemplates* Templates() {
    if (options_.flux_templates_dir.empty()) return nullptr;
    if (!templates_) templates_ = ReadFluxTemplates(options_.flux_templates_dir);
    return &*templates_;
  }

  RenderOptions options_;
  std::optional<FluxTemplates> templates_;
};

}  // namespace

std::unique_ptr<Plugin> NewFlux(const RenderOptions& options) { return std::make_unique<Flux>(options); }

}  // namespace trainer::plugins
