// JobSet: the plugin that owns the runtime template and builds the JobSet.
//
// PreBuildSync gives each PodSet its pod endpoints and writes PodSet counts into the Jobs'
// parallelism and completions. Build syncs the PodSets back into the JobSet spec (volumes, and per
// container image, command, env, ports, mounts), then the builder applies the TrainJob: dataset and
// model initializers, the trainer's command/args/env (and, under the legacy image behaviour, its
// image), pod labels and annotations, suspend and the owner reference. Validate checks that the
// runtime has what the TrainJob's initializers need. Follows upstream
// pkg/runtime/framework/plugins/jobset/{jobset.go,builder.go}.
#include "plugins/jobset.h"

#include <fmt/format.h>

#include <span>

#include "k8s/apply.h"
#include "runtime/objects.h"
#include "util/key_index.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "JobSet";
constexpr const char* kVolumeNameInitializer = "initializer";
constexpr const char* kInitializerEnvStorageUri = "STORAGE_URI";

const Origin kByJobSet = Origin::Plugin(kName);

std::vector<Tree>& ReplicatedJobs(Tree& spec) { return ListField(spec, "replicatedJobs"); }

Tree& PodTemplate(Tree& rjob) { return rjob.Child("template").Child("spec").Child("template"); }
Tree& PodSpec(Tree& rjob) { return PodTemplate(rjob).Child("spec"); }

const std::string* AncestorOf(const Tree& rjob) {
  const Tree* tmpl = rjob.Find("template");
  const Tree* meta = tmpl ? tmpl->Find("metadata") : nullptr;
  const Tree* labels = meta ? meta->Find("labels") : nullptr;
  return labels && labels->IsMap() ? labels->FindString(kLabelTrainJobAncestor) : nullptr;
}

// The items of map[key]; empty when absent (never creates the field).
std::span<Tree> ItemsOf(Tree& map, std::string_view key) {
  Tree* field = map.Find(key);
  return field && field->IsList() ? std::span<Tree>(field->items()) : std::span<Tree>();
}

std::string NameOf(const Tree& item) {
  const std::string* name = item.IsMap() ? item.FindString("name") : nullptr;
  return name ? *name : std::string();
}

// Upserts into map[key] only when there is something to upsert, as Go leaves a nil list nil.
template <class Upsert>
void UpsertField(Tree& map, std::string_view key, std::vector<Tree> updates, Upsert upsert) {
  if (updates.empty()) return;
  upsert(ListField(map, key), std::move(updates));
}

// Sets map[key] to a TrainJob list; an empty list clears the field, as Go's omitempty drops it.
void SetStringList(Tree& map, std::string_view key, const std::vector<std::string>& values, const Origin& origin) {
  if (values.empty()) {
    map.Erase(key);
    return;
  }
  Tree list = Tree::List(origin);
  for (const auto& v : values) list.Append(Tree::String(v, origin));
  map.Set(key, std::move(list));
}

void MergeStringMap(Tree& map, std::string_view key, const StringMap& entries, const Origin& origin) {
  if (entries.empty()) return;
  Tree* field = map.Find(key);
  if (field == nullptr || !field->IsMap()) field = &map.Set(key, Tree::Map(origin));
  for (const auto& [k, v] : entries) field->Set(k, Tree::String(v, origin));
}

void SyncContainer(Tree& target, const Container& c) {
  if (c.command.IsList() && !c.command.items().empty()) target.Set("command", c.command);
  if (c.image.IsString() && !c.image.text().empty()) target.Set("image", c.image);
  UpsertField(target, "env", c.env, UpsertEnvVars);
  UpsertField(target, "ports", c.ports, UpsertPorts);
  UpsertField(target, "volumeMounts", c.volume_mounts, UpsertVolumeMounts);
}

