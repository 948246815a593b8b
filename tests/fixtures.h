// Small builders shared by the plugin unit tests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/types.h"
#include "runtime/info.h"
#include "yaml/reader.h"

namespace trainer::testing {

// The first document of `text`, read as "test.yaml".
inline Tree Yaml(std::string_view text) {
  static const std::string kFile = "test.yaml";
  return ReadYamlStream(text, &kFile).at(0);
}

// As upstream's runtime.NewInfo(WithMLPolicySource, WithPodSet): one trainer PodSet `node` with an
// empty `node` container when `count` is set.
inline Info NewTrainerInfo(const MLPolicy* ml, std::optional<std::int32_t> count) {
  Info info;
  info.runtime_policy.ml_policy = ml;
  if (count) {
    PodSet ps;
    ps.name = kNode;
    ps.ancestor = kAncestorTrainer;
    ps.count = *count;
    ps.containers.push_back(Container{.name = kNode});
    info.template_spec.pod_sets.push_back(std::move(ps));
  }
  return info;
}

}  // namespace trainer::testing
