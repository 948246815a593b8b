#include "util/quote.h"

#include <doctest/doctest.h>

namespace trainer {

namespace {

std::string Json(std::string_view s) {
  std::string out;
  AppendJsonString(s, out);
  return out;
}

}  // namespace

// The expectations are what Go 1.22's strconv.Quote and json.Marshal print for the same bytes.

TEST_CASE("GoQuote escapes quotes, backslashes and ASCII controls as strconv.Quote does") {
  CHECK(GoQuote("") == R"("")");
  CHECK(GoQuote(R"(say "hi" \ bye)") == R"("say \"hi\" \\ bye")");
  CHECK(GoQuote("\a\b\f\n\r\t\v") == R"("\a\b\f\n\r\t\v")");
  CHECK(GoQuote(std::string_view("\0\x01\x1f\x7f", 4)) == R"("\x00\x01\x1f\x7f")");
  CHECK(GoQuote("<a & b>' ~") == R"("<a & b>' ~")");
}

TEST_CASE("GoQuote escapes runes strconv.IsPrint rejects and keeps printable text") {
  CHECK(GoQuote("\u0085") == R"("\u0085")");                // NEL, a C1 control
  CHECK(GoQuote("\u00a0|\u00ad") == R"("\u00a0|\u00ad")");  // no-break space, soft hyphen
  CHECK(GoQuote("a\u2028b\u2029") == R"("a\u2028b\u2029")");
  CHECK(GoQuote("\u200b\u202e\u2060\ufeff") == R"("\u200b\u202e\u2060\ufeff")");
  CHECK(GoQuote("\u3000\u1680\u2007") == R"("\u3000\u1680\u2007")");
  CHECK(GoQuote("\ue000\uffff") == R"("\ue000\uffff")");
  CHECK(GoQuote("\U000f0000\U000e0041") == R"("\U000f0000\U000e0041")");
  CHECK(GoQuote("caf\u00e9 \u00a1 \u4e16\u754c \U0001f680 \ufffd") ==
        "\"caf\u00e9 \u00a1 \u4e16\u754c \U0001f680 \ufffd\"");
}

TEST_CASE("GoQuote writes each byte of invalid UTF-8 as \\x") {
  CHECK(GoQuote("a\xffz") == R"("a\xffz")");
  CHECK(GoQuote("\xc3") == R"("\xc3")");                          // truncated
  CHECK(GoQuote("\xc0\xaf") == R"("\xc0\xaf")");                  // overlong
  CHECK(GoQuote("\xed\xa0\x80") == R"("\xed\xa0\x80")");          // a surrogate
  CHECK(GoQuote("\xf5\x80\x80\x80") == R"("\xf5\x80\x80\x80")");  // beyond U+10FFFF
}

TEST_CASE("GoEscape is GoQuote without its quotes: no byte of its text breaks a line") {
  CHECK(GoEscape("") == "");
  CHECK(GoEscape("ml\n---\napiVersion: v1\r\n") == R"(ml\n---\napiVersion: v1\r\n)");
  CHECK(GoEscape("a\u0085b\u2028c\u2029d\x7f\xff\\\"") == R"(a\u0085b\u2028c\u2029d\x7f\xff\\\")");
  CHECK(GoEscape("caf\u00e9 \U0001f680") == "caf\u00e9 \U0001f680");
}

TEST_CASE("Printable keeps text of printable runes as it is, quotes and backslashes too") {
  for (std::string_view s :
       {"", "ml-team/quickstart", R"(say "hi" \ bye \n)", "caf\u00e9 \u00a1 \u4e16\u754c \U0001f680 \ufffd"}) {
    CAPTURE(s);
    CHECK(AllPrintable(s));
    CHECK(Printable(s) == s);
  }
}

TEST_CASE("Printable escapes the whole of a text that holds a break, a control or invalid UTF-8, as GoEscape") {
  CHECK(Printable("job\n::error file=x::forged") == R"(job\n::error file=x::forged)");
  CHECK(Printable("a\x1b[31m\a\"b\\") == R"(a\x1b[31m\a\"b\\)");  // quotes and backslashes too, then
  CHECK(Printable("a\rb\tc\x7f") == R"(a\rb\tc\x7f)");
  CHECK(Printable(std::string_view("\0", 1)) == R"(\x00)");
  CHECK(Printable("\u0085\u009b|\u2028|\u2029|\u202e|\u00ad") == R"(\u0085\u009b|\u2028|\u2029|\u202e|\u00ad)");
  CHECK(Printable("x\xffy\xc3") == R"(x\xffy\xc3)");
  CHECK(Printable("\xef\xbf\xbe") == R"(\ufffe)");
  for (std::string_view s : {"a\n", "\t", "\x9b", "\u2029", "\xed\xa0\x80"}) {
    CAPTURE(s);
    CHECK_FALSE(AllPrintable(s));
  }
}

TEST_CASE("Printable of a Printable text changes nothing") {
  for (std::string_view s : {"plain", "a\nb\x1b\\\"", "\xff\u2028\a"}) {
    CAPTURE(s);
    std::string once = Printable(s);
    CHECK(AllPrintable(once));
    CHECK(Printable(once) == once);
    std::string appended = "x: ";
    AppendPrintable(s, appended);
    CHECK(appended == "x: " + once);
  }
}

TEST_CASE("AppendJsonString escapes as json.Marshal does, HTML-safe") {
  CHECK(Json("") == R"("")");
  CHECK(Json(R"(say "hi" \ bye)") == R"("say \"hi\" \\ bye")");
  CHECK(Json("<a & b>") == R"("\u003ca \u0026 b\u003e")");
  CHECK(Json("\b\f\n\r\t") == R"("\b\f\n\r\t")");
  CHECK(Json(std::string_view("\0\a\v\x1f\x7f", 5)) == "\"\\u0000\\u0007\\u000b\\u001f\x7f\"");
  CHECK(Json("a\u2028b\u2029") == R"("a\u2028b\u2029")");
  CHECK(Json("\u0085\u00a0 caf\u00e9 \U0001f680") == "\"\u0085\u00a0 caf\u00e9 \U0001f680\"");
  CHECK(Json("a\xff\xc3") == R"("a\ufffd\ufffd")");
}

TEST_CASE("DecodeRune reads one rune or one bad byte as utf8.DecodeRuneInString") {
  CHECK(DecodeRune("\u00e9", 0) == std::pair<char32_t, std::size_t>{0xE9, 2});
  CHECK(DecodeRune("\U0001f680", 0) == std::pair<char32_t, std::size_t>{0x1F680, 4});
  CHECK(DecodeRune("\xf8\x88\x80\x80", 0) == std::pair<char32_t, std::size_t>{0xFFFD, 1});
  CHECK(DecodeRune("\xe2\x80", 0) == std::pair<char32_t, std::size_t>{0xFFFD, 1});
}

}  // namespace trainer
