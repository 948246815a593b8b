// Small builders shared by the plugin unit tests.
#pragma once

#include <initializer_list>
#include <ostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "runtime/info.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

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

// `tree` as YAML.
inline std::string Text(const Tree& tree) {
  std::string out;
  WriteYaml(tree, out);
  return out;
}

// `first`, then `then`: a container's own env or ports followed by those a plugin adds.
inline std::vector<Tree> Concat(std::vector<Tree> first, const std::vector<Tree>& then) {
  first.insert(first.end(), then.begin(), then.end());
  return first;
}

// A ResourceList from name/quantity pairs: {{"cpu", "2"}, {"memory", "4Gi"}}.
inline ResourceList Requests(std::initializer_list<std::pair<const char*, const char*>> entries) {
  ResourceList out;
  for (const auto& [name, text] : entries) out.emplace(name, *Quantity::Parse(text));
  return out;
}

// A PodSet of `count` pods, each requesting `requests`.
inline PodSet NewPodSet(const char* name, std::int32_t count, ResourceList requests = {}) {
  PodSet ps;
  ps.name = name;
  ps.count = count;
  ps.single_pod_requests = std::move(requests);
  return ps;
}

}  // namespace trainer::testing

namespace trainer {

// How a failing CHECK shows a Tree, and a list of them, instead of {?}: as YAML.
inline std::ostream& operator<<(std::ostream& out, const Tree& tree) { return out << "\n" << testing::Text(tree); }

inline std::ostream& operator<<(std::ostream& out, const std::vector<Tree>& items) {
  Tree list = Tree::List();
  for (const Tree& item : items) list.Append(item);
  return out << list;
}

}  // namespace trainer
