// The API server's checks of an object's metadata on create, as it judges every custom resource
// before its schema (apimachinery v0.36.3 pkg/api/validation/objectmeta.go ValidateObjectMetaAccessor
// with NameIsDNSSubdomain, pkg/apis/meta/v1/validation ValidateLabels, pkg/util/validation and
// pkg/api/validate/content), with its messages. Owner references, finalizers and managed fields are
// not checked: nothing trainer renders reads them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"
#include "yaml/tree.h"

namespace trainer {

// validation.IsDNS1123Label's messages for `value`, empty when it is valid.
std::vector<std::string> IsDNS1123Label(std::string_view value);

// validation.IsDNS1123Subdomain's messages for `value`, empty when it is valid.
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);

// content.IsLabelKey (validation.IsQualifiedName): a name of at most 63 bytes with an optional DNS
// subdomain prefix and '/'.
std::vector<std::string> IsQualifiedName(std::string_view value);

// content.IsLabelValue (validation.IsValidLabelValue).
std::vector<std::string> IsValidLabelValue(std::string_view value);

// The problems of the top-level `metadata` of `document` (a TrainJob or a runtime, defaulted):
// metadata.name a DNS-1123 subdomain, metadata.namespace a DNS-1123 label when `namespaced` and the
// document sets one, label keys and values, annotation keys and their total size. Each points at
// the key of the field, or at the label or annotation at fault; values of other types than strings
// are left to decoding.
std::vector<Diagnostic> ValidateObjectMeta(const Tree& document, bool namespaced, const std::string& subject);

// The problem of a namespace given with -n/--namespace, if it has one.
std::optional<Diagnostic> ValidateNamespaceOption(std::string_view name);

}  // namespace trainer
