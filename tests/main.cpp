// The test binary: doctest unit tests, or `trainer_tests golden CASE_DIR` for one golden case.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstring>

#include "tests/golden.h"

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "command") == 0) return trainer::testing::RunCommandCase(argv[2]);
  // trainer_tests golden CASE_DIR [PLUGIN_ORDER]
  if ((argc == 3 || argc == 4) && std::strcmp(argv[1], "golden") == 0) {
    return trainer::testing::RunGoldenCase(argv[2], argc == 4 ? argv[3] : "");
  }
  doctest::Context context(argc, argv);
  return context.run();
}
