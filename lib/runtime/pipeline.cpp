#include "runtime/pipeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "k8s/apply.h"

namespace trainer {

namespace {

const Origin kByPipeline = Origin::Plugin("newRuntimeInfo");

// Which plugin owns each policy of a runtime, so that a runtime whose plugin this build lacks
// fails clearly instead of rendering without it.
struct PolicyOwner {
  const char* field;
  const char* plugin;
  bool (*present)(const TrainingRuntimeSpec&);
};

constexpr PolicyOwner kPolicyOwners[] = {
    {"spec.mlPolicy.torch", "Torch", [](const TrainingRuntimeSpec& s) { return s.ml_policy && s.ml_policy->torch.has_value(); }},
    {"spec.mlPolicy.jax", "JAX", [](const TrainingRuntimeSpec& s) { return s.ml_policy && s.ml_policy->jax; }},
    {"spec.mlPolicy.xgboost", "XGBoost", [](const TrainingRuntimeSpec& s) { return s.ml_policy && s.ml_policy->xgboost; }},
    {"spec.mlPolicy.mpi", "MPI", [](const TrainingRuntimeSpec& s) { return s.ml_policy && s.ml_policy->mpi.has_value(); }},
    {"spec.mlPolicy.flux", "Flux", [](const TrainingRuntimeSpec& s) { return s.ml_policy && s.ml_policy->flux.has_value(); }},
    {"spec.podGroupPolicy.coscheduling", "Coscheduling",
     [](const TrainingRuntimeSpec& s) { return s.pod_group_policy && s.pod_group_policy->coscheduling.has_value(); }},
    {"spec.podGroupPolicy.volcano", "Volcano",
     [](const TrainingRuntimeSpec& s) { return s.pod_group_policy && s.pod_group_policy->volcano.has_value(); }},
};

void CheckPluginsAvailable(const TrainJob& job, const Runtime& runtime, const Framework& framework) {
  std::vector<Diagnostic> missing;
  for (const PolicyOwner& owner : kPolicyOwners) {
    if (!owner.present(runtime.spec) || framework.Has(owner.plugin)) continue;
    Origin policy = runtime.positions.Find(owner.field);
    missing.push_back(Diagnostic{
        job.positions.Find("spec.runtimeRef"), "", "spec.runtimeRef",
        fmt::format("{} {} uses {}{}, but the {} plugin is not available in this version of trainer yet",
                    runtime.kind, runtime.metadata.name, owner.field,
                    policy.HasPosition() ? fmt::format(" ({})", policy.Position()) : "", owner.plugin)});
  }
  if (!missing.empty()) throw Error(std::move(missing));
}

// Propagated labels or annotations: the runtime template's, then each runtime patch's, later wins.
StringMap Propagate(const std::optional<StringMap>& base, const TrainJob& job, bool labels) {
  StringMap out = base.value_or(StringMap{});
  for (const RuntimePatch& patch : job.spec.runtime_patches) {
    if (!patch.template_ || !patch.template_->metadata) continue;
    const auto& entries = labels ? patch.template_->metadata->labels : patch.template_->metadata->annotations;
    if (!entries) continue;
    for (const auto& [k, v] : *entries) out[k] = v;
  }
  return out;
}

Container ToContainer(const Tree& c) {
  Container out;
  if (const std::string* name = c.FindString("name")) out.name = *name;
  if (const Tree* image = c.Find("image")) out.image = *image;
  if (const Tree* command = c.Find("command")) out.command = *command;
  auto items = [&](const char* key) {
    const Tree* t = c.Find(key);
    return t && t->IsList() ? t->items() : std::vector<Tree>{};
  };
  out.env = items("env");
  out.ports = items("ports");
  out.volume_mounts = items("volumeMounts");
  return out;
}

// MergeResourceRequirements as newRuntimeInfo applies it: limits and requests merged key by key,
// the TrainJob's values winning. The result keeps only limits and requests (claims are dropped,
// as upstream copies just those two back into the container).
Tree MergedResources(const Tree* base, const Tree& per_node) {
  Tree out = Tree::Map(per_node.origin());
  for (const char* field : {"limits", "requests"}) {
    const Tree* from_runtime = base && base->IsMap() ? base->Find(field) : nullptr;
    const Tree* from_job = per_node.Find(field);
    bool has_runtime = from_runtime && from_runtime->IsMap() && from_runtime->size() > 0;
    bool has_job = from_job && from_job->IsMap() && from_job->size() > 0;
    if (!has_runtime && !has_job) continue;
    Tree merged = has_runtime ? *from_runtime : Tree::Map(from_job->origin());
    if (has_job) {
      for (std::size_t i = 0; i < from_job->size(); ++i) merged.Set(from_job->KeyAt(i), from_job->items()[i], from_job->KeyOriginAt(i));
    }
    out.Set(field, std::move(merged));
  }
  return out;
}

}  // namespace

Info NewRuntimeInfo(const TrainJob& job, const Runtime& runtime) {
  Info info;
  const MLPolicy* ml = runtime.spec.ml_policy ? &*runtime.spec.ml_policy : nullptr;
  info.labels = Propagate(runtime.spec.template_.labels, job, true);
  info.annotations = Propagate(runtime.spec.template_.annotations, job, false);
  info.runtime_policy.ml_policy = ml;
  info.runtime_policy.pod_group_policy = runtime.spec.pod_group_policy ? &*runtime.spec.pod_group_policy : nullptr;

  for (std::size_t i = 0; i < job.spec.runtime_patches.size(); ++i) {
    const auto& patch = job.spec.runtime_patches[i];
    if (patch.template_ && patch.template_->replicated_jobs) {
      std::string field = fmt::format("spec.runtimePatches[{}].trainingRuntimeSpec.template.spec", i);
      throw Error(Diagnostic{job.positions.Find(field), "", field,
                             "runtime patches of the JobSet template are not supported by this version of trainer yet"});
    }
  }

  info.template_spec.obj_apply = runtime.spec.template_.spec;
  Tree& spec = info.template_spec.obj_apply;
  Tree* rjobs = spec.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return info;

  const auto& trainer = job.spec.trainer;
  for (Tree& rjob : rjobs->items()) {
    Tree& job_template = rjob.Child("template");
    Tree& job_spec = job_template.Child("spec");
    Tree& pod_spec = job_spec.Child("template").Child("spec");
    std::int32_t count = 1;
    Origin count_origin;
    if (const Tree* parallelism = job_spec.Find("parallelism"); parallelism && parallelism->IsInt()) {
      count = static_cast<std::int32_t>(parallelism->AsInt());
      count_origin = parallelism->origin();
    }
    std::optional<std::string> ancestor;
    const Tree* meta = job_template.Find("metadata");
    const Tree* labels = meta ? meta->Find("labels") : nullptr;
    if (const std::string* a = labels && labels->IsMap() ? labels->FindString(kLabelTrainJobAncestor) : nullptr) {
      ancestor = *a;
      if (*a == kAncestorTrainer && ml) {
        count = ml->num_nodes.value_or(1);
        count_origin = ml->num_nodes ? runtime.positions.Find("spec.mlPolicy.numNodes") : kByPipeline;
      }
    }
    const std::string* name = rjob.FindString("name");
    if (trainer && trainer->resources_per_node) {
      bool trainer_ancestor = ancestor && *ancestor == kAncestorTrainer && ml;
      bool launcher_as_node = ml && ml->mpi && ml->mpi->run_launcher_as_node.value_or(false) && name && *name == kNode;
      Tree* containers = pod_spec.Find("containers");
      if ((trainer_ancestor || launcher_as_node) && containers && containers->IsList()) {
        for (Tree& c : containers->items()) {
          const std::string* cname = c.FindString("name");
          if (!cname || *cname != kNode) continue;
          c.Set("resources", MergedResources(c.Find("resources"), *trainer->resources_per_node));
          break;
        }
      }
    }
    PodSet ps;
    ps.name = name ? *name : std::string();
    ps.ancestor = ancestor;
    ps.count = std::max(count, 1);
    ps.count_origin = count_origin;
    if (const Tree* volumes = pod_spec.Find("volumes"); volumes && volumes->IsList()) ps.volumes = volumes->items();
    for (const char* list : {"initContainers", "containers"}) {
      const Tree* items = pod_spec.Find(list);
      if (items == nullptr || !items->IsList()) continue;
      auto& into = std::string_view(list) == "containers" ? ps.containers : ps.init_containers;
      for (const Tree& c : items->items()) into.push_back(ToContainer(c));
    }
    ps.single_pod_requests = PodRequests(pod_spec);
    info.template_spec.pod_sets.push_back(std::move(ps));
  }
  return info;
}

std::vector<Tree> RenderTrainJob(const TrainJob& job, const Runtime& runtime, Framework& framework) {
  std::string subject = fmt::format("{} {}/{}", kTrainJobKind, job.metadata.namespace_, job.metadata.name);
  try {
    CheckPluginsAvailable(job, runtime, framework);
    Info info = NewRuntimeInfo(job, runtime);
    Diagnostics admission;
    framework.RunCustomValidationPlugins(&info, nullptr, job, admission);
    admission.Checkpoint();
    // Plugins may change the TrainJob's trainer command and args, as upstream's do; they get a
    // working copy so that the caller's TrainJob renders the same every time.
    TrainJob working = job;
    framework.RunEnforceMLPolicyPlugins(info, working);
    framework.RunEnforcePodGroupPolicyPlugins(info, working);
    framework.RunEnforcePodSpecPlugins(info, working);
    framework.RunPreComponentBuilderPlugins(info, working);
    std::vector<Tree> objects = framework.RunComponentBuilderPlugins(info, working);
    std::stable_partition(objects.begin(), objects.end(), [](const Tree& o) {
      const std::string* kind = o.FindString("kind");
      return kind && *kind == "JobSet";
    });
    return objects;
  } catch (const Error& e) {
    std::vector<Diagnostic> diagnostics = e.diagnostics();
    for (Diagnostic& d : diagnostics) {
      if (d.subject.empty()) d.subject = subject;
      if (!d.HasLocation()) d.where = d.field.empty() ? job.origin : job.positions.Find(d.field);
      if (!d.HasLocation()) d.where = job.origin;
    }
    throw Error(std::move(diagnostics));
  }
}

}  // namespace trainer
