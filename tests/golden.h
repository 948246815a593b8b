#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace trainer::testing {

// The golden cases: one folder each under tests/cases/. What a case holds, how its files say which
// kind it is, how it runs and the rule for changing its expected files: tests/cases/README.md.

// The exit code of a golden case that is skipped (ctest's SKIP_RETURN_CODE).
inline constexpr int kSkipped = 77;

// Whether the folder `dir` is a render case: it holds input.yaml or args, and no cmd.
bool IsRenderCase(const std::filesystem::path& dir);

// The render cases among the folders directly under `root`, sorted.
std::vector<std::filesystem::path> RenderCases(const std::filesystem::path& root);

// Runs the case folder `case_dir` as its files say, printing what differs on failure.
// `plugin_order` ("" or a TRAINER_PLUGIN_ORDER value) reruns a render case with the plugins in
// another order; a command case takes none.
int RunGoldenCase(const std::string& case_dir, const std::string& plugin_order);

// `trainer test --check` in-process over the render cases directly under `root`: the semantic
// comparison users' suites get.
int RunCheckSuite(const std::string& root);

}  // namespace trainer::testing
