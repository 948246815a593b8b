// Runtime snapshots: the ConfigMap <trainjob>-runtime-snapshot in which the controller keeps the
// runtime a TrainJob was first reconciled with, so that later changes to the runtime do not reach
// it (upstream: pkg/runtime/core/snapshot.go, and NewObjects in trainingruntime.go and
// clustertrainingruntime.go).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "util/error.h"
#include "yaml/tree.h"

namespace trainer {

inline constexpr std::string_view kRuntimeSnapshotSuffix = "-runtime-snapshot";
inline constexpr std::string_view kRuntimeDataKey = "runtime";

// A snapshot ConfigMap as read from the input, its data.runtime decoded ahead of knowing which
// TrainJob asks for it.
struct RuntimeSnapshot {
  std::string namespace_;  // the default namespace when the document names none
  std::string name;        // the ConfigMap's: <trainjob>-runtime-snapshot
  // The uid of the controller owner (the first ownerReference with controller: true); nullopt
  // when there is none.
  std::optional<std::string> controller_uid;
  bool has_runtime = false;        // data holds the key `runtime`
  std::optional<Runtime> runtime;  // data.runtime decoded, when it decodes
  // Why data.runtime does not decode: the reader's or the decoder's problems, inside it.
  std::vector<Diagnostic> unmarshal_errors;
  Tree document;      // the ConfigMap as read, to tell identical definitions apart
  Origin origin;      // where the ConfigMap starts
  Origin data_at;     // data (or the ConfigMap when it has none)
  Origin runtime_at;  // data.runtime's value (or data_at)
  Origin owner_at;    // metadata.ownerReferences (or the ConfigMap when it has none)
  // What data.runtime says it is, as the controller reads the runtime's GroupVersionKind and name.
  std::string runtime_group;
  std::string runtime_kind;
  std::string runtime_name;

  // "ConfigMap ns/name", Printable.
  std::string Subject() const;
};

// Whether `api_version` and `kind` and the name make a document a snapshot candidate: a v1
// ConfigMap named *-runtime-snapshot.
bool IsRuntimeSnapshot(std::string_view api_version, std::string_view kind, std::string_view name);

// The name of `job`'s snapshot ConfigMap.
std::string RuntimeSnapshotName(const TrainJob& job);

// An input's text and the offset where each of its lines starts, to find the lines of a literal
// block.
struct InputLines {
  std::string_view text;
  std::vector<std::size_t> starts;
  explicit InputLines(std::string_view text);
};

// Reads a ConfigMap `document` (IsRuntimeSnapshot) leniently, as the controller's client does, and
// decodes data.runtime as yaml.Unmarshal into the runtime type does (unknown fields dropped), with
// CRD defaults; the runtime webhook is not run. With `lines` (the input's), when data.runtime is a
// literal block (`|`), positions inside it are those of the input; else every value of it is
// placed at data.runtime's value. `values_left` is what the snapshots of the whole input may still
// read (values, alias copies included), so that many ConfigMaps cannot each take a stream's worth;
// what this one read is taken off it.
RuntimeSnapshot ReadRuntimeSnapshot(const Tree& document, const std::string& default_namespace, const InputLines* lines,
                                    std::size_t& values_left);

// getRuntimeSnapshot's checks, in its order: the controller owner is `job`, data.runtime is there
// and decodes, and it is the runtime spec.runtimeRef names. The refusal with upstream's message, at
// the ConfigMap; nullopt when the snapshot is `job`'s. A TrainJob without metadata.uid has not been
// created: the controller creates its snapshot, and an existing ConfigMap of that name is another
// object's.
std::optional<Diagnostic> CheckRuntimeSnapshot(const TrainJob& job, const RuntimeSnapshot& snapshot);

// `runtime` as the snapshot's data.runtime holds it: sigs.k8s.io/yaml's Marshal of the typed
// runtime (apiVersion, kind, metadata, spec; Go's omitempty and omitzero rules).
Tree RuntimeSnapshotData(const Runtime& runtime);

// createRuntimeSnapshot: the ConfigMap the controller applies for `job` when it has no snapshot.
Tree NewRuntimeSnapshot(const TrainJob& job, const Runtime& runtime);

}  // namespace trainer
