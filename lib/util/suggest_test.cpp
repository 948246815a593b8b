#include "util/suggest.h"

#include <doctest/doctest.h>

#include <string_view>

namespace trainer {

namespace {

constexpr std::string_view kCommands[] = {"render", "diff", "plugins", "test", "version"};

}  // namespace

TEST_CASE("the nearest word is suggested within two edits, case aside") {
  CHECK(Nearest("rendr", kCommands) == "render");    // a deletion
  CHECK(Nearest("rednre", kCommands) == "render");   // two swaps
  CHECK(Nearest("DIFF", kCommands) == "diff");       // case only
  CHECK(Nearest("vresion", kCommands) == "version");  // a swap of neighbours counts once
  CHECK(Nearest("tset", kCommands) == "test");
  CHECK(Nearest("plugin", kCommands) == "plugins");  // an insertion
}

TEST_CASE("nothing is suggested when no word is close") {
  CHECK_FALSE(Nearest("apply", kCommands).has_value());
  CHECK_FALSE(Nearest("xyz", kCommands).has_value());
  CHECK_FALSE(Nearest("d", kCommands).has_value());  // two edits would rewrite the whole word
  CHECK_FALSE(Nearest("", kCommands).has_value());
}

}  // namespace trainer
