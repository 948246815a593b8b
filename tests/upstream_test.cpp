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

TEST_CASE("every upstream runtime and example decodes without an error") {
  std::string upstream = testing::SharedUpstreamDir();
  if (upstream.empty()) {
    MESSAGE("skipped: ../shared/upstream is absent");
    return;
  }
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
    CHECK_NOTHROW(inputs = Load(options, *fs));
    jobs += inputs.jobs.size();
    runtimes += inputs.runtimes.size();
  }
  CHECK(runtimes >= 8);
  CHECK(jobs >= 5);
}

TEST_CASE("a torch runtime fails clearly, naming the missing Torch plugin") {
  std::string upstream = testing::SharedUpstreamDir();
  if (upstream.empty()) {
    MESSAGE("skipped: ../shared/upstream is absent");
    return;
  }
  auto fs = NewRealFileSystem();
  RenderRequest request;
  request.load.paths = {upstream + "/examples/yaml/01-multi-node.yaml"};
  request.load.runtime_paths = {upstream + "/manifests/base/runtimes/torch_distributed.yaml"};
  try {
    Render(request, *fs);
    FAIL("rendering a torch runtime without the Torch plugin must fail");
  } catch (const Error& e) {
    REQUIRE(e.diagnostics().size() == 1);
    const Diagnostic& d = e.diagnostics()[0];
    CHECK(d.subject == "TrainJob default/multi-node-example");
    CHECK(d.field == "spec.runtimeRef");
    CHECK(d.message.find("ClusterTrainingRuntime torch-distributed uses spec.mlPolicy.torch") != std::string::npos);
    CHECK(d.message.find("the Torch plugin is not available") != std::string::npos);
    CHECK(d.HasLocation());
  }
}

}  // namespace trainer
