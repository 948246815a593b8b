#include "yaml/writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <numeric>
#include <vector>

#include "util/quote.h"
#include "util/strconv.h"
#include "yaml/resolve.h"

namespace trainer {

namespace {

// ---- Decoding helpers -------------------------------------------------------------------------

// Decodes one UTF-8 code point at s[i] (input is validated on read); advances i.
char32_t NextCodePoint(std::string_view s, std::size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
  if (i + len > s.size()) len = 1;
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

std::u32string CodePoints(std::string_view s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) out.push_back(NextCodePoint(s, i));
  return out;
}

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// An ASCII string seen as code points without decoding it: most scalars and keys are ASCII, and
// the analyses below run on either this or a decoded std::u32string.
struct AsciiCodePoints {
  std::string_view s;
  std::size_t size() const { return s.size(); }
  char32_t operator[](std::size_t i) const { return static_cast<unsigned char>(s[i]); }
};

bool IsLetter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0xC0;
}

// ---- What a plain scalar would read back as ------------------------------------------------

// Whether plain `s` would read back as anything but that string: go-yaml v2's encoder asks its
// resolver, and quotes base-60 numbers besides.
bool ReadsAsNonString(std::string_view s) {
  return ResolvePlain(s) != PlainTag::kString || IsBase60Float(s) || HasNumberSyntax(s);
}

// ---- Which styles libyaml's emitter allows for a scalar (block context) ------------------------

struct ScalarStyles {
  bool plain = true;
  bool single_quoted = true;
  bool literal = true;
};

// What may stand raw outside double quotes. libyaml's emitter (go-yaml's) also counts NEL, U+2028
// and U+2029 printable and writes them raw in plain, single-quoted and literal scalars, where a
// YAML 1.1 reader (kubectl's, PyYAML) takes them for line breaks: a value holding one then folds
// or, plain, ends its line and goes on as YAML of its own. So they force double quotes here, as
// every control character does (TAB and CR too), and are escaped there.
bool IsPrintable(char32_t c) {
  return c == 0x0A || (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF && c != 0x2028 && c != 0x2029) ||
         (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF);  // libyaml escapes everything beyond U+FFFF
}

template <class CodePointSequence>
ScalarStyles AnalyzeCodePoints(const CodePointSequence& cps, ScalarStyles styles) {
  bool leading_space = false, leading_break = false, trailing_space = false, trailing_break = false;
  bool break_space = false, space_break = false, previous_space = false, previous_break = false;
  bool line_breaks = false, special = false;
  for (std::size_t i = 0; i < cps.size(); ++i) {
    char32_t c = cps[i];
    char32_t next = i + 1 < cps.size() ? cps[i + 1] : 0;
    bool followed_by_blank = next == 0 || next == ' ' || next == '\t' || next == '\n';
    if (i == 0) {
      switch (c) {
        case '#': case ',': case '[': case ']': case '{': case '}': case '&': case '*': case '!':
        case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
          styles.plain = false;
          break;
        case '?': case ':': case '-':
          if (followed_by_blank) styles.plain = false;
          break;
        default: break;
      }
    } else {
      if (c == ':' && followed_by_blank) styles.plain = false;
      if (c == '#' && (cps[i - 1] == ' ' || cps[i - 1] == '\t')) styles.plain = false;
    }
    if (!IsPrintable(c)) special = true;
    if (c == '\n') line_breaks = true;
    if (c == ' ') {
      if (i == 0) leading_space = true;
      if (i + 1 == cps.size()) trailing_space = true;
      if (previous_break) break_space = true;
      previous_space = true;
      previous_break = false;
    } else if (c == '\n') {
      if (i == 0) leading_break = true;
      if (i + 1 == cps.size()) trailing_break = true;
      if (previous_space) space_break = true;
      previous_break = true;
      previous_space = false;
    } else {
      previous_space = false;
      previous_break = false;
    }
  }
  if (leading_space || leading_break || trailing_space || trailing_break) styles.plain = false;
  if (trailing_space) styles.literal = false;
  if (break_space) styles.plain = styles.single_quoted = false;
  if (space_break || special) styles.plain = styles.single_quoted = styles.literal = false;
  if (line_breaks) styles.plain = false;
  return styles;
}

// Printable ASCII but space, ':' and '#': a scalar of these bytes alone has no blank, break or
// special character, so only its first byte can keep it from being plain (most names, images and
// paths).
constexpr std::array<bool, 256> kQuietBytes = [] {
  std::array<bool, 256> quiet{};
  for (int c = 0x21; c <= 0x7E; ++c) quiet[static_cast<std::size_t>(c)] = c != ':' && c != '#';
  return quiet;
}();

bool AllQuiet(std::string_view text) {
  for (char c : text) {
    if (!kQuietBytes[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

ScalarStyles AnalyzeScalar(std::string_view text, bool fast = true) {
  ScalarStyles styles;
  if (text.empty()) {
    styles.plain = false;
    styles.literal = false;
    return styles;
  }
  if (text.substr(0, 3) == "---" || text.substr(0, 3) == "...") styles.plain = false;
  if (fast && text.size() > 1 && AllQuiet(text)) {
    // AnalyzeCodePoints's answer for such text: the first byte's indicators alone matter, and '?',
    // ':' and '-' are followed by a non-blank here.
    if (std::string_view("#,[]{}&*!|>'\"%@`").find(text.front()) != std::string_view::npos) styles.plain = false;
    return styles;
  }
  return IsAscii(text) ? AnalyzeCodePoints(AsciiCodePoints{text}, styles) : AnalyzeCodePoints(CodePoints(text), styles);
}

// ---- Output -----------------------------------------------------------------------------------

void Indent(std::string& out, int n) { out.append(static_cast<std::size_t>(n), ' '); }

void WriteDoubleQuoted(std::string_view s, std::string& out) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    char32_t c = NextCodePoint(s, i);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\t': out += "\\t"; continue;
      case '\r': out += "\\r"; continue;
      case 0: out += "\\0"; continue;
      case 0x07: out += "\\a"; continue;
      case 0x08: out += "\\b"; continue;
      case 0x0B: out += "\\v"; continue;
      case 0x0C: out += "\\f"; continue;
      case 0x1B: out += "\\e"; continue;
      case 0x85: out += "\\N"; continue;
      case 0x2028: out += "\\L"; continue;
      case 0x2029: out += "\\P"; continue;
      default: break;
    }
    if (IsPrintable(c)) {
      out.append(s.substr(start, i - start));
    } else {
      char buf[16];
      auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<std::uint32_t>(c), 16);
      std::string hex(buf, p);
      for (auto& h : hex) h = static_cast<char>(h >= 'a' ? h - 32 : h);
      std::size_t width = c <= 0xFF ? 2 : c <= 0xFFFF ? 4 : 8;
      out += width == 2 ? "\\x" : width == 4 ? "\\u" : "\\U";
      out.append(width - std::min(width, hex.size()), '0');
      out += hex;
    }
  }
  out.push_back('"');
}

void WriteSingleQuoted(std::string_view s, std::string& out) {
  out.push_back('\'');
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
}

// Writes a literal block scalar; `indent` is the indentation of its content lines.
void WriteLiteral(std::string_view s, int indent, std::string& out) {
  out.push_back('|');
  if (s.front() == ' ' || s.front() == '\n') out.push_back('2');
  if (s.back() != '\n') {
    out.push_back('-');
  } else if (s.size() == 1 || s[s.size() - 2] == '\n') {
    out.push_back('+');
  }
  out.push_back('\n');
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t end = s.find('\n', pos);
    if (end == std::string_view::npos) end = s.size();
    if (end > pos) {
      Indent(out, indent);
      out.append(s.substr(pos, end - pos));
    }
    out.push_back('\n');  // a value without a final newline still ends its last line here
    pos = end + 1;
  }
}

