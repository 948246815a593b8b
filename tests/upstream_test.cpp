// Real inputs: the runtimes and examples shipped by upstream Kubeflow Trainer (../shared/upstream).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "input/loader.h"
#include "render/render.h"
#include "tests/shared.h"
#include "util/error.h"

namespace trainer {

namespace {

std::vector<std::string> YamlFilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("every upstream runtime and example decodes without an error" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  auto fs = NewRealFileSystem();
  std::vector<std::string> files = YamlFilesUnder(upstream + "/manifests/base/runtimes");
  std::vector<std::string> examples = YamlFilesUnder(upstream + "/examples");
  files.insert(files.end(), examples.begin(), examples.end());
  REQUIRE(files.size() >= 10);
  std::size_t jobs = 0, runtimes = 0;
  for (const std::string& file : files) {
    CAPTURE(file);
    LoadOptions options;
    options.paths = {file};
    Inputs inputs;
    inputs = Load(options, *fs);
    CHECK_NOTHROW(inputs.Checkpoint());
    jobs += inputs.jobs.size();
    runtimes += inputs.runtimes.size();
  }
  CHECK(runtimes >= 8);
  CHECK(jobs >= 5);
}

TEST_CASE("the multi-node example renders on the torch-distributed runtime" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  auto fs = NewRealFileSystem();
  RenderRequest request;
  request.load.paths = {upstream + "/examples/yaml/01-multi-node.yaml"};
  request.load.runtime_paths = {upstream + "/manifests/base/runtimes/torch_distributed.yaml"};
  StringSink sink;
  RenderTo(request, *fs, sink);
  CHECK(sink.text().find("kind: JobSet") != std::string::npos);
  CHECK(sink.text().find("- name: PET_NNODES\n                value: \"3\"") != std::string::npos);
  CHECK(sink.text().find("parallelism: 3") != std::string::npos);
}

}  // namespace trainer
