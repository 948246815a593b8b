// The commands of the `trainer` executable: each sets up its options on a CLI11 subcommand and
// returns the function that runs it and gives the exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "render/render.h"

namespace trainer::app {

using Run = std::function<int()>;

Run SetupRender(CLI::App& command);
Run SetupDiff(CLI::App& command);
Run SetupPlugins(CLI::App& command);
Run SetupTest(CLI::App& command);

// -R/--recursive, as kubectl users type it: accepted and changing nothing, as trainer always reads
// directories recursively.
inline void AddRecursiveFlag(CLI::App& command) {
  command.add_flag("-R,--recursive")
      ->description(
          "Accepted as kubectl takes it: directories are always read recursively, where kubectl reads only their top "
          "level without -R");
}

// A golden case's `args`, read with `trainer render`'s option table into what they ask to render.
// Throws Error ("args: ...") for what a case cannot use: options that are not render's, stdin,
// --legacy (both renderings are always made), --generate-ssh-keys (random), --output-dir, --quiet
// and --skip-non-trainer.
RenderRequest ParseCaseArgs(const std::vector<std::string>& args);

// Opens each of the descriptors 0, 1 and 2 that is closed on /dev/null, remembering whether 1 was.
void GuardStandardDescriptors();
// Whether standard output was closed when trainer started.
bool StdoutClosed();

// Writes `text` to standard output and flushes it; throws Error naming the reason when it cannot
// (also when standard output was closed at the start: "Bad file descriptor").
void WriteStdout(std::string_view text);

// Prints every diagnostic of `e` on stderr, one per line.
void PrintError(const std::exception& e);

}  // namespace trainer::app