// Text that is plain at once: it starts with a letter, has no blank, break, ':' or '#', and reads
// back as a string, as most keys, names and images do.
bool PlainAtOnce(std::string_view s) {
  if (s.empty()) return false;
  const char c = s.front();
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return letter && AllQuiet(s) && !ReadsAsNonString(s);
}

// Writes a string scalar after "key: " or "- "; `indent` is the block's content indentation.
void WriteString(std::string_view s, int indent, std::string& out, bool newline_after) {
  if (PlainAtOnce(s)) {
    out.append(s);
    if (newline_after) out.push_back('\n');
    return;
  }
  bool multiline = s.find('\n') != std::string_view::npos;
  ScalarStyles styles = AnalyzeScalar(s);
  if (multiline && styles.literal) {
    WriteLiteral(s, indent, out);
    return;  // a literal block ends with its own newline
  }
  const bool reads_back = !multiline && !s.empty() && !ReadsAsNonString(s);
  if (reads_back && styles.plain) {
    out.append(s);
  } else if (reads_back && styles.single_quoted) {
    WriteSingleQuoted(s, out);
  } else {
    WriteDoubleQuoted(s, out);
  }
  if (newline_after) out.push_back('\n');
}

void WriteKey(std::string_view key, std::string& out) {
  if (PlainAtOnce(key)) {
    out.append(key);
    return;
  }
  if (!key.empty() && !ReadsAsNonString(key)) {
    const ScalarStyles styles = AnalyzeScalar(key);
    if (styles.plain) {
      out.append(key);
      return;
    }
    if (styles.single_quoted && key.find('\n') == std::string_view::npos) {
      WriteSingleQuoted(key, out);
      return;
    }
  }
  WriteDoubleQuoted(key, out);
}

