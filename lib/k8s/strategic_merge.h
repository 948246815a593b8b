// Kubernetes strategic merge patch, as the Trainer controller applies runtime patches.
//
// Follows k8s.io/apimachinery v0.36.3 pkg/util/strategicpatch (StrategicMergePatch with
// MergeParallelList and IgnoreUnmatchedNulls): maps merge key by key, a list whose Go field has
// patchStrategy "merge" merges item by item on its merge key (or, for scalars, as a
// de-duplicated union) and orders the result as upstream's mergeSortedSlice does, every other
// list and every scalar is replaced. Which lists merge, and on what key, comes from a table of
// field paths: one row per `patchStrategy:"merge"` struct tag that a patch can reach.
//
// The patches `trainer` applies are built from typed structs, so they carry no `$patch`,
// `$retainKeys` or `$setElementOrder` directives; a null in a patch deletes the key, as upstream.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "yaml/tree.h"

namespace trainer {

// A list field with patch strategy "merge". `path` names the list from the patched document's
// root, map keys joined with '.', "[]" for the items of a list:
// "replicatedJobs[].template.spec.template.spec.containers". An empty merge key marks a list of
// scalars (merged as a set).
struct MergeList {
  std::string_view path;
  std::string_view merge_key;
};

// The merge lists of a jobset.x-k8s.io/v1alpha2 JobSetSpec that a TrainJob runtime patch can
// reach (struct tags of sigs.k8s.io/jobset v0.12.0 and k8s.io/api v0.36.3 core/v1).
std::span<const MergeList> JobSetSpecMergeLists();

// The merge lists of a core/v1 PodTemplateSpec: the same rows, rooted at the pod template (for
// tests that compare with `kubectl patch --type strategic` on a Job).
std::span<const MergeList> PodTemplateSpecMergeLists();

// What StrategicMergePatch refuses; `what()` is upstream's error text.
class StrategicMergeError : public std::runtime_error {
 public:
  StrategicMergeError(std::string path, const std::string& message)
      : std::runtime_error(message), path_(std::move(path)) {}
  // Where in the patch the error happened, in field-path form: the patch item without its merge
  // key ("spec.containers[1]"), or the patch list whose original holds such an item.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Applies `patch` (a map) to `original` (a map) in place. Values taken from the patch keep their
// origins. Throws StrategicMergeError where upstream returns an error.
void StrategicMerge(Tree& original, const Tree& patch, std::span<const MergeList> lists);

// Go's fmt %v of a JSON value decoded into interface{}: "map[a:1 b:[x y]]", as upstream's error
// messages print patch items.
std::string GoValueString(const Tree& value);

}  // namespace trainer
