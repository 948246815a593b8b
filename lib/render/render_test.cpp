#include "render/render.h"

#include <doctest/doctest.h>

#include <string>

#include "plugins/mpi.h"
#include "tests/fake_fs.h"
#include "util/error.h"

namespace trainer {
namespace {

constexpr const char* kMPIRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: openmpi
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      numProcPerNode: 4
  template:
    spec:
      replicatedJobs:
        - name: launcher
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: mpi/launcher:1
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: mpi/worker:1
)";

std::string MPIJob(const std::string& name, int num_nodes) {
  return "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
         "\nspec:\n  runtimeRef:\n    name: openmpi\n  trainer:\n    numNodes: " + std::to_string(num_nodes) + "\n";
}

std::string RenderError(testing::FakeFileSystem& fs, const RenderRequest& request) {
  StringSink sink;
  try {
    RenderTo(request, fs, sink);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("a render past the output size limit fails at the numNodes of the TrainJob that crossed it") {
  testing::FakeFileSystem fs;
  fs.files["runtime.yaml"] = kMPIRuntime;
  fs.files["jobs.yaml"] = MPIJob("small", 2) + MPIJob("large", 3000) + MPIJob("after", 2);
  RenderRequest request;
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  StringSink whole;
  RenderTo(request, fs, whole);
  fs.files["small.yaml"] = MPIJob("small", 2);
  request.load.paths = {"runtime.yaml", "small.yaml"};
  StringSink first;
  RenderTo(request, fs, first);
  // The limit is crossed by the second TrainJob: the render ends there.
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  request.render.max_output_bytes = first.text().size() + 100;
  CHECK(RenderError(fs, request) == "jobs.yaml:20:5: TrainJob default/large: spec.trainer.numNodes: output larger than " +
                                        std::to_string(first.text().size() + 100) + " bytes (output size limit)");
  request.render.max_output_bytes = whole.text().size();
  CHECK(RenderError(fs, request) == "no error");
}

TEST_CASE("an MPI hostfile stops growing past the output size limit") {
  // numNodes of a few bytes can ask for gigabytes of hostfile: the rendering fails instead.
  testing::FakeFileSystem fs;
  fs.files["runtime.yaml"] = kMPIRuntime;
  fs.files["jobs.yaml"] = MPIJob("huge", 2'000'000'000);
  RenderRequest request;
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  request.render.max_output_bytes = 100'000;
  CHECK(RenderError(fs, request) ==
        "jobs.yaml:10:5: TrainJob default/huge: spec.trainer.numNodes: output larger than 100000 bytes (output size limit)");

  PodSet nodes;
  nodes.name = "node";
  nodes.count = 1'000'000;
  nodes.endpoints = EndpointSource{"job", "node", 1, "job"};
  // Its size is known before a line is written: "job-node-0-<pod>.job slots=4\n" for 0 to 999999.
  const std::size_t size = 1'000'000 * 24 + 10 * 1 + 90 * 2 + 900 * 3 + 9'000 * 4 + 90'000 * 5 + 900'000 * 6;
  CHECK_FALSE(plugins::MPIHostFile({nodes}, false, 4, size - 1));
  CHECK(plugins::MPIHostFile({nodes}, false, 4, size)->size() == size);
}

TEST_CASE("diff's renderings count against the output size limit each") {
  testing::FakeFileSystem fs;
  fs.files["runtime.yaml"] = kMPIRuntime;
  fs.files["jobs.yaml"] = MPIJob("a", 2000);
  LoadOptions load;
  load.paths = {"runtime.yaml", "jobs.yaml"};
  Inputs inputs = Load(load, fs);
  inputs.Checkpoint();
  RenderOptions options;
  CHECK(RenderJobs(inputs, options, nullptr).size() == 1);
  options.max_output_bytes = 10'000;
  try {
    RenderJobs(inputs, options, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "jobs.yaml:10:5: TrainJob default/a: spec.trainer.numNodes: output larger than 10000 bytes (output size limit)");
  }
}

}  // namespace
}  // namespace trainer