// The positions of a map's keys in the order they print. The few keys of most maps sort on the
// stack.
class KeyOrder {
 public:
  template <class Less>
  KeyOrder(const Tree& map, Less less) : size_(map.size()) {
    if (size_ > small_.size()) large_.resize(size_);
    std::size_t* first = data();
    std::iota(first, first + size_, std::size_t{0});
    std::sort(first, first + size_, [&](std::size_t a, std::size_t b) { return less(map.KeyAt(a), map.KeyAt(b)); });
  }
  const std::size_t* begin() const { return size_ > small_.size() ? large_.data() : small_.data(); }
  const std::size_t* end() const { return begin() + size_; }

 private:
  std::size_t* data() { return size_ > small_.size() ? large_.data() : small_.data(); }

  std::size_t size_;
  std::array<std::size_t, 16> small_;
  std::vector<std::size_t> large_;
};

// Writes a scalar or an empty collection inline, then the explanation of its origin, if any, and a
// newline. A literal block carries its explanation on its header line.
void WriteInline(const Tree& t, int indent, std::string& out, const Explain* explain) {
  std::string comment = explain ? (*explain)(t.origin()) : std::string();
  if (!comment.empty()) comment = "  # " + GoEscape(comment);  // no byte of a file name or key ends it
  switch (t.type()) {
    case Tree::Type::kNull: out += "null"; break;
    case Tree::Type::kBool:
    case Tree::Type::kInt:
    case Tree::Type::kFloat: out += t.text(); break;
    case Tree::Type::kString:
      if (t.text().find('\n') != std::string::npos && AnalyzeScalar(t.text()).literal) {
        std::string block;
        WriteLiteral(t.text(), indent, block);
        auto header_end = block.find('\n');
        out += block.substr(0, header_end) + comment + block.substr(header_end);
        return;
      }
      WriteString(t.text(), indent, out, false);
      break;
    case Tree::Type::kMap: out += "{}"; break;
    case Tree::Type::kList: out += "[]"; break;
  }
  out += comment;
  out.push_back('\n');
}

void WriteBlock(const Tree& t, int indent, std::string& out, const Explain* explain);

// Writes the entries of a non-empty map at `indent`; the first key is written without indentation
// when `first_inline` (after "- ").
void WriteMapEntries(const Tree& t, int indent, std::string& out, bool first_inline, const Explain* explain) {
  bool first = true;
  for (std::size_t i : KeyOrder(t, YamlKeyLess)) {
    if (!(first && first_inline)) Indent(out, indent);
    first = false;
    WriteKey(t.KeyAt(i), out);
    const Tree& value = t.items()[i];
    if (value.IsMap() && !value.items().empty()) {
      out += ":\n";
      WriteMapEntries(value, indent + 2, out, false, explain);
    } else if (value.IsList() && !value.items().empty()) {
      out += ":\n";
      WriteBlock(value, indent, out, explain);  // go-yaml does not indent lists under their key
    } else {
      out += ": ";
      WriteInline(value, indent + 2, out, explain);
    }
  }
}

// Writes the items of a non-empty list at `indent`; the first dash is written without indentation
// when `first_inline` (after another "- ").
void WriteListItems(const Tree& t, int indent, std::string& out, bool first_inline, const Explain* explain) {
  bool first = true;
  for (const Tree& item : t.items()) {
    if (!(first && first_inline)) Indent(out, indent);
    first = false;
    out += "- ";
    if (item.IsMap() && !item.items().empty()) {
      WriteMapEntries(item, indent + 2, out, true, explain);
    } else if (item.IsList() && !item.items().empty()) {
      WriteListItems(item, indent + 2, out, true, explain);
    } else {
      WriteInline(item, indent + 2, out, explain);
    }
  }
}

