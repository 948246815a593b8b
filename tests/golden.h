#pragma once

#include <string>

namespace trainer::testing {

// The exit code of a golden case that is skipped (ctest's SKIP_RETURN_CODE).
inline constexpr int kSkipped = 77;

// Runs build/trainer on one case folder and compares its output byte for byte, printing a unified
// diff on mismatch; with TRAINER_UPDATE_GOLDEN=1 it rewrites the expected files instead. A case
// holds `input.yaml` and/or `args` (extra arguments, paths relative to the repository root), and
// `current.yaml` + `legacy.yaml`, or `error` (text stderr must contain; stdout must stay empty).
// Cases whose args name files under ../shared are skipped when ../shared is absent.
//
// `plugin_order` ("" or a TRAINER_PLUGIN_ORDER value) reruns the case with the plugins in another
// order: the output must not change, unless the case has a file `order-dependent` explaining why
// it does, and then it must change (so the note stays true).
int RunGoldenCase(const std::string& case_dir, const std::string& plugin_order);

// Runs one command case: a folder under tests/cases/ holding `cmd` (the arguments after `trainer`,
// whitespace-separated, paths relative to the repository root), `stdout` (the expected standard
// output, byte for byte), optionally `stderr` (text standard error must contain) and `exit` (the
// expected exit code, 0 when absent). TRAINER_UPDATE_GOLDEN=1 rewrites `stdout` and `exit`. Cases
// whose cmd names files under ../shared are skipped when ../shared is absent.
int RunCommandCase(const std::string& case_dir);

}  // namespace trainer::testing