// The builder's Initializer step for one initializer kind.
void ApplyInitializer(Tree& rjob, const char* container_name, const std::optional<InitializerSource>& source,
                      const TrainJob& job, const std::string& field) {
  rjob.Set("replicas", Tree::Int(1, kByJobSet));
  for (Tree& container : ItemsOf(PodSpec(rjob), "containers")) {
    if (NameOf(container) != container_name || !source) continue;
    std::vector<Tree> env;
    if (source->storage_uri) {
      env.push_back(EnvVarValue(kInitializerEnvStorageUri, *source->storage_uri, job.positions.Find(field + ".storageUri")));
    }
    for (Tree& e : EnvVarsApply(source->env)) env.push_back(std::move(e));
    UpsertField(container, "env", std::move(env), UpsertEnvVars);
    if (source->secret_ref) {
      Origin origin = job.positions.Find(field + ".secretRef");
      Tree from = Tree::Map(origin);
      from.Child("secretRef", origin).Set("name", Tree::String(source->secret_ref->name, origin));
      ListField(container, "envFrom").push_back(std::move(from));
    }
  }
}

class JobSet : public PreComponentBuilderPlugin, public ComponentBuilderPlugin, public CustomValidationPlugin {
 public:
  explicit JobSet(const RenderOptions& options) : options_(options) {}

  std::string_view Name() const override { return kName; }

  void PreBuildSync(Info& info, const TrainJob& job) override {
    Tree& spec = info.template_spec.obj_apply;
    SyncPodNetwork(info, job, spec);
    SyncParallelCount(info, spec);
  }

  void Build(Info& info, const TrainJob& job, std::vector<Tree>& objects) override {
    Tree& spec = info.template_spec.obj_apply;
    std::vector<Tree>& rjobs = ReplicatedJobs(spec);
    if (rjobs.size() < info.template_spec.pod_sets.size()) {
      throw Error(fmt::format("runtime template has {} replicatedJobs but runtime info has {} podSets",
                              rjobs.size(), info.template_spec.pod_sets.size()));
    }
    for (std::size_t i = 0; i < info.template_spec.pod_sets.size(); ++i) {
      const PodSet& ps = info.template_spec.pod_sets[i];
      Tree& pod_spec = PodSpec(rjobs[i]);
      UpsertField(pod_spec, "volumes", ps.volumes, UpsertVolumes);
      std::span<Tree> containers = ItemsOf(pod_spec, "containers");
      if (containers.size() < ps.containers.size()) {
        throw Error(fmt::format("PodSet {} has more containers than its Job", ps.name));
      }
      for (std::size_t c = 0; c < ps.containers.size(); ++c) SyncContainer(containers[c], ps.containers[c]);
      if (!ps.init_containers.empty()) {
        std::vector<Tree>& init = ListField(pod_spec, "initContainers");
        for (std::size_t c = 0; c < ps.init_containers.size(); ++c) {
          if (c >= init.size()) {
            Tree added = Tree::Map(kByJobSet);
            added.Set("name", Tree::String(ps.init_containers[c].name, kByJobSet));
            init.push_back(std::move(added));
          }
          SyncContainer(init[c], ps.init_containers[c]);
        }
      }
    }

    for (Tree& rjob : rjobs) {
      const std::string* ancestor = AncestorOf(rjob);
      if (ancestor && *ancestor == kDatasetInitializer) {
        ApplyInitializer(rjob, kDatasetInitializer, Dataset(job), job, "spec.initializer.dataset");
      }
      if (ancestor && *ancestor == kModelInitializer) {
        ApplyInitializer(rjob, kModelInitializer, Model(job), job, "spec.initializer.model");
      }
    }
    ApplyTrainer(info, job, rjobs);
    for (Tree& rjob : rjobs) {
      Tree& meta = PodTemplate(rjob).Child("metadata", kByJobSet);
      MergeStringMap(meta, "labels", info.scheduler.pod_labels, kByJobSet);
      if (info.scheduler.pod_annotations) MergeStringMap(meta, "annotations", *info.scheduler.pod_annotations, kByJobSet);
    }
    if (job.spec.suspend) {
      spec.Set("suspend", Tree::Bool(*job.spec.suspend, job.positions.Find("spec.suspend")));
    } else {
      spec.Erase("suspend");
    }
    // Builders that run later read the now complete spec in the JobSet (BuiltSpec).
    objects.push_back(MakeJobSet(info, job, std::move(spec)));
  }

