#include "api/releases.h"

#include <doctest/doctest.h>

#include <set>

#include "tests/shared.h"

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

// The schema of the field at `path` ("[]": a list's items) in `schema`, or nullptr.
const Tree* SchemaAt(const Tree& schema, std::string_view path) {
  const Tree* node = &schema;
  while (!path.empty() && node != nullptr) {
    const std::size_t dot = path.find('.');
    std::string_view segment = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    const bool items = segment.ends_with("[]");
    if (items) segment.remove_suffix(2);
    const Tree* properties = node->Find("properties");
    node = properties == nullptr ? nullptr : properties->Find(std::string(segment));
    if (items && node != nullptr) node = node->Find("items");
  }
  return node;
}

}  // namespace

TEST_CASE("the release table agrees with the CRDs trainer follows" * doctest::test_suite("upstream")) {
  const std::string crds = testing::RequireSharedUpstreamDir() + "/manifests/base/crds/";
  const std::string job_file = crds + "trainer.kubeflow.org_trainjobs.yaml";
  const std::string runtime_file = crds + "trainer.kubeflow.org_trainingruntimes.yaml";
  const std::string cluster_file = crds + "trainer.kubeflow.org_clustertrainingruntimes.yaml";
  const Tree job = testing::CrdSchema(job_file);
  const Tree runtime = testing::CrdSchema(runtime_file);
  const Tree cluster = testing::CrdSchema(cluster_file);
  for (const ReleaseChange& c : ReleaseChanges()) {
    CAPTURE(c.path);
    for (const Tree* schema : c.scope == kJob ? std::vector<const Tree*>{&job} : std::vector{&runtime, &cluster}) {
      const std::string_view parent = c.path.substr(0, c.path.find_last_of('.'));
      REQUIRE(SchemaAt(*schema, parent) != nullptr);  // the row names a place that still exists
      const Tree* field = SchemaAt(*schema, c.path);
      if (c.kind == ReleaseChange::Kind::kField) {
        CHECK(field == nullptr);  // and a field that is gone from it
      } else {
        REQUIRE(field != nullptr);  // or a field that is there, and takes integers only
        CHECK(*field->FindString("type") == "integer");
      }
    }
  }
}

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
        "unknown field \"workloadRef\" (Trainer v2.2.0); since v2.2.1 use schedulingGroup: {podGroupName: NAME} (the "
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
