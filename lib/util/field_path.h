// Field paths of the rule tables (CRD schema rules, CRD defaults): "a.b[*].c", where "[*]" stands
// for every item of a list (or value of a map).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer {

// One segment of a path, a view into it, and where the path goes on after it.
struct PathSegment {
  std::string_view text;  // a field name, or "[*]"
  std::size_t end = 0;    // the index in the path just past `text`
};

// The segment of `path` that starts at `at`, which is 0 or the end of an earlier segment:
// SegmentAt("a.b[*].c", 1) is {"b", 3}, SegmentAt("a.b[*].c", 3) is {"[*]", 6}.
constexpr PathSegment SegmentAt(std::string_view path, std::size_t at) {
  if (at < path.size() && path[at] == '.') ++at;
  if (at < path.size() && path[at] == '[') return {path.substr(at, 3), at + 3};
  std::size_t end = at;
  while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
  return {path.substr(at, end - at), end};
}

// The segments of "a.b[*].c": "a", "b", "[*]", "c", views into `path`.
inline std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < path.size();) {
    const PathSegment segment = SegmentAt(path, at);
    out.push_back(segment.text);
    at = segment.end;
  }
  return out;
}

// A table's rules on a tree of their paths, so that one walk of a document reaches every rule however
// many share a prefix (spec.template.spec...). Built in one pass, each rule's path compared with the
// one before. Rules in tree order, as the generated tables hold them (lib/api/crd_tables.cpp: a
// path's own rules first, then those below each of its fields, side by side), give each field one
// node; rules in another order give a tree that still reaches each rule once, as long as the rules
// of one path are side by side: a node's rules are a span of the table.
template <typename Rule>
class PathTree {
 public:
  static constexpr std::size_t kNone = SIZE_MAX;

  struct Node {
    std::string_view segment;         // a field name, or "[*]" for every item (or map value); "" at a root
    std::span<const Rule> rules;      // the rules whose path ends here
    std::size_t first_child = kNone;  // the children, in order: first_child, then each one's next_sibling
    std::size_t next_sibling = kNone;
    std::size_t last_child = kNone;  // for adding children
  };

  // Adds the tree of `rules` and returns its root. Throws std::logic_error when rules of one path
  // are not side by side.
  std::size_t Add(std::span<const Rule> rules) {
    const std::size_t root = NewNode(kNone, {});
    // The nodes from the root to the previous rule's, each with where its segment ends in the path.
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
    std::string_view previous;
    for (const Rule& rule : rules) {
      const std::string_view path = rule.path;
      // Keep the nodes of the segments the path shares with the previous one, add the others.
      while (stack.size() > 1) {
        const std::size_t end = stack.back().second;
        const bool whole = end == path.size() || (end < path.size() && (path[end] == '.' || path[end] == '['));
        if (whole && path.substr(0, end) == previous.substr(0, end)) break;
        stack.pop_back();
      }
      for (std::size_t at = stack.back().second; at < path.size();) {
        const PathSegment segment = SegmentAt(path, at);
        stack.emplace_back(NewNode(stack.back().first, segment.text), segment.end);
        at = segment.end;
      }
      std::span<const Rule>& own = nodes_[stack.back().first].rules;
      if (own.empty()) {
        own = std::span<const Rule>(&rule, 1);
      } else if (own.data() + own.size() == &rule) {
        own = std::span<const Rule>(own.data(), own.size() + 1);
      } else {
        throw std::logic_error("rule table: the rules of a path are not side by side");
      }
      previous = path;
    }
    return root;
  }

  const Node& operator[](std::size_t node) const { return nodes_[node]; }

 private:
  std::size_t NewNode(std::size_t parent, std::string_view segment) {
    const std::size_t node = nodes_.size();
    nodes_.push_back(Node{segment});
    if (parent != kNone) {
      Node& p = nodes_[parent];
      (p.first_child == kNone ? p.first_child : nodes_[p.last_child].next_sibling) = node;
      p.last_child = node;
    }
    return node;
  }

  std::vector<Node> nodes_;
};

}  // namespace trainer
