// The test binary: doctest unit tests, or one of the modes below that ctest runs (tests/CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "tests/golden.h"
#include "tests/shared.h"
#include "tests/smp_kubectl.h"

int main(int argc, char** argv) {
  // trainer_tests golden CASE_DIR [PLUGIN_ORDER]: one case of tests/cases/ (tests/cases/README.md)
  if ((argc == 3 || argc == 4) && std::strcmp(argv[1], "golden") == 0) {
    return trainer::testing::RunGoldenCase(argv[2], argc == 4 ? argv[3] : "");
  }
  // trainer_tests suite DIR: `trainer test --check` over the render cases directly under DIR
  if (argc == 3 && std::strcmp(argv[1], "suite") == 0) return trainer::testing::RunCheckSuite(argv[2]);
  // trainer_tests smp-kubectl [CASES [SEED]]
  if (argc >= 2 && argc <= 4 && std::strcmp(argv[1], "smp-kubectl") == 0) {
    return trainer::testing::RunSmpKubectl(argc >= 3 ? std::atoi(argv[2]) : 200,
                                           argc == 4 ? static_cast<unsigned>(std::atoi(argv[3])) : 20261202u);
  }
  // trainer_tests upstream [DOCTEST_OPTIONS]: the test suite "upstream", skipped as a whole without
  // ../shared/upstream.
  if (argc >= 2 && std::strcmp(argv[1], "upstream") == 0) {
    if (trainer::testing::SharedUpstreamDir().empty()) {
      std::cout << "skipped: ../shared/upstream is absent beside the checkout\n";
      return trainer::testing::kSkipped;
    }
    doctest::Context context(argc - 1, argv + 1);
    context.addFilter("test-suite", "upstream");
    return context.run();
  }
  doctest::Context context(argc, argv);
  return context.run();
}
