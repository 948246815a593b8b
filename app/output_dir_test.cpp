#include "app/output_dir.h"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "render/render.h"
#include "tests/fake_file_writer.h"
#include "tests/fake_fs.h"
#include "util/error.h"

namespace trainer::app {

namespace {

using Files = std::map<std::string, std::string>;
using testing::FakeFileWriter;

// The runtime of examples/quickstart.yaml, its first document.
std::string QuickstartRuntime() {
  std::ifstream in(std::string(TRAINER_SOURCE_DIR) + "/examples/quickstart.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().substr(0, text.str().find("\n---\n") + 1);
}

// That runtime and TrainJobs a, b and c in namespace ml, one JobSet each.
testing::FakeFileSystem ThreeJobs() {
  testing::FakeFileSystem fs;
  std::string text = QuickstartRuntime();
  for (const char* name : {"a", "b", "c"}) {
    text += fmt::format(
        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {}\n  namespace: ml\n"
        "spec:\n  runtimeRef:\n    name: python-plain\n",
        name);
  }
  fs.files["jobs.yaml"] = text;
  return fs;
}

RenderRequest JobsRequest() {
  RenderRequest request;
  request.load.paths = {"jobs.yaml"};
  return request;
}

// The message of what `f` throws, "" when it throws nothing.
template <typename F>
std::string MessageOf(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string JobSetFile(const char* name) { return fmt::format("out/jobset.x-k8s.io_v1alpha2_JobSet_ml_{}.yaml", name); }

}  // namespace

TEST_CASE("--output-dir writes each object under a temporary name and renames all at the end") {
  auto fs = ThreeJobs();
  FakeFileWriter writer;
  writer.files = {{"out/mine.txt", "mine"}, {JobSetFile("b"), "old b"}};
  {
    DirSink sink("out", writer);
    RenderTo(JobsRequest(), fs, sink);
    CHECK(writer.files.size() == 5);
    CHECK(writer.files.count("out/.jobset.x-k8s.io_v1alpha2_JobSet_ml_a.yaml.trainer-000001") == 1);
    CHECK(writer.files.at(JobSetFile("b")) == "old b");
    sink.Commit();
  }
  CHECK(writer.files.size() == 4);
  CHECK(writer.files.at("out/mine.txt") == "mine");
  CHECK(writer.files.at(JobSetFile("b")).find("kind: JobSet") != std::string::npos);
}

TEST_CASE("a full disk ends an --output-dir render with one message, not one per TrainJob") {
  auto fs = ThreeJobs();
  FakeFileWriter writer;
  writer.fail_write = 0;
  std::string message;
  {
    DirSink sink("out", writer);
    message = MessageOf([&] { RenderTo(JobsRequest(), fs, sink); });
  }
  CHECK(message ==
        "--output-dir out: " + JobSetFile("a") + ": cannot write: No space left on device; no file was replaced");
  CHECK(writer.writes == 1);
  CHECK(writer.files.empty());
  CHECK(writer.others.empty());  // the folder it made is removed
}

TEST_CASE("--output-dir replaces nothing when a destination is a folder or a symbolic link, naming each") {
  auto fs = ThreeJobs();
  FakeFileWriter writer;
  writer.files = {{JobSetFile("a"), "old a"}};
  writer.others = {{"out", FileWriter::Kind::kDirectory},
                   {JobSetFile("b"), FileWriter::Kind::kSymlink},
                   {JobSetFile("c"), FileWriter::Kind::kDirectory}};
  DirSink sink("out", writer);
  RenderTo(JobsRequest(), fs, sink);
  std::string message = MessageOf([&] { sink.Commit(); });
  CHECK(message == "--output-dir out: " + JobSetFile("b") +
                       ": is a symbolic link, which trainer does not replace; no file was replaced\n"
                       "--output-dir out: " +
                       JobSetFile("c") + ": is a folder; no file was replaced");
  CHECK(writer.files == Files{{JobSetFile("a"), "old a"}});
}

TEST_CASE("a rename that fails in --output-dir removes every temporary file and names the files replaced") {
  auto fs = ThreeJobs();
  FakeFileWriter writer;
  writer.files = {{"out/mine.txt", "mine"}};
  writer.fail_rename = 1;
  DirSink sink("out", writer);
  RenderTo(JobsRequest(), fs, sink);
  std::string message = MessageOf([&] { sink.Commit(); });
  CHECK(message == "--output-dir out: " + JobSetFile("b") +
                       ": cannot rename out/.jobset.x-k8s.io_v1alpha2_JobSet_ml_b.yaml.trainer-000002 to it: "
                       "Input/output error; 1 of 3 files were replaced (" +
                       JobSetFile("a") + "), each file is whole (old or new)");
  CHECK(writer.files.size() == 2);
  CHECK(writer.files.count(JobSetFile("a")) == 1);
  CHECK(writer.files.at("out/mine.txt") == "mine");
}

TEST_CASE("--output-dir writes a Secret's file for its owner only, every other file as any new file") {
  testing::FakeFileSystem fs;
  std::ifstream in(std::string(TRAINER_SOURCE_DIR) + "/tests/mpi_runtime.yaml");
  std::ostringstream runtime;
  runtime << in.rdbuf();
  fs.files["jobs.yaml"] = runtime.str() +
                          "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: a\n"
                          "  namespace: ml\nspec:\n  runtimeRef:\n    name: openmpi\n";
  FakeFileWriter writer;
  DirSink sink("out", writer);
  RenderTo(JobsRequest(), fs, sink);
  std::map<std::string, FileAccess> want = {{"out/v1_ConfigMap_ml_a-mpi-hostfile.yaml", FileAccess::kShared},
                                            {"out/v1_Secret_ml_a-mpi-ssh-auth.yaml", FileAccess::kPrivate},
                                            {JobSetFile("a"), FileAccess::kShared}};
  CHECK(writer.access == want);
}

TEST_CASE("two objects of one --output-dir file name are an error before anything is renamed") {
  FakeFileWriter writer;
  DirSink sink("out", writer);
  sink.File("v1_Secret_ml_x.yaml", "one", FileAccess::kPrivate);
  std::string message = MessageOf([&] { sink.File("v1_Secret_ml_x.yaml", "two", FileAccess::kPrivate); });
  CHECK(message == "--output-dir out: out/v1_Secret_ml_x.yaml: two objects have this file name; no file was replaced");
}

}  // namespace trainer::app
