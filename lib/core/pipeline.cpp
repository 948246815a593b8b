#include "core/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "api/decode.h"
#include "core/trainingruntime.h"
#include "k8s/typed_roundtrip.h"

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
        .where = job.positions.Find("spec.runtimeRef"),
        .field = "spec.runtimeRef",
        .message = fmt::format("{} {} uses {}{}, but the {} plugin is not available in this version of trainer yet",
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

// The parts of a pod spec that upstream's PodRequests reads, with the runtime's quantities as
// written: when no runtime patch re-encoded the template, their Go format and cached text decide
// the format of the PodGroup sums, not the canonical text the JobSet prints.
Tree RequestsAsWritten(const Tree& written) {
  Tree out = Tree::Map();
  if (!written.IsMap()) return out;
  auto quantities = [](const Tree& from) {
    Tree to = Tree::Map();
    if (!from.IsMap()) return to;
    for (std::size_t i = 0; i < from.size(); ++i) {
      if (std::optional<std::string> text = QuantityText(from.items()[i])) to.Set(from.KeyAt(i), Tree::String(std::move(*text)));
    }
    return to;
  };
  auto requests_of = [&](const Tree& holder, Tree& into) {
    const Tree* resources = holder.Find("resources");
    const Tree* requests = resources && resources->IsMap() ? resources->Find("requests") : nullptr;
    if (requests) into.Child("resources").Set("requests", quantities(*requests));
  };
  for (const char* list : {"initContainers", "containers"}) {
    const Tree* items = written.Find(list);
    if (items == nullptr || !items->IsList()) continue;
    Tree& copies = out.Set(list, Tree::List());
    for (const Tree& c : items->items()) {
      Tree& copy = copies.Append(Tree::Map());
      if (!c.IsMap()) continue;
      if (const Tree* name = c.Find("name")) copy.Set("name", *name);
      if (const Tree* restart = c.Find("restartPolicy")) copy.Set("restartPolicy", *restart);
      requests_of(c, copy);
    }
  }
  requests_of(written, out);
  if (const Tree* overhead = written.Find("overhead")) out.Set("overhead", quantities(*overhead));
  return out;
}

// Gives the `node` container of `pod_spec` the resources of `merged`, the same container after
// MergeResourceRequirements.
void SetNodeResources(Tree& pod_spec, const Tree& merged) {
  Tree* containers = pod_spec.IsMap() ? pod_spec.Find("containers") : nullptr;
  if (containers == nullptr || !containers->IsList()) return;
  for (Tree& c : containers->items()) {
    const std::string* name = c.FindString("name");
    if (name && *name == kNode && c.IsMap()) {
      if (const Tree* resources = merged.Find("resources")) c.Set("resources", *resources);
      return;
    }
  }
}

const Tree* WrittenPodSpec(const Runtime& runtime, std::size_t rjob_index) {
  const Tree* t = &runtime.source;
  for (const char* key : {"spec", "template", "spec", "replicatedJobs"}) {
    t = t->IsMap() ? t->Find(key) : nullptr;
    if (t == nullptr) return nullptr;
  }
  if (!t->IsList() || rjob_index >= t->items().size()) return nullptr;
  t = &t->items()[rjob_index];
  for (const char* key : {"template", "spec", "template", "spec"}) {
    t = t->IsMap() ? t->Find(key) : nullptr;
    if (t == nullptr) return nullptr;
  }
  return t;
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

  info.template_spec.obj_apply = runtime.spec.template_.spec;
  Tree& spec = info.template_spec.obj_apply;
  const bool patched = MergeRuntimePatches(job, spec);
  Tree* rjobs = spec.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return info;

  const auto& trainer = job.spec.trainer;
  for (std::size_t index = 0; index < rjobs->items().size(); ++index) {
    Tree& rjob = rjobs->items()[index];
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
    // Upstream computes the pod requests on its typed spec: the runtime as written, or as re-decoded
    // after runtime patches; the node container takes the merged resources either way.
    const Tree* written = patched ? nullptr : WrittenPodSpec(runtime, index);
    Tree requests_spec = written ? RequestsAsWritten(*written) : Tree();
    if (trainer && trainer->resources_per_node) {
      bool trainer_ancestor = ancestor && *ancestor == kAncestorTrainer && ml;
      bool launcher_as_node = ml && ml->mpi && ml->mpi->run_launcher_as_node.value_or(false) && name && *name == kNode;
      Tree* containers = pod_spec.Find("containers");
      if ((trainer_ancestor || launcher_as_node) && containers && containers->IsList()) {
        for (Tree& c : containers->items()) {
          const std::string* cname = c.FindString("name");
          if (!cname || *cname != kNode) continue;
          c.Set("resources", MergedResources(c.Find("resources"), *trainer->resources_per_node));
          if (written) SetNodeResources(requests_spec, c);
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
    ps.single_pod_requests = PodRequests(written ? requests_spec : pod_spec);
    info.template_spec.pod_sets.push_back(std::move(ps));
  }
  return info;
}

std::vector<Tree> RenderTrainJob(const TrainJob& job, const Runtime& runtime, Framework& framework,
                                 std::optional<Info> judged) {
  try {
    CheckPluginsAvailable(job, runtime, framework);
    Info info = judged ? std::move(*judged) : NewRuntimeInfo(job, runtime);
    // Admission (the webhook, webhooks/trainjob.h) has judged the TrainJob before this point.
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
  } catch (const OutputLimitError&) {
    throw;  // located already, and it ends the render
  } catch (const Error& e) {
    std::vector<Diagnostic> diagnostics = e.diagnostics();
    const std::string subject = Subject(job);
    for (Diagnostic& d : diagnostics) {
      if (d.subject.empty()) d.subject = subject;
      if (!d.HasLocation()) d.where = d.field.empty() ? job.origin : job.positions.Find(d.field);
      if (!d.HasLocation()) d.where = job.origin;
    }
    throw Error(std::move(diagnostics));
  }
}

}  // namespace trainer
