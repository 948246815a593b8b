// CRD defaults, applied to documents as the API server applies them before the controller reads
// them. The table is generated from the `default:` markers of the upstream CRDs (manifests/base/crds)
// into lib/api/crd_tables.cpp by tools/gen_crd_tables.cpp; defaults_test.cpp checks it against
// those CRDs when they are at hand.
#pragma once

#include <span>
#include <string_view>

#include "yaml/tree.h"

namespace trainer {

struct DefaultRule {
  enum class Scope { kTrainJob, kRuntime };  // kRuntime: TrainingRuntime and ClusterTrainingRuntime
  Scope scope;
  std::string_view path;  // dotted field path; "[*]" stands for every item of a list
  Tree::Type type;        // kString, kInt or kBool
  std::string_view value;
};

// The table, in lib/api/crd_tables.cpp: each scope's rules side by side, in tree order (a field's
// rules before those below it, the rules below one field side by side).
std::span<const DefaultRule> DefaultRules();

// Sets every default of `scope` whose parent object exists and whose field is absent or null.
// Defaulted values carry Origin::Default().
void ApplyDefaults(Tree& document, DefaultRule::Scope scope);

}  // namespace trainer
