// Go's two ways of quoting a string, one function each, so that every message, report and JSON
// document trainer prints quotes a string the way the Go program it stands beside would:
//   GoQuote           strconv.Quote and fmt's %q: messages, `trainer diff` and `trainer test` reports
//                     (GoEscape: its text without the quotes, for comments in the YAML output)
//   Printable         a name, a file name or a line of a value from the input, as every format prints
//                     it: as it is, or GoEscape'd when it holds a byte a terminal or a CI log would obey
//   AppendJsonString  encoding/json (HTML-safe): `-o json` output and JSON values in API messages
// and the UTF-8 steps both share with other ports of Go text handling.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace trainer {

// utf8.DecodeRuneInString at text[i]: the rune and its length in bytes; U+FFFD with length 1 for
// invalid UTF-8 (a bad lead or continuation byte, an overlong form, a surrogate, beyond U+10FFFF).
std::pair<char32_t, std::size_t> DecodeRune(std::string_view text, std::size_t i);

// utf8.AppendRune for a valid rune.
void AppendRune(std::string& out, char32_t r);

// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. Not covered:
// code points unassigned in Go's Unicode tables, other than the noncharacters (U+FDD0-U+FDEF and
// the last two of every plane); those are taken as printable, where Go escapes them.
bool GoIsPrint(char32_t r);

// Whether a rune and its length as DecodeRune read them stand for a character that prints as
// itself: valid UTF-8 (not the U+FFFD of one bad byte) that GoIsPrint accepts.
inline bool PrintsAsItself(char32_t rune, std::size_t len) { return !(rune == 0xFFFD && len == 1) && GoIsPrint(rune); }

// strconv.Quote (fmt's %q for a string): \a \b \f \n \r \t \v \\ \"; other bytes below 0x20 and
// DEL as \x%02x; each byte of invalid UTF-8 as \x%02x; runes GoIsPrint rejects as \u%04x, or
// \U%08x above U+FFFF; printable text kept as it is.
std::string GoQuote(std::string_view s);

// GoQuote without the surrounding quotes: text that holds no line break, no control character and
// nothing but valid UTF-8, whatever `s` holds, so that it cannot end a YAML comment.
std::string GoEscape(std::string_view s);

// Whether every rune of `s` is valid UTF-8 that GoIsPrint accepts: no line break (LF, CR, NEL,
// U+2028, U+2029), no tab, no C0 or C1 control, no DEL, no format character (bidi overrides).
bool AllPrintable(std::string_view s);

// `s` itself when AllPrintable(s), GoEscape(s) otherwise: how trainer prints a name or a value it
// read (object names in headings and diagnostics, file and folder names, each line of a
// multi-line value), so that ordinary text is unchanged and no input can start a line, move the
// cursor or ring the bell. Its result is AllPrintable, so that printing it again changes nothing.
// Escaped text reads back with strconv.Unquote; printable text keeps its own backslashes, which
// names the API server accepts never hold.
std::string Printable(std::string_view s);
void AppendPrintable(std::string_view s, std::string& out);

// encoding/json's string encoding as json.Marshal writes it (HTML-safe, Go 1.22 and later):
// \" \\ \b \f \n \r \t; other bytes below 0x20 and < > & as \u00XX; U+2028 and U+2029 as
// \u2028 and \u2029; each byte of invalid UTF-8 as \ufffd; everything else (DEL too) as it is.
void AppendJsonString(std::string_view s, std::string& out);

}  // namespace trainer
