// The Trainer release trainer follows, and what earlier releases accepted that it refuses: the
// fields of TrainJob, TrainingRuntime and ClusterTrainingRuntime that were renamed or removed, and
// the value forms a field no longer takes. Decoding (api/decode.cpp) words its unknown-field and
// type errors with this table, so YAML written for an earlier release (the Kubeflow docs, blog
// posts) says which release had it and what to write now.
//
// The table was derived from the upstream CRDs (manifests/base/crds) and API types
// (pkg/apis/trainer/v1alpha1) at the tags v2.0.0, v2.1.0, v2.2.0, v2.3.0 and the commit trainer
// follows: every field path they drop between two of them, and every field whose type narrows.
// Fields added, enums widened and defaults changed need no row: earlier YAML still decodes.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "api/schema.h"

namespace trainer {

// What trainer follows upstream, as `trainer version` and the man page say it.
inline constexpr std::string_view kFollowedTrainer =
    "Trainer main at 8c0f505, August 2026, after the v2.3.0 release, with PR #4301";

struct ReleaseChange {
  enum class Kind {
    kField,   // the field is gone from the API (renamed or removed)
    kString,  // the field took a string and now takes an integer
  };
  Kind kind;
  SchemaScope scope;
  std::string_view path;      // from the document root; "[]" stands for any list index
  std::string_view value;     // kString: the string this row advises on; "" for any other
  std::string_view releases;  // the releases that had the field or took the form: "v2.0 to v2.1"
  std::string_view since;     // the first release that refuses it
  std::string_view now;       // what to write now
};

// The rows, in the order of the API's fields.
std::span<const ReleaseChange> ReleaseChanges();

// The kField row for the field at `path` ("spec.podTemplateOverrides",
// "spec.template.spec.replicatedJobs[0]...workloadRef": list indices match "[]"), or nullptr.
const ReleaseChange* FindRemovedField(SchemaScope scope, std::string_view path);

// The kString row for the string `value` found at `path` where an integer is expected, or nullptr.
const ReleaseChange* FindStringForInteger(SchemaScope scope, std::string_view path, std::string_view value);

// `unknown field "podTemplateOverrides" (Trainer v2.1); since v2.2 use spec.runtimePatches: ...`
std::string RemovedFieldMessage(const ReleaseChange& change);

// What follows `expected an integer, got a string` for a kString row:
// ` ("auto", accepted by Trainer v2.0 to v2.1); since v2.2 ...`, the value quoted as GoQuote does.
std::string StringForIntegerNote(const ReleaseChange& change, std::string_view value);

}  // namespace trainer
