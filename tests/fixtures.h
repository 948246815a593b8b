// Small builders shared by the plugin unit tests.
#pragma once

#include <initializer_list>
#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include "api/types.h"
#include "framework/interface.h"
#include "runtime/info.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

// How a failing CHECK shows a Tree, and a list of them, instead of {?}: as YAML.
inline std::ostream& operator<<(std::ostream& out, const Tree& tree) {
  std::string text;
  WriteYaml(tree, text);
  return out << "\n" << text;
}

inline std::ostream& operator<<(std::ostream& out, const std::vector<Tree>& items) {
  Tree list = Tree::List();
  for (const Tree& item : items) list.Append(item);
  return out << list;
}

}  // namespace trainer

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

// The errors a plugin's Validate finds, each as "field: message".
inline std::vector<std::string> ValidationErrors(Plugin& plugin, const Info* info, const TrainJob& job) {
  Diagnostics errors;
  dynamic_cast<CustomValidationPlugin&>(plugin).Validate(info, nullptr, job, errors);
  std::vector<std::string> out;
  for (const Diagnostic& d : errors.items()) out.push_back(d.field + ": " + d.message);
  return out;
}

// A row of an EnforceMLPolicy table for a plugin that sets only the trainer node container (JAX,
// XGBoost): the runtime is NewTrainerInfo's one PodSet `node` with one `node` container; the row
// says what the runtime and the TrainJob give, and what that PodSet and container hold after.
struct TrainerNodeCase {
  enum Policy { kNil, kOther, kPlugin };  // no ML policy, one without the plugin's, the plugin's

  const char* name;
  Policy policy = kPlugin;
  std::optional<std::int32_t> runtime_count = 1;  // no trainer PodSet when unset
  Tree runtime_spec;                              // the JobSet spec
  std::vector<Tree> runtime_env;
  std::vector<Tree> runtime_ports;
  const char* runtime_image = nullptr;
  std::string job = "test-job";
  std::optional<TrainerSpec> trainer;
  bool legacy_image = false;
  std::optional<std::int32_t> count;  // no trainer PodSet when unset
  std::vector<Tree> env;
  std::vector<Tree> ports;
  const char* image = nullptr;  // none when null
};

// The two image rows of a TrainerNodeCase table, for TrainJob `job` of one node whose trainer
// container the plugin gives `env` and `ports`: the TrainJob's image replaces the runtime's,
// except under the legacy image rule.
inline std::vector<TrainerNodeCase> ImageCases(const std::vector<Tree>& env, const std::vector<Tree>& ports) {
  TrainerSpec trainer;
  trainer.image = "registry.example.com/app:2";
  TrainerNodeCase current{.name = "sets the TrainJob image on the trainer node container",
                          .runtime_image = "registry.example.com/runtime:1",
                          .job = "job",
                          .trainer = trainer,
                          .count = 1,
                          .env = env,
                          .ports = ports,
                          .image = "registry.example.com/app:2"};
  TrainerNodeCase legacy = current;
  legacy.name = "keeps the runtime's image under the legacy image rule";
  legacy.legacy_image = true;
  legacy.image = "registry.example.com/runtime:1";
  return {current, legacy};
}

// Runs a TrainerNodeCase with the plugin `make` builds; `enable` sets the plugin's ML policy.
inline void RunTrainerNodeCase(const TrainerNodeCase& c, void (*enable)(MLPolicy&),
                               std::unique_ptr<Plugin> (*make)(const RenderOptions&)) {
  MLPolicy ml;
  if (c.policy == TrainerNodeCase::kPlugin) enable(ml);
  Info info = NewTrainerInfo(c.policy == TrainerNodeCase::kNil ? nullptr : &ml, c.runtime_count);
  info.template_spec.obj_apply = c.runtime_spec;
  if (c.runtime_count) {
    Container& node = info.template_spec.pod_sets[0].containers[0];
    node.env = c.runtime_env;
    node.ports = c.runtime_ports;
    if (c.runtime_image) node.image = Tree::String(c.runtime_image);
  }
  TrainJob job;
  job.metadata.name = c.job;
  job.metadata.namespace_ = "default";
  job.spec.trainer = c.trainer;
  RenderOptions options;
  options.legacy_image = c.legacy_image;
  auto plugin = make(options);
  dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job);
  if (!c.count) {
    CHECK(info.template_spec.pod_sets.empty());
    return;
  }
  REQUIRE(info.template_spec.pod_sets.size() == 1);
  const Container& node = info.template_spec.pod_sets[0].containers[0];
  CHECK(info.template_spec.pod_sets[0].count == c.count);
  CHECK(node.env == c.env);
  CHECK(node.ports == c.ports);
  CHECK(node.image == (c.image ? Tree::String(c.image) : Tree()));
}

}  // namespace trainer::testing
