#include "app/trainer_files.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/fake_fs.h"

namespace trainer::app {

TEST_CASE("--skip-non-trainer keeps the .json files and the JobSets of a dump folder") {
  testing::FakeFileSystem fs;
  fs.files["dump/jobsets.yaml"] = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: j}\n";
  fs.files["dump/other-jobsets.yaml"] = "apiVersion: example.com/v1\nkind: JobSet\nmetadata: {name: j}\n";
  fs.files["dump/pods.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n";
  fs.files["dump/trainjobs.json"] =
      R"({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"}]})";
  fs.files["dump/values.json"] = R"({"replicas": 3})";
  CHECK(KeepTrainerFiles({"dump"}, fs) == std::vector<std::string>{"dump/jobsets.yaml", "dump/trainjobs.json"});
}

}  // namespace trainer::app