  void Validate(const Info* info, const TrainJob*, const TrainJob& job, Diagnostics& errors) override {
    if (info == nullptr || !job.spec.initializer) return;
    const Tree& spec = info->template_spec.obj_apply;
    Origin at = job.positions.Find("spec.runtimeRef");
    if (job.spec.initializer->dataset) CheckInitializer(spec, kDatasetInitializer, "datasetConfig", at, errors);
    if (job.spec.initializer->model) CheckInitializer(spec, kModelInitializer, "modelConfig", at, errors);
  }

 private:
  static const std::optional<InitializerSource>& Dataset(const TrainJob& job) {
    static const std::optional<InitializerSource> kNone;
    return job.spec.initializer ? job.spec.initializer->dataset : kNone;
  }
  static const std::optional<InitializerSource>& Model(const TrainJob& job) {
    static const std::optional<InitializerSource> kNone;
    return job.spec.initializer ? job.spec.initializer->model : kNone;
  }

  static void SyncPodNetwork(Info& info, const TrainJob& job, Tree& spec) {
    std::string subdomain = job.metadata.name;
    if (const Tree* network = spec.Find("network"); network && network->IsMap()) {
      if (const std::string* s = network->FindString("subdomain")) subdomain = *s;
    }
    std::vector<Tree>& rjobs = ReplicatedJobs(spec);
    for (std::size_t i = 0; i < rjobs.size() && i < info.template_spec.pod_sets.size(); ++i) {
      const Tree* replicas = rjobs[i].Find("replicas");
      EndpointSource source{job.metadata.name, NameOf(rjobs[i]),
                            replicas && replicas->IsInt() ? static_cast<std::int32_t>(replicas->AsInt()) : kDefaultJobReplicas,
                            subdomain};
      info.template_spec.pod_sets[i].endpoints = std::move(source);
    }
  }

  // Each PodSet's count goes to the first replicatedJob of its name, found through an index of
  // the names (a runtime may have thousands of Jobs).
  static void SyncParallelCount(Info& info, Tree& spec) {
    std::vector<Tree>& rjobs = ReplicatedJobs(spec);
    const auto name_of = [&rjobs](std::size_t i) -> std::string_view {
      const std::string* name = rjobs[i].IsMap() ? rjobs[i].FindString("name") : nullptr;
      return name ? std::string_view(*name) : std::string_view();
    };
    KeyIndex by_name;
    by_name.Build(rjobs.size(), name_of);
    for (const PodSet& ps : info.template_spec.pod_sets) {
      if (!ps.count) continue;
      const std::size_t found = by_name.Find(ps.name, name_of);
      if (found == KeyIndex::kAbsent) continue;
      Tree& job_spec = rjobs[found].Child("template").Child("spec");
      // A count a plugin computed (MPI under runLauncherAsNode) stays credited to that plugin.
      const Origin count_origin =
          ps.count_origin.kind == Origin::Kind::kPlugin ? ps.count_origin : ps.count_origin.SetBy(kName);
      job_spec.Set("parallelism", Tree::Int(*ps.count, count_origin));
      job_spec.Set("completions", Tree::Int(*ps.count, count_origin));
    }
  }

