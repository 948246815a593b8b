// Where the upstream reference data lies (../shared beside the checkout), for tests that read it.
#pragma once

#include <filesystem>
#include <string>

namespace trainer::testing {

// The ../shared/upstream folder, or "" when it is absent (a clone of the project alone).
inline std::string SharedUpstreamDir() {
  std::filesystem::path dir = std::filesystem::path(TRAINER_SOURCE_DIR).parent_path() / "shared" / "upstream";
  return std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

}  // namespace trainer::testing
