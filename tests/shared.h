// Where the upstream reference data lies (../shared beside the checkout), for tests that read it.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "yaml/reader.h"

namespace trainer::testing {

// The ../shared/upstream folder, or "" when it is absent (a clone of the project alone).
inline std::string SharedUpstreamDir() {
  std::filesystem::path dir = std::filesystem::path(TRAINER_SOURCE_DIR).parent_path() / "shared" / "upstream";
  return std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

// The ../shared/upstream folder, for the tests of the doctest test suite "upstream": ctest runs
// them as `trainer_tests upstream`, a whole-test skip without it; run otherwise, they fail without it.
inline std::string RequireSharedUpstreamDir() {
  std::string dir = SharedUpstreamDir();
  REQUIRE_MESSAGE(!dir.empty(), "../shared/upstream is absent beside the checkout");
  return dir;
}

// The openAPIV3Schema of the first version of the CRD in `file`. `file` names positions in the
// returned tree and must outlive it.
inline Tree CrdSchema(const std::string& file) {
  std::ifstream in(file);
  std::stringstream content;
  content << in.rdbuf();
  std::vector<Tree> docs = ReadYamlStream(content.str(), &file);
  REQUIRE(docs.size() == 1);
  return *docs[0].Find("spec")->Find("versions")->items()[0].Find("schema")->Find("openAPIV3Schema");
}

}  // namespace trainer::testing
