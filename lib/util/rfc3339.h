// RFC 3339 date-times ("2006-01-02T15:04:05Z07:00") as the two Go readers trainer follows take
// them, and as Go writes them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace trainer {

enum class Rfc3339Reader {
  // time.Parse(time.RFC3339, text), for metav1.Time: "T" and "Z" in capitals, fractional seconds
  // after ".", the zone's hour and minute range-checked, nothing after the zone.
  kGoTime,
  // go-openapi strfmt's IsDateTime, for the CRDs' "date-time" format: "T" and "Z" in either case,
  // fractional seconds after any one character, the zone unchecked, and the text from a second
  // "T" on ignored.
  kOpenApi,
};

struct Rfc3339Time {
  std::chrono::sys_seconds utc;   // the instant, without its fractional seconds
  bool fraction_is_zero = true;   // no fractional seconds, or only zeros
};

// `text` as `reader` reads it; nullopt where it refuses it, a date or time out of range included.
std::optional<Rfc3339Time> ParseRfc3339(std::string_view text, Rfc3339Reader reader);

// time.RFC3339 for `time` in UTC: 2006-01-02T15:04:05Z.
std::string FormatRfc3339Utc(std::chrono::sys_seconds time);

}  // namespace trainer
