#include "util/strings.h"

#include <doctest/doctest.h>

namespace trainer {

TEST_CASE("Split keeps empty parts: n separators give n + 1 parts") {
  using Parts = std::vector<std::string_view>;
  CHECK(Split("a,b,c", ',') == Parts{"a", "b", "c"});
  CHECK(Split("a,,b,", ',') == Parts{"a", "", "b", ""});
  CHECK(Split("", ',') == Parts{""});
  CHECK(Split("abc", ',') == Parts{"abc"});
}

}  // namespace trainer
