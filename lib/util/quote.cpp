#include "util/quote.h"

#include <algorithm>
#include <iterator>

namespace trainer {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// The runes above U+00FF that strconv.IsPrint rejects and that Unicode has assigned (or reserved
// for good): space separators, line and paragraph separators, format characters, private use.
struct RuneRange {
  char32_t first;
  char32_t last;
};
constexpr RuneRange kNotPrint[] = {
    {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},   {0x070F, 0x070F},    {0x0890, 0x0891},
    {0x08E2, 0x08E2},   {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},    {0x2028, 0x202F},
    {0x205F, 0x206F},   {0x3000, 0x3000},   {0xE000, 0xF8FF},   {0xFDD0, 0xFDEF},    {0xFEFF, 0xFEFF},
    {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F},  {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F}, {0xF0000, 0x10FFFF},
};

void AppendHexDigits(std::string& out, char32_t value, int digits) {
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out.push_back(kHex[(value >> shift) & 0xF]);
}

// The two-character escapes strconv.Quote and encoding/json both write; null for other runes.
const char* SharedEscape(char32_t r) {
  switch (r) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return nullptr;
  }
}

}  // namespace

std::pair<char32_t, std::size_t> DecodeRune(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  std::size_t len = b0 > 0xF4 ? 0 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
  if (len == 0 || i + len > text.size()) return {0xFFFD, 1};
  char32_t rune = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return {0xFFFD, 1};
    rune = rune << 6 | (b & 0x3F);
  }
  bool overlong = (len == 3 && rune < 0x800) || (len == 4 && rune < 0x10000);
  if (overlong || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) return {0xFFFD, 1};
  return {rune, len};
}

void AppendRune(std::string& out, char32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

bool GoIsPrint(char32_t r) {
  if (r <= 0xFF) return (r >= 0x20 && r <= 0x7E) || (r >= 0xA1 && r != 0xAD);
  if ((r & 0xFFFE) == 0xFFFE) return false;  // U+FFFE, U+FFFF and their likes in every plane
  auto it = std::upper_bound(std::begin(kNotPrint), std::end(kNotPrint), r,
                             [](char32_t rune, const RuneRange& range) { return rune < range.first; });
  return it == std::begin(kNotPrint) || r > std::prev(it)->last;
}

namespace {

void AppendGoEscaped(std::string_view s, std::string& out) {
  for (std::size_t i = 0; i < s.size();) {
    auto [rune, len] = DecodeRune(s, i);
    if (rune == 0xFFFD && len == 1) {
      out += "\\x";
      AppendHexDigits(out, static_cast<unsigned char>(s[i]), 2);
    } else if (const char* escape = SharedEscape(rune)) {
      out += escape;
    } else if (GoIsPrint(rune)) {
      out.append(s.substr(i, len));
    } else if (rune == '\a' || rune == '\v') {
      out += rune == '\a' ? "\\a" : "\\v";
    } else if (rune < 0x20 || rune == 0x7F) {
      out += "\\x";
      AppendHexDigits(out, rune, 2);
    } else if (rune < 0x10000) {
      out += "\\u";
      AppendHexDigits(out, rune, 4);
    } else {
      out += "\\U";
      AppendHexDigits(out, rune, 8);
    }
    i += len;
  }
}

}  // namespace

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  AppendGoEscaped(s, out);
  out.push_back('"');
  return out;
}

std::string GoEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendGoEscaped(s, out);
  return out;
}

bool AllPrintable(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return false;
      ++i;
      continue;
    }
    auto [rune, len] = DecodeRune(s, i);
    if (!PrintsAsItself(rune, len)) return false;
    i += len;
  }
  return true;
}

std::string Printable(std::string_view s) {
  std::string out;
  AppendPrintable(s, out);
  return out;
}

void AppendPrintable(std::string_view s, std::string& out) {
  if (AllPrintable(s)) {
    out.append(s);
  } else {
    AppendGoEscaped(s, out);
  }
}

void AppendJsonString(std::string_view s, std::string& out) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (const char* escape = SharedEscape(c)) {
        out += escape;
      } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
        out += "\\u00";
        AppendHexDigits(out, c, 2);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    auto [rune, len] = DecodeRune(s, i);
    if (rune == 0xFFFD && len == 1) {
      out += "\\ufffd";
    } else if (rune == 0x2028 || rune == 0x2029) {
      out += "\\u";
      AppendHexDigits(out, rune, 4);
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  out.push_back('"');
}

}  // namespace trainer
