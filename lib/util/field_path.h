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

}  // namespace trainer
