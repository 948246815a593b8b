#include "core/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "api/decode.h"
#include "k8s/apply.h"
#include "k8s/strategic_merge.h"
#include "k8s/typed_roundtrip.h"
#include "k8s/value_key.h"

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

// --- Runtime patches: each patch's template.spec as json.Marshal prints upstream's typed
// JobSetSpecPatch (omitempty fields gone, pointers kept even when they point at a zero value),
// so a patch adds and overwrites but never clears. Values take their TrainJob positions.

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
// Each step costs the size of the Jobs it names, so many patches on one Job cost quadratic time;
// MergePatchesAtOnce gives the same result in linear time when it can.
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
      throw Error(Diagnostic{job.positions.Find(field), "", field, fmt::format("cannot merge the runtime patch: {}", e.what())});
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
        errors.push_back(Diagnostic{issue.origin, "", issue.path, fmt::format("the patched JobSet spec does not decode: {}", issue.message)});
      }
      throw Error(std::move(errors));
    }
    merged = true;
  }
  return merged;
}

// --- All runtime patches at once, in time linear in the patches plus the spec.
//
// It replays the loop above step by step, on a copy of the spec whose merge lists are linked lists
// indexed by merge key, so that a step costs the size of its patch rather than of the Jobs it
// names. Each step is StrategicMerge's own (maps merged key by key, a scalar equal to the current
// one keeping the current origin, a scalar or a list without merge strategy replaced, the patch
// item's key order, mergeSortedSlice's order), and what the round trip would do after the step is
// done with the step:
//  * the round trip is local: what it does to a value depends on the value and its Go field only,
//    so a value a patch adds whole ends up as that value round-tripped on its own, and a map or a
//    list item merged into one already in decoded form keeps every field it has;
//  * so each patch's Jobs are round-tripped on their own first, and the fast path declines unless
//    that finds no issue and leaves every key, item and scalar of the patch as it is (no quantity,
//    number or time re-encoded, no empty list or map dropped, no null, no "$" directive) but for
//    scalars it drops (zero values of omitempty fields, which the step sets and its round trip
//    drops again: removed): then comparing with the patch's values is comparing with the
//    round-tripped ones, no step's round trip reports anything, and a value added whole is taken
//    round-tripped (with the fields the round trip adds, where the step's round trip adds them);
//  * the Jobs the patches name start in decoded form: the fast path declines unless the round trip
//    leaves each of them identical (origins included), and unless each round-tripped patch Job
//    round-trips to itself;
//  * StrategicMerge can only fail on an item without its merge key: the fast path declines before
//    any such merge, and also on what it does not replay: a merge key that is not a scalar, a key
//    twice in one list (within one step the items would meet before their round trip), and a map
//    or list meeting another type.
// Declining leaves the spec untouched, and the loop above then gives the result, or the error, as
// upstream does.

bool SameOrigin(const Origin& a, const Origin& b) {
  return a.kind == b.kind && a.line == b.line && a.column == b.column && a.file == b.file && a.by == b.by;
}

// The same tree: values, types, key order, origins of values and of keys.
bool Identical(const Tree& a, const Tree& b) {
  if (a.type() != b.type() || !SameOrigin(a.origin(), b.origin())) return false;
  if (a.IsScalar()) return a == b;
  if (a.items().size() != b.items().size()) return false;
  for (std::size_t i = 0; i < a.items().size(); ++i) {
    if (a.IsMap() && (a.KeyAt(i) != b.KeyAt(i) || !SameOrigin(a.KeyOriginAt(i), b.KeyOriginAt(i)))) return false;
    if (!Identical(a.items()[i], b.items()[i])) return false;
  }
  return true;
}

// Whether every key, item and scalar of `patch` is in `decoded` as it is, origins included, but for
// scalar map values the round trip drops; `decoded` may hold more map keys (the fields the round
// trip adds). Nulls and "$" keys fail.
bool Survives(const Tree& patch, const Tree& decoded) {
  if (patch.IsNull() || patch.type() != decoded.type() || !SameOrigin(patch.origin(), decoded.origin())) return false;
  if (patch.IsScalar()) return patch == decoded;
  if (patch.IsList()) {
    if (patch.items().size() != decoded.items().size()) return false;
    for (std::size_t i = 0; i < patch.items().size(); ++i) {
      if (!Survives(patch.items()[i], decoded.items()[i])) return false;
    }
    return true;
  }
  for (std::size_t i = 0; i < patch.size(); ++i) {
    const std::string& key = patch.KeyAt(i);
    if (key.starts_with('$')) return false;
    const Tree* d = decoded.Find(key);
    if (d == nullptr) {
      // A scalar the round trip drops (a zero value of an omitempty field): the step sets it, then
      // drops it. A list or map gone, which could be one merged into a longer one, is not replayed.
      if (!patch.items()[i].IsScalar() || patch.items()[i].IsNull()) return false;
      continue;
    }
    if (!Survives(patch.items()[i], *d)) return false;
  }
  return true;
}

