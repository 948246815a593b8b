// Strict decoding of trainer.kubeflow.org/v1alpha1 objects from Trees, like
// `kubectl --validate=strict`: an unknown field or a value of the wrong type is an error naming the
// field path and its file:line:column. Every problem in a document is reported, not just the first.
#pragma once

#include "api/types.h"
#include "yaml/tree.h"

namespace trainer {

// Both take a document that already has its CRD defaults (api/defaults.h). They throw Error.
TrainJob DecodeTrainJob(const Tree& document);
Runtime DecodeRuntime(const Tree& document);

// apiVersion and kind of a document, "" when absent or not strings.
struct TypeMeta {
  std::string api_version;
  std::string kind;
};
TypeMeta ReadTypeMeta(const Tree& document);

}  // namespace trainer
