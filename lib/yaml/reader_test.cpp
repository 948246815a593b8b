#include "yaml/reader.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"

namespace trainer {

namespace {

using namespace std::string_literals;

// The words of yaml-cpp's "illegal map value" (YAML::ErrorMsg::MAP_VALUE), which several tests meet.
constexpr std::string_view kMapValueWords =
    "a \":\" where no value can start: the line above may miss the \":\" after its key, this key may be indented "
    "deeper than the keys beside it, or a value holding \": \" needs quotes";

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

TEST_CASE("ForEachYamlDocument hands over each document before reading the next") {
  static const std::string kFile = "in.yaml";
  std::vector<std::string> kinds;
  std::string error;
  try {
    ForEachYamlDocument("kind: A\n---\n---\nkind: B\n---\nkind: [\n", &kFile, [&](Tree& doc) {
      kinds.push_back(*doc.FindString("kind"));
      Tree taken = std::move(doc);  // the callee may keep the tree
    });
  } catch (const Error& e) {
    error = e.what();
  }
  CHECK(kinds == std::vector<std::string>{"A", "B"});
  CHECK(error.find("in.yaml:7:1: malformed YAML") == 0);
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

TEST_CASE("a byte order mark may open the stream and each document after ---, as kubectl accepts") {
  std::vector<Tree> docs = Read(
      "\xEF\xBB\xBF" "a: 1\n"
      "---\n"
      "\xEF\xBB\xBF" "b: 2\n"
      "--- # comment\n"
      "\xEF\xBB\xBF" "c: 3\n");
  REQUIRE(docs.size() == 3);
  CHECK(docs[0].KeyAt(0) == "a");
  CHECK(docs[1].KeyAt(0) == "b");
  CHECK(docs[2].KeyAt(0) == "c");
  // Columns count from the first character after the mark.
  CHECK(docs[1].KeyOriginAt(0).Position() == "job.yaml:3:1");
  CHECK(ReadError("\xEF\xBB\xBF" "a: b: c\n") == ReadError("a: b: c\n"));
}

TEST_CASE("a byte order mark inside a document is part of its text") {
  std::vector<Tree> docs = Read("a: x\xEF\xBB\xBFy\n");
  REQUIRE(docs.size() == 1);
  CHECK(*docs[0].FindString("a") == "x\xEF\xBB\xBFy");
}

TEST_CASE("CRLF line ends read as LF line ends") {
  std::vector<Tree> crlf = Read("a: 1\r\nb:\r\n  - x\r\n  - |\r\n    one\r\n    two\r\nc: \"q\r\n  r\"\r\n");
  std::vector<Tree> lf = Read("a: 1\nb:\n  - x\n  - |\n    one\n    two\nc: \"q\n  r\"\n");
  REQUIRE(crlf.size() == 1);
  CHECK(crlf[0] == lf[0]);
  CHECK(crlf[0].Find("b")->items()[1].text() == "one\ntwo\n");
  CHECK(crlf[0].Find("b")->items()[0].origin().Position() == "job.yaml:3:5");
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

TEST_CASE("plain integers resolve to integers, with a sign, in hex, octal and binary, as go-yaml v2 reads them") {
  CHECK(Resolved("0") == "integer 0");
  CHECK(Resolved("42") == "integer 42");
  CHECK(Resolved("-7") == "integer -7");
  CHECK(Resolved("+5") == "integer 5");
  CHECK(Resolved("0x1f") == "integer 31");
  CHECK(Resolved("0X1F") == "integer 31");
  CHECK(Resolved("-0x10") == "integer -16");
  CHECK(Resolved("0o17") == "integer 15");
  CHECK(Resolved("0b101") == "integer 5");
  CHECK(Resolved("-0b11") == "integer -3");
  // YAML 1.1, and so kubectl: a leading zero is octal, and underscores are dropped.
  CHECK(Resolved("017") == "integer 15");
  CHECK(Resolved("1_000") == "integer 1000");
  CHECK(Resolved("1_") == "integer 1");
  CHECK(Resolved("9223372036854775807") == "integer 9223372036854775807");
  CHECK(Resolved("-9223372036854775808") == "integer -9223372036854775808");
}

TEST_CASE("integers too large for int64 are kept as number text") {
  CHECK(Resolved("9223372036854775808") == "number 9223372036854775808");
  CHECK(Resolved("-9223372036854775809") == "number -9223372036854775809");
  CHECK(Resolved("123456789012345678901234567890") == "number 123456789012345678901234567890");
  // go-yaml reads this as a uint64; the text becomes its decimal digits.
  CHECK(Resolved("0xFFFFFFFFFFFFFFFF") == "number 18446744073709551615");
  CHECK(Resolved(std::string(400, '9')) == "number " + std::string(400, '9'));
}

TEST_CASE("floats are kept as the text they were written with") {
  CHECK(Resolved("1.50") == "number 1.50");
  CHECK(Resolved("1e3") == "number 1e3");
  CHECK(Resolved("-2.5E-3") == "number -2.5E-3");
  CHECK(Resolved(".5") == "number .5");
  CHECK(Resolved(".inf") == "number .inf");
  CHECK(Resolved("-.Inf") == "number -.Inf");
  CHECK(Resolved(".nan") == "number .nan");
  // A digit that is not octal after a leading zero makes a float, as in go-yaml v2.
  CHECK(Resolved("08") == "number 08");
  CHECK(Resolved("1_000.5") == "number 1000.5");
  CHECK(Resolved("+.5") == "number +.5");
  // Beyond float64: Go's ParseFloat fails, and the text stays a string.
  CHECK(Resolved("1e400") == "string 1e400");
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

// kubectl converts YAML to JSON with go-yaml v2, which resolves YAML 1.1 booleans.
TEST_CASE("YAML 1.1 booleans such as yes and on are booleans, as kubectl reads them") {
  for (const char* word : {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON"}) {
    CHECK(Resolved(word) == "boolean true");
  }
  for (const char* word : {"n", "N", "no", "No", "NO", "off", "Off", "OFF"}) {
    CHECK(Resolved(word) == "boolean false");
  }
  CHECK(Resolved("yEs") == "string yEs");
  CHECK(Resolved("'yes'") == "string yes");
}

TEST_CASE("a boolean or number keeps how it was written, for messages that quote it back") {
  std::vector<Tree> docs = Read("a: yes\nb: Off\nc: true\nd: 3\ne: 010\nf: 1_000\ng: +3\nh: 1.50\ni: text\nj: null\nk: [1]\n");
  REQUIRE(docs.size() == 1);
  auto spelling = [&](const char* key) {
    std::optional<std::string_view> s = docs[0].Find(key)->Spelling();
    return s ? std::string(*s) : std::string("(none)");
  };
  CHECK(spelling("a") == "yes");
  CHECK(spelling("b") == "Off");
  CHECK(spelling("c") == "true");
  CHECK(spelling("d") == "3");
  CHECK(spelling("e") == "(none)");  // octal 8
  CHECK(spelling("f") == "(none)");
  CHECK(spelling("g") == "(none)");
  CHECK(spelling("h") == "1.50");
  CHECK(spelling("i") == "text");
  CHECK(spelling("j") == "(none)");
  CHECK(spelling("k") == "(none)");
  // The spelling is no part of the value.
  CHECK(*docs[0].Find("a") == Tree::Bool(true));
  CHECK(QuoteAdvice(*docs[0].Find("b")) == " (quote it: \"Off\")");
  CHECK(QuoteAdvice(*docs[0].Find("e")) == " (quote it)");
  CHECK(QuoteAdvice(*docs[0].Find("i")).empty());
}

TEST_CASE("a boolean or integer map key becomes its canonical text, as in sigs.k8s.io/yaml") {
  std::vector<Tree> docs = Read("on: a\nno: b\n010: c\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].keys() == std::vector<std::string>{"true", "false", "8"});
  CHECK(ReadError("yes: a\ntrue: b\n") == "job.yaml:2:1: duplicate key \"true\" (first at line 1)");
}

TEST_CASE("quoted scalars are strings whatever they look like") {
  CHECK(Resolved("\"1\"") == "string 1");
  CHECK(Resolved("'true'") == "string true");
  CHECK(Resolved("\"null\"") == "string null");
  CHECK(Resolved("''") == "string ");
  CHECK(Resolved("!!str 1") == "string 1");
}

TEST_CASE("the escapes \\N and \\_ read as U+0085 and U+00A0 in UTF-8, as every other escape") {
  auto docs = Read("a: \"x\\Ny\\_z\\x85\\L\"\n\"\\N\": \"\\_\"\n");
  CHECK(docs.at(0).Find("a")->text() == "x\u0085y\u00a0z\u0085\u2028");
  CHECK(docs.at(0).keys() == std::vector<std::string>{"a", "\u0085"});
  REQUIRE(docs.at(0).Find("\u0085") != nullptr);
  CHECK(docs.at(0).Find("\u0085")->text() == "\u00a0");
}

TEST_CASE("plain scalars that are not numbers stay strings") {
  CHECK(Resolved("0x") == "string 0x");
  CHECK(Resolved("0b") == "string 0b");
  CHECK(Resolved("0b102") == "string 0b102");
  CHECK(Resolved("_1") == "string _1");
  CHECK(Resolved("1.2.3") == "string 1.2.3");
  CHECK(Resolved("1e") == "string 1e");
  CHECK(Resolved("12Gi") == "string 12Gi");
  CHECK(ResolvePlainScalar("-", {}).IsString());
  CHECK(Resolved("-.nan") == "string -.nan");
  // Base-60 numbers and timestamps stay strings (go-yaml v2 reads the latter as time.Time).
  CHECK(Resolved("1:20") == "string 1:20");
  // Hex beyond uint64.
  CHECK(Resolved("0x1FFFFFFFFFFFFFFFF") == "string 0x1FFFFFFFFFFFFFFFF");
  // Words with a letter that starts YAML's words, longer than any of them, and the longest words.
  CHECK(Resolved("falsey") == "string falsey");
  CHECK(Resolved("Nullable") == "string Nullable");
  CHECK(Resolved("offset") == "string offset");
  CHECK(Resolved("False") == "boolean false");
  CHECK(Resolved("FALSE") == "boolean false");
  CHECK(Resolved("ON") == "boolean true");
  CHECK(Resolved("tru") == "string tru");
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
  CHECK(ReadError("a: 1\nb: *nowhere\n") ==
        "job.yaml:2:4: malformed YAML: the alias \"*nowhere\" refers to no anchor \"&nowhere\" defined before it");
}

TEST_CASE("a billion laughs document stops at the alias expansion limit") {
  // The anchors copy a (10 values), b (91) and c (820); the aliases of b and c copy 90 + 819.
  // That is 1830 values when c is complete; the default limit stops it at g.
  CHECK(ReadError(kLaughs, ReadLimits{.max_alias_nodes = 1000}) ==
        "job.yaml:3:40: anchors and aliases copy more than 1000 values (alias expansion limit)");
  CHECK(ReadError(kLaughs) == "job.yaml:6:4: anchors and aliases copy more than 1000000 values (alias expansion limit)");
}

TEST_CASE("anchors and aliases that copy exactly the limit are accepted") {
  // The anchor copies a three-value list, and two aliases copy it again: nine values.
  constexpr std::string_view kYaml = "a: &a [x, y]\nb: [*a, *a]\n";
  CHECK(Read(kYaml, ReadLimits{.max_alias_nodes = 9}).size() == 1);
  CHECK(ReadError(kYaml, ReadLimits{.max_alias_nodes = 8}) ==
        "job.yaml:2:9: anchors and aliases copy more than 8 values (alias expansion limit)");
}

// Without a budget for anchors, each nested anchor keeps its own copy of everything below it: a
// few kilobytes of input would hold millions of values.
TEST_CASE("nested anchors count their copies against the alias expansion limit") {
  std::string yaml = "a: ";
  for (int i = 0; i < 200; ++i) yaml += fmt::format("&a{} [", i);
  for (int i = 0; i < 5000; ++i) yaml += "x, ";
  yaml += "x" + std::string(200, ']') + "\n";
  // The copies count as values too; whichever limit is reached first stops them.
  CHECK(ReadError(yaml).find(" limit)") != std::string::npos);
  CHECK(Read(yaml, ReadLimits{.max_alias_nodes = 2'000'000, .max_values = 2'000'000}).size() == 1);
}

TEST_CASE("a stream of more than max_values values hits the value count limit") {
  CHECK(Read("[1, 2, 3]\n", ReadLimits{.max_values = 4}).size() == 1);
  CHECK(ReadError("[1, 2, 3]\n---\n[4]\n", ReadLimits{.max_values = 4}) ==
        "job.yaml:3:2: more than 4 values in one stream (value count limit)");
}

TEST_CASE("a plain << key merges a map, as go-yaml v2 and so kubectl do") {
  std::vector<Tree> docs = Read(
      "base: &base {image: python, cpu: 1}\n"
      "job:\n"
      "  <<: *base\n"
      "  cpu: 2\n");
  REQUIRE(docs.size() == 1);
  const Tree& job = *docs[0].Find("job");
  CHECK(job.keys() == std::vector<std::string>{"image", "cpu"});
  CHECK(job.Find("cpu")->AsInt() == 2);
  CHECK(*job.FindString("image") == "python");
  // The merged value keeps the anchor's position.
  CHECK(job.Find("image")->origin().Position() == "job.yaml:1:21");
}

TEST_CASE("merge keys follow go-yaml v2: document order, and of a list of maps the first wins") {
  std::vector<Tree> docs = Read(
      "a: &a {x: 1, w: 1}\n"
      "b: &b {x: 2, z: 2}\n"
      "m: {x: 0, <<: [*a, *b]}\n"
      "inline: {<<: {k: v}, k: w}\n");
  REQUIRE(docs.size() == 1);
  const Tree& m = *docs[0].Find("m");
  // go-yaml v2 lets a merge replace a key written before it.
  CHECK(m.Find("x")->AsInt() == 1);
  REQUIRE(m.Find("w") != nullptr);
  CHECK(m.Find("w")->AsInt() == 1);
  CHECK(m.Find("z")->AsInt() == 2);
  CHECK(*docs[0].Find("inline")->FindString("k") == "w");
}

TEST_CASE("a merge of something else than maps is an error, and a quoted << is an ordinary key") {
  // Reported at the merge key: a merged alias carries its anchor's position.
  CHECK(ReadError("a: &a [1]\nb:\n  <<: *a\n") == "job.yaml:3:3: map merge requires map or sequence of maps as the value");
  CHECK(ReadError("b: {<<: [{a: 1}, 2]}\n") == "job.yaml:1:5: map merge requires map or sequence of maps as the value");
  CHECK(ReadError("b: {<<: {a: 1}, a: 2, a: 3}\n") == "job.yaml:1:23: duplicate key \"a\" (first at line 1)");
  std::vector<Tree> docs = Read("\"<<\": {a: 1}\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].keys() == std::vector<std::string>{"<<"});
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

TEST_CASE("flow nesting past the limit fails before yaml-cpp reads the collection ahead") {
  // yaml-cpp scans a whole flow collection before its first event: a million unclosed levels would
  // cost hundreds of megabytes before the tree's own count fires.
  CHECK(ReadError(std::string(1'000'000, '[')) == "job.yaml:1:257: nesting deeper than 256 levels (nesting limit)");
  std::string items;
  for (int i = 0; i < 100'000; ++i) items += "[a, ";
  CHECK(ReadError(items) == "job.yaml:1:1025: nesting deeper than 256 levels (nesting limit)");
  // Counted in flow levels, at the first one past the limit.
  CHECK(ReadError("a:\n  - x\n  - {b: [c, {d: [[1]]}]}\n", ReadLimits{.max_depth = 3}) ==
        "job.yaml:3:17: nesting deeper than 3 levels (nesting limit)");
}

TEST_CASE("brackets in quoted and block scalars, comments and plain text open no flow level") {
  const ReadLimits limits{.max_depth = 3};
  const std::string many = "[[[[[{{{{{";
  for (const std::string& yaml : {
           "a: \"" + many + "\"\n",
           "a: '" + many + "'\n",
           "a: 'it''s " + many + "'\n",
           "a: \"x\\\" " + many + "\"\n",
           "a: \"two\n  lines " + many + "\"\n",
           "a: |\n  " + many + "\n  " + many + "\nb: 1\n",
           "- >-\n  " + many + "\n- x\n",
           "--- |\n  " + many + "\n",
           "# " + many + "\na: 1\n",
           "a: 1  # " + many + "\n",
           "a: x" + many + "\n",
           "a: [b, \"" + many + "\", '" + many + "', c]\n",
           std::string("a: &anchor [1]\nb: !!seq [2]\n"),
       }) {
    CAPTURE(yaml);
    CHECK(Read(yaml, limits).size() == 1);
  }
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

TEST_CASE("duplicate keys are found in maps of many keys") {
  std::string yaml;
  for (int i = 0; i < 5000; ++i) yaml += fmt::format("k{}: {}\n", i, i);
  std::vector<Tree> docs = Read(yaml);
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].size() == 5000);
  CHECK(docs[0].Find("k4321")->AsInt() == 4321);
  CHECK(ReadError(yaml + "k17: again\n") == "job.yaml:5001:1: duplicate key \"k17\" (first at line 18)");
}

TEST_CASE("maps of any size keep their keys in order, nested values whole, and find duplicates") {
  // Around the size at which a map under construction takes over its entries from the builder.
  for (std::size_t n : {std::size_t{1}, Tree::kIndexedMapSize - 1, Tree::kIndexedMapSize, Tree::kIndexedMapSize + 1,
                        2 * Tree::kIndexedMapSize + 5}) {
    CAPTURE(n);
    std::string yaml = "top:\n";
    for (std::size_t i = 0; i < n; ++i) yaml += fmt::format("  k{}:\n    a: {}\n    b: [{}, {{c: {}}}]\n", i, i, i, i);
    yaml += "after: 1\n";
    std::vector<Tree> docs = Read(yaml);
    REQUIRE(docs.size() == 1);
    const Tree& top = *docs[0].Find("top");
    REQUIRE(top.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(top.KeyAt(i) == fmt::format("k{}", i));
      CHECK(top.KeyOriginAt(i).line == 2 + 3 * i);
      CHECK(top.items()[i].Find("a")->AsInt() == static_cast<std::int64_t>(i));
      CHECK(top.items()[i].Find("b")->items()[1].Find("c")->AsInt() == static_cast<std::int64_t>(i));
    }
    CHECK(docs[0].Find("after")->AsInt() == 1);
    std::string first_again = yaml;
    first_again.insert(first_again.find("after:"), "  k0: again\n");
    CHECK(ReadError(first_again) == fmt::format("job.yaml:{}:3: duplicate key \"k0\" (first at line 2)", 2 + 3 * n));
    std::string last_again = yaml;
    last_again.insert(last_again.find("after:"), fmt::format("  k{}: again\n", n - 1));
    CHECK(ReadError(last_again) ==
          fmt::format("job.yaml:{}:3: duplicate key \"k{}\" (first at line {})", 2 + 3 * n, n - 1, 2 + 3 * (n - 1)));
  }
}

TEST_CASE("the same key in different maps is no duplicate") {
  std::vector<Tree> docs = Read("a: {name: x}\nb: {name: y}\n---\na: 1\n");
  CHECK(docs.size() == 2);
}

TEST_CASE("a non-scalar mapping key is an error") {
  CHECK(ReadError("? [a]\n: 1\n") == "job.yaml:1:3: mapping keys must be scalars");
}

// Each message of yaml-cpp (YAML::ErrorMsg) the reader words otherwise, triggered by real input:
// should a yaml-cpp upgrade throw another message for one of these inputs, or none, this fails
// instead of its raw text reaching users.
TEST_CASE("malformed YAML is told in a user's words, at the file, line and column yaml-cpp gives") {
  struct Case {
    const char* yaml_cpp;  // the message yaml-cpp throws for `input`
    const char* input;
    std::string error;  // what the reader reports
  };
  const std::string kMapValue = "malformed YAML: " + std::string(kMapValueWords);
  const std::string kEndOfMap =
      "malformed YAML: this line does not fit the map it is in: indent a key as the keys beside it (in the same "
      "column), put a list item (\"- \") under its key, and write nothing after a quoted value";
  namespace M = YAML::ErrorMsg;
  const Case cases[] = {
      {M::END_OF_MAP, "a:\n  b: 1\n c: 2\n", "job.yaml:3:2: " + kEndOfMap},  // a key indented unlike the others
      {M::END_OF_MAP, "a: \"x\" y\n", "job.yaml:1:8: " + kEndOfMap},         // text after a quoted value
      {M::MAP_VALUE, "a:\n  b: 1\n  c\n  d: 2\n", "job.yaml:4:4: " + kMapValue},  // a missing colon
      {M::MAP_VALUE, "a: 1\n  b: 2\n", "job.yaml:2:4: " + kMapValue},          // a key indented too deep
      {M::MAP_VALUE, "a: b: c\n", "job.yaml:1:5: " + kMapValue},                // a value holding ": "
      {M::END_OF_SEQ, "- - a\n  - b\n - c\n",
       "job.yaml:3:2: malformed YAML: this line does not fit the list it is in: start the \"- \" of its items in the "
       "same column"},
      {M::END_OF_SEQ_FLOW, "a: [1, 2\nb: 3\n",
       "job.yaml:2:2: malformed YAML: a \"[\" is not closed: a \"]\" is missing, or a \",\" between items"},
      {M::END_OF_MAP_FLOW, "a: {x: 1\nb: 3\n",
       "job.yaml:2:2: malformed YAML: a \"{\" is not closed: a \"}\" is missing, or a \",\" between entries"},
      {M::FLOW_END, "a: }\n",
       "job.yaml:1:4: malformed YAML: \"}\" closes no \"[\" or \"{\": remove it, or quote the value that holds it"},
      {M::BLOCK_ENTRY, "a: - b\n",
       "job.yaml:1:4: malformed YAML: a list item (\"- \") cannot start here: put it on a line of its own, under its "
       "key, or quote a value that starts with \"- \""},
      {M::UNKNOWN_TOKEN, "a: @x\n", "job.yaml:1:4: malformed YAML: a value cannot start with \"@\": quote it"},
      {M::UNKNOWN_TOKEN, "a: `x`\n", "job.yaml:1:4: malformed YAML: a value cannot start with \"`\": quote it"},
      {M::INVALID_ESCAPE, "a: \"C:\\dir\"\n",
       "job.yaml:1:9: malformed YAML: unknown escape \"\\d\" in a double-quoted value: write \"\\\\d\", or use single "
       "quotes"},
      {M::UNKNOWN_ANCHOR, "a: 1\nb: *nowhere\n",
       "job.yaml:2:4: malformed YAML: the alias \"*nowhere\" refers to no anchor \"&nowhere\" defined before it"},
      {M::DOC_IN_SCALAR, "a: \"x\n---\n\"\n",
       "job.yaml:2:1: malformed YAML: a \"---\" or \"...\" line inside a quoted value: its closing quote is missing"},
      {M::EOF_IN_SCALAR, "a: \"open",
       "job.yaml:1:9: malformed YAML: a quoted value is not closed: its closing quote is missing"},
      {M::CHAR_IN_BLOCK, "a: >x\n",
       "job.yaml:1:5: malformed YAML: text after \"|\" or \">\": only an indentation digit, \"+\" or \"-\", and a "
       "comment may follow them"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    std::string thrown;
    try {
      YAML::Load(c.input);
    } catch (const YAML::Exception& e) {
      thrown = e.msg;
    }
    CHECK(thrown.rfind(c.yaml_cpp, 0) == 0);  // INVALID_ESCAPE is followed by the character
    CHECK(ReadError(c.input) == c.error);
  }
}

// yaml-cpp 0.7 accepts a quoted scalar left open at the end of the stream when a line break
// follows the opening quote's line (`a: "x\n` reads as "x "); the reader checks the source.
TEST_CASE("a quoted scalar left open at the end of the stream is malformed YAML") {
  CHECK(ReadError("a: \"x\n") == "job.yaml:1:4: malformed YAML: quoted scalar not closed before the end of the stream");
  CHECK(ReadError("a: 1\nb: 'x\n\n") == "job.yaml:2:4: malformed YAML: quoted scalar not closed before the end of the stream");
  CHECK(ReadError("a: 'it''s\n") == "job.yaml:1:4: malformed YAML: quoted scalar not closed before the end of the stream");
  CHECK(ReadError("a: \"x\\\"\n") == "job.yaml:1:4: malformed YAML: quoted scalar not closed before the end of the stream");
  // Closed ones, after multi-byte characters, CRLF line ends and escapes, are fine.
  std::vector<Tree> docs = Read("\xc3\xa9: \"caf\xc3\xa9\"\r\nb: 'it''s'\r\nc: \"q\\\"\"\r\nd: [\"x\", 'y']\r\n");
  REQUIRE(docs.size() == 1);
  CHECK(*docs[0].FindString("b") == "it's");
  CHECK(*docs[0].FindString("c") == "q\"");
}

// Found by fuzz/fuzz_render: yaml-cpp 0.7 starts empty documents at a stray "," forever.
TEST_CASE("a stray flow indicator outside a flow collection is malformed YAML, not an endless stream") {
  CHECK(ReadError(", b\n") == "job.yaml:1:1: malformed YAML: unexpected \",\"");
  CHECK(ReadError("# c\n   , command, env\nkind: x\n") == "job.yaml:2:4: malformed YAML: unexpected \",\"");
}

TEST_CASE("a tab in indentation is named in the error") {
  CHECK(ReadError("spec:\n  trainer:\n\tnumNodes: 2\n") ==
        "job.yaml:3:1: malformed YAML: a tab in indentation (YAML indents with spaces only)");
  CHECK(ReadError("spec:\n  trainer:\n  \t numNodes: 2\n").find("a tab in indentation") != std::string::npos);
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

TEST_CASE("invalid UTF-8 is found at any offset after ASCII, which is checked eight bytes at a time") {
  for (std::size_t at = 3; at < 40; ++at) {
    CAPTURE(at);
    std::string text = "a: " + std::string(at - 3, 'x');
    // A bad byte, and a sequence cut short by the end, at every alignment.
    CHECK(ReadError(text + "\xff" + std::string(20, 'y') + "\n") == fmt::format("job.yaml:1:{}: invalid UTF-8", at + 1));
    CHECK(ReadError(text + "\xe2\x82") == fmt::format("job.yaml:1:{}: invalid UTF-8", at + 1));
    // A valid character between ASCII runs passes.
    std::string valid = text + "\xe2\x82\xac" + std::string(at, 'z');
    CHECK(*Read(valid + "\n")[0].FindString("a") == valid.substr(3));
  }
}

// Bug: FindInvalidUtf8 accepts UTF-16 surrogates (ED A0..BF), overlong three- and four-byte forms
// (E0 80..9F, F0 80..8F) and lead bytes F5..F7 beyond U+10FFFF, which Go's utf8.Valid rejects.
TEST_CASE("surrogates, overlong forms and code points beyond U+10FFFF are invalid UTF-8") {
  CHECK(ReadError("a: \xed\xa0\x80\n") == "job.yaml:1:4: invalid UTF-8");
  CHECK(ReadError("a: \xe0\x80\x80\n") == "job.yaml:1:4: invalid UTF-8");
  CHECK(ReadError("a: \xf0\x80\x80\x80\n") == "job.yaml:1:4: invalid UTF-8");
  CHECK(ReadError("a: \xf5\x80\x80\x80\n") == "job.yaml:1:4: invalid UTF-8");
}

// ---- Characters kubectl reads otherwise ------------------------------------------------------

namespace {

// The message for a character that kubectl's YAML 1.1 reader takes for a line break.
std::string LineBreakError(std::string_view at, std::string_view name, std::string_view escape) {
  return fmt::format(
      "job.yaml:{}: {}, which kubectl's YAML reader takes for a line break: write it as \"{}\" inside a "
      "double-quoted string",
      at, name, escape);
}
// The message for a control character YAML does not allow.
std::string ControlError(std::string_view at, std::string_view name, std::string_view escape) {
  return fmt::format(
      "job.yaml:{}: {}, which YAML does not allow in a file: write it as \"{}\" inside a double-quoted "
      "string",
      at, name, escape);
}

}  // namespace

TEST_CASE("a line or paragraph separator or NEL is refused where it stands, comments included") {
  // To kubectl the comment ends at the separator, and the image that follows replaces busybox:1.
  CHECK(ReadError("image: busybox:1 # pinned\u2028image: evil.example.com/miner:latest\n") ==
        LineBreakError("1:26", "U+2028 LINE SEPARATOR", "\\L"));
  CHECK(ReadError("a: 1\nb: x\u2029y\n") == LineBreakError("2:5", "U+2029 PARAGRAPH SEPARATOR", "\\P"));
  CHECK(ReadError("a: \"x\u0085y\"\n") == LineBreakError("1:6", "U+0085 NEXT LINE (NEL)", "\\N"));
  CHECK(ReadError("a: |\n  x\n  y\u2028z\n") == LineBreakError("3:4", "U+2028 LINE SEPARATOR", "\\L"));
  // Written as escapes, they are characters of the value.
  CHECK(*Read("a: \"x\\Ly\\Pz\\N\"\n")[0].FindString("a") == "x\u2028y\u2029z\u0085");
}

TEST_CASE("a carriage return without a line feed after it is refused; CRLF line ends read") {
  const std::string lone =
      "job.yaml:{}: a lone carriage return (0x0D), which kubectl's YAML reader takes for a line break: end lines "
      "with LF or CRLF, or write it as \"\\r\" inside a double-quoted string";
  // A file with CR line ends that starts with a comment was one long comment, and rendered nothing.
  CHECK(ReadError("# comment\rapiVersion: v1\rkind: ConfigMap\r") == fmt::format(fmt::runtime(lone), "1:10"));
  CHECK(ReadError("a: 1\r\nb: 2\r\r\n") == fmt::format(fmt::runtime(lone), "2:5"));
  CHECK(ReadError("a: 1\r") == fmt::format(fmt::runtime(lone), "1:5"));
  CHECK(ReadError("a: \"x\ry\"\r\n") == fmt::format(fmt::runtime(lone), "1:6"));
  CHECK(Read("a: 1\r\nb: \"x\\ry\"\r\n")[0] == Read("a: 1\nb: \"x\\ry\"\n")[0]);
}

TEST_CASE("control characters are refused, each named, with the escape that writes it") {
  // A NUL in a plain scalar read as an escape: busybox\0x3a1 was busybox:1.
  CHECK(ReadError("image: busybox\0x3a1\n"s) == ControlError("1:15", "NUL byte (0x00)", "\\0"));
  CHECK(ReadError("a: |\n  x\0\n"s) == ControlError("2:4", "NUL byte (0x00)", "\\0"));
  CHECK(ReadError("a: x # \x1b[2J\n") == ControlError("1:8", "control character 0x1B", "\\x1B"));
  CHECK(ReadError("a: 'x\x01'\n") == ControlError("1:6", "control character 0x01", "\\x01"));
  CHECK(ReadError("a: x\x7f\n") == ControlError("1:5", "control character 0x7F", "\\x7F"));
  CHECK(ReadError("a: x\x0b\n") == ControlError("1:5", "control character 0x0B", "\\x0B"));
  CHECK(ReadError("a: x\u0080\n") == ControlError("1:5", "control character U+0080", "\\x80"));
  CHECK(ReadError("a: x\u009b2J\n") == ControlError("1:5", "control character U+009B", "\\x9B"));
  CHECK(ReadError("a: x\uffff\n") == ControlError("1:5", "noncharacter U+FFFF", "\\uFFFF"));
  CHECK(ReadError("a: x\ufffe\n") == ControlError("1:5", "noncharacter U+FFFE", "\\uFFFE"));
  // Tabs, no-break spaces, U+FFFD and characters beyond U+FFFF read as text.
  CHECK(*Read("a: x\ty\u00a0\ufffd\U0001F600 # c\td\n")[0].FindString("a") == "x\ty\u00a0\ufffd\U0001F600");
}

TEST_CASE("a NUL byte at the start of a file suggests UTF-16 or UTF-32 without a byte order mark") {
  const std::string hint =
      "; a file that starts with NUL bytes may be UTF-16 or UTF-32 text without a byte order mark: save it as UTF-8";
  CHECK(ReadError("a\0:\0"s) == ControlError("1:2", "NUL byte (0x00)", "\\0") + hint);
  CHECK(ReadError("\0a\0:"s) == ControlError("1:1", "NUL byte (0x00)", "\\0") + hint);
  CHECK(ReadError("ab: \0"s) == ControlError("1:5", "NUL byte (0x00)", "\\0"));
}

TEST_CASE("control characters are found at any offset after ASCII, which is checked eight bytes at a time") {
  const std::pair<std::string, std::string> kRefused[] = {
      {"\x01"s, "control character 0x01"},   {"\x1f"s, "control character 0x1F"},
      {"\x7f"s, "control character 0x7F"},   {"\0"s, "NUL byte (0x00)"},
      {"\u0085"s, "U+0085 NEXT LINE (NEL)"}, {"\r"s, "a lone carriage return (0x0D)"}};
  for (std::size_t at = 3; at < 40; ++at) {
    CAPTURE(at);
    const std::string text = "a: " + std::string(at - 3, 'x');
    for (const auto& [character, name] : kRefused) {
      CAPTURE(name);
      const std::string error = ReadError(text + character + std::string(20, 'y') + "\n");
      CHECK(error.substr(0, error.find(',')) == fmt::format("job.yaml:1:{}: {}", at + 1, name));
    }
    // Bytes just beside the ones refused (0x20 above the controls, 0x7E below DEL) and tabs pass.
    const std::string valid = text + "~ \t~" + std::string(at, 'z');
    CHECK(*Read(valid + "\n")[0].FindString("a") == valid.substr(3));
  }
}

// What kubectl reads as JSON (a stream whose first character but blanks is "{") its JSON reader
// reads: NEL, U+2028, U+2029, DEL and C1 controls in a string are characters of it, as in yaml-cpp;
// other control characters and a lone CR are refused, as JSON escapes.
TEST_CASE("a JSON stream may hold NEL, line separators, DEL and C1 controls raw, as kubectl's JSON reader reads them") {
  const std::string json = " \n{\"a\": \"x\u0085y\u2028z\u2029\x7f\u009b\ufffe\", \"b\": [1]}\n";
  CHECK(*Read(json)[0].FindString("a") == "x\u0085y\u2028z\u2029\x7f\u009b\ufffe");
  CHECK(ReadError("{\"a\": \"x\x01\"}") ==
        "job.yaml:1:9: control character 0x01, which JSON does not allow: write it as \"\\u0001\" inside a string");
  CHECK(ReadError("{\"a\": \"x\0\"}"s) ==
        "job.yaml:1:9: NUL byte (0x00), which JSON does not allow: write it as \"\\u0000\" inside a string");
  CHECK(ReadError("{\"a\": 1,\r\"b\": 2}\r\n") ==
        "job.yaml:1:9: a lone carriage return (0x0D), which kubectl's JSON reader takes for a blank: end lines with LF "
        "or CRLF, or write it as \"\\r\" inside a string");
  // A flow map after anything else is YAML.
  CHECK(ReadError("# c\n{\"a\": \"x\u2028\"}") == LineBreakError("2:9", "U+2028 LINE SEPARATOR", "\\L"));
}

// ---- Encodings ---------------------------------------------------------------------------------

namespace {

// `text` as UTF-16 with its byte order mark.
std::string Utf16(std::u16string_view text, bool little_endian) {
  std::string out = little_endian ? "\xFF\xFE" : "\xFE\xFF";
  for (char16_t unit : text) {
    const char high = static_cast<char>(unit >> 8), low = static_cast<char>(unit & 0xFF);
    out += little_endian ? std::string{low, high} : std::string{high, low};
  }
  return out;
}

}  // namespace

TEST_CASE("UTF-16 with a byte order mark reads as its UTF-8 form, as kubectl decodes it") {
  const std::u16string text = u"kind: TrainJob # caf\u00e9\nmetadata:\n  name: \U0001F600\n---\nb: [x, \"\\L\"]\n";
  const std::vector<Tree> utf8 =
      Read("kind: TrainJob # caf\u00e9\nmetadata:\n  name: \U0001F600\n---\nb: [x, \"\\L\"]\n");
  for (bool little : {true, false}) {
    CAPTURE(little);
    std::vector<Tree> docs = Read(Utf16(text, little));
    CHECK(docs == utf8);
    REQUIRE(docs.size() == 2);
    CHECK(docs[1].Find("b")->items()[1].origin().Position() == "job.yaml:5:8");
    // Problems are located in the UTF-8 form: lines as written, columns in its bytes.
    CHECK(ReadError(Utf16(u"a: caf\u00e9\nb: c: d\n", little)) == ReadError("a: caf\u00e9\nb: c: d\n"));
    CHECK(ReadError(Utf16(u"a: 1\n# \u00e9\u2028y: 2\n", little)) ==
          LineBreakError("2:5", "U+2028 LINE SEPARATOR", "\\L"));
  }
}

TEST_CASE("UTF-16 that does not decode is refused where it stops decoding") {
  CHECK(ReadError(Utf16(u"a: 1\nb: x\xD800y\n", true)) ==
        "job.yaml:2:5: invalid UTF-16: surrogate 0xD800 without its pair");
  CHECK(ReadError(Utf16(u"a: \xDC00\n", false)) == "job.yaml:1:4: invalid UTF-16: surrogate 0xDC00 without its pair");
  CHECK(ReadError(Utf16(u"a: \xD800", true)) == "job.yaml:1:4: invalid UTF-16: surrogate 0xD800 without its pair");
  CHECK(ReadError(Utf16(u"a: caf\u00e9", true) + "x") ==
        "job.yaml:1:9: invalid UTF-16: the file ends in half a character (an odd number of bytes)");
}

TEST_CASE("UTF-32 with a byte order mark is refused, as kubectl reads it as UTF-16 or UTF-8 full of NULs") {
  CHECK(ReadError("\xFF\xFE\0\0a\0\0\0"s) ==
        "job.yaml:1:1: UTF-32 text (byte order mark FF FE 00 00): kubectl reads UTF-8 and UTF-16 only; save the file "
        "as UTF-8");
  CHECK(ReadError("\0\0\xFE\xFF\0\0\0a"s) ==
        "job.yaml:1:1: UTF-32 text (byte order mark 00 00 FE FF): kubectl reads UTF-8 and UTF-16 only; save the file "
        "as UTF-8");
}

TEST_CASE("UTF-16 is held to the size limit before and after it is decoded") {
  ReadLimits limits;
  limits.max_bytes = 20;
  const std::string error = "job.yaml:1:1: input larger than 20 bytes (document size limit)";
  // 28 bytes, 13 decoded; 20 bytes, 27 decoded; 16 bytes, 15 decoded.
  CHECK(ReadError(Utf16(u"a: 1234567890", true), limits) == error);
  CHECK(ReadError(Utf16(u"\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac", true), limits) == error);
  CHECK(Read(Utf16(u"a: \u20ac\u20ac\u20ac\u20ac", true), limits).size() == 1);
}

TEST_CASE("scalars with tags other than !!str are unsupported") {
  CHECK(ReadError("a: !!int 1\n") == "job.yaml:1:4: unsupported tag \"tag:yaml.org,2002:int\"");
  CHECK(ReadError("a:\n- !custom x\n") == "job.yaml:2:3: unsupported tag \"!custom\"");
  CHECK(ReadError("a: !!binary aGk=\n") == "job.yaml:1:4: unsupported tag \"tag:yaml.org,2002:binary\"");
}

// Every document read from `yaml`, positions included, then the error if there is one.
std::string Outline(std::string_view yaml, const ReadLimits& limits = {}) {
  std::string out;
  try {
    ForEachYamlDocument(yaml, &kFile, [&](Tree& doc) { out += "---\n" + doc.Outline(); }, limits);
  } catch (const Error& e) {
    out += std::string("error: ") + e.what() + "\n";
  }
  return out;
}

TEST_CASE("a problem in a later document comes after the documents before it, at its own line") {
  CHECK(Outline("a: 1\n---\nb: 2\n---\nc: 3\n  d: 4\n") ==
        "---\nobject @job.yaml:1:1\nkey a @job.yaml:1:1\n  integer 1 @job.yaml:1:4\n"
        "---\nobject @job.yaml:3:1\nkey b @job.yaml:3:1\n  integer 2 @job.yaml:3:4\n"
        "error: job.yaml:6:4: malformed YAML: " + std::string(kMapValueWords) + "\n");
}

TEST_CASE("a document start inside a quoted scalar is no document start") {
  CHECK(Outline("a: 1\n---\nb: \"open\n---\nc: 2\n").find("error: job.yaml:4:1: malformed YAML") != std::string::npos);
}

// yaml-cpp keeps a %TAG for the documents after it that do not set their own: the third reads
// !!str with it.
TEST_CASE("a directive holds for the documents after it, as yaml-cpp reads them") {
  std::string tags = "a: !!str 1\n...\n%TAG !! tag:example.com,2000:\n--- !!str b\n...\n---\nc: !!str d\n";
  CHECK(Outline(tags).find("unsupported tag \"tag:example.com,2000:str\"") != std::string::npos);
}

// Found by fuzzing: a line with no ":" at a block map's indentation, just before a "---", reads
// as a key without a value, but yaml-cpp then scans to the stream's end or first error before
// it hands on anything more: a later scanner error comes before the documents in between.
TEST_CASE("a keyless last line before a document start reads as a key without a value") {
  std::string held = "a: 1\nb\n---\nc: 1\nc: 2\n---\nx: y: z\n";
  CHECK(Outline(held) == "error: job.yaml:7:5: malformed YAML: " + std::string(kMapValueWords) + "\n");
  std::string clean = "a: 1\nb\n---\nc: 1\n---\nd:\n  - e\n  f\n---\ng: 1\n";
  CHECK(Outline(clean).find("key b @job.yaml:2:1\n  null") != std::string::npos);
}

TEST_CASE("the limits count the whole stream, over all its documents") {
  std::string docs = "a: [1, 2]\n---\nb: [3, 4]\n---\nc: [5, 6]\n---\nd: [7, 8]\n";
  ReadLimits limits;
  limits.max_values = 10;
  CHECK(Outline(docs, limits).find("error: job.yaml:5:1: more than 10 values") != std::string::npos);
  std::string aliases = "a: &x [1, 2]\nb: *x\n---\nc: &y [3, 4]\nd: *y\n---\ne: &z [5]\nf: *z\n";
  limits = ReadLimits{};
  limits.max_alias_nodes = 13;
  CHECK(Outline(aliases, limits).find("alias expansion limit") != std::string::npos);
}

TEST_CASE("a long stream hands its documents over in order") {
  std::string yaml;
  for (int i = 0; i < 2000; ++i) {
    yaml += fmt::format("---\nkind: TrainJob\nmetadata:\n  name: job-{}\n  labels: {{a: b}}\nspec:\n  count: {}\n  list: [x, y]\n", i, i);
  }
  int seen = 0;
  ForEachYamlDocument(yaml, &kFile, [&](Tree& doc) {
    CHECK(doc.Find("metadata")->FindString("name") != nullptr);
    CHECK(*doc.Find("metadata")->FindString("name") == fmt::format("job-{}", seen));
    CHECK(doc.origin().line == static_cast<std::uint32_t>(seen * 8 + 2));
    ++seen;
  });
  CHECK(seen == 2000);
  SUBCASE("a problem near the end comes after every document before it") {
    std::string out = Outline(yaml + "---\nkind: [\n");
    CHECK(out.find("error: job.yaml:16003:1: malformed YAML: a \"[\" is not closed") != std::string::npos);
    CHECK(out.find("job-1999") != std::string::npos);
  }
  SUBCASE("a handler that throws stops the read") {
    seen = 0;
    auto each = [&](Tree&) {
      if (++seen == 500) throw std::runtime_error("enough");
    };
    CHECK_THROWS_WITH(ForEachYamlDocument(yaml, &kFile, each), "enough");
    CHECK(seen == 500);
  }
}

}  // namespace trainer
