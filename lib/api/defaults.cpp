#include "api/defaults.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <span>

#include "util/field_path.h"

namespace trainer {

namespace {

using Scope = DefaultRule::Scope;

Tree MakeValue(const DefaultRule& rule) {
  switch (rule.type) {
    case Tree::Type::kBool: return Tree::Bool(rule.value == "true", Origin::Default());
    case Tree::Type::kInt: {
      std::int64_t v = 0;
      std::from_chars(rule.value.data(), rule.value.data() + rule.value.size(), v);
      return Tree::Int(v, Origin::Default());
    }
    default: return Tree::String(std::string(rule.value), Origin::Default());
  }
}

// The rules of each scope on a tree of their paths, built at first use: a document is walked once,
// and each map gets its defaults in the table's order.
struct ScopeTrees {
  PathTree<DefaultRule> tree;
  std::size_t root[2] = {};  // by Scope
};

const ScopeTrees& Trees() {
  static const ScopeTrees trees = [] {
    ScopeTrees out;
    // The table holds each scope's rules side by side.
    const std::span<const DefaultRule> rules = DefaultRules();
    for (Scope scope : {Scope::kTrainJob, Scope::kRuntime}) {
      const auto of_scope = [&](const DefaultRule& rule) { return rule.scope == scope; };
      const auto first = std::find_if(rules.begin(), rules.end(), of_scope);
      const auto last = std::find_if_not(first, rules.end(), of_scope);
      out.root[static_cast<int>(scope)] = out.tree.Add(std::span<const DefaultRule>(first, last));
    }
    return out;
  }();
  return trees;
}

// Sets the defaults below `node`, which stands at tree node `here`.
void Apply(const PathTree<DefaultRule>& tree, const PathTree<DefaultRule>::Node& here, Tree& node) {
  for (std::size_t c = here.first_child; c != PathTree<DefaultRule>::kNone; c = tree[c].next_sibling) {
    const PathTree<DefaultRule>::Node& child = tree[c];
    if (child.segment == "[*]") {
      if (node.IsList()) {
        for (Tree& item : node.items()) Apply(tree, child, item);
      }
      continue;
    }
    if (!node.IsMap()) continue;
    Tree* value = node.Find(child.segment);
    for (const DefaultRule& rule : child.rules) {
      if (value == nullptr || value->IsNull()) value = &node.Set(child.segment, MakeValue(rule), Origin::Default());
    }
    if (value != nullptr && child.first_child != PathTree<DefaultRule>::kNone) Apply(tree, child, *value);
  }
}

}  // namespace

void ApplyDefaults(Tree& document, DefaultRule::Scope scope) {
  const ScopeTrees& trees = Trees();
  Apply(trees.tree, trees.tree[trees.root[static_cast<int>(scope)]], document);
}

}  // namespace trainer
