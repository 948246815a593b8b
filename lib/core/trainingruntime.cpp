#include "core/trainingruntime.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "k8s/strategic_merge.h"
#include "k8s/typed_roundtrip.h"
#include "util/error.h"

namespace trainer {

namespace {

// Each patch's template.spec as json.Marshal prints upstream's typed JobSetSpecPatch (omitempty
// fields gone, pointers kept even when they point at a zero value), so a patch adds and overwrites
// but never clears. Values take their TrainJob positions.
class PatchBuilder {
 public:
  explicit PatchBuilder(const FieldPositions& positions) : positions_(positions) {}

  Tree Spec(const std::vector<ReplicatedJobPatch>& jobs, const std::string& at) const {
    Tree spec = Tree::Map(Where(at));
    if (jobs.empty()) return spec;
    Tree& list = spec.Set("replicatedJobs", Tree::List(Where(at + ".replicatedJobs")));
    for (std::size_t j = 0; j < jobs.size(); ++j) list.Append(Job(jobs[j], fmt::format("{}.replicatedJobs[{}]", at, j)));
    return spec;
  }

 private:
  Origin Where(const std::string& path) const { return positions_.Find(path); }
  void SetString(Tree& map, const char* key, const std::string& value, const std::string& path) const {
    map.Set(key, Tree::String(value, Where(path)), Where(path));
  }
  void SetIfNotEmpty(Tree& map, const char* key, const std::string& value, const std::string& at) const {
    if (!value.empty()) SetString(map, key, value, fmt::format("{}.{}", at, key));
  }
  void SetList(Tree& map, const char* key, const std::vector<Tree>& items, const std::string& at) const {
    if (items.empty()) return;
    Tree list = Tree::List(Where(fmt::format("{}.{}", at, key)));
    for (const Tree& item : items) list.Append(item);
    map.Set(key, std::move(list));
  }
  void SetMap(Tree& map, const char* key, const std::optional<StringMap>& entries, const std::string& at) const {
    if (!entries || entries->empty()) return;
    std::string path = fmt::format("{}.{}", at, key);
    Tree out = Tree::Map(Where(path));
    for (const auto& [k, v] : *entries) SetString(out, k.c_str(), v, fmt::format("{}[{}]", path, k));
    map.Set(key, std::move(out));
  }

  Tree Meta(const ObjectMeta& meta, const std::string& at) const {
    Tree out = Tree::Map(Where(at));
    SetIfNotEmpty(out, "name", meta.name, at);
    SetIfNotEmpty(out, "namespace", meta.namespace_, at);
    SetMap(out, "labels", meta.labels, at);
    SetMap(out, "annotations", meta.annotations, at);
    if (!meta.finalizers.empty()) {
      Tree list = Tree::List(Where(at + ".finalizers"));
      for (std::size_t i = 0; i < meta.finalizers.size(); ++i) {
        list.Append(Tree::String(meta.finalizers[i], Where(fmt::format("{}.finalizers[{}]", at, i))));
      }
      out.Set("finalizers", std::move(list));
    }
    return out;
  }

  Tree ContainerPatchTree(const ContainerPatch& c, const std::string& at) const {
    Tree out = Tree::Map(Where(at));
    SetIfNotEmpty(out, "name", c.name, at);
    SetList(out, "env", c.env, at);
    SetList(out, "volumeMounts", c.volume_mounts, at);
    if (c.security_context) out.Set("securityContext", *c.security_context);
    return out;
  }

  void SetContainers(Tree& map, const char* key, const std::vector<ContainerPatch>& containers, const std::string& at) const {
    if (containers.empty()) return;
    std::string path = fmt::format("{}.{}", at, key);
    Tree list = Tree::List(Where(path));
    for (std::size_t i = 0; i < containers.size(); ++i) list.Append(ContainerPatchTree(containers[i], fmt::format("{}[{}]", path, i)));
    map.Set(key, std::move(list));
  }

  Tree PodSpec(const PodSpecPatch& p, const std::string& at) const {
    Tree out = Tree::Map(Where(at));
    if (p.service_account_name) SetString(out, "serviceAccountName", *p.service_account_name, at + ".serviceAccountName");
    SetList(out, "volumes", p.volumes, at);
    SetContainers(out, "initContainers", p.init_containers, at);
    SetContainers(out, "containers", p.containers, at);
    if (!p.image_pull_secrets.empty()) {
      Tree list = Tree::List(Where(at + ".imagePullSecrets"));
      for (std::size_t i = 0; i < p.image_pull_secrets.size(); ++i) {
        std::string item = fmt::format("{}.imagePullSecrets[{}]", at, i);
        Tree secret = Tree::Map(Where(item));
        SetIfNotEmpty(secret, "name", p.image_pull_secrets[i].name, item);  // LocalObjectReference: omitempty
        list.Append(std::move(secret));
      }
      out.Set("imagePullSecrets", std::move(list));
    }
    if (p.security_context) out.Set("securityContext", *p.security_context);
    SetMap(out, "nodeSelector", p.node_selector, at);
    if (p.affinity) out.Set("affinity", *p.affinity);
    SetList(out, "tolerations", p.tolerations, at);
    if (!p.scheduling_gates.empty()) {
      Tree list = Tree::List(Where(at + ".schedulingGates"));
      for (std::size_t i = 0; i < p.scheduling_gates.size(); ++i) {
        std::string item = fmt::format("{}.schedulingGates[{}]", at, i);
        Tree gate = Tree::Map(Where(item));
        SetString(gate, "name", p.scheduling_gates[i], item + ".name");  // PodSchedulingGate: always printed
        list.Append(std::move(gate));
      }
      out.Set("schedulingGates", std::move(list));
    }
    if (p.termination_grace_period_seconds) {
      Origin o = Where(at + ".terminationGracePeriodSeconds");
      out.Set("terminationGracePeriodSeconds", Tree::Int(*p.termination_grace_period_seconds, o), o);
    }
    return out;
  }

