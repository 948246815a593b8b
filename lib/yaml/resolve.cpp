#include "yaml/resolve.h"

#include <array>
#include <iterator>
#include <string>

#include "util/strconv.h"

namespace trainer {

namespace {

constexpr BoolSpelling kBoolWords[] = {
    {"true", true},  {"false", false}, {"y", true},  {"Y", true},  {"yes", true},   {"Yes", true},
    {"YES", true},   {"True", true},   {"TRUE", true}, {"on", true}, {"On", true},  {"ON", true},
    {"n", false},    {"N", false},     {"no", false},  {"No", false}, {"NO", false}, {"False", false},
    {"FALSE", false}, {"off", false},  {"Off", false}, {"OFF", false}};

constexpr std::string_view kNullWords[] = {"", "~", "null", "Null", "NULL"};
constexpr std::string_view kFloatWords[] = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf",
                                            "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"};

// The characters a word or a number starts with.
constexpr std::array<bool, 256> kHints = [] {
  std::array<bool, 256> hints{};
  for (char c : std::string_view("~nNyYtTfFoO.+-0123456789")) hints[static_cast<unsigned char>(c)] = true;
  return hints;
}();

// go-yaml v2's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsYamlFloat(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  std::size_t i = 0;
  std::size_t int_digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++int_digits;
  std::size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++frac_digits;
    if (int_digits == 0 && frac_digits == 0) return false;
  } else if (int_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    return IsDigits(s.substr(i));
  }
  return i == s.size();
}

// A float that Go's strconv.ParseFloat accepts: the syntax above, and not beyond float64's range.
bool IsFiniteYamlFloat(std::string_view s) { return IsYamlFloat(s) && GoFloatInRange(s); }

// The layouts go-yaml v2 reads as timestamps: 2006-1-2, optionally followed by "T", "t" or " "
// and 15:4:5, fractional seconds, and a zone (Z or +07:00) after the T form.
bool IsTimestamp(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&](std::size_t min, std::size_t max) {
    std::size_t n = 0;
    while (i < s.size() && IsDigit(s[i]) && n < max) ++i, ++n;
    return n >= min;
  };
  auto expect = [&](char c) { return i < s.size() && s[i] == c ? (++i, true) : false; };
  if (!(digits(4, 4) && expect('-') && digits(1, 2) && expect('-') && digits(1, 2))) return false;
  if (i == s.size()) return true;
  const char sep = s[i];
  if (sep != 'T' && sep != 't' && sep != ' ') return false;
  ++i;
  if (!(digits(1, 2) && expect(':') && digits(1, 2) && expect(':') && digits(1, 2))) return false;
  if (expect('.') && !digits(1, 9)) return false;
  if (i == s.size()) return true;
  if (sep == ' ') return false;
  if (expect('Z')) return i == s.size();
  if (!(expect('+') || expect('-'))) return false;
  return digits(2, 2) && expect(':') && digits(2, 2) && i == s.size();
}

}  // namespace

std::optional<std::uint8_t> FindBoolWord(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kBoolWords); ++i) {
    if (kBoolWords[i].word == word) return static_cast<std::uint8_t>(i);
  }
  return std::nullopt;
}

const BoolSpelling& BoolWordAt(std::uint8_t index) { return kBoolWords[index]; }

