#include "plugins/jobset.h"

#include <doctest/doctest.h>

#include "api/decode.h"
#include "api/defaults.h"
#include "tests/fixtures.h"

namespace trainer::plugins {

namespace {

using Lines = std::vector<std::string>;

// The JobSet plugin's Validate for a TrainJob with `initializer` (a flow mapping, or "" for none)
// against an Info whose JobSet spec is `spec`.
Lines Validate(const std::string& initializer, const std::string& spec) {
  std::string yaml = "metadata: {name: test, namespace: default}\nspec:\n  runtimeRef: {name: rt}\n";
  if (!initializer.empty()) yaml += "  initializer: " + initializer + "\n";
  Tree doc = testing::Yaml(yaml);
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  TrainJob job = DecodeTrainJob(doc);
  Info info;
  info.template_spec.obj_apply = testing::Yaml(spec);
  auto plugin = NewJobSet(RenderOptions{});
  return testing::ValidationErrors(*plugin, &info, job);
}

// One replicatedJob `name` with the containers given as a flow sequence.
std::string Job(const std::string& name, const std::string& containers) {
  return "{name: " + name + ", template: {spec: {template: {spec: {containers: " + containers + "}}}}}";
}

std::string Spec(const std::vector<std::string>& jobs) {
  std::string out = "replicatedJobs: [";
  for (const std::string& j : jobs) out += j + ",";
  return out + "]";
}

const std::string kMounted = "[{name: NAME, volumeMounts: [{name: initializer, mountPath: /workspace}]}]";

std::string Mounted(const std::string& name) {
  std::string c = kMounted;
  return c.replace(c.find("NAME"), 4, name);
}

}  // namespace

// As upstream's TestValidate: one row per case, the TrainJob's initializer against the runtime's
// JobSet spec.
TEST_CASE("JobSet Validate") {
  struct Case {
    const char* name;
    std::string initializer;  // a flow mapping, or "" for none
    std::string spec;
    Lines want;
  };
  const Case cases[] = {
      {"no initializer job", "", "{}", {}},
      {"no dataset initializer job", "{}", "{}", {}},
      {"must have dataset initializer job when trainJob is configured with input datasetConfig",
       "{dataset: {}}",
       Spec({Job("random", "[{name: random}]")}),
       {"spec.runtimeRef: must have dataset-initializer job when trainJob is configured with input datasetConfig"}},
      {"must have container with name - dataset initializer in the dataset initializer job",
       "{dataset: {}}",
       Spec({Job("dataset-initializer", "[]")}),
       {"spec.runtimeRef: must have container with name - dataset-initializer in the dataset-initializer job"}},
      {"no model initializer job", "{}", Spec({Job("dataset-initializer", "[{name: dataset-initializer}]")}), {}},
      {"must have model initializer job when trainJob is configured with input modelConfig",
       "{model: {}}",
       Spec({Job("dataset-initializer", Mounted("dataset-initializer"))}),
       {"spec.runtimeRef: must have model-initializer job when trainJob is configured with input modelConfig"}},
      {"must have container with name - model initializer in the model initializer job",
       "{model: {}}",
       Spec({Job("model-initializer", "[{name: other}]")}),
       {"spec.runtimeRef: must have container with name - model-initializer in the model-initializer job"}},
      {"valid dataset and model initializers together pass",
       "{dataset: {}, model: {}}",
       Spec({Job("dataset-initializer", Mounted("dataset-initializer")),
             Job("model-initializer", Mounted("model-initializer"))}),
       {}},
      {"must have volumeMount with name - initializer in the dataset initializer container",
       "{dataset: {}}",
       Spec({Job("dataset-initializer", "[{name: dataset-initializer}]")}),
       {"spec.runtimeRef: must have volumeMount with name - initializer in container dataset-initializer of the "
        "dataset-initializer job"}},
      {"must have volumeMount with name - initializer in the model initializer container",
       "{model: {}}",
       Spec({Job("model-initializer", "[{name: model-initializer, volumeMounts: [{name: data, mountPath: /d}]}]")}),
       {"spec.runtimeRef: must have volumeMount with name - initializer in container model-initializer of the "
        "model-initializer job"}},
      // Upstream's name set holds init containers too; the volumeMount is looked for in containers only.
      {"an init container of the initializer's name counts as the container, but its mounts do not",
       "{dataset: {}}",
       "replicatedJobs: [{name: dataset-initializer, template: {spec: {template: {spec: {initContainers: "
       "[{name: dataset-initializer, volumeMounts: [{name: initializer, mountPath: /w}]}]}}}}}]",
       {"spec.runtimeRef: must have volumeMount with name - initializer in container dataset-initializer of the "
        "dataset-initializer job"}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(Validate(c.initializer, c.spec) == c.want); }
  }
}

namespace {

// A TrainJob "job" with nothing but its runtimeRef.
TrainJob PlainJob() {
  Tree doc = testing::Yaml("metadata: {name: job, namespace: default}\nspec:\n  runtimeRef: {name: rt}\n");
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  return DecodeTrainJob(doc);
}

}  // namespace

TEST_CASE("PreBuildSync writes a PodSet's count to the first replicatedJob of its name, and to none when none has it") {
  TrainJob job = PlainJob();
  Info info;
  info.template_spec.obj_apply = testing::Yaml("replicatedJobs: [{name: a}, {name: b}, {name: a}]");
  info.template_spec.pod_sets = {testing::NewPodSet("a", 3), testing::NewPodSet("missing", 4),
                                 testing::NewPodSet("b", 5)};
  auto plugin = NewJobSet(RenderOptions{});
  dynamic_cast<PreComponentBuilderPlugin&>(*plugin).PreBuildSync(info, job);
  CHECK(testing::Text(info.template_spec.obj_apply) ==
        "replicatedJobs:\n"
        "- name: a\n  template:\n    spec:\n      completions: 3\n      parallelism: 3\n"
        "- name: b\n  template:\n    spec:\n      completions: 5\n      parallelism: 5\n"
        "- name: a\n");
}

}  // namespace trainer::plugins