  Tree Job(const ReplicatedJobPatch& job, const std::string& at) const {
    Tree out = Tree::Map(Where(at));
    SetIfNotEmpty(out, "name", job.name, at);
    if (!job.job_metadata && !job.pod_template) return out;
    std::string tmpl = at + ".template";
    Tree& job_template = out.Set("template", Tree::Map(Where(tmpl)));
    if (job.job_metadata) job_template.Set("metadata", Meta(*job.job_metadata, tmpl + ".metadata"));
    if (!job.pod_template) return out;
    std::string pod = tmpl + ".spec.template";
    Tree& pod_template = job_template.Set("spec", Tree::Map(Where(tmpl + ".spec"))).Set("template", Tree::Map(Where(pod)));
    if (job.pod_template->metadata) pod_template.Set("metadata", Meta(*job.pod_template->metadata, pod + ".metadata"));
    if (job.pod_template->spec) pod_template.Set("spec", PodSpec(*job.pod_template->spec, pod + ".spec"));
    return out;
  }

  const FieldPositions& positions_;
};

// The runtime's replicatedJobs order restored after the patches (a job the runtime lacks sorts as
// if it were the first), as mergeRuntimePatches does.
void RestoreJobOrder(const std::vector<std::string>& order, Tree& spec) {
  Tree* rjobs = spec.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return;
  auto rank = [&](const Tree& rjob) {
    const std::string* name = rjob.FindString("name");
    auto it = name ? std::find(order.begin(), order.end(), *name) : order.end();
    return it == order.end() ? std::size_t{0} : static_cast<std::size_t>(it - order.begin());
  };
  std::stable_sort(rjobs->items().begin(), rjobs->items().end(),
                   [&](const Tree& a, const Tree& b) { return rank(a) < rank(b); });
}

// mergeRuntimePatches as upstream runs it: every patch with a template.spec merged into the JobSet
// spec in turn, each result decoded back into the typed spec. Returns whether any patch was merged.
// Each step costs the size of the Jobs its patch names; the loader admits no more than
// kMaxRuntimePatches patches (api/schema.h).
bool MergePatchesInTurn(const TrainJob& job, Tree& spec) {
  PatchBuilder builder(job.positions);
  bool merged = false;
  for (std::size_t i = 0; i < job.spec.runtime_patches.size(); ++i) {
    const RuntimePatch& patch = job.spec.runtime_patches[i];
    if (!patch.template_ || !patch.template_->replicated_jobs) continue;
    std::string at = fmt::format("spec.runtimePatches[{}].trainingRuntimeSpec.template.spec", i);
    try {
      StrategicMerge(spec, builder.Spec(*patch.template_->replicated_jobs, at), JobSetSpecMergeLists());
    } catch (const StrategicMergeError& e) {
      std::string field = fmt::format("{}.{}", at, e.path());
      throw Error(Diagnostic{.where = job.positions.Find(field),
                             .field = field,
                             .message = fmt::format("cannot merge the runtime patch: {}", e.what())});
    }
    // The typed re-decode of the whole spec: the jobs this patch did not name are already in
    // decoded form (the runtime's spec is, and so is every earlier result), so only the named ones
    // need it.
    std::vector<FieldIssue> issues;
    if (Tree* merged_jobs = spec.Find("replicatedJobs"); merged_jobs && merged_jobs->IsList()) {
      for (std::size_t j = 0; j < merged_jobs->items().size(); ++j) {
        Tree& rjob = merged_jobs->items()[j];
        const std::string* name = rjob.FindString("name");
        bool named = std::any_of(patch.template_->replicated_jobs->begin(), patch.template_->replicated_jobs->end(),
                                 [&](const ReplicatedJobPatch& p) { return name && p.name == *name; });
        if (named || name == nullptr) RoundTrip(rjob, "ReplicatedJob", fmt::format("{}.replicatedJobs[{}]", at, j), issues);
      }
    }
    if (!issues.empty()) {
      std::vector<Diagnostic> errors;
      for (const FieldIssue& issue : issues) {
        errors.push_back(
            Diagnostic{.where = issue.origin,
                       .field = issue.path,
                       .message = fmt::format("the patched JobSet spec does not decode: {}", issue.message)});
      }
      throw Error(std::move(errors));
    }
    merged = true;
  }
  return merged;
}

}  // namespace

bool MergeRuntimePatches(const TrainJob& job, Tree& spec) {
  std::vector<std::string> order;
  if (const Tree* rjobs = spec.Find("replicatedJobs"); rjobs && rjobs->IsList()) {
    for (const Tree& rjob : rjobs->items()) {
      const std::string* name = rjob.FindString("name");
      order.push_back(name ? *name : std::string());
    }
  }
  const bool merged = MergePatchesInTurn(job, spec);
  if (merged) RestoreJobOrder(order, spec);
  return merged;
}

}  // namespace trainer
