#include "k8s/server_side_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <utility>

#include "util/error.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

using enum ApplyKind;

ApplyRule Atomic(std::string path) { return {std::move(path), kAtomicMap, {}}; }
ApplyRule Set(std::string path) { return {std::move(path), kSetList, {}}; }
ApplyRule Keyed(std::string path, std::vector<ListKey> keys) { return {std::move(path), kMapList, std::move(keys)}; }

// The rules below one item of containers, initContainers or ephemeralContainers (core/v1 Container
// and EphemeralContainer declare the same ones).
std::vector<ApplyRule> ContainerRules(const std::string& list) {
  const std::string item = list + "[].";
  std::vector<ApplyRule> rules = {Keyed(list, {{"name"}}), Keyed(item + "env", {{"name"}})};
  for (const char* ref : {"configMapKeyRef", "fieldRef", "fileKeyRef", "resourceFieldRef", "secretKeyRef"}) {
    rules.push_back(Atomic(item + "env[].valueFrom." + ref));
  }
  rules.push_back(Atomic(item + "envFrom[].configMapRef"));
  rules.push_back(Atomic(item + "envFrom[].secretRef"));
  rules.push_back(Keyed(item + "ports", {{"containerPort"}, {"protocol", "TCP"}}));
  rules.push_back(Keyed(item + "resources.claims", {{"name"}}));
  rules.push_back(Set(item + "restartPolicyRules[].exitCodes.values"));
  rules.push_back(Keyed(item + "volumeDevices", {{"devicePath"}}));
  rules.push_back(Keyed(item + "volumeMounts", {{"mountPath"}}));
  return rules;
}

std::vector<ApplyRule> BuildJobSetRules() {
  const std::string job = "spec.replicatedJobs[].template.spec.";
  const std::string pod = job + "template.spec.";
  std::vector<ApplyRule> rules = {
      Keyed("spec.replicatedJobs", {{"name"}}),
      Keyed("spec.replicatedJobs[].dependsOn", {{"name"}}),
      Set(job + "podFailurePolicy.rules[].onExitCodes.values"),
      Atomic(job + "selector"),
      Atomic(pod + "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference"),
      Atomic(pod + "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"),
      Atomic(pod + "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[]"),
  };
  for (const char* affinity : {"podAffinity", "podAntiAffinity"}) {
    const std::string terms = pod + "affinity." + affinity;
    for (const char* selector : {"labelSelector", "namespaceSelector"}) {
      rules.push_back(Atomic(terms + ".preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm." + selector));
      rules.push_back(Atomic(terms + ".requiredDuringSchedulingIgnoredDuringExecution[]." + selector));
    }
  }
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    for (ApplyRule& rule : ContainerRules(pod + list)) rules.push_back(std::move(rule));
  }
  rules.push_back(Keyed(pod + "hostAliases", {{"ip"}}));
  rules.push_back(Keyed(pod + "imagePullSecrets", {{"name", ""}}));
  rules.push_back(Atomic(pod + "imagePullSecrets[]"));
  rules.push_back(Atomic(pod + "nodeSelector"));
  rules.push_back(Keyed(pod + "resourceClaims", {{"name"}}));
  rules.push_back(Keyed(pod + "resources.claims", {{"name"}}));
  rules.push_back(Keyed(pod + "schedulingGates", {{"name"}}));
  rules.push_back(Keyed(pod + "topologySpreadConstraints", {{"topologyKey"}, {"whenUnsatisfiable"}}));
  rules.push_back(Atomic(pod + "topologySpreadConstraints[].labelSelector"));
  rules.push_back(Keyed(pod + "volumes", {{"name"}}));
  const std::string volume = pod + "volumes[].";
  for (const char* ref :
       {"cephfs.secretRef", "cinder.secretRef", "configMap", "csi.nodePublishSecretRef", "downwardAPI.items[].fieldRef",
        "downwardAPI.items[].resourceFieldRef", "ephemeral.volumeClaimTemplate.spec.dataSource",
        "ephemeral.volumeClaimTemplate.spec.selector", "flexVolume.secretRef", "iscsi.secretRef",
        "projected.sources[].clusterTrustBundle.labelSelector", "projected.sources[].configMap",
        "projected.sources[].downwardAPI.items[].fieldRef", "projected.sources[].downwardAPI.items[].resourceFieldRef",
        "projected.sources[].secret", "rbd.secretRef", "scaleIO.secretRef", "storageos.secretRef"}) {
    rules.push_back(Atomic(volume + ref));
  }
  rules.push_back(Atomic("spec.volumeClaimPolicies[].templates[].spec.dataSource"));
  rules.push_back(Atomic("spec.volumeClaimPolicies[].templates[].spec.selector"));
  rules.push_back(Keyed("spec.volumeClaimPolicies[].templates[].status.conditions", {{"type"}}));
  rules.push_back(Keyed("status.conditions", {{"type"}}));
  rules.push_back(Keyed("status.replicatedJobsStatus", {{"name"}}));
  // ObjectMeta (k8s.io/apimachinery meta/v1): the last kObjectMetaApplyRules rows.
  rules.push_back(Keyed("metadata.ownerReferences", {{"uid"}}));
  rules.push_back(Set("metadata.finalizers"));
  return rules;
}

