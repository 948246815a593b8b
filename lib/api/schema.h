// The constraints of the trainer.kubeflow.org CRD schemas, checked as the API server checks them:
// required fields, minimum, minLength/maxLength, minItems/maxItems, minProperties, enum, pattern,
// date-time format, list-type map and set uniqueness, and the x-kubernetes-validations (CEL)
// rules that apply on create. The table is generated from the upstream CRDs (manifests/base/crds)
// into lib/api/crd_tables.cpp by tools/gen_crd_tables.cpp, which lists what it leaves out and why;
// schema_test.cpp checks it against them when they are at hand. Types the CRDs embed in several
// places (EnvVar, Volume, Container, ...) are groups of rows used by path.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"
#include "yaml/tree.h"

namespace trainer {

enum class SchemaScope { kTrainJob, kRuntime };  // kRuntime: TrainingRuntime and ClusterTrainingRuntime

struct SchemaRule {
  enum class Check {
    kRequired,  // arg: the field the object at path must have
    kMinimum,   // arg: the bound
    kMaximum,
    kMinLength,
    kMaxLength,
    kMinItems,
    kMaxItems,
    kMinProperties,
    kEnum,     // arg: the values, separated by '|'
    kPattern,  // arg: the ECMAScript pattern
    kFormat,   // arg: "date-time"
    kListMap,  // arg: the map keys, separated by ','
    kListSet,
    kRule,  // arg: the CEL rule, message: its message
    kUse,   // arg: the group whose rows apply at path
  };
  std::string_view group;  // "TrainJob", "TrainingRuntime", or a type such as "EnvVar"
  std::string_view path;   // relative to the group: "" for its object, "[*]" for every item or value
  Check check;
  std::string_view arg;
  std::string_view message = {};
};

// The table, in lib/api/crd_tables.cpp: each group's rows side by side, in tree order (a path's own
// rows, then those below each of its fields).
std::span<const SchemaRule> SchemaRules();

// A rule with its full path from the document root, kUse rows expanded.
struct FlatSchemaRule {
  std::string path;
  SchemaRule::Check check;
  std::string_view arg;
  std::string_view message;
};
std::vector<FlatSchemaRule> FlattenSchema(SchemaScope scope);

// Whether a CEL rule of the table has its evaluator.
bool HasCelEvaluator(std::string_view rule);

// Every violation in `document` (defaulted, as the API server validates after defaulting), with
// the API server's field paths and messages, ordered by position. Values of the wrong type are
// left to decoding.
std::vector<Diagnostic> CheckSchema(const Tree& document, SchemaScope scope, const std::string& subject);

// The most runtime patches a TrainJob holds: the TrainJob CRD's maxItems of spec.runtimePatches.
// The API server applies a CRD's schema to every object, admission webhooks or not, so unlike the
// other schema rules this one holds under every --validate mode (the runtime patch limit).
inline constexpr std::size_t kMaxRuntimePatches = 16;

// The runtime patch limit broken by a TrainJob document, at its spec.runtimePatches: the API
// server's message, naming the limit.
std::optional<Diagnostic> CheckRuntimePatchLimit(const Tree& document, const std::string& subject);

}  // namespace trainer
