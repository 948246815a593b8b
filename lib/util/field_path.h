// Field paths of the rule tables (CRD schema rules, CRD defaults): "a.b[*].c", where "[*]" stands
// for every item of a list (or value of a map).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace trainer {

// Calls `each` with the segments of "a.b[*].c": "a", "b", "[*]", "c", views into `path`.
template <typename Each>
void ForEachSegment(std::string_view path, Each each) {
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
template <typename Rule>
struct PathTree {
  struct Node {
    std::string_view segment;           // a field name, or "[*]" for every item (or map value)
    std::vector<std::size_t> children;  // indexes into nodes
    std::vector<Rule> rules;            // the rules whose path ends here
  };
  std::vector<Node> nodes{Node{}};  // nodes[0] is the document

  // The node for `segment` below node `at`, added when absent.
  std::size_t Child(std::size_t at, std::string_view segment) {
    for (std::size_t child : nodes[at].children) {
      if (nodes[child].segment == segment) return child;
    }
    nodes[at].children.push_back(nodes.size());
    nodes.push_back(Node{segment, {}, {}});
    return nodes.size() - 1;
  }

  // The node for `path` below node `at`, added when absent.
  std::size_t Add(std::size_t at, std::string_view path) {
    ForEachSegment(path, [&](std::string_view segment) { at = Child(at, segment); });
    return at;
  }
};

}  // namespace trainer