// The merge key's value of a merge list item (the item itself in a list of scalars), as a ValueKey;
// none when the item has no scalar one.
std::optional<std::string> MergeKeyOf(const Tree& item, const MergeList& rule) {
  const Tree* key = rule.merge_key.empty() ? &item : (item.IsMap() ? item.Find(rule.merge_key) : nullptr);
  if (key == nullptr || !key->IsScalar() || key->IsNull()) return std::nullopt;
  if (rule.merge_key.empty() == item.IsMap()) return std::nullopt;  // a map in a list of scalars
  return ValueKey(*key);
}

class AtOnceMerger {
 public:
  explicit AtOnceMerger(Tree& root) : root_(root) {}

  // One patch step on the working spec; false when the fast path does not replay it.
  bool Step(const Tree& patch, const Tree& decoded) { return Map(root_, patch, decoded, "", &root_, {}); }

  // Writes the linked lists back into their trees, the innermost first.
  void Finish() {
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
      ListState& s = **it;
      Tree* list = s.anchor;
      for (const std::string& key : s.keys) list = list->Find(key);
      list->items().clear();
      list->items().reserve(s.items.size());
      for (Node& node : s.items) list->items().push_back(std::move(node.tree));
    }
    created_.clear();
    states_.clear();
  }

 private:
  // A merge list being merged into: its items, in order, indexed by merge key, each with a label
  // that grows along the list, so that two items' positions compare in constant time. The list's
  // tree is left empty until Finish. A list is known by the map holding it at a stable address
  // (the spec, or an item of another such list) and the keys from there, since trees move as maps
  // grow.
  struct Node {
    Tree tree;
    std::uint64_t label = 0;
  };
  using Items = std::list<Node>;
  struct ListState {
    Tree* anchor = nullptr;
    std::vector<std::string> keys;
    Items items;
    std::unordered_map<std::string, Items::iterator> at;
  };

  // Gives `it` a label between its neighbours'; when they leave no room, spreads the labels of a
  // window around it, doubling the window until it has room for gaps wider than its length.
  static void Label(Items& items, Items::iterator it) {
    const auto below = [&](Items::iterator first) { return first == items.begin() ? std::uint64_t{0} : std::prev(first)->label; };
    const auto above = [&](Items::iterator last) {
      return std::next(last) == items.end() ? std::numeric_limits<std::uint64_t>::max() : std::next(last)->label;
    };
    Items::iterator first = it;
    Items::iterator last = it;
    std::uint64_t n = 1;
    if (above(last) - below(first) >= 2) {
      it->label = below(first) + (above(last) - below(first)) / 2;
      return;
    }
    for (std::uint64_t step = 1;; step *= 2) {
      for (std::uint64_t k = 0; k < step && first != items.begin(); ++k, ++n) --first;
      for (std::uint64_t k = 0; k < step && std::next(last) != items.end(); ++k, ++n) ++last;
      const bool whole = first == items.begin() && std::next(last) == items.end();
      if (whole || (above(last) - below(first)) / (n + 1) > n) break;
    }
    const std::uint64_t low = below(first);
    const std::uint64_t gap = (above(last) - low) / (n + 1);
    std::uint64_t label = low;
    for (Items::iterator i = first;; ++i) {
      label += gap;
      i->label = label;
      if (i == last) break;
    }
  }

  static const MergeList* Rule(std::string_view schema_path) {
    for (const MergeList& row : JobSetSpecMergeLists()) {
      if (row.path == schema_path) return &row;
    }
    return nullptr;
  }

  bool Map(Tree& current, const Tree& patch, const Tree& decoded, const std::string& schema, Tree* anchor,
           const std::vector<std::string>& keys) {
    for (std::size_t i = 0; i < patch.size(); ++i) {
      const std::string& key = patch.KeyAt(i);
      const Tree& value = patch.items()[i];
      const Tree* decoded_value = decoded.Find(key);
      if (value.IsNull()) return false;
      Tree* now = current.Find(key);
      if (decoded_value == nullptr) {
        // Set, then dropped by the round trip; a spec in decoded form never holds such a value.
        if (!value.IsScalar() || (now != nullptr && now->IsScalar() && *now == value)) return false;
        if (now != nullptr && !now->IsScalar()) return false;
        current.Erase(key);
        continue;
      }
      if (now != nullptr && now->IsScalar() && value.IsScalar() && *now == value) continue;  // keeps its origin
      if (now == nullptr || now->IsScalar()) {
        current.Set(key, *decoded_value, patch.KeyOriginAt(i));
        continue;
      }
      if (now->type() != value.type()) return false;
      const std::string child_schema = schema.empty() ? key : fmt::format("{}.{}", schema, key);
      std::vector<std::string> child_keys = keys;
      child_keys.push_back(key);
      if (now->IsMap()) {
        if (!Map(*now, value, *decoded_value, child_schema, anchor, child_keys)) return false;
      } else if (const MergeList* rule = Rule(child_schema)) {
        if (!Slice(*now, value, *decoded_value, *rule, child_schema, anchor, std::move(child_keys))) return false;
      } else {
        *now = *decoded_value;  // no merge strategy: the patch list replaces the list
      }
    }
    return true;
  }

  ListState* State(Tree& list, const MergeList& rule, Tree* anchor, std::vector<std::string> keys) {
    std::string id = fmt::format("{}", static_cast<const void*>(anchor));
    for (const std::string& key : keys) id += fmt::format(".{}:{}", key.size(), key);
    if (auto it = states_.find(id); it != states_.end()) return it->second.get();
    auto state = std::make_unique<ListState>();
    std::vector<std::string> item_keys;
    item_keys.reserve(list.items().size());
    for (const Tree& item : list.items()) {
      std::optional<std::string> key = MergeKeyOf(item, rule);
      if (!key) return nullptr;
      item_keys.push_back(std::move(*key));
    }
    state->anchor = anchor;
    state->keys = std::move(keys);
    const std::uint64_t gap = std::numeric_limits<std::uint64_t>::max() / (item_keys.size() + 1);
    for (std::size_t i = 0; i < item_keys.size(); ++i) {
      auto at = state->items.insert(state->items.end(), Node{std::move(list.items()[i]), gap * (i + 1)});
      if (!state->at.emplace(std::move(item_keys[i]), at).second) return nullptr;  // a key twice
    }
    list.items().clear();
    created_.push_back(state.get());
    return states_.emplace(std::move(id), std::move(state)).first->second.get();
  }

  // mergeSortedSlice: the patch items in patch order, the other items in list order, and an item
  // of the list before a patch item when some patch item up to that one stood after it in the list.
  // So the new items before the first patch item the list holds go first; a held item standing
  // after every held one before it in the patch stays where it is, and the items after it in the
  // patch, up to the next such one, follow it (held ones moved there).
  bool Slice(Tree& list, const Tree& patch, const Tree& decoded, const MergeList& rule, const std::string& schema,
             Tree* anchor, std::vector<std::string> keys) {
    if (patch.items().empty() || decoded.items().size() != patch.items().size()) return false;
    ListState* state = State(list, rule, anchor, std::move(keys));
    if (state == nullptr) return false;
    std::vector<std::string> patch_keys;
    std::vector<std::optional<Items::iterator>> held;
    std::unordered_set<std::string> seen;
    for (std::size_t p = 0; p < patch.items().size(); ++p) {
      std::optional<std::string> key = MergeKeyOf(patch.items()[p], rule);
      if (!key || !seen.insert(*key).second) return false;
      auto found = state->at.find(*key);
      held.push_back(found == state->at.end() ? std::nullopt : std::optional<Items::iterator>(found->second));
      patch_keys.push_back(std::move(*key));
    }
    Items& items = state->items;
    Items::iterator insert_at = items.begin();  // new and moved items go before this one
    std::optional<Items::iterator> stays;       // the last held item that stays
    for (std::size_t p = 0; p < patch.items().size(); ++p) {
      if (held[p] && (!stays || (*held[p])->label > (*stays)->label)) {
        stays = held[p];
        insert_at = std::next(*held[p]);
      } else if (held[p]) {
        items.splice(insert_at, items, *held[p]);
        Label(items, *held[p]);
      } else {
        Items::iterator added = items.insert(insert_at, Node{decoded.items()[p], 0});
        Label(items, added);
        state->at.emplace(patch_keys[p], added);
      }
    }
    if (rule.merge_key.empty()) return true;  // the scalars the list holds stay as they are
    for (std::size_t p = 0; p < patch.items().size(); ++p) {
      // The patch item has the list item's key, so merging keeps that key.
      if (!held[p]) continue;
      Tree& item = (*held[p])->tree;
      if (!Map(item, patch.items()[p], decoded.items()[p], schema + "[]", &item, {})) return false;
    }
    return true;
  }

  Tree& root_;
  std::unordered_map<std::string, std::unique_ptr<ListState>> states_;
  std::vector<ListState*> created_;
};

