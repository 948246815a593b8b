#include "util/strconv.h"

#include <doctest/doctest.h>

#include <limits>

namespace trainer {

namespace {

GoIntSyntax Int(std::string_view text, std::int64_t* value = nullptr, std::uint64_t* magnitude = nullptr) {
  std::int64_t v = 0;
  std::uint64_t m = 0;
  const GoIntSyntax syntax = ParseGoInt(text, v, m);
  if (value != nullptr) *value = v;
  if (magnitude != nullptr) *magnitude = m;
  return syntax;
}

}  // namespace

TEST_CASE("IsDigits takes one or more ASCII digits") {
  CHECK(IsDigits("0123456789"));
  CHECK_FALSE(IsDigits(""));
  CHECK_FALSE(IsDigits("12a"));
  CHECK_FALSE(IsDigits("-1"));
  CHECK_FALSE(IsDigit(U'\u0663'));  // ARABIC-INDIC DIGIT THREE
}

TEST_CASE("ParseGoInt reads bases as strconv.ParseInt(s, 0, 64) does") {
  std::int64_t value = 0;
  CHECK(Int("0x1f", &value) == GoIntSyntax::kInt64);
  CHECK(value == 31);
  CHECK(Int("0o17", &value) == GoIntSyntax::kInt64);
  CHECK(value == 15);
  CHECK(Int("017", &value) == GoIntSyntax::kInt64);
  CHECK(value == 15);
  CHECK(Int("-0b101", &value) == GoIntSyntax::kInt64);
  CHECK(value == -5);
  CHECK(Int("+0", &value) == GoIntSyntax::kInt64);
  CHECK(value == 0);
  CHECK(Int("08") == GoIntSyntax::kNotInt);
  CHECK(Int("0x") == GoIntSyntax::kNotInt);
  CHECK(Int("-") == GoIntSyntax::kNotInt);
  CHECK(Int("1.5") == GoIntSyntax::kNotInt);
}

TEST_CASE("ParseGoInt falls back to ParseUint beyond int64, unsigned text only") {
  std::int64_t value = 0;
  std::uint64_t magnitude = 0;
  CHECK(Int("-9223372036854775808", &value) == GoIntSyntax::kInt64);
  CHECK(value == std::numeric_limits<std::int64_t>::min());
  CHECK(Int("9223372036854775808", nullptr, &magnitude) == GoIntSyntax::kUint64);
  CHECK(magnitude == std::uint64_t{1} << 63);
  CHECK(Int("+9223372036854775808") == GoIntSyntax::kTooLarge);
  CHECK(Int("18446744073709551616") == GoIntSyntax::kTooLarge);
  CHECK(Int("0x1ffffffffffffffff") == GoIntSyntax::kTooLarge);
}

TEST_CASE("ParseGoInt64 reads decimal int64 text as strconv.ParseInt(s, 10, 64) does") {
  CHECK(ParseGoInt64("42") == 42);
  CHECK(ParseGoInt64("+42") == 42);
  CHECK(ParseGoInt64("-9223372036854775808") == std::numeric_limits<std::int64_t>::min());
  CHECK(ParseGoInt64("9223372036854775807") == std::numeric_limits<std::int64_t>::max());
  CHECK_FALSE(ParseGoInt64("9223372036854775808"));
  CHECK_FALSE(ParseGoInt64("0x10"));
  CHECK_FALSE(ParseGoInt64(""));
  CHECK_FALSE(ParseGoInt64("+"));
}

TEST_CASE("GoFloatInRange refuses overflow and takes underflow as zero") {
  CHECK(GoFloatInRange("1e308"));
  CHECK(GoFloatInRange("1e-400"));
  CHECK_FALSE(GoFloatInRange("1e309"));
}

TEST_CASE("ParseFloat64 reads decimal floats within range, a leading plus allowed") {
  CHECK(ParseFloat64("+1.5") == 1.5);
  CHECK(ParseFloat64("-2e3") == -2000);
  CHECK_FALSE(ParseFloat64("1e309"));
  CHECK_FALSE(ParseFloat64("1e-400"));
  CHECK_FALSE(ParseFloat64("0x10"));
  CHECK_FALSE(ParseFloat64("1.5x"));
}

TEST_CASE("GoFloatText writes floats as encoding/json does") {
  CHECK(GoFloatText(1.5) == "1.5");
  CHECK(GoFloatText(100) == "100");
  CHECK(GoFloatText(0) == "0");
  CHECK(GoFloatText(1e-7) == "1e-7");
  CHECK(GoFloatText(1e21) == "1e+21");
  CHECK(GoFloatText(0.000001) == "0.000001");
}

}  // namespace trainer
