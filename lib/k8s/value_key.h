// A text key for a value, equal for two values exactly when Tree's operator== says they are equal
// (origins ignored, map keys in any order), so that lists can be indexed by an item's field in a
// hash table instead of being scanned for every lookup.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

inline void AppendValueKey(const Tree& value, std::string& out) {
  auto counted = [&out](char tag, const std::string& text) {
    out += tag;
    out += std::to_string(text.size());
    out += ':';
    out += text;
  };
  switch (value.type()) {
    case Tree::Type::kNull: out += '~'; return;
    case Tree::Type::kBool: out += value.AsBool() ? "b1" : "b0"; return;
    case Tree::Type::kInt: out += 'i' + std::to_string(value.AsInt()) + ';'; return;
    case Tree::Type::kFloat: counted('f', value.text()); return;
    case Tree::Type::kString: counted('s', value.text()); return;
    case Tree::Type::kList:
      out += '[' + std::to_string(value.items().size()) + ':';
      for (const Tree& item : value.items()) AppendValueKey(item, out);
      return;
    case Tree::Type::kMap: {
      std::vector<std::size_t> order(value.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return value.KeyAt(a) < value.KeyAt(b); });
      out += '{' + std::to_string(order.size()) + ':';
      for (std::size_t i : order) {
        counted('k', value.KeyAt(i));
        AppendValueKey(value.items()[i], out);
      }
      return;
    }
  }
}

inline std::string ValueKey(const Tree& value) {
  std::string out;
  AppendValueKey(value, out);
  return out;
}

}  // namespace trainer
