#include "util/go_format.h"

#include <doctest/doctest.h>

#include <vector>

#include "util/error.h"

namespace trainer {

namespace {

std::string Sprintf(std::string_view format, std::vector<std::string> args) { return GoSprintf(format, args, "t"); }

}  // namespace

TEST_CASE("GoSprintf fills %s and %v in order and keeps text around them") {
  CHECK(Sprintf("a=%s b=%v\n", {"1", "two"}) == "a=1 b=two\n");
  CHECK(Sprintf("no directives\n", {}) == "no directives\n");
  CHECK(Sprintf("%s%s", {"", "x"}) == "x");
}

TEST_CASE("GoSprintf writes %% as a percent sign without taking an argument") {
  CHECK(Sprintf("100%% of %s", {"it"}) == "100% of it");
}

TEST_CASE("GoSprintf marks missing and extra arguments as Go does") {
  CHECK(Sprintf("%s and %s", {"one"}) == "one and %!s(MISSING)");
  CHECK(Sprintf("%s", {"one", "two", "three"}) == "one%!(EXTRA string=two, string=three)");
}

TEST_CASE("GoSprintf marks a trailing percent sign as NOVERB") { CHECK(Sprintf("50%", {}) == "50%!(NOVERB)"); }

TEST_CASE("GoSprintf marks verbs a string does not take, and takes their argument") {
  CHECK(Sprintf("%d-%s", {"7", "x"}) == "%!d(string=7)-x");
  CHECK(Sprintf("%p", {"v"}) == "%!p(string=v)");
  CHECK(Sprintf("%é", {"v"}) == "%!é(string=v)");
}

TEST_CASE("GoSprintf writes %x and %X as hex bytes and %T as the type") {
  CHECK(Sprintf("%x %X %T", {"hi\n", "\xff", "s"}) == "68690a FF string");
}

TEST_CASE("GoSprintf rejects flags, widths and verbs it does not implement, with their position") {
  CHECK_THROWS_WITH_AS(Sprintf("line\n  %-5s", {"x"}),
                       "t:2:3: the directive \"%-...\" uses flags, a width, a precision or an argument index, which "
                       "trainer's Go format subset does not implement",
                       Error);
  CHECK_THROWS_WITH_AS(Sprintf("%q", {"x"}),
                       "t:1:1: the directive \"%q\" is not implemented by trainer's Go format subset", Error);
  CHECK_THROWS_AS(Sprintf("%[1]s", {"x"}), Error);
  CHECK_THROWS_AS(Sprintf("%5s", {"x"}), Error);
}

TEST_CASE("GoTrimSpace trims ASCII and Unicode white space at both ends only") {
  CHECK(GoTrimSpace("  python    script.py \t\n") == "python    script.py");
  CHECK(GoTrimSpace("\xc2\xa0x\xe3\x80\x80") == "x");
  CHECK(GoTrimSpace(" \n ").empty());
  CHECK(GoTrimSpace("\xff ") == "\xff");
}

}  // namespace trainer
