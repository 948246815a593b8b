// The object a server-side apply leaves: an applied object merged onto the live one.
//
// The Trainer controller server-side-applies the JobSet it builds (field manager "trainer",
// forced) onto the live JobSet; `trainer diff --legacy` predicts the result with ApplyOnto. It
// follows the merge of sigs.k8s.io/structured-merge-diff (typed/merge.go), driven by the CRD's
// markers: fields the apply sets take its values, fields it does not carry are kept; maps merge key
// by key unless `x-kubernetes-map-type: atomic`; lists are atomic (replaced whole) unless
// `x-kubernetes-list-type` is `map` (items merge by their `x-kubernetes-list-map-keys`) or `set`
// (union of scalars). A merged list takes structured-merge-diff's order (see Lists in the .cpp).
// An applied null sets the field to null, except on a map or map/set list that holds something
// live, which stays: as typed/merge.go does (structured-merge-diff v6 at 15d0754, 2026-07).
//
// Not simulated: managedFields. A real apply also removes the fields that the manager applied
// before and no longer applies, and no dump says which those are; so a field that trainer stopped
// setting stays in the prediction. Neither does ApplyOnto run what the API server does after the
// merge (defaulting, pruning of unknown fields and of nulls, validation).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

enum class ApplyKind : std::uint8_t {
  kAtomicMap,  // x-kubernetes-map-type: atomic
  kMapList,    // x-kubernetes-list-type: map
  kSetList,    // x-kubernetes-list-type: set
};

// A key of a map list, with the CRD default that stands in for it in an item that omits it.
struct ListKey {
  std::string name;
  std::optional<std::string> default_value;
  friend bool operator==(const ListKey&, const ListKey&) = default;
};

// One non-default merge rule. `path` names the field from the object's root, map keys joined with
// '.', "[]" for the items of a list: "spec.replicatedJobs[].template.spec.template.spec.containers".
struct ApplyRule {
  std::string path;
  ApplyKind kind;
  std::vector<ListKey> keys;  // of a kMapList, in the CRD's order
  friend bool operator==(const ApplyRule&, const ApplyRule&) = default;
};

// Rules looked up by path; `rules` must outlive it.
class ApplySchema {
 public:
  explicit ApplySchema(std::span<const ApplyRule> rules);
  const ApplyRule* Find(std::string_view path) const;

 private:
  std::unordered_map<std::string_view, const ApplyRule*> by_path_;
};

// The rules of a jobset.x-k8s.io/v1alpha2 JobSet: those its CRD (JobSet v0.12.0) declares, then
// those of the root metadata, which the API server takes from meta/v1 ObjectMeta.
std::span<const ApplyRule> JobSetApplyRules();
// How many rows at the end of JobSetApplyRules() are ObjectMeta's rather than the CRD's.
inline constexpr std::size_t kObjectMetaApplyRules = 2;
const ApplySchema& JobSetApplySchema();

// The object that applying `applied` onto `live` (both maps) leaves. Values keep their origins.
// Throws Error (with the field path) where the API server would refuse the apply: an applied map
// list or set with two items of the same key, an item without any of its list's keys, a set item
// that is not a scalar.
Tree ApplyOnto(const Tree& live, const Tree& applied, const ApplySchema& schema);

}  // namespace trainer
