#pragma once

#include <string>

namespace trainer::testing {

// Runs build/trainer on one case folder (input.yaml, args, current.yaml, legacy.yaml or error) and
// compares its output byte for byte; prints a unified diff on mismatch. With
// TRAINER_UPDATE_GOLDEN=1 it rewrites the expected files instead. Returns the process exit code.
int RunGoldenCase(const std::string& case_dir);

}  // namespace trainer::testing
