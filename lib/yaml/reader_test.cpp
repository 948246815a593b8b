#include "yaml/reader.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace trainer {

namespace {

const std::string kFile = "job.yaml";

std::vector<Tree> Read(std::string_view yaml, const ReadLimits& limits = {}) {
  return ReadYamlStream(yaml, &kFile, limits);
}

// What() of the Error that reading `yaml` throws, or "no error".
std::string ReadError(std::string_view yaml, const ReadLimits& limits = {}) {
  try {
    Read(yaml, limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// "integer 31", "number 1e3", "boolean true", "string yes", "null": what `v: <value>` reads as.
std::string Resolved(std::string_view value) {
  std::vector<Tree> docs = Read(fmt::format("v: {}\n", value));
  REQUIRE(docs.size() == 1);
  const Tree* v = docs[0].Find("v");
  REQUIRE(v != nullptr);
  switch (v->type()) {
    case Tree::Type::kNull: return "null";
    case Tree::Type::kBool: return v->AsBool() ? "boolean true" : "boolean false";
    case Tree::Type::kInt: return fmt::format("integer {}", v->AsInt());
    case Tree::Type::kFloat: return "number " + v->text();
    case Tree::Type::kString: return "string " + v->text();
    case Tree::Type::kMap: return "object";
    case Tree::Type::kList: return "array";
  }
  return "?";
}

// A billion-laughs document: every level repeats the previous one nine times.
constexpr std::string_view kLaughs =
    "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
    "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
    "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";

}  // namespace

// ---- Documents ---------------------------------------------------------------------------------

TEST_CASE("ReadYamlStream returns one tree per document of a stream") {
  std::vector<Tree> docs = Read(
      "kind: TrainJob\n"
      "---\n"
      "kind: ClusterTrainingRuntime\n"
      "...\n"
      "---\n"
      "[a, b]\n");
  REQUIRE(docs.size() == 3);
  CHECK(*docs[0].FindString("kind") == "TrainJob");
  CHECK(*docs[1].FindString("kind") == "ClusterTrainingRuntime");
  CHECK(docs[2].IsList());
  CHECK(docs[2].items().size() == 2);
}

TEST_CASE("ReadYamlStream skips empty documents, comment-only documents and null documents") {
  std::vector<Tree> docs = Read(
      "---\n"
      "---\n"
      "# only a comment\n"
      "---\n"
      "a: 1\n"
      "---\n"
      "~\n"
      "---\n"
      "null\n"
      "---\n"
      "b: 2\n"
      "---\n");
  REQUIRE(docs.size() == 2);
  CHECK(docs[0].KeyAt(0) == "a");
  CHECK(docs[1].KeyAt(0) == "b");
}

TEST_CASE("ReadYamlStream of an empty stream returns no documents") {
  CHECK(Read("").empty());
  CHECK(Read("\n# nothing here\n").empty());
}

TEST_CASE("ReadYamlStream keeps map keys in input order") {
  std::vector<Tree> docs = Read("zeta: 1\nalpha: 2\nmid: 3\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].keys() == std::vector<std::string>{"zeta", "alpha", "mid"});
}

// ---- Positions ---------------------------------------------------------------------------------

TEST_CASE("ReadYamlStream records the 1-based line and column of every value") {
  std::vector<Tree> docs = Read(
      "spec:\n"
      "  trainer:\n"
      "    numNodes: 2\n"
      "    args:\n"
      "    - --epochs\n"
      "    -   \"3\"\n"
      "---\n"
      "other: {x: [y]}\n");
  REQUIRE(docs.size() == 2);
  const Tree& trainer = *docs[0].Find("spec")->Find("trainer");
  CHECK(docs[0].origin().Position() == "job.yaml:1:1");
  CHECK(docs[0].Find("spec")->origin().Position() == "job.yaml:2:3");
  CHECK(trainer.Find("numNodes")->origin().Position() == "job.yaml:3:15");
  const Tree& args = *trainer.Find("args");
  CHECK(args.origin().Position() == "job.yaml:5:5");
  CHECK(args.items()[0].origin().Position() == "job.yaml:5:7");
  CHECK(args.items()[1].origin().Position() == "job.yaml:6:9");
  // Lines keep counting across documents.
  const Tree& other = *docs[1].Find("other");
  CHECK(other.origin().Position() == "job.yaml:8:8");
  CHECK(other.Find("x")->items()[0].origin().Position() == "job.yaml:8:13");
}

TEST_CASE("ReadYamlStream records the position of every key") {
  std::vector<Tree> docs = Read(
      "spec:\n"
      "  trainer:\n"
      "    numNodes: 2\n"
      "    \"image\": x\n"
      "flow: {a: 1, b: 2}\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].KeyOriginAt(0).Position() == "job.yaml:1:1");
  CHECK(docs[0].KeyOriginAt(1).Position() == "job.yaml:5:1");
  const Tree& spec = *docs[0].Find("spec");
  CHECK(spec.KeyOriginAt(0).Position() == "job.yaml:2:3");
  const Tree& trainer = *spec.Find("trainer");
  CHECK(trainer.KeyOriginAt(0).Position() == "job.yaml:3:5");
  CHECK(trainer.KeyOriginAt(1).Position() == "job.yaml:4:5");
  const Tree& flow = *docs[0].Find("flow");
  CHECK(flow.KeyOriginAt(0).Position() == "job.yaml:5:8");
  CHECK(flow.KeyOriginAt(1).Position() == "job.yaml:5:14");
}

// ---- Scalars -----------------------------------------------------------------------------------

TEST_CASE("plain integers resolve to integers, with a sign, in hex and in octal") {
  CHECK(Resolved("0") == "integer 0");
  CHECK(Resolved("42") == "integer 42");
  CHECK(Resolved("-7") == "integer -7");
  CHECK(Resolved("+5") == "integer 5");
  CHECK(Resolved("0x1f") == "integer 31");
  CHECK(Resolved("0o17") == "integer 15");
  // YAML 1.2: a leading zero is not octal.
  CHECK(Resolved("017") == "integer 17");
  CHECK(Resolved("9223372036854775807") == "integer 9223372036854775807");
  CHECK(Resolved("-9223372036854775808") == "integer -9223372036854775808");
}

TEST_CASE("integers too large for int64 are kept as number text") {
  CHECK(Resolved("9223372036854775808") == "number 9223372036854775808");
  CHECK(Resolved("-9223372036854775809") == "number -9223372036854775809");
  CHECK(Resolved("123456789012345678901234567890") == "number 123456789012345678901234567890");
}

TEST_CASE("floats are kept as the text they were written with") {
  CHECK(Resolved("1.50") == "number 1.50");
  CHECK(Resolved("1e3") == "number 1e3");
  CHECK(Resolved("-2.5E-3") == "number -2.5E-3");
  CHECK(Resolved(".5") == "number .5");
  CHECK(Resolved(".inf") == "number .inf");
  CHECK(Resolved("-.Inf") == "number -.Inf");
  CHECK(Resolved(".nan") == "number .nan");
}

TEST_CASE("true and false resolve to booleans in three spellings only") {
  CHECK(Resolved("true") == "boolean true");
  CHECK(Resolved("True") == "boolean true");
  CHECK(Resolved("TRUE") == "boolean true");
  CHECK(Resolved("false") == "boolean false");
  CHECK(Resolved("False") == "boolean false");
  CHECK(Resolved("FALSE") == "boolean false");
  CHECK(Resolved("tRue") == "string tRue");
}

TEST_CASE("null, Null, NULL, ~ and an empty value resolve to null") {
  CHECK(Resolved("null") == "null");
  CHECK(Resolved("Null") == "null");
  CHECK(Resolved("NULL") == "null");
  CHECK(Resolved("~") == "null");
  CHECK(Resolved("") == "null");
}

TEST_CASE("YAML 1.1 booleans such as yes and on stay strings") {
  CHECK(Resolved("yes") == "string yes");
  CHECK(Resolved("no") == "string no");
  CHECK(Resolved("on") == "string on");
  CHECK(Resolved("off") == "string off");
  CHECK(Resolved("y") == "string y");
}

TEST_CASE("quoted scalars are strings whatever they look like") {
  CHECK(Resolved("\"1\"") == "string 1");
  CHECK(Resolved("'true'") == "string true");
  CHECK(Resolved("\"null\"") == "string null");
  CHECK(Resolved("''") == "string ");
  CHECK(Resolved("!!str 1") == "string 1");
}

TEST_CASE("plain scalars that are not numbers stay strings") {
  CHECK(Resolved("0x") == "string 0x");
  CHECK(Resolved("0b101") == "string 0b101");
  CHECK(Resolved("1_000") == "string 1_000");
  CHECK(Resolved("1.2.3") == "string 1.2.3");
  CHECK(Resolved("1e") == "string 1e");
  CHECK(Resolved("12Gi") == "string 12Gi");
  // Hex beyond int64 is not turned into a number.
  CHECK(Resolved("0xFFFFFFFFFFFFFFFF") == "string 0xFFFFFFFFFFFFFFFF");
}

TEST_CASE("ResolvePlainScalar keeps the origin it is given") {
  Origin origin = Origin::Input(&kFile, 3, 7);
  CHECK(ResolvePlainScalar("12", origin).origin().Position() == "job.yaml:3:7");
  CHECK(ResolvePlainScalar("", origin).origin().Position() == "job.yaml:3:7");
  CHECK(ResolvePlainScalar("text", origin).origin().Position() == "job.yaml:3:7");
}

// ---- Anchors and aliases -----------------------------------------------------------------------

TEST_CASE("an alias copies the anchored value, with the anchor's positions") {
  std::vector<Tree> docs = Read(
      "base: &env\n"
      "  name: A\n"
      "  value: \"1\"\n"
      "copy: *env\n"
      "list: [&n 5, *n]\n");
  REQUIRE(docs.size() == 1);
  const Tree& base = *docs[0].Find("base");
  const Tree& copy = *docs[0].Find("copy");
  CHECK(copy == base);
  CHECK(*copy.FindString("value") == "1");
  CHECK(copy.Find("name")->origin().Position() == "job.yaml:2:9");
  const Tree& list = *docs[0].Find("list");
  REQUIRE(list.items().size() == 2);
  CHECK(list.items()[1].AsInt() == 5);
}

TEST_CASE("an alias to an unknown anchor is malformed YAML") {
  CHECK(ReadError("a: 1\nb: *nowhere\n") == "job.yaml:2:4: malformed YAML: the referenced anchor is not defined");
}

TEST_CASE("a billion laughs document stops at the alias expansion limit") {
  // a has 10 values, b 91, c 820: the aliases of b and c expand to 90 + 819 = 909 values, and
  // the first *c of d crosses 1000.
  CHECK(ReadError(kLaughs, ReadLimits{.max_alias_nodes = 1000}) ==
        "job.yaml:4:8: aliases expand to more than 1000 values (alias expansion limit)");
}

TEST_CASE("aliases that expand to exactly the limit are accepted") {
  // Two aliases of a three-value list: six values.
  constexpr std::string_view kYaml = "a: &a [x, y]\nb: [*a, *a]\n";
  CHECK(Read(kYaml, ReadLimits{.max_alias_nodes = 6}).size() == 1);
  CHECK(ReadError(kYaml, ReadLimits{.max_alias_nodes = 5}) ==
        "job.yaml:2:9: aliases expand to more than 5 values (alias expansion limit)");
}

// ---- Limits ------------------------------------------------------------------------------------

TEST_CASE("flow lists nested deeper than max_depth hit the nesting limit") {
  CHECK(Read("[[[1]]]", ReadLimits{.max_depth = 3}).size() == 1);
  CHECK(ReadError("[[[[1]]]]", ReadLimits{.max_depth = 3}) ==
        "job.yaml:1:4: nesting deeper than 3 levels (nesting limit)");
}

TEST_CASE("block maps nested deeper than max_depth hit the nesting limit") {
  CHECK(ReadError("a:\n  b:\n    c:\n      d: 1\n", ReadLimits{.max_depth = 3}) ==
        "job.yaml:4:7: nesting deeper than 3 levels (nesting limit)");
}

TEST_CASE("the default nesting limit applies before yaml-cpp's own guard at 500 levels") {
  std::string deep = std::string(600, '[') + std::string(600, ']');
  CHECK(ReadError(deep) == "job.yaml:1:257: nesting deeper than 256 levels (nesting limit)");
}

TEST_CASE("yaml-cpp's own depth guard is reported as the nesting limit") {
  // With our limit above yaml-cpp's 500, its exception surfaces; it carries the scanner's mark.
  std::string deep = std::string(600, '[') + std::string(600, ']');
  CHECK(ReadError(deep, ReadLimits{.max_depth = 10000}) == "job.yaml:1:1: nesting too deep (nesting limit)");
}

TEST_CASE("a stream larger than max_bytes is rejected before parsing") {
  CHECK(ReadError("a: 123456\n", ReadLimits{.max_bytes = 8}) ==
        "job.yaml:1:1: input larger than 8 bytes (document size limit)");
  CHECK(Read("a: 1\n", ReadLimits{.max_bytes = 5}).size() == 1);
}

// ---- Errors ------------------------------------------------------------------------------------

TEST_CASE("a duplicate key is an error at the second key naming the line of the first") {
  CHECK(ReadError("spec:\n"
                  "  trainer:\n"
                  "    image: a\n"
                  "    numNodes: 1\n"
                  "    image: b\n") == "job.yaml:5:5: duplicate key \"image\" (first at line 3)");
  CHECK(ReadError("x: {a: 1, b: 2, a: 3}\n") == "job.yaml:1:17: duplicate key \"a\" (first at line 1)");
}

TEST_CASE("keys that resolve to the same value are duplicates") {
  CHECK(ReadError("true: a\nTrue: b\n") == "job.yaml:2:1: duplicate key \"true\" (first at line 1)");
  CHECK(ReadError("1: a\n+1: b\n") == "job.yaml:2:1: duplicate key \"1\" (first at line 1)");
}

// Bug: the duplicate check looks a null key up by its text ("") while it is stored as "null", so a
// second null key silently replaces the first.
TEST_CASE("a duplicate null key is an error") {
  CHECK(ReadError("~: 1\nnull: 2\n") == "job.yaml:2:1: duplicate key \"null\" (first at line 1)");
}

TEST_CASE("the same key in different maps is no duplicate") {
  std::vector<Tree> docs = Read("a: {name: x}\nb: {name: y}\n---\na: 1\n");
  CHECK(docs.size() == 2);
}

TEST_CASE("a non-scalar mapping key is an error") {
  CHECK(ReadError("? [a]\n: 1\n") == "job.yaml:1:3: mapping keys must be scalars");
}

TEST_CASE("malformed YAML is reported at its file, line and column") {
  CHECK(ReadError("a: [1, 2\nb: 3\n") == "job.yaml:2:2: malformed YAML: end of sequence flow not found");
  CHECK(ReadError("a: b: c\n") == "job.yaml:1:5: malformed YAML: illegal map value");
  CHECK(ReadError("a: 1\n  b: 2\n") == "job.yaml:2:4: malformed YAML: illegal map value");
  CHECK(ReadError("a: \"open") == "job.yaml:1:9: malformed YAML: illegal EOF in scalar");
  CHECK(ReadError("a: @x\n") == "job.yaml:1:4: malformed YAML: unknown token");
}

// Bug (yaml-cpp 0.7): a double-quoted scalar left open at the end of the stream is accepted when
// a line break follows the opening quote's line; `a: "x\n` reads as the string "x ".
TEST_CASE("an unterminated double-quoted scalar is malformed YAML" * doctest::skip()) {
  CHECK(ReadError("a: \"x\n") == "job.yaml:2:1: malformed YAML: illegal EOF in scalar");
}

TEST_CASE("an Error from reading carries one diagnostic formatted like its message") {
  try {
    Read("a: 1\na: 2\n");
    FAIL("no error");
  } catch (const Error& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].Format() == "job.yaml:2:1: duplicate key \"a\" (first at line 1)");
    CHECK(e.diagnostics()[0].Format() == std::string(e.what()));
  }
}

TEST_CASE("invalid UTF-8 is reported at the line and column of the bad byte") {
  CHECK(ReadError("a: \xff\n") == "job.yaml:1:4: invalid UTF-8");
  // A lead byte followed by a line break instead of a continuation byte.
  CHECK(ReadError("name: ok\nimage: caf\xc3\n") == "job.yaml:2:11: invalid UTF-8");
  // An overlong encoding of '/'.
  CHECK(ReadError("a: ok\nbad: \xc0\xaf\n") == "job.yaml:2:6: invalid UTF-8");
  // A sequence cut short by the end of the stream.
  CHECK(ReadError("a: \xe2\x82") == "job.yaml:1:4: invalid UTF-8");
  // Valid multi-byte characters pass.
  CHECK(*Read("a: caf\xc3\xa9 \xe2\x82\xac\n")[0].FindString("a") == "caf\xc3\xa9 \xe2\x82\xac");
}

// Bug: FindInvalidUtf8 accepts UTF-16 surrogates (ED A0..BF), overlong three- and four-byte forms
// (E0 80..9F, F0 80..8F) and lead bytes F5..F7 beyond U+10FFFF, which Go's utf8.Valid rejects.
TEST_CASE("surrogates, overlong forms and code points beyond U+10FFFF are invalid UTF-8") {
  CHECK(ReadError("a: \xed\xa0\x80\n") == "job.yaml:1:4: invalid UTF-8");
  CHECK(ReadError("a: \xe0\x80\x80\n") == "job.yaml:1:4: invalid UTF-8");
  CHECK(ReadError("a: \xf0\x80\x80\x80\n") == "job.yaml:1:4: invalid UTF-8");
  CHECK(ReadError("a: \xf5\x80\x80\x80\n") == "job.yaml:1:4: invalid UTF-8");
}

TEST_CASE("scalars with tags other than !!str are unsupported") {
  CHECK(ReadError("a: !!int 1\n") == "job.yaml:1:4: unsupported tag \"tag:yaml.org,2002:int\"");
  CHECK(ReadError("a:\n- !custom x\n") == "job.yaml:2:3: unsupported tag \"!custom\"");
  CHECK(ReadError("a: !!binary aGk=\n") == "job.yaml:1:4: unsupported tag \"tag:yaml.org,2002:binary\"");
}

}  // namespace trainer