// Merges as structured-merge-diff's mergingWalker does, with the live object as its left-hand side
// and the applied one as its right-hand side. Keeps the schema path ("[]" for items) and the field
// path (with indices, for messages) of the value at hand.
class Applier {
 public:
  explicit Applier(const ApplySchema& schema) : schema_(schema) {}

  Tree Value(const Tree* live, const Tree& applied) {
    static const Tree kAbsent;
    if (live == nullptr) live = &kAbsent;
    if (applied.IsScalar() && !applied.IsNull()) return applied;
    const ApplyRule* rule = off_schema_ ? nullptr : schema_.Find(schema_path_);
    // A null is a leaf, except that a granular map or list that holds something keeps it.
    if (applied.IsNull()) return Granular(*live, rule) && !live->items().empty() ? *live : applied;
    if (!Granular(applied, rule) || !(live->type() == applied.type() || live->IsNull())) return applied;
    // Both empty: a leaf, so that the applied side's empty-or-null stays.
    if (live->items().empty() && applied.items().empty()) return applied;
    return applied.IsMap() ? Maps(*live, applied) : Lists(*live, applied, *rule);
  }

 private:
  static bool Granular(const Tree& value, const ApplyRule* rule) {
    if (value.IsMap()) return rule == nullptr || rule->kind != kAtomicMap;
    return value.IsList() && rule != nullptr && rule->kind != kAtomicMap;
  }

  // Runs `merge` with the paths one step further: into the map key `key`, or into a list's item
  // `index` when `key` is null.
  template <class Merge>
  Tree Descend(const std::string* key, std::size_t index, Merge merge) {
    const std::size_t schema_size = schema_path_.size(), field_size = field_path_.size();
    const bool off_schema = off_schema_;
    if (key == nullptr) {
      schema_path_ += "[]";
      field_path_ += fmt::format("[{}]", index);
    } else {
      if (schema_size > 0) schema_path_ += '.', field_path_ += '.';
      schema_path_ += *key;
      field_path_ += *key;
      // A key that no schema field has could spell a path into another field's rules.
      off_schema_ = off_schema_ || key->find_first_of(".[") != std::string::npos;
    }
    Tree out = merge();
    schema_path_.resize(schema_size);
    field_path_.resize(field_size);
    off_schema_ = off_schema;
    return out;
  }

  // Live keys in their order, with the applied values merged in, then the applied-only keys.
  Tree Maps(const Tree& live, const Tree& applied) {
    std::vector<Tree::MapKey> keys;
    std::vector<Tree> values;
    keys.reserve(live.size() + applied.size());
    values.reserve(live.size() + applied.size());
    for (std::size_t i = 0; i < live.size(); ++i) {
      const std::string& key = live.KeyAt(i);
      const Tree* mine = applied.Find(key);
      keys.push_back({key, live.KeyOriginAt(i)});
      values.push_back(mine ? Descend(&key, 0, [&] { return Value(&live.items()[i], *mine); }) : live.items()[i]);
    }
    for (std::size_t i = 0; i < applied.size(); ++i) {
      const std::string& key = applied.KeyAt(i);
      if (live.Find(key) != nullptr) continue;
      keys.push_back({key, applied.KeyOriginAt(i)});
      values.push_back(Descend(&key, 0, [&] { return Value(nullptr, applied.items()[i]); }));
    }
    Tree out = Tree::Map(applied.origin());
    out.AdoptEntries(std::move(keys), std::move(values));
    return out;
  }

  static std::string Json(const Tree& value) {
    std::string out;
    WriteJson(value, out);
    return out;
  }

  [[noreturn]] void Refuse(const Tree& item, std::size_t index, const std::string& message) const {
    throw Error(
        Diagnostic{.where = item.origin(), .field = fmt::format("{}[{}]", field_path_, index), .message = message});
  }

