#include "webhooks/trainingruntime.h"

#include <doctest/doctest.h>

#include "api/decode.h"
#include "api/defaults.h"
#include "tests/fixtures.h"

namespace trainer {

namespace {

Runtime MakeRuntime(const char* yaml) {
  Tree doc = testing::Yaml(yaml);
  ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
  return DecodeRuntime(doc);
}

// A runtime with the four replicatedJobs of upstream's JobSet wrapper, every one with `replicas`
// replicas, and the given container in the dataset-initializer, model-initializer and node jobs.
std::string FourJobs(const char* kind, const char* labels, int replicas, const char* container = nullptr,
                     const char* ancestor_of_node = "trainer") {
  std::string out = std::string("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ") + kind +
                    "\nmetadata: {name: rt, namespace: ns" + (labels ? std::string(", labels: ") + labels : "") +
                    "}\nspec:\n  template:\n    spec:\n      replicatedJobs:\n";
  struct Job {
    const char* name;
    const char* ancestor;
  };
  for (Job j : {Job{"dataset-initializer", "dataset-initializer"}, Job{"model-initializer", "model-initializer"},
                Job{"launcher", nullptr}, Job{"node", ancestor_of_node}}) {
    std::string c = container && j.ancestor ? container : j.name;
    out += std::string("      - name: ") + j.name + "\n        replicas: " + std::to_string(replicas) +
           "\n        template:\n";
    if (j.ancestor)
      out += std::string("          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: ") + j.ancestor +
             "}}\n";
    out += "          spec: {template: {spec: {containers: [{name: " + c + ", image: img}]}}}\n";
  }
  return out;
}

std::vector<std::string> Check(const Runtime& runtime, std::vector<std::string>* warnings = nullptr) {
  Findings findings(ValidationMode::kStrict);
  ValidateRuntime(runtime, findings);
  std::vector<std::string> out;
  for (const Diagnostic& d : findings.errors()) out.push_back(d.Format());
  if (warnings) {
    for (const Diagnostic& w : findings.warnings()) warnings->push_back(FormatWarning(w));
  }
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("valid replicatedJobs") {
  CHECK(Check(MakeRuntime(FourJobs("TrainingRuntime", nullptr, 1).c_str())).empty());
}

TEST_CASE("valid replicatedJobs with unknown user-specified ancestor") {
  CHECK(Check(MakeRuntime(FourJobs("TrainingRuntime", nullptr, 1, nullptr, "user-specified").c_str())).empty());
}

TEST_CASE("invalid replicas") {
  CHECK(Check(MakeRuntime(FourJobs("TrainingRuntime", nullptr, 2).c_str())) ==
        Lines{
            "test.yaml:9:9: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[0].replicas: always must be 1",
            "test.yaml:14:9: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[1].replicas: always must be 1",
            "test.yaml:23:9: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[3].replicas: always must be 1",
        });
}

TEST_CASE("an explicit replicas: 0 is refused: the CRD default fills only a missing field") {
  // The typed round trip drops the zero (omitempty), as the controller does; the webhook sees it.
  CHECK(Check(MakeRuntime(FourJobs("TrainingRuntime", nullptr, 0).c_str())) ==
        Lines{
            "test.yaml:9:9: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[0].replicas: always must be 1",
            "test.yaml:14:9: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[1].replicas: always must be 1",
            "test.yaml:23:9: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[3].replicas: always must be 1",
        });
}

TEST_CASE("missing required container in replicatedJobs") {
  CHECK(Check(MakeRuntime(FourJobs("TrainingRuntime", nullptr, 1, "test").c_str())) ==
        Lines{
            "test.yaml:12:36: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[0].template.spec.template.spec."
            "containers: must contain the required container for the ancestor: dataset-initializer",
            "test.yaml:17:36: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[1].template.spec.template.spec."
            "containers: must contain the required container for the ancestor: model-initializer",
            "test.yaml:26:36: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[3].template.spec.template.spec."
            "containers: must contain the required container for the ancestor: trainer",
        });
}

TEST_CASE("no deprecation label") {
  std::vector<std::string> warnings;
  CHECK(Check(MakeRuntime(FourJobs("ClusterTrainingRuntime", "{trainer.kubeflow.org/support: supported}", 1).c_str()),
              &warnings)
            .empty());
  CHECK(warnings.empty());
}

TEST_CASE("support=deprecated") {
  std::vector<std::string> warnings;
  CHECK(Check(MakeRuntime(FourJobs("ClusterTrainingRuntime", "{trainer.kubeflow.org/support: deprecated}", 1).c_str()),
              &warnings)
            .empty());
  CHECK(warnings == Lines{"test.yaml:3:76: warning: ClusterTrainingRuntime rt: ClusterTrainingRuntime \"rt\" is "
                          "deprecated and will be removed in a future release of Kubeflow Trainer. See runtime "
                          "deprecation policy: https://trainer.kubeflow.org/en/latest/operator-guides/"
                          "runtime.html#runtime-deprecation-policy"});
}

TEST_CASE("a deprecated TrainingRuntime draws no warning: only the ClusterTrainingRuntime webhook warns") {
  std::vector<std::string> warnings;
  Check(MakeRuntime(FourJobs("TrainingRuntime", "{trainer.kubeflow.org/support: deprecated}", 1).c_str()), &warnings);
  CHECK(warnings.empty());
}

TEST_CASE("a runtime labelled webhook-validation: disabled is not sent to the webhook") {
  std::vector<std::string> warnings;
  CHECK(Check(MakeRuntime(FourJobs("ClusterTrainingRuntime",
                                   "{trainer.kubeflow.org/webhook-validation: disabled, "
                                   "trainer.kubeflow.org/support: deprecated}",
                                   2, "test")
                              .c_str()),
              &warnings)
            .empty());
  CHECK(warnings.empty());
  // Any other value of the label leaves the webhook on.
  CHECK(Check(MakeRuntime(FourJobs("TrainingRuntime", "{trainer.kubeflow.org/webhook-validation: enabled}", 2).c_str()))
            .size() == 3);
}

TEST_CASE("warn turns the runtime webhook's rejections into warnings and ignore drops them") {
  Runtime runtime = MakeRuntime(FourJobs("TrainingRuntime", nullptr, 2).c_str());
  Findings warn(ValidationMode::kWarn);
  ValidateRuntime(runtime, warn);
  CHECK(warn.errors().empty());
  CHECK(warn.warnings().size() == 3);
  Findings ignore(ValidationMode::kIgnore);
  ValidateRuntime(runtime, ignore);
  CHECK(ignore.errors().empty());
  CHECK(ignore.warnings().empty());
}

}  // namespace trainer