// Follows go-yaml v2's resolve(): a table of words, then by the first character numbers and
// timestamps.
PlainTag ResolvePlain(std::string_view text, PlainNumber* number) {
  // Every word and every number starts with one of these: other text is a string (most names,
  // images and paths). So is letter-led text longer than the words (five characters at most): no
  // number starts with a letter.
  if (!text.empty() && !kHints[static_cast<unsigned char>(text[0])]) return PlainTag::kString;
  if (text.size() > 5 && ((text[0] | 0x20) >= 'a' && (text[0] | 0x20) <= 'z')) return PlainTag::kString;
  const auto as_float = [&](std::string_view float_text) {
    if (number != nullptr) number->float_text = float_text;
    return PlainTag::kFloat;
  };
  // The words: none starts with a digit, and none is longer than five characters.
  if (text.empty() || (!IsDigit(text[0]) && text.size() <= 5)) {
    for (std::string_view w : kNullWords) {
      if (text == w) return PlainTag::kNull;
    }
    if (FindBoolWord(text)) return PlainTag::kBool;
    for (std::string_view w : kFloatWords) {
      if (text == w) return as_float(text);
    }
  }
  const char first = text[0];
  if (first == '.') return IsFiniteYamlFloat(text) ? as_float(text) : PlainTag::kString;
  if (!(first == '+' || first == '-' || IsDigit(first))) return PlainTag::kString;
  // Digits and signs: underscores are dropped, then an integer, a float or a binary integer.
  std::string without_underscores;
  std::string_view plain = text;
  if (text.find('_') != std::string_view::npos) {
    for (char c : text) {
      if (c != '_') without_underscores.push_back(c);
    }
    plain = without_underscores;
  }
  std::int64_t value = 0;
  std::uint64_t magnitude = 0;
  switch (ParseGoInt(plain, value, magnitude)) {
    case GoIntSyntax::kInt64:
      if (number != nullptr) number->integer = value;
      return PlainTag::kInt;
    case GoIntSyntax::kUint64: return as_float(std::to_string(magnitude));  // beyond int64
    case GoIntSyntax::kTooLarge:
    case GoIntSyntax::kNotInt: break;
  }
  if (IsFiniteYamlFloat(plain)) return as_float(plain);
  // go-yaml keeps integers beyond 64 bits as big integers; decimal ones are kept as their digits.
  std::string_view unsigned_digits = plain;
  if (!unsigned_digits.empty() && (unsigned_digits[0] == '+' || unsigned_digits[0] == '-')) unsigned_digits.remove_prefix(1);
  if (IsDigits(unsigned_digits)) return as_float(plain[0] == '+' ? plain.substr(1) : plain);
  return IsTimestamp(text) ? PlainTag::kTimestamp : PlainTag::kString;
}

bool HasNumberSyntax(std::string_view text) {
  if (text.empty() || !(text[0] == '+' || text[0] == '-' || text[0] == '.' || IsDigit(text[0]))) return false;
  // Most text that starts so (quantities such as 4Gi, versions) holds a character no number has.
  constexpr std::string_view kNumberCharacters = "0123456789abcdefABCDEFxXoO+-._";
  if (text.find_first_not_of(kNumberCharacters) != std::string_view::npos) return false;
  std::string without_underscores;
  std::string_view plain = text;
  if (text.find('_') != std::string_view::npos) {
    std::erase(without_underscores.assign(text), '_');
    plain = without_underscores;
  }
  std::int64_t value = 0;
  std::uint64_t magnitude = 0;
  return ParseGoInt(plain, value, magnitude) != GoIntSyntax::kNotInt || IsYamlFloat(plain);
}

// "1:20" style sexagesimal numbers, which go-yaml v2 quotes.
bool IsBase60Float(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty() || !IsDigit(s[0])) return false;
  std::size_t i = 0;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  bool any = false;
  while (i < s.size() && s[i] == ':') {
    ++i;
    // each sexagesimal digit group is [0-5]?[0-9]
    std::size_t d = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++d;
    if (d == 0 || d > 2 || (d == 2 && s[i - 2] > '5')) return false;
    any = true;
  }
  if (!any) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

Tree ResolvePlainScalar(const std::string& text, const Origin& origin) {
  PlainNumber number;
  switch (ResolvePlain(text, &number)) {
    case PlainTag::kNull: return Tree::Null(origin);
    case PlainTag::kBool: return *Tree::BoolWord(text, origin);
    case PlainTag::kInt: {
      Tree i = Tree::Int(number.integer, origin);
      i.set_spelling(text);
      return i;
    }
    case PlainTag::kFloat: return Tree::Float(std::move(number.float_text), origin);
    case PlainTag::kTimestamp:
    case PlainTag::kString: break;
  }
  return Tree::String(text, origin);
}

}  // namespace trainer