  // The identity of a list item, as messages show it: its key fields (or the CRD defaults of those
  // it omits) as JSON, [containerPort=80,protocol="TCP"], or for a set its value, [="a"].
  std::string ItemKey(const Tree& item, std::size_t index, const ApplyRule& rule) const {
    if (rule.kind == kSetList) {
      if (item.IsScalar() && !item.IsNull()) return "[=" + Json(item) + "]";
      Refuse(item, index,
             item.IsMap()    ? "associative list without keys has an element that's a map type"
             : item.IsList() ? "not supported: associative list with lists as elements"
                             : "associative list without keys has an element that's an explicit null");
    }
    if (!item.IsMap()) Refuse(item, index, "associative list with keys may not have non-map elements");
    std::string out, names;
    for (const ListKey& key : rule.keys) {
      names += (names.empty() ? "\"" : " \"") + key.name + "\"";
      const Tree* value = item.Find(key.name);
      if (value == nullptr && !key.default_value) continue;  // an item of its own
      out += (out.empty() ? "[" : ",") + key.name + "=" + Json(value ? *value : Tree::String(*key.default_value));
    }
    if (out.empty()) {
      Refuse(item, index,
             "associative list with keys has an element that omits all key fields [" + names +
                 "] (and doesn't have default values for any key fields)");
    }
    return out + "]";
  }

  // The merged list, in the order of structured-merge-diff's visitListItems (typed/merge.go): the
  // live items that the apply does not carry stay where they were; the applied items come in the
  // applied order, each new one just before the next item that both sides hold, so that where the
  // two orders of shared items disagree the applied order wins. A live key held twice is not
  // merged: the applied item takes its place, once.
  Tree Lists(const Tree& live, const Tree& applied, const ApplyRule& rule) {
    const std::vector<Tree>& lhs = live.items();
    const std::vector<Tree>& rhs = applied.items();
    constexpr std::size_t kTwice = SIZE_MAX;
    std::vector<std::string> lkeys, rkeys;
    lkeys.reserve(lhs.size());  // no growth: the maps below view the keys
    rkeys.reserve(rhs.size());
    std::unordered_map<std::string_view, std::size_t> in_live, in_applied;
    for (std::size_t i = 0; i < lhs.size(); ++i) {
      auto [at, added] = in_live.emplace(lkeys.emplace_back(ItemKey(lhs[i], i, rule)), i);
      if (!added) at->second = kTwice;
    }
    for (std::size_t i = 0; i < rhs.size(); ++i) {
      if (!in_applied.emplace(rkeys.emplace_back(ItemKey(rhs[i], i, rule)), i).second) {
        Refuse(rhs[i], i, "duplicate entries for key " + rkeys[i]);
      }
    }
    std::vector<std::string_view> shared;  // the keys both sides hold, in the applied order
    for (const std::string& key : rkeys) {
      if (in_live.contains(key)) shared.push_back(key);
    }
    std::size_t next = 0;  // shared[next] is the shared item to merge next
    std::unordered_set<std::string_view> merged;
    std::vector<Tree> out;
    out.reserve(std::max(lhs.size(), rhs.size()));
    auto merge = [&](std::size_t r) {
      merged.insert(rkeys[r]);
      auto match = in_live.find(rkeys[r]);
      const Tree* mine = match == in_live.end() || match->second == kTwice ? nullptr : &lhs[match->second];
      out.push_back(Descend(nullptr, r, [&] { return Value(mine, rhs[r]); }));
    };
    for (std::size_t l = 0, r = 0; l < lhs.size() || r < rhs.size();) {
      if (l < lhs.size() && r < rhs.size()) {
        if (lkeys[l] == rkeys[r]) {
          merge(r);
          ++l, ++r, ++next;
          continue;
        }
        // A shared item that the applied order puts later: it comes when its applied turn does.
        if (in_applied.contains(lkeys[l]) && next < shared.size() && shared[next] != lkeys[l]) {
          ++l;
          continue;
        }
      }
      if (l < lhs.size()) {
        if (!in_applied.contains(lkeys[l])) {
          out.push_back(lhs[l++]);
          continue;
        }
        if (merged.contains(lkeys[l])) ++l;
      }
      if (r < rhs.size()) {
        if (next < shared.size() && shared[next] == rkeys[r]) ++next;
        merge(r++);
      }
    }
    Tree list = Tree::List(applied.origin());
    list.items() = std::move(out);
    return list;
  }

  const ApplySchema& schema_;
  std::string schema_path_;
  std::string field_path_;
  bool off_schema_ = false;
};

}  // namespace

ApplySchema::ApplySchema(std::span<const ApplyRule> rules) {
  for (const ApplyRule& rule : rules) by_path_.emplace(rule.path, &rule);
}

const ApplyRule* ApplySchema::Find(std::string_view path) const {
  auto at = by_path_.find(path);
  return at == by_path_.end() ? nullptr : at->second;
}

std::span<const ApplyRule> JobSetApplyRules() {
  static const std::vector<ApplyRule> rules = BuildJobSetRules();
  return rules;
}

const ApplySchema& JobSetApplySchema() {
  static const ApplySchema schema(JobSetApplyRules());
  return schema;
}

Tree ApplyOnto(const Tree& live, const Tree& applied, const ApplySchema& schema) {
  return Applier(schema).Value(&live, applied);
}

}  // namespace trainer
