// The parts of Go's strconv that ported code needs to read and write numbers as Go does, and the
// digit checks of the number syntaxes built on them (YAML's, resource.Quantity's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainer {

// An ASCII digit; no code point beyond ASCII is one, as in Go's and YAML's number syntax.
constexpr bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }

// Whether `text` is one or more ASCII digits.
bool IsDigits(std::string_view text);

// What strconv.ParseInt(text, 0, 64) and, for values beyond int64, ParseUint(text, 0, 64) make of
// `text`: an optional sign, then 0x/0X hex, 0o/0O or a bare leading 0 octal, 0b/0B binary, or
// decimal digits.
enum class GoIntSyntax {
  kNotInt,    // not that syntax
  kInt64,     // `value` holds it
  kUint64,    // beyond int64, unsigned and within uint64: `magnitude` holds it
  kTooLarge,  // the syntax, but beyond both
};
GoIntSyntax ParseGoInt(std::string_view text, std::int64_t& value, std::uint64_t& magnitude);

// strconv.ParseInt(text, 10, 64).
std::optional<std::int64_t> ParseGoInt64(std::string_view text);

// Whether strconv.ParseFloat(text, 64) takes `text`, which already has the syntax of a decimal
// float, as within float64's range: a value that underflows reads as zero, one that overflows is
// an error.
bool GoFloatInRange(std::string_view text);

// A float as the float64 kubectl's YAML-to-JSON conversion decodes it, an optional leading "+"
// allowed; nullopt where the text is no decimal float or lies beyond float64's range, underflow
// included.
std::optional<double> ParseFloat64(std::string_view text);

// The text encoding/json writes for a float64: shortest digits, fixed notation between 1e-6 and
// 1e21, exponent form outside ("1e-7", "1e+21").
std::string GoFloatText(double value);

}  // namespace trainer
