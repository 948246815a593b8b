// What the controller's typed decode and JSON round trip leave of a JobSet template.
//
// Upstream decodes a runtime's JobSetSpec into Go structs, converts it with
// runtime.DefaultUnstructuredConverter.ToUnstructured, and decodes that JSON into the JobSet apply
// configuration, which is what it finally serialises. `trainer` keeps the template as a Tree, so
// RoundTrip replays the effects on the tree: zero values of omitempty fields go, non-pointer
// structs appear as `{}`, quantities are re-serialised, and unknown fields or wrong JSON types are
// errors. Types followed: sigs.k8s.io/jobset v0.12.0 api/jobset/v1alpha2, k8s.io/api v0.36.3
// core/v1 and batch/v1, k8s.io/apimachinery v0.36.3 meta/v1 (ObjectMeta, LabelSelector).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

// One problem found while decoding a tree as a Go type.
struct FieldIssue {
  std::string path;  // field path, e.g. "spec.template.spec.replicatedJobs[0].name"
  Origin origin;     // where the offending key or value came from
  std::string message;
};

// Rewrites `value`, a tree for the Go struct `type_name` ("JobSetSpec", "PodSpec", "Container",
// "EnvVar", "Volume", "ObjectMeta", ...), into what the typed decode + apply-configuration round
// trip leaves. `path` names `value` in messages ("" at the root); children append ".field",
// "[index]" or "[key]". Every problem is appended to `issues`; the tree is still rewritten as far
// as it can be. Throws std::logic_error for a type name the schema table does not know.
void RoundTrip(Tree& value, std::string_view type_name, const std::string& path,
               std::vector<FieldIssue>& issues);

// The text resource.Quantity's UnmarshalJSON hands to ParseQuantity for `value`: a string trimmed of
// spaces, a number as JSON prints it, "0" for null; nullopt for a map, list or bool.
std::optional<std::string> QuantityText(const Tree& value);

}  // namespace trainer
