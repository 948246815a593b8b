// Strict decoding of trainer.kubeflow.org/v1alpha1 objects from Trees, like
// `kubectl --validate=strict`: an unknown field or a value of the wrong type is an error naming the
// field path and its file:line:column. Every problem in a document is reported, not just the first.
#pragma once

#include <string_view>
#include <vector>

#include "api/types.h"
#include "util/error.h"
#include "yaml/tree.h"

namespace trainer {

// Both take a document that already has its CRD defaults (api/defaults.h). They throw Error.
TrainJob DecodeTrainJob(const Tree& document);
Runtime DecodeRuntime(const Tree& document);

// The same for --validate=warn and ignore: unknown fields are removed from `document`, as the API
// server prunes them, and appended to `unknown_fields` instead of failing; any other problem
// (a wrong type, a missing name) still throws Error.
TrainJob DecodeTrainJobPruned(Tree& document, std::vector<Diagnostic>& unknown_fields);
Runtime DecodeRuntimePruned(Tree& document, std::vector<Diagnostic>& unknown_fields);

// How diagnostics and reports name an object, Printable (util/quote.h) as a whole.
// "Kind ns/name", "Kind name" without a namespace, or "Kind" without a name: the object of `document`.
std::string DocumentSubject(const Tree& document, std::string_view kind);
// "TrainJob ns/name": how diagnostics name a decoded TrainJob.
std::string Subject(const TrainJob& job);
// "Kind ns/name", or "Kind name" for a cluster-scoped runtime (or one without a namespace).
std::string Subject(const Runtime& runtime);

// apiVersion and kind of a document, "" when absent or not strings.
struct TypeMeta {
  std::string api_version;
  std::string kind;
};
TypeMeta ReadTypeMeta(const Tree& document);

}  // namespace trainer
