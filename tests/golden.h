#pragma once

#include <string>
#include <vector>

namespace trainer::testing {

// The exit code of a golden case that is skipped (ctest's SKIP_RETURN_CODE).
inline constexpr int kSkipped = 77;

// Runs one case folder of testdata/ in-process, through lib/suite as `trainer test` does, but
// compared byte for byte (SuiteOptions::exact), printing a unified diff on mismatch; with
// TRAINER_UPDATE_GOLDEN=1 it rewrites the expected files instead (SuiteMode::kUpdate). A case holds
// `input.yaml` and/or `args` (extra arguments, paths relative to the repository root), and
// `current.yaml`, with `legacy.yaml` where the rendering with --legacy differs from it, or `error`
// (text the error message must contain, so never empty). Cases whose args name files under
// ../shared are skipped when ../shared is absent.
//
// `plugin_order` ("" or a TRAINER_PLUGIN_ORDER value) reruns the case with the plugins in another
// order: the output must not change, unless the case has a file `order-dependent` explaining why
// it does, and then it must change (so the note stays true).
int RunGoldenCase(const std::string& case_dir, const std::string& plugin_order);

// `trainer test --check DIR...` in-process: the semantic comparison users' suites get.
int RunCheckSuite(const std::vector<std::string>& dirs);

// Runs one command case: a folder under tests/cases/ holding `cmd` (the arguments after `trainer`,
// whitespace-separated, paths relative to the repository root), `stdout` (the expected standard
// output, byte for byte; an empty file: nothing), optionally `stderr` (text standard error must
// contain, never empty) and `exit` (the expected exit code, 0 when absent). TRAINER_UPDATE_GOLDEN=1 rewrites `stdout` and `exit`. Cases
// whose cmd names files under ../shared are skipped when ../shared is absent.
int RunCommandCase(const std::string& case_dir);

}  // namespace trainer::testing