  // The builder's Trainer step.
  void ApplyTrainer(const Info& info, const TrainJob& job, std::vector<Tree>& rjobs) const {
    const MLPolicy* ml = info.runtime_policy.ml_policy;
    bool launcher_as_node = ml && ml->mpi && ml->mpi->run_launcher_as_node.value_or(false);
    const auto& trainer = job.spec.trainer;
    for (Tree& rjob : rjobs) {
      const std::string* ancestor = AncestorOf(rjob);
      bool is_trainer = ancestor && *ancestor == kAncestorTrainer;
      if (is_trainer) {
        rjob.Set("replicas", Tree::Int(1, kByJobSet));
        for (Tree& container : ItemsOf(PodSpec(rjob), "containers")) {
          if (NameOf(container) != kNode || !trainer) continue;
          if (trainer->image && options_.legacy_image) {
            container.Set("image", Tree::String(*trainer->image, job.positions.Find("spec.trainer.image").SetBy(kName)));
          }
          if (trainer->command) SetStringList(container, "command", *trainer->command, job.positions.Find("spec.trainer.command"));
          if (trainer->args) SetStringList(container, "args", *trainer->args, job.positions.Find("spec.trainer.args"));
        }
      }
      if (is_trainer || (launcher_as_node && NameOf(rjob) == kNode)) {
        for (Tree& container : ItemsOf(PodSpec(rjob), "containers")) {
          if (NameOf(container) != kNode || !trainer) continue;
          UpsertField(container, "env", EnvVarsApply(trainer->env), UpsertEnvVars);
        }
      }
    }
  }

  static Tree MakeJobSet(const Info& info, const TrainJob& job, Tree spec) {
    Tree jobset = NewOwnedObject("jobset.x-k8s.io/v1alpha2", "JobSet", job.metadata.name, job, kByJobSet);
    Tree& meta = *jobset.Find("metadata");
    meta.Set("name", Tree::String(job.metadata.name, job.positions.Find("metadata.name")));
    MergeStringMap(meta, "labels", info.labels, kByJobSet);
    MergeStringMap(meta, "annotations", info.annotations, kByJobSet);
    jobset.Set("spec", std::move(spec));
    return jobset;
  }

  // Each problem is located where the runtime lacks what it names (its replicatedJobs, the job,
  // the container), and at the TrainJob's runtimeRef (`at`) when that has no position.
  static void CheckInitializer(const Tree& spec, const char* name, const char* config, const Origin& at,
                               Diagnostics& errors) {
    const auto in_runtime = [&at](const Tree* t) { return t && t->origin().HasPosition() ? t->origin() : at; };
    const Tree* rjobs = spec.Find("replicatedJobs");
    const Tree* found = nullptr;
    if (rjobs && rjobs->IsList()) {
      for (const Tree& rjob : rjobs->items()) {
        if (NameOf(rjob) == name) found = &rjob;
      }
    }
    if (found == nullptr) {
      errors.Add(in_runtime(rjobs), "spec.runtimeRef",
                 fmt::format("must have {} job when trainJob is configured with input {}", name, config));
      return;
    }
    const Tree* pod_spec = found->Find("template");
    for (const char* key : {"spec", "template", "spec"}) pod_spec = pod_spec ? pod_spec->Find(key) : nullptr;
    const Tree* container = nullptr;
    bool has_mount = false;
    for (const char* list : {"initContainers", "containers"}) {
      const Tree* items = pod_spec ? pod_spec->Find(list) : nullptr;
      if (items == nullptr || !items->IsList()) continue;
      for (const Tree& c : items->items()) {
        if (NameOf(c) != name) continue;
        container = &c;
        if (std::string_view(list) != "containers") continue;
        const Tree* mounts = c.Find("volumeMounts");
        if (mounts == nullptr || !mounts->IsList()) continue;
        for (const Tree& m : mounts->items()) has_mount = has_mount || NameOf(m) == kVolumeNameInitializer;
      }
    }
    if (container == nullptr) {
      errors.Add(in_runtime(found), "spec.runtimeRef",
                 fmt::format("must have container with name - {} in the {} job", name, name));
    } else if (!has_mount) {
      errors.Add(in_runtime(container), "spec.runtimeRef",
                 fmt::format("must have volumeMount with name - {} in container {} of the {} job",
                             kVolumeNameInitializer, name, name));
    }
  }

  RenderOptions options_;
};

}  // namespace

std::unique_ptr<Plugin> NewJobSet(const RenderOptions& options) { return std::make_unique<JobSet>(options); }

}  // namespace trainer::plugins
