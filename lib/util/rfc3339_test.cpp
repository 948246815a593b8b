#include "util/rfc3339.h"

#include <doctest/doctest.h>

namespace trainer {

namespace {

std::string GoTime(std::string_view text) {
  const std::optional<Rfc3339Time> time = ParseRfc3339(text, Rfc3339Reader::kGoTime);
  return time ? FormatRfc3339Utc(time->utc) : "refused";
}

bool OpenApi(std::string_view text) { return ParseRfc3339(text, Rfc3339Reader::kOpenApi).has_value(); }

}  // namespace

TEST_CASE("time.Parse's RFC 3339 reads a zone into UTC and drops fractional seconds") {
  CHECK(GoTime("2024-05-01T01:30:00.25+02:00") == "2024-04-30T23:30:00Z");
  CHECK(GoTime("2024-12-31T23:30:00-01:00") == "2025-01-01T00:30:00Z");
  CHECK(GoTime("0000-01-01T00:00:00+00:01") == "-001-12-31T23:59:00Z");
  CHECK(GoTime("2024-02-29T00:00:00Z") == "2024-02-29T00:00:00Z");
}

TEST_CASE("time.Parse's RFC 3339 refuses dates, times and zones out of range") {
  CHECK(GoTime("2023-02-29T00:00:00Z") == "refused");
  CHECK(GoTime("1900-02-29T00:00:00Z") == "refused");
  CHECK(GoTime("2024-04-31T00:00:00Z") == "refused");
  CHECK(GoTime("2024-01-01T24:00:00Z") == "refused");
  CHECK(GoTime("2024-01-01T00:00:00+24:00") == "refused");
  CHECK(GoTime("2024-01-01T00:00:00+23:60") == "refused");
  CHECK(GoTime("2024-01-01t00:00:00Z") == "refused");
  CHECK(GoTime("2024-01-01T00:00:00z") == "refused");
  CHECK(GoTime("2024-01-01T00:00:00.Z") == "refused");
  CHECK(GoTime("2024-01-01T00:00:00") == "refused");
}

TEST_CASE("the zero time has no fractional seconds") {
  const auto zero = ParseRfc3339("0001-01-01T00:00:00Z", Rfc3339Reader::kGoTime);
  REQUIRE(zero);
  CHECK(zero->fraction_is_zero);
  CHECK(zero->utc == std::chrono::sys_days{std::chrono::year{1} / 1 / 1});
  CHECK_FALSE(ParseRfc3339("0001-01-01T00:00:00.5Z", Rfc3339Reader::kGoTime)->fraction_is_zero);
}

TEST_CASE("strfmt's date-time takes either case, any fraction separator and an unchecked zone") {
  CHECK(OpenApi("2024-02-29t23:59:59z"));
  CHECK(OpenApi("2024-01-01T10:00:00x5+99:99"));
  CHECK(OpenApi("2024-01-01T10:00:0012Z"));
  CHECK(OpenApi("2024-01-01T10:00:00ZTanything"));
  CHECK_FALSE(OpenApi("2024-01-01T10:00:00\n5Z"));
  CHECK_FALSE(OpenApi("2026-02-30T00:00:00Z"));
  CHECK_FALSE(OpenApi("2024-01-01T10:00:00"));
  CHECK_FALSE(OpenApi("2024-01-01"));
  CHECK_FALSE(OpenApi("yesterday"));
}

}  // namespace trainer
