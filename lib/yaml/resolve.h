// go-yaml v2's resolver: what a plain (unquoted) scalar reads as, as kubectl reads it. The reader
// builds its scalars from it, and the writer asks it whether a string can stand unquoted, as
// go-yaml's encoder asks its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "yaml/tree.h"

namespace trainer {

// The tag go-yaml v2 gives a plain scalar.
enum class PlainTag : std::uint8_t { kNull, kBool, kInt, kFloat, kTimestamp, kString };

// What a plain number holds, as ResolvePlain finds it.
struct PlainNumber {
  std::int64_t integer = 0;  // a kInt's value
  std::string float_text;    // a kFloat's text: as written, or its digits where it came as an integer
};

// The tag of plain `text`, in YAML 1.1 as go-yaml v2 reads it: null, y/yes/on/off... booleans,
// 010 octal, 0b101 binary, 1_000 an integer, 2006-1-2 (optionally with a time) a timestamp. With
// `number`, a number's value is stored there.
PlainTag ResolvePlain(std::string_view text, PlainNumber* number = nullptr);

// Whether plain `text` has the syntax of a YAML 1.1 number (an integer in any base, a float, with
// underscores), whatever its value. go-yaml v2 reads one beyond int64, uint64 or float64 as a
// string; YAML 1.1 readers such as PyYAML read each as a number, so the writer quotes them all.
bool HasNumberSyntax(std::string_view text);

// Whether `text` is a base-60 number ("1:20"), which YAML 1.1 reads as a number and go-yaml v2's
// resolver as a string: its encoder quotes them besides what its resolver reads otherwise.
bool IsBase60Float(std::string_view text);

// YAML 1.1's boolean words as go-yaml v2 reads them; "true" and "false" come first, at 0 and 1.
struct BoolSpelling {
  std::string_view word;
  bool value;
};
// The index of `word` among the boolean words, or nullopt.
std::optional<std::uint8_t> FindBoolWord(std::string_view word);
const BoolSpelling& BoolWordAt(std::uint8_t index);

// A plain scalar as the reader keeps it: ResolvePlain's tag, with timestamps kept as strings (no
// field of the API is one).
Tree ResolvePlainScalar(const std::string& text, const Origin& origin);

}  // namespace trainer
