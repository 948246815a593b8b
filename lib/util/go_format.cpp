#include "util/go_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "util/error.h"
#include "util/quote.h"

namespace trainer {

namespace {

void AppendHex(std::string& out, std::string_view value, const char* digits) {
  for (char c : value) {
    auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
}

// 1-based line and column of byte `at`, for messages.
std::string Where(std::string_view format, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < at; ++i) {
    bool newline = format[i] == '\n';
    line += newline ? 1 : 0;
    column = newline ? 1 : column + 1;
  }
  return fmt::format("{}:{}", line, column);
}

// unicode.IsSpace.
bool IsGoSpace(char32_t r) {
  constexpr char32_t kSpaces[] = {'\t', '\n',   '\v',   '\f',   '\r',   ' ',    0x85,
                                  0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};
  return std::find(std::begin(kSpaces), std::end(kSpaces), r) != std::end(kSpaces) || (r >= 0x2000 && r <= 0x200A);
}

}  // namespace

std::string_view GoTrimSpace(std::string_view text) {
  std::size_t begin = text.size(), end = 0;
  for (std::size_t i = 0; i < text.size();) {
    auto [rune, len] = DecodeRune(text, i);
    if (!IsGoSpace(rune)) {
      begin = std::min(begin, i);
      end = i + len;
    }
    i += len;
  }
  return begin < end ? text.substr(begin, end - begin) : std::string_view();
}

std::string GoSprintf(std::string_view format, std::span<const std::string> args, std::string_view source) {
  std::string out;
  std::size_t next_arg = 0;
  std::size_t i = 0;
  while (i < format.size()) {
    std::size_t percent = format.find('%', i);
    if (percent == std::string_view::npos) {
      out.append(format.substr(i));
      break;
    }
    out.append(format.substr(i, percent - i));
    i = percent + 1;
    if (i >= format.size()) {
      out += "%!(NOVERB)";
      break;
    }
    char c = format[i];
    if (std::string_view("#0+- *.[123456789").find(c) != std::string_view::npos) {
      throw Error(
          fmt::format("{}:{}: the directive \"%{}...\" uses flags, a width, a precision or an argument index, "
                      "which trainer's Go format subset does not implement",
                      source, Where(format, percent), c));
    }
    auto [verb, len] = DecodeRune(format, i);
    i += len;
    if (verb == '%') {
      out += '%';
      continue;
    }
    if (verb == 'q' || verb == 'w') {
      throw Error(fmt::format("{}:{}: the directive \"%{}\" is not implemented by trainer's Go format subset", source,
                              Where(format, percent), static_cast<char>(verb)));
    }
    if (next_arg >= args.size()) {
      out += "%!";
      AppendRune(out, verb);
      out += "(MISSING)";
      continue;
    }
    const std::string& arg = args[next_arg++];
    switch (verb) {
      case 's':
      case 'v': out += arg; break;
      case 'x': AppendHex(out, arg, "0123456789abcdef"); break;
      case 'X': AppendHex(out, arg, "0123456789ABCDEF"); break;
      case 'T': out += "string"; break;
      default:
        out += "%!";
        AppendRune(out, verb);
        out += "(string=" + arg + ")";
    }
  }
  if (next_arg < args.size()) {
    out += "%!(EXTRA ";
    for (std::size_t k = next_arg; k < args.size(); ++k) out += (k > next_arg ? ", string=" : "string=") + args[k];
    out += ')';
  }
  return out;
}

}  // namespace trainer