// The loop above, in time linear in the patches plus the spec; nullopt, with `spec` untouched,
// when it cannot be sure to give the same result (see above).
std::optional<bool> MergePatchesAtOnce(const TrainJob& job, Tree& spec) {
  PatchBuilder builder(job.positions);
  std::vector<std::pair<Tree, Tree>> steps;  // each patch, and its Jobs round-tripped on their own
  std::unordered_set<std::string> named;
  for (std::size_t i = 0; i < job.spec.runtime_patches.size(); ++i) {
    const RuntimePatch& patch = job.spec.runtime_patches[i];
    if (!patch.template_ || !patch.template_->replicated_jobs) continue;
    std::string at = fmt::format("spec.runtimePatches[{}].trainingRuntimeSpec.template.spec", i);
    Tree raw = builder.Spec(*patch.template_->replicated_jobs, at);
    Tree decoded = raw;
    if (Tree* rjobs = decoded.Find("replicatedJobs")) {
      for (Tree& rjob : rjobs->items()) {
        std::vector<FieldIssue> issues;
        RoundTrip(rjob, "ReplicatedJob", "", issues);
        if (!issues.empty()) return std::nullopt;
        Tree again = rjob;
        RoundTrip(again, "ReplicatedJob", "", issues);
        if (!issues.empty() || !Identical(again, rjob)) return std::nullopt;
        const std::string* name = rjob.FindString("name");
        if (name == nullptr) return std::nullopt;
        named.insert(*name);
      }
    }
    if (!Survives(raw, decoded)) return std::nullopt;
    steps.emplace_back(std::move(raw), std::move(decoded));
  }
  if (steps.empty()) return false;
  const Tree* rjobs = spec.IsMap() ? spec.Find("replicatedJobs") : nullptr;
  if (rjobs == nullptr || !rjobs->IsList()) return std::nullopt;
  for (const Tree& rjob : rjobs->items()) {
    // A Job without a name would be round-tripped at every step; every one named is once.
    const std::string* name = rjob.FindString("name");
    if (name == nullptr) return std::nullopt;
    if (!named.contains(*name)) continue;
    Tree again = rjob;
    std::vector<FieldIssue> issues;
    RoundTrip(again, "ReplicatedJob", "", issues);
    if (!issues.empty() || !Identical(again, rjob)) return std::nullopt;
  }
  Tree working = spec;
  AtOnceMerger merger(working);
  for (const auto& [raw, decoded] : steps) {
    if (!merger.Step(raw, decoded)) return std::nullopt;
  }
  merger.Finish();
  spec = std::move(working);
  return true;
}

}  // namespace

std::optional<bool> MergeRuntimePatches(const TrainJob& job, Tree& spec, PatchMerge how) {
  std::vector<std::string> order;
  if (const Tree* rjobs = spec.Find("replicatedJobs"); rjobs && rjobs->IsList()) {
    for (const Tree& rjob : rjobs->items()) {
      const std::string* name = rjob.FindString("name");
      order.push_back(name ? *name : std::string());
    }
  }
  // One patch costs the same step by step, and the at-once path's checks cost more than that.
  const auto patches = std::count_if(job.spec.runtime_patches.begin(), job.spec.runtime_patches.end(),
                                     [](const RuntimePatch& p) { return p.template_ && p.template_->replicated_jobs; });
  std::optional<bool> merged;
  if (how == PatchMerge::kAtOnceOnly || (how == PatchMerge::kAuto && patches > 1)) merged = MergePatchesAtOnce(job, spec);
  if (!merged && how == PatchMerge::kAtOnceOnly) return std::nullopt;
  if (!merged) merged = MergePatchesInTurn(job, spec);
  if (*merged) RestoreJobOrder(order, spec);
  return merged;
}

namespace {

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
  const bool patched = *MergeRuntimePatches(job, spec, PatchMerge::kAuto);
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
