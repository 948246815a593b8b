#include "api/releases.h"

#include <doctest/doctest.h>

#include <set>

namespace trainer {

namespace {

constexpr SchemaScope kJob = SchemaScope::kTrainJob;
constexpr SchemaScope kRuntime = SchemaScope::kRuntime;

std::string RemovedAt(SchemaScope scope, std::string_view path) {
  const ReleaseChange* change = FindRemovedField(scope, path);
  return change == nullptr ? "" : RemovedFieldMessage(*change);
}

std::string NoteFor(std::string_view path, std::string_view value) {
  const ReleaseChange* change = FindStringForInteger(kJob, path, value);
  return change == nullptr ? "" : StringForIntegerNote(*change, value);
}

}  // namespace

TEST_CASE("the release table names the release of each removed field and what to write now") {
  CHECK(RemovedAt(kJob, "spec.podTemplateOverrides") ==
        "unknown field \"podTemplateOverrides\" (Trainer v2.1); since v2.2 use spec.runtimePatches: an override "
        "{targetJobs: [{name: JOB}], metadata: M, spec: S} is now {manager: NAME, trainingRuntimeSpec: {template: "
        "{spec: {replicatedJobs: [{name: JOB, template: {spec: {template: {metadata: M, spec: S}}}}]}}}}");
  CHECK(RemovedAt(kJob, "spec.podSpecOverrides") ==
        "unknown field \"podSpecOverrides\" (Trainer v2.0); since v2.2 use spec.runtimePatches "
        "(podTemplateOverrides in v2.1): an override {targetJobs: [{name: JOB}], FIELDS} is now {manager: NAME, "
        "trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: JOB, template: {spec: {template: {spec: "
        "{FIELDS}}}}}]}}}}");
  CHECK(RemovedAt(kJob, "spec.labels") ==
        "unknown field \"labels\" (Trainer v2.0 to v2.1); since v2.2 use spec.runtimePatches: {manager: NAME, "
        "trainingRuntimeSpec: {template: {metadata: {labels: L}}}} labels the JobSet, and its "
        "spec.replicatedJobs[].template.metadata.labels a Job");
  CHECK(RemovedAt(kJob, "spec.annotations") ==
        "unknown field \"annotations\" (Trainer v2.0 to v2.1); since v2.2 use spec.runtimePatches: {manager: NAME, "
        "trainingRuntimeSpec: {template: {metadata: {annotations: A}}}} annotates the JobSet, and its "
        "spec.replicatedJobs[].template.metadata.annotations a Job");
  CHECK(RemovedAt(kRuntime, "spec.mlPolicy.torch.numProcPerNode") ==
        "unknown field \"numProcPerNode\" (Trainer v2.0 to v2.1); since v2.2 leave it out: a TrainJob sets "
        "spec.trainer.numProcPerNode (an integer), and Torch's auto is the default");
  CHECK(RemovedAt(kRuntime, "spec.mlPolicy.torch.elasticPolicy") ==
        "unknown field \"elasticPolicy\" (Trainer v2.0 to v2.1); since v2.2 leave it out: elastic Torch training was "
        "removed; set spec.mlPolicy.numNodes");
  CHECK(RemovedAt(kRuntime, "spec.template.spec.replicatedJobs[0].template.spec.template.spec.workloadRef") ==
        "unknown field \"workloadRef\" (Trainer v2.2); since v2.3 use schedulingGroup: {podGroupName: NAME} (the "
        "Kubernetes 1.36 Pod API)");
}

TEST_CASE("a removed field is found only at its own path, in its own kind, at any list index") {
  const std::string workload = "unknown field \"workloadRef\"";
  CHECK(RemovedAt(kRuntime, "spec.template.spec.replicatedJobs[12].template.spec.template.spec.workloadRef")
            .starts_with(workload));
  // a list index is digits; a map key in brackets, or none, is another path
  CHECK(RemovedAt(kRuntime, "spec.template.spec.replicatedJobs[x].template.spec.template.spec.workloadRef") == "");
  CHECK(RemovedAt(kRuntime, "spec.template.spec.replicatedJobs[].template.spec.template.spec.workloadRef") == "");
  CHECK(RemovedAt(kRuntime, "spec.template.spec.replicatedJobs.template.spec.template.spec.workloadRef") == "");
  CHECK(RemovedAt(kRuntime, "spec.template.spec.replicatedJobs[0]") == "");
  // the TrainJob's rows do not apply to runtimes, nor theirs to TrainJobs
  CHECK(RemovedAt(kRuntime, "spec.podTemplateOverrides") == "");
  CHECK(RemovedAt(kJob, "spec.mlPolicy.torch.numProcPerNode") == "");
  // neither a longer name, a field below, nor a field above
  CHECK(RemovedAt(kJob, "spec.podTemplateOverridesX") == "");
  CHECK(RemovedAt(kJob, "spec.podTemplateOverrides.spec") == "");
  CHECK(RemovedAt(kJob, "spec") == "");
  CHECK(RemovedAt(kJob, "spec.trainer.numProcPerNode") == "");  // retyped, not removed
  CHECK(RemovedAt(kJob, "metadata.labels") == "");
}

TEST_CASE("a string where an integer is now expected is advised on by its value") {
  CHECK(NoteFor("spec.trainer.numProcPerNode", "auto") ==
        " (\"auto\", accepted by Trainer v2.0 to v2.1); since v2.2 an integer: leave it out for Torch's auto, its "
        "default");
  const std::string cpu_or_gpu =
      ", accepted by Trainer v2.0 to v2.1); since v2.2 an integer: the number of processes per node, or leave it out "
      "for Torch's auto (one per GPU, else one per CPU)";
  CHECK(NoteFor("spec.trainer.numProcPerNode", "cpu") == " (\"cpu\"" + cpu_or_gpu);
  CHECK(NoteFor("spec.trainer.numProcPerNode", "gpu") == " (\"gpu\"" + cpu_or_gpu);
  CHECK(NoteFor("spec.trainer.numProcPerNode", "4") ==
        " (\"4\", accepted by Trainer v2.0 to v2.1); since v2.2 an integer: write the number without quotes");
  // the value is quoted as Go quotes it, whatever it holds
  CHECK(NoteFor("spec.trainer.numProcPerNode", "a\nb\x1b") ==
        " (\"a\\nb\\x1b\", accepted by Trainer v2.0 to v2.1); since v2.2 an integer: write the number without quotes");
  CHECK(NoteFor("spec.trainer.numNodes", "auto") == "");
  CHECK(FindStringForInteger(kRuntime, "spec.trainer.numProcPerNode", "auto") == nullptr);
}

TEST_CASE("the release table's rows are well formed") {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const ReleaseChange& c : ReleaseChanges()) {
    CAPTURE(c.path);
    CHECK(c.path.starts_with("spec."));
    CHECK(!c.releases.empty());
    CHECK(c.since.starts_with("v2."));
    CHECK(!c.now.empty());
    if (c.kind == ReleaseChange::Kind::kField) CHECK(c.value.empty());
    CHECK(seen.insert({c.path, c.value}).second);  // no row is shadowed by another
  }
  CHECK(kFollowedTrainer == "Trainer main at 8c0f505, August 2026, after the v2.3.0 release, with PR #4301");
}

}  // namespace trainer
