#include "util/rfc3339.h"

#include <fmt/format.h>

#include "util/strconv.h"

namespace trainer {

namespace {

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// A zone after the seconds: "Z" (in either case where `any_case`), or "+hh:mm" or "-hh:mm".
struct ZoneOffset {
  int sign = 1;
  int hours = 0;
  int minutes = 0;
  std::chrono::seconds offset() const { return sign * (std::chrono::hours{hours} + std::chrono::minutes{minutes}); }
};
std::optional<ZoneOffset> Zone(std::string_view text, bool any_case) {
  if (text.size() == 1 && (any_case ? AsciiLower(text[0]) == 'z' : text[0] == 'Z')) return ZoneOffset{};
  if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':') return std::nullopt;
  if (!IsDigits(text.substr(1, 2)) || !IsDigits(text.substr(4, 2))) return std::nullopt;
  return ZoneOffset{text[0] == '-' ? -1 : 1, (text[1] - '0') * 10 + (text[2] - '0'), (text[4] - '0') * 10 + (text[5] - '0')};
}

}  // namespace

std::optional<Rfc3339Time> ParseRfc3339(std::string_view text, Rfc3339Reader reader) {
  const bool openapi = reader == Rfc3339Reader::kOpenApi;
  std::size_t pos = 0;
  const auto digits = [&](std::size_t count) -> std::optional<unsigned> {
    if (pos + count > text.size() || !IsDigits(text.substr(pos, count))) return std::nullopt;
    unsigned value = 0;
    for (std::size_t i = 0; i < count; ++i) value = value * 10 + static_cast<unsigned>(text[pos + i] - '0');
    pos += count;
    return value;
  };
  const auto literal = [&](char c) {
    if (pos >= text.size() || (openapi ? AsciiLower(text[pos]) != AsciiLower(c) : text[pos] != c)) return false;
    ++pos;
    return true;
  };
  const auto year = digits(4);
  if (!year || !literal('-')) return std::nullopt;
  const auto month = digits(2);
  if (!month || !literal('-')) return std::nullopt;
  const auto day = digits(2);
  if (!day || !literal('T')) return std::nullopt;
  if (openapi) {
    // strfmt splits the text at each "t" and reads the time from the second part alone.
    const std::size_t next_t = text.find_first_of("tT", pos);
    if (next_t != std::string_view::npos) text = text.substr(0, next_t);
  }
  const auto hour = digits(2);
  if (!hour || !literal(':')) return std::nullopt;
  const auto minute = digits(2);
  if (!minute || !literal(':')) return std::nullopt;
  const auto second = digits(2);
  if (!second) return std::nullopt;
  Rfc3339Time time;
  std::optional<ZoneOffset> zone;
  if (openapi) {
    // The fraction is any one character but a line break (a regex "."), then digits.
    zone = Zone(text.substr(pos), true);
    if (!zone && pos < text.size() && text[pos] != '\n' && text[pos] != '\r') {
      std::size_t end = pos + 1;
      while (end < text.size() && IsDigit(text[end])) ++end;
      if (end > pos + 1) zone = Zone(text.substr(end), true);
    }
  } else {
    if (literal('.')) {
      const std::size_t start = pos;
      for (; pos < text.size() && IsDigit(text[pos]); ++pos) time.fraction_is_zero = time.fraction_is_zero && text[pos] == '0';
      if (pos == start) return std::nullopt;
    }
    zone = Zone(text.substr(pos), false);
    if (zone && (zone->hours > 23 || zone->minutes > 59)) return std::nullopt;
  }
  if (!zone || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{static_cast<int>(*year)}, std::chrono::month{*month},
                                         std::chrono::day{*day}};
  if (!date.ok()) return std::nullopt;
  time.utc = std::chrono::sys_days{date} + std::chrono::hours{*hour} + std::chrono::minutes{*minute} +
             std::chrono::seconds{*second} - zone->offset();
  return time;
}

std::string FormatRfc3339Utc(std::chrono::sys_seconds time) {
  const auto days = std::chrono::floor<std::chrono::days>(time);
  const std::chrono::year_month_day date{days};
  const std::chrono::hh_mm_ss clock{time - days};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), clock.hours().count(),
                     clock.minutes().count(), clock.seconds().count());
}

}  // namespace trainer
