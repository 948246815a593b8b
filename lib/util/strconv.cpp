#include "util/strconv.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <system_error>

namespace trainer {

bool IsDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

GoIntSyntax ParseGoInt(std::string_view text, std::int64_t& value, std::uint64_t& magnitude) {
  bool negative = false;
  const bool signed_text = !text.empty() && (text[0] == '+' || text[0] == '-');
  if (signed_text) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 1 && text[0] == '0') {
    const char p = text[1];
    if (p == 'x' || p == 'X') {
      base = 16, text.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8, text.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2, text.remove_prefix(2);
    } else {
      base = 8, text.remove_prefix(1);
    }
  }
  if (text.empty()) return GoIntSyntax::kNotInt;
  magnitude = 0;
  bool overflow = false;
  for (char c : text) {
    const int digit = IsDigit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    if (digit >= base) return GoIntSyntax::kNotInt;
    if (magnitude > (std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(digit)) /
                        static_cast<std::uint64_t>(base)) {
      overflow = true;
    }
    magnitude = magnitude * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  constexpr std::uint64_t kMaxInt64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!overflow && !negative && magnitude <= kMaxInt64) {
    value = static_cast<std::int64_t>(magnitude);
    return GoIntSyntax::kInt64;
  }
  if (!overflow && negative && magnitude <= kMaxInt64 + 1) {
    value = magnitude == kMaxInt64 + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(magnitude);
    return GoIntSyntax::kInt64;
  }
  // ParseUint takes no sign.
  if (!overflow && !signed_text) return GoIntSyntax::kUint64;
  return GoIntSyntax::kTooLarge;
}

std::optional<std::int64_t> ParseGoInt64(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t magnitude = 0;
  for (char c : text) {
    if (!IsDigit(c)) return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  return static_cast<std::int64_t>(negative ? std::uint64_t{0} - magnitude : magnitude);
}

bool GoFloatInRange(std::string_view text) {
  const std::string terminated(text);
  return std::isfinite(std::strtod(terminated.c_str(), nullptr));
}

std::optional<double> ParseFloat64(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string GoFloatText(double value) {
  const double magnitude = std::fabs(value);
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value,
                    exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string text(buffer, result.ptr);
  const std::size_t n = text.size();
  if (exponent && n >= 4 && text[n - 4] == 'e' && text[n - 3] == '-' && text[n - 2] == '0') {
    text.erase(n - 2, 1);
  }
  return text;
}

}  // namespace trainer
