#include "api/releases.h"

#include <fmt/format.h>

#include "util/quote.h"

namespace trainer {

namespace {

using Kind = ReleaseChange::Kind;
constexpr SchemaScope kJob = SchemaScope::kTrainJob;
constexpr SchemaScope kRuntime = SchemaScope::kRuntime;

// What to write now for numProcPerNode's "cpu" and "gpu".
constexpr std::string_view kCountOrAuto =
    "an integer: the number of processes per node, or leave it out for Torch's auto (one per GPU, else one per CPU)";

constexpr ReleaseChange kChanges[] = {
    {Kind::kField, kJob, "spec.podSpecOverrides", "", "v2.0", "v2.2",
     "use spec.runtimePatches (podTemplateOverrides in v2.1): an override {targetJobs: [{name: JOB}], FIELDS} is now "
     "{manager: NAME, "
     "trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: JOB, template: {spec: {template: {spec: "
     "{FIELDS}}}}}]}}}}"},
    {Kind::kField, kJob, "spec.podTemplateOverrides", "", "v2.1", "v2.2",
     "use spec.runtimePatches: an override {targetJobs: [{name: JOB}], metadata: M, spec: S} is now {manager: NAME, "
     "trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: JOB, template: {spec: {template: {metadata: M, "
     "spec: S}}}}]}}}}"},
    {Kind::kField, kJob, "spec.labels", "", "v2.0 to v2.1", "v2.2",
     "use spec.runtimePatches: {manager: NAME, trainingRuntimeSpec: {template: {metadata: {labels: L}}}} labels the "
     "JobSet, and its spec.replicatedJobs[].template.metadata.labels a Job"},
    {Kind::kField, kJob, "spec.annotations", "", "v2.0 to v2.1", "v2.2",
     "use spec.runtimePatches: {manager: NAME, trainingRuntimeSpec: {template: {metadata: {annotations: A}}}} "
     "annotates the JobSet, and its spec.replicatedJobs[].template.metadata.annotations a Job"},
    {Kind::kString, kJob, "spec.trainer.numProcPerNode", "auto", "v2.0 to v2.1", "v2.2",
     "an integer: leave it out for Torch's auto, its default"},
    {Kind::kString, kJob, "spec.trainer.numProcPerNode", "cpu", "v2.0 to v2.1", "v2.2", kCountOrAuto},
    {Kind::kString, kJob, "spec.trainer.numProcPerNode", "gpu", "v2.0 to v2.1", "v2.2", kCountOrAuto},
    {Kind::kString, kJob, "spec.trainer.numProcPerNode", "", "v2.0 to v2.1", "v2.2",
     "an integer: write the number without quotes"},
    {Kind::kField, kRuntime, "spec.mlPolicy.torch.numProcPerNode", "", "v2.0 to v2.1", "v2.2",
     "leave it out: a TrainJob sets spec.trainer.numProcPerNode (an integer), and Torch's auto is the default"},
    {Kind::kField, kRuntime, "spec.mlPolicy.torch.elasticPolicy", "", "v2.0 to v2.1", "v2.2",
     "leave it out: elastic Torch training was removed; set spec.mlPolicy.numNodes"},
    {Kind::kField, kRuntime, "spec.template.spec.replicatedJobs[].template.spec.template.spec.workloadRef", "",
     "v2.2.0", "v2.2.1", "use schedulingGroup: {podGroupName: NAME} (the Kubernetes 1.36 Pod API)"},
};

// Whether `path` is `pattern` with each "[]" of the pattern standing for a list index "[0]".
bool PathMatches(std::string_view pattern, std::string_view path) {
  while (true) {
    const std::size_t open = pattern.find("[]");
    if (open == std::string_view::npos) return pattern == path;
    if (path.substr(0, open + 1) != pattern.substr(0, open + 1)) return false;
    path.remove_prefix(open + 1);
    pattern.remove_prefix(open + 2);
    std::size_t digits = 0;
    while (digits < path.size() && path[digits] >= '0' && path[digits] <= '9') ++digits;
    if (digits == 0 || digits == path.size() || path[digits] != ']') return false;
    path.remove_prefix(digits + 1);
  }
}

}  // namespace

std::span<const ReleaseChange> ReleaseChanges() { return kChanges; }

const ReleaseChange* FindRemovedField(SchemaScope scope, std::string_view path) {
  for (const ReleaseChange& c : kChanges) {
    if (c.kind == Kind::kField && c.scope == scope && PathMatches(c.path, path)) return &c;
  }
  return nullptr;
}

const ReleaseChange* FindStringForInteger(SchemaScope scope, std::string_view path, std::string_view value) {
  for (const ReleaseChange& c : kChanges) {
    if (c.kind != Kind::kString || c.scope != scope || !PathMatches(c.path, path)) continue;
    if (c.value.empty() || c.value == value) return &c;  // the row for any other value comes last
  }
  return nullptr;
}

std::string RemovedFieldMessage(const ReleaseChange& change) {
  const std::string_view field = change.path.substr(change.path.find_last_of('.') + 1);
  return fmt::format("unknown field \"{}\" (Trainer {}); since {} {}", field, change.releases, change.since,
                     change.now);
}

std::string StringForIntegerNote(const ReleaseChange& change, std::string_view value) {
  return fmt::format(" ({}, accepted by Trainer {}); since {} {}", GoQuote(value), change.releases, change.since,
                     change.now);
}

}  // namespace trainer
