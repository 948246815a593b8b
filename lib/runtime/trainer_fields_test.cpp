#include "runtime/trainer_fields.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "api/decode.h"
#include "api/defaults.h"
#include "yaml/reader.h"

namespace trainer {
namespace {

const std::string kFile = "in.yaml";

// The runtime (first document) with `rjobs` as its replicatedJobs, the TrainJob (second) with
// `trainer` as its spec.trainer and `extra` more of its spec.
std::vector<std::string> Warnings(const std::string& rjobs, const std::string& trainer, const std::string& extra = "",
                                  const std::string& ml_policy = "") {
  const std::string text = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt}\n"
                           "spec:\n" + ml_policy + "  template:\n    spec:\n      replicatedJobs: " + rjobs +
                           "\n---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j, namespace: ns}\n"
                           "spec:\n  runtimeRef: {name: rt}\n  trainer: " + trainer + "\n" + extra;
  std::vector<Tree> docs = ReadYamlStream(text, &kFile);
  ApplyDefaults(docs.at(0), DefaultRule::Scope::kRuntime);
  ApplyDefaults(docs.at(1), DefaultRule::Scope::kTrainJob);
  const Runtime runtime = DecodeRuntime(docs[0]);
  const TrainJob job = DecodeTrainJob(docs[1]);
  std::vector<std::string> out;
  for (const Diagnostic& d : UnreceivedTrainerFields(job, runtime)) out.push_back(d.Format());
  return out;
}

// The warning's text after the field, up to the likely cause.
const std::string kDropped =
    "no container receives it, and the controller drops it: ClusterTrainingRuntime rt has no replicatedJob labelled "
    "trainer.kubeflow.org/trainjob-ancestor-step: trainer with a \"node\" container";

std::string Job(const std::string& label, const std::string& container) {
  return "[{name: node, template: {metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: " + label +
         "}}, spec: {template: {spec: {containers: [{name: " + container + ", image: x}]}}}}}]";
}

const std::string kTrainers = "; replicatedJob \"node\" is labelled \"trainers\": did you mean \"trainer\"?";

TEST_CASE("spec.trainer fields no container receives draw a warning each, naming the runtime and the likely cause") {
  CHECK(Warnings(Job("trainers", "node"), "{image: i, command: [c], args: [a], env: [{name: A, value: b}]}") ==
        std::vector<std::string>{
            "in.yaml:14:13: TrainJob ns/j: spec.trainer.image: " + kDropped + kTrainers,
            "in.yaml:14:23: TrainJob ns/j: spec.trainer.command: " + kDropped + kTrainers,
            "in.yaml:14:37: TrainJob ns/j: spec.trainer.args: " + kDropped + kTrainers,
            "in.yaml:14:48: TrainJob ns/j: spec.trainer.env: " + kDropped + kTrainers});
  CHECK(Warnings(Job("trainer", "worker"), "{image: i}") ==
        std::vector<std::string>{"in.yaml:14:13: TrainJob ns/j: spec.trainer.image: " + kDropped +
                                 "; its trainer job \"node\" has no container named \"node\" (containers \"worker\")"});
  // A label far from "trainer" is no likely cause.
  CHECK(Warnings(Job("launcher", "node"), "{args: [a]}") ==
        std::vector<std::string>{"in.yaml:14:13: TrainJob ns/j: spec.trainer.args: " + kDropped});
}

TEST_CASE("no warning when a container receives the fields, or the TrainJob sets none of them") {
  CHECK(Warnings(Job("trainer", "node"), "{image: i, command: [c], args: [a], env: [{name: A, value: b}]}").empty());
  // A runtime patch that labels the job makes it the trainer's.
  CHECK(Warnings(Job("trainers", "node"), "{image: i}",
                 "  runtimePatches: [{manager: acme.io/m, trainingRuntimeSpec: {template: {spec: {replicatedJobs: "
                 "[{name: node, template: {metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}}}]}}}}]\n")
            .empty());
  // With the MPI launcher as a node, env goes to the node job's node container too.
  CHECK(Warnings(Job("launcher", "node"), "{env: [{name: A, value: b}]}", "",
                 "  mlPolicy: {mpi: {runLauncherAsNode: true}}\n")
            .empty());
}

TEST_CASE("numNodes, numProcPerNode and resourcesPerNode no job receives draw a warning each") {
  const std::string node_job =
      "no replicatedJob receives it, and the controller drops it: ClusterTrainingRuntime rt "
      "has no replicatedJob labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer";
  CHECK(
      Warnings(Job("trainers", "node"), "{numNodes: 2, numProcPerNode: 4, resourcesPerNode: {limits: {cpu: 2}}}") ==
      std::vector<std::string>{"in.yaml:14:13: TrainJob ns/j: spec.trainer.numNodes: " + node_job + kTrainers,
                               "in.yaml:14:26: TrainJob ns/j: spec.trainer.numProcPerNode: " + kDropped + kTrainers,
                               "in.yaml:14:45: TrainJob ns/j: spec.trainer.resourcesPerNode: " + kDropped + kTrainers});
  // A trainer job without a node container still takes numNodes as its count.
  CHECK(Warnings(Job("trainer", "worker"), "{numNodes: 2, numProcPerNode: 4}") ==
        std::vector<std::string>{"in.yaml:14:26: TrainJob ns/j: spec.trainer.numProcPerNode: " + kDropped +
                                 "; its trainer job \"node\" has no container named \"node\" (containers \"worker\")"});
}

TEST_CASE("MPI and Flux take numNodes, numProcPerNode and resourcesPerNode without a trainer job") {
  const std::string fields = "{numNodes: 2, numProcPerNode: 4, resourcesPerNode: {limits: {cpu: 2}}}";
  // MPI counts the job named node and writes the slots into the hostfile.
  CHECK(Warnings(Job("launcher", "node"), fields, "", "  mlPolicy: {mpi: {}}\n").empty());
  // Flux writes all three into its entrypoint.
  CHECK(Warnings(Job("trainers", "node"), fields, "", "  mlPolicy: {flux: {}}\n").empty());
  // Without a job named node, MPI counts none.
  CHECK(Warnings("[{name: worker}]", "{numNodes: 2}", "", "  mlPolicy: {mpi: {}}\n") ==
        std::vector<std::string>{
            "in.yaml:15:13: TrainJob ns/j: spec.trainer.numNodes: no replicatedJob receives it, and the controller "
            "drops it: ClusterTrainingRuntime rt has no replicatedJob labelled "
            "trainer.kubeflow.org/trainjob-ancestor-step: trainer"});
}

TEST_CASE("numNodes 0 draws a warning that no training pods run") {
  CHECK(Warnings(Job("trainer", "node"), "{numNodes: 0}") ==
        std::vector<std::string>{"in.yaml:14:13: TrainJob ns/j: spec.trainer.numNodes: is 0, which is valid: the "
                                 "controller starts no training pods"});
  CHECK(Warnings(Job("launcher", "node"), "{numNodes: 0}", "", "  mlPolicy: {mpi: {}}\n") ==
        std::vector<std::string>{"in.yaml:15:13: TrainJob ns/j: spec.trainer.numNodes: is 0, which is valid: the "
                                 "controller starts the MPI launcher and no node pods"});
  // Under runLauncherAsNode, MPI keeps one node.
  CHECK(
      Warnings(Job("launcher", "node"), "{numNodes: 0}", "", "  mlPolicy: {mpi: {runLauncherAsNode: true}}\n").empty());
  CHECK(Warnings(Job("trainer", "node"), "{numNodes: 1}").empty());
}

}  // namespace
}  // namespace trainer
