// Field paths of the rule tables (CRD schema rules, CRD defaults): "a.b[*].c", where "[*]" stands
// for every item of a list (or value of a map).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace trainer {

// Calls `each` with the segments of "a.b[*].c": "a", "b", "[*]", "c", views into `path`.
template <typename Each>
constexpr void ForEachSegment(std::string_view path, Each each) {
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '.' && path[i] != '[') continue;
    if (i > begin) each(path.substr(begin, i - begin));
    if (i < path.size() && path[i] == '[') {
      each(path.substr(i, 3));  // "[*]"
      i += 2;
    }
    begin = i + 1;
  }
}

inline std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  ForEachSegment(path, [&](std::string_view segment) { out.push_back(segment); });
  return out;
}

// Rules keyed by field path, as a tree of path segments, so that one walk of a document reaches
// every rule however many share a prefix (spec.template.spec...). Children keep the order in which
// paths first named them; segments are views into the paths added, which must outlive the tree.
// The rule tables build theirs at compile time and keep it as a FrozenPathTree.
template <typename Rule>
struct PathTree {
  struct Node {
    std::string_view segment;           // a field name, or "[*]" for every item (or map value)
    std::vector<std::size_t> children;  // indexes into nodes
    std::vector<Rule> rules;            // the rules whose path ends here
  };
  std::vector<Node> nodes{Node{}};  // nodes[0] is the document

  // The node for `segment` below node `at`, added when absent.
  constexpr std::size_t Child(std::size_t at, std::string_view segment) {
    for (std::size_t child : nodes[at].children) {
      if (nodes[child].segment == segment) return child;
    }
    nodes[at].children.push_back(nodes.size());
    nodes.push_back(Node{segment, {}, {}});
    return nodes.size() - 1;
  }

  // The node for `path` below node `at`, added when absent.
  constexpr std::size_t Add(std::size_t at, std::string_view path) {
    ForEachSegment(path, [&](std::string_view segment) { at = Child(at, segment); });
    return at;
  }
};

// A PathTree in two arrays, made by Freeze at compile time, so that a process reads its rule
// tables from the program image instead of building them: nodes in breadth-first order, so that
// the children of a node, in their order, are the nodes [first_child, first_child + child_count),
// and the rules of a node, in their order, are rules [first_rule, first_rule + rule_count).
struct FrozenPathNode {
  std::string_view segment;
  std::uint32_t first_child = 0;
  std::uint32_t child_count = 0;
  std::uint32_t first_rule = 0;
  std::uint32_t rule_count = 0;

  constexpr std::size_t children_end() const { return first_child + child_count; }
  constexpr bool has_children() const { return child_count != 0; }
};

template <typename Rule, std::size_t kNodes, std::size_t kRules>
struct FrozenPathTree {
  std::array<FrozenPathNode, kNodes> nodes{};  // nodes[0] is the document
  std::array<Rule, kRules> rules{};

  constexpr std::span<const Rule> RulesOf(const FrozenPathNode& node) const {
    return std::span<const Rule>(rules).subspan(node.first_rule, node.rule_count);
  }
};

// The sizes Freeze needs, as template arguments: {nodes, rules}.
template <typename Rule>
constexpr std::array<std::size_t, 2> FrozenSizes(const PathTree<Rule>& tree) {
  std::size_t rules = 0;
  for (const auto& node : tree.nodes) rules += node.rules.size();
  return {tree.nodes.size(), rules};
}

template <std::size_t kNodes, std::size_t kRules, typename Rule>
constexpr FrozenPathTree<Rule, kNodes, kRules> Freeze(const PathTree<Rule>& tree) {
  FrozenPathTree<Rule, kNodes, kRules> out;
  // order[i]: the node of `tree` that goes to out.nodes[i]; breadth first, children in order.
  std::vector<std::size_t> order{0};
  std::size_t rules = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& node = tree.nodes[order[i]];
    FrozenPathNode& frozen = out.nodes[i];
    frozen.segment = node.segment;
    frozen.first_child = static_cast<std::uint32_t>(order.size());
    frozen.child_count = static_cast<std::uint32_t>(node.children.size());
    for (std::size_t child : node.children) order.push_back(child);
    frozen.first_rule = static_cast<std::uint32_t>(rules);
    frozen.rule_count = static_cast<std::uint32_t>(node.rules.size());
    for (const Rule& rule : node.rules) out.rules[rules++] = rule;
  }
  return out;
}

}  // namespace trainer
