#include "util/field_path.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace trainer {

namespace {

// Rules are the indexes of the paths they were added for.
constexpr std::string_view kPaths[] = {
    "spec.b[*].x", "spec.a", "status", "spec.b[*].y", "spec.a", "spec.b",
};

constexpr PathTree<int> Build() {
  PathTree<int> tree;
  for (int i = 0; i < static_cast<int>(std::size(kPaths)); ++i) tree.nodes[tree.Add(0, kPaths[i])].rules.push_back(i);
  return tree;
}

constexpr auto kSizes = FrozenSizes(Build());
constexpr auto kFrozen = Freeze<kSizes[0], kSizes[1]>(Build());

// Every path the frozen tree holds, "path: rules", walking it as the rule tables do.
template <typename Frozen>
void Walk(const Frozen& tree, std::size_t at, const std::string& path, std::vector<std::string>& out) {
  const FrozenPathNode& node = tree.nodes[at];
  if (node.rule_count != 0) {
    std::string line = path + ":";
    for (int rule : tree.RulesOf(node)) line += " " + std::to_string(rule);
    out.push_back(line);
  }
  for (std::size_t child = node.first_child; child < node.children_end(); ++child) {
    const std::string_view segment = tree.nodes[child].segment;
    Walk(tree, child, path.empty() ? std::string(segment) : path + "." + std::string(segment), out);
  }
}

}  // namespace

TEST_CASE("a frozen path tree has the nodes and rules of the tree it was made from") {
  static_assert(kSizes[0] == 8);  // the document, spec, status, b, a, [*], x, y
  static_assert(kSizes[1] == std::size(kPaths));
  // Children in the order paths first named them; a node's rules in the order they were added.
  std::vector<std::string> paths;
  Walk(kFrozen, 0, "", paths);
  CHECK(paths ==
        std::vector<std::string>{"spec.b: 5", "spec.b.[*].x: 0", "spec.b.[*].y: 3", "spec.a: 1 4", "status: 2"});
}

TEST_CASE("a frozen path tree is breadth first, each node's children side by side") {
  CHECK(kFrozen.nodes[0].segment.empty());
  CHECK(kFrozen.nodes[0].first_child == 1);
  CHECK(kFrozen.nodes[0].child_count == 2);  // spec, status
  CHECK(kFrozen.nodes[1].segment == "spec");
  CHECK(kFrozen.nodes[2].segment == "status");
  CHECK(kFrozen.nodes[1].first_child == 3);  // b, a
  CHECK(kFrozen.nodes[3].segment == "b");
  CHECK(kFrozen.nodes[4].segment == "a");
  CHECK(kFrozen.nodes[5].segment == "[*]");
  CHECK(kFrozen.nodes[6].segment == "x");
  CHECK(kFrozen.nodes[7].segment == "y");
  CHECK_FALSE(kFrozen.nodes[2].has_children());
}

}  // namespace trainer
