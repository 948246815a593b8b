// Reading rendered objects back for `trainer diff FROM TO`: stored `trainer render` output,
// `kubectl get -o yaml|json` output, and the per-object files of KUBECTL_EXTERNAL_DIFF.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

// The objects of one YAML (or JSON) stream, in order: every document, with lists (a kind ending
// in "List" holding `items`, as `kubectl get` prints) replaced by their items. `file` names the
// stream in origins and errors and must outlive the result. Throws Error (file:line:col) on
// malformed YAML and on a document or list item that is not a map.
std::vector<Tree> ReadObjectStream(std::string_view content, const std::string* file);

}  // namespace trainer
