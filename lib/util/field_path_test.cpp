#include "util/field_path.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

namespace {

struct Row {
  std::string_view path;
};

// Every node of the tree below `at`, "path: rows", rows by their index in `table`, walking it as
// the rule tables do.
void Walk(const PathTree<Row>& tree, std::size_t at, const std::string& path, std::span<const Row> table,
          std::vector<std::string>& out) {
  const PathTree<Row>::Node& node = tree[at];
  std::string line = path + ":";
  for (const Row& row : node.rules) line += " " + std::to_string(&row - table.data());
  out.push_back(line);
  for (std::size_t c = node.first_child; c != PathTree<Row>::kNone; c = tree[c].next_sibling) {
    Walk(tree, c, path.empty() ? std::string(tree[c].segment) : path + "/" + std::string(tree[c].segment), table, out);
  }
}

std::vector<std::string> Nodes(std::span<const Row> table) {
  PathTree<Row> tree;
  std::vector<std::string> out;
  Walk(tree, tree.Add(table), "", table, out);
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("a path's segments are its field names and [*]") {
  using Views = std::vector<std::string_view>;
  CHECK(Segments("spec.b[*].x") == Views{"spec", "b", "[*]", "x"});
  CHECK(Segments("[*].name") == Views{"[*]", "name"});
  CHECK(Segments("limits[*]") == Views{"limits", "[*]"});
  CHECK(Segments("a[*][*]") == Views{"a", "[*]", "[*]"});
  CHECK(Segments("name") == Views{"name"});
  CHECK(Segments("").empty());
}

TEST_CASE("SegmentAt starts at 0 or where a segment ends, and tells where the next starts") {
  static_assert(SegmentAt("a.b[*].c", 0).text == "a");
  static_assert(SegmentAt("a.b[*].c", 0).end == 1);
  static_assert(SegmentAt("a.b[*].c", 1).text == "b");
  static_assert(SegmentAt("a.b[*].c", 1).end == 3);
  static_assert(SegmentAt("a.b[*].c", 3).text == "[*]");
  static_assert(SegmentAt("a.b[*].c", 3).end == 6);
  static_assert(SegmentAt("a.b[*].c", 6).text == "c");
  static_assert(SegmentAt("a.b[*].c", 6).end == 8);
}

TEST_CASE("a path tree of rules in tree order has one node per field, children in order") {
  const Row table[] = {{""},          {"spec"},        {"spec.a"},      {"spec.a"},
                       {"spec.b[*]"}, {"spec.b[*].x"}, {"spec.b[*].y"}, {"spec.bc"},
                       {"spec.bC"},   {"status.c"}};
  CHECK(Nodes(table) == Lines{": 0", "spec: 1", "spec/a: 2 3", "spec/b:", "spec/b/[*]: 4", "spec/b/[*]/x: 5",
                              "spec/b/[*]/y: 6", "spec/bc: 7", "spec/bC: 8", "status:", "status/c: 9"});
}

TEST_CASE("a path tree of rules in another order still reaches each rule once") {
  const Row table[] = {{"a.x"}, {"b"}, {"a.y"}, {"a"}};
  CHECK(Nodes(table) == Lines{":", "a:", "a/x: 0", "b: 1", "a: 3", "a/y: 2"});
}

TEST_CASE("a path tree refuses the rules of one path apart") {
  const Row table[] = {{"a"}, {"a.x"}, {"a"}};
  PathTree<Row> tree;
  CHECK_THROWS_AS(tree.Add(table), std::logic_error);
}

TEST_CASE("a path tree holds the trees of several tables") {
  const Row first[] = {{"a"}, {"a.b"}};
  const Row second[] = {{"a.c"}};
  PathTree<Row> tree;
  const std::size_t one = tree.Add(first);
  const std::size_t two = tree.Add(second);
  std::vector<std::string> out;
  Walk(tree, one, "", first, out);
  CHECK(out == Lines{":", "a: 0", "a/b: 1"});
  out.clear();
  Walk(tree, two, "", second, out);
  CHECK(out == Lines{":", "a:", "a/c: 0"});
}

}  // namespace trainer
