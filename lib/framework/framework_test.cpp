#include "framework/framework.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "plugins/registry.h"
#include "util/error.h"

namespace trainer {

namespace {

std::vector<std::string> Names(const std::string& order) {
  RenderOptions options;
  options.plugin_order = order;
  std::vector<std::string> names;
  for (const auto& row : Framework(PluginRegistry(), options).Plugins()) names.push_back(row.name);
  return names;
}

}  // namespace

TEST_CASE("the plugins run in registry order, reversed, or rotated by any number of places") {
  const std::vector<std::string> registry = Names("");
  REQUIRE(registry.size() > 2);
  std::vector<std::string> reversed(registry.rbegin(), registry.rend());
  CHECK(Names("reversed") == reversed);
  std::vector<std::string> rotated(registry.begin() + 1, registry.end());
  rotated.push_back(registry.front());
  CHECK(Names("rotated:1") == rotated);
  CHECK(Names("rotated:0") == registry);
  CHECK(Names("rotated:" + std::to_string(registry.size() + 1)) == rotated);
  // A number of any size: only its remainder counts.
  CHECK(Names("rotated:" + std::string(40, '9')).size() == registry.size());
}

TEST_CASE("any other plugin order is refused with one message") {
  for (const std::string order : {"rotated:x", "rotated:-1", "rotated:", "rotated:1x", "rotated: 1", "Reversed", "r"}) {
    CAPTURE(order);
    try {
      Names(order);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) ==
            "unknown plugin order \"" + order + "\": expected reversed or rotated:N, N a number of 0 or more");
    }
  }
}

}  // namespace trainer
