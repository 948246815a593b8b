#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/commands.h"
#include "util/error.h"

namespace trainer::app {

namespace {

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("ParseCaseArgs reads a case's args with render's option table") {
  RenderRequest request = ParseCaseArgs({"jobs.yaml", "-r", "rt.yaml", "--runtime=more.yaml", "-nteam", "-o", "json",
                                         "-s", "JobSet/j", "--show-only=Secret", "--flux-templates", "templates",
                                         "--validate=warn"});
  CHECK(request.load.paths == Lines{"jobs.yaml"});
  CHECK(request.load.runtime_paths == Lines{"rt.yaml", "more.yaml"});
  CHECK(request.load.default_namespace == "team");
  CHECK(request.format == RenderRequest::Format::kJson);
  CHECK(request.show_only == Lines{"JobSet/j", "Secret"});
  CHECK(request.render.flux_templates_dir == "templates");
  CHECK(request.load.validate == ValidationMode::kWarn);
  CHECK(request.render.validate == ValidationMode::kWarn);
}

TEST_CASE("ParseCaseArgs rejects --legacy, random keys, stdin, unknown options and missing values") {
  auto problem = [](const Lines& tokens) {
    try {
      ParseCaseArgs(tokens);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(problem({"--legacy"}) ==
        "args: --legacy must not be in args: trainer test renders every case both ways, into "
        "current.yaml and legacy.yaml");
  CHECK(
      problem({"--generate-ssh-keys"}) ==
      "args: --generate-ssh-keys cannot be used in a test case: its keys are random, no expected file can match them");
  CHECK(problem({"-"}) == "args: - (standard input) cannot be used in a test case");
  CHECK(problem({"--verbose"}) == "args: unknown option --verbose");
  // What `trainer render` says of the same arguments.
  CHECK(problem({"-o", "xml"}) == "args: --output: xml not in {yaml,json,name}");
  CHECK(problem({"-o", "name"}) == "args: -o name cannot be used in a test case: the objects are compared");
  CHECK(problem({"--validate", "loose"}) == "args: --validate: loose not in {strict,warn,ignore,true,false}");
  CHECK(problem({"a.yaml", "-r"}) == "args: --runtime: 1 required PATH missing");
  CHECK(problem({"-q"}) == "args: --quiet cannot be used in a test case: the rendering is compared, so it must be printed");
  CHECK(problem({"--skip-non-trainer"}) ==
        "args: --skip-non-trainer cannot be used in a test case: a case's files are its inputs, all of them");
  CHECK(problem({"--probe"}) == "args: --probe cannot be used in a test case: a case renders its TrainJobs");
  CHECK(problem({"--allow-empty"}) ==
        "args: --allow-empty cannot be used in a test case: a case renders its TrainJobs");
  CHECK(problem({"--explain", "-o", "json"}) == "args: --explain works with -o yaml only");
  CHECK(problem({"--explain", "-o", "name"}) ==
        "args: -o name cannot be used in a test case: the objects are compared");
}

}  // namespace trainer::app