void WriteBlock(const Tree& t, int indent, std::string& out, const Explain* explain) {
  if (t.IsMap() && !t.items().empty()) {
    WriteMapEntries(t, indent, out, false, explain);
    return;
  }
  if (t.IsList() && !t.items().empty()) {
    WriteListItems(t, indent, out, false, explain);
    return;
  }
  WriteInline(t, indent, out, explain);
}

}  // namespace

namespace {

template <class A, class B>
bool KeyLess(const A& a, const B& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    bool al = IsLetter(a[i]);
    bool bl = IsLetter(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    // Digit runs as go-yaml's int64s: Go's arithmetic wraps on overflow, so a run of more than 18
    // digits is read modulo 2^64, as there (unsigned here, where wrapping is defined).
    std::uint64_t an = 0, bn = 0;
    if (a[i] == '0' || b[i] == '0') {
      for (std::size_t j = i; j-- > 0 && IsDigit(a[j]);) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    std::size_t ai = i, bi = i;
    for (; ai < a.size() && IsDigit(a[ai]); ++ai) an = an * 10 + static_cast<std::uint64_t>(a[ai] - '0');
    for (; bi < b.size() && IsDigit(b[bi]); ++bi) bn = bn * 10 + static_cast<std::uint64_t>(b[bi] - '0');
    if (an != bn) return static_cast<std::int64_t>(an) < static_cast<std::int64_t>(bn);
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

}  // namespace

bool YamlKeyLess(std::string_view a_text, std::string_view b_text) {
  // The first byte where the keys differ decides, and the bytes before it are the same in both:
  // where the bytes that differ are ASCII (or one key ends), they are whole code points, and so are
  // the digits around them, so the keys compare as bytes, however they go on.
  const std::size_t at = static_cast<std::size_t>(
      std::mismatch(a_text.begin(), a_text.end(), b_text.begin(), b_text.end()).first - a_text.begin());
  auto ascii_at = [at](std::string_view s) { return at == s.size() || static_cast<unsigned char>(s[at]) < 0x80; };
  if (ascii_at(a_text) && ascii_at(b_text)) return KeyLess(AsciiCodePoints{a_text}, AsciiCodePoints{b_text});
  return KeyLess(CodePoints(a_text), CodePoints(b_text));
}

void WriteYaml(const Tree& value, std::string& out, const Explain* explain) { WriteBlock(value, 0, out, explain); }

void WriteJson(const Tree& value, std::string& out, int indent) {
  switch (value.type()) {
    case Tree::Type::kNull: out += "null"; return;
    case Tree::Type::kBool:
    case Tree::Type::kInt:
    case Tree::Type::kFloat: out += value.text(); return;
    case Tree::Type::kString: AppendJsonString(value.text(), out); return;
    case Tree::Type::kList: {
      if (value.items().empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      bool first = true;
      for (const Tree& item : value.items()) {
        if (!first) out += ",\n";
        first = false;
        Indent(out, indent + 4);
        WriteJson(item, out, indent + 4);
      }
      out.push_back('\n');
      Indent(out, indent);
      out.push_back(']');
      return;
    }
    case Tree::Type::kMap: {
      if (value.items().empty()) {
        out += "{}";
        return;
      }
      out += "{\n";
      bool first = true;
      for (std::size_t i : KeyOrder(value, std::less<std::string>())) {
        if (!first) out += ",\n";
        first = false;
        Indent(out, indent + 4);
        AppendJsonString(value.KeyAt(i), out);
        out += ": ";
        WriteJson(value.items()[i], out, indent + 4);
      }
      out.push_back('\n');
      Indent(out, indent);
      out.push_back('}');
      return;
    }
  }
}

bool PlainAtOnceForTest(std::string_view text, bool* full) {
  *full = !text.empty() && !ReadsAsNonString(text) && AnalyzeScalar(text, false).plain;
  return PlainAtOnce(text);
}

std::string ScalarStylesForTest(std::string_view text, bool fast) {
  ScalarStyles styles = AnalyzeScalar(text, fast);
  return std::string(styles.plain ? "p" : "-") + (styles.single_quoted ? "s" : "-") + (styles.literal ? "l" : "-");
}

}  // namespace trainer
