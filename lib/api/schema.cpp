// The checks behind the CRD schema table, which tools/gen_crd_tables.cpp generates from the upstream
// CRDs into lib/api/crd_tables.cpp, with the API server's messages: kube-openapi pkg/validation
// (errors/schema.go, validate/values.go), apiextensions-apiserver
// pkg/apiserver/validation/validation.go (kubeOpenAPIResultToFieldErrors),
// pkg/apiserver/schema/cel/validation.go (rule failures) and pkg/apiserver/schema/listtype
// (duplicates), apimachinery pkg/util/validation/field/errors.go (ErrorBody).
#include "api/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <regex>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "k8s/quantity_advice.h"
#include "util/field_path.h"
#include "util/quote.h"
#include "util/rfc3339.h"
#include "util/strings.h"

namespace trainer {

namespace {

using Check = SchemaRule::Check;

// resource.Quantity's pattern, as every quantity field of the CRDs carries it; matched without a
// regex engine (MatchesQuantityPattern).
constexpr std::string_view kQuantityPattern =
    "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+)"
    ")))?$";

constexpr std::string_view kRootGroup[] = {"TrainJob", "TrainingRuntime"};

std::string JoinPath(std::string_view base, std::string_view rel) {
  if (base.empty()) return std::string(rel);
  if (rel.empty()) return std::string(base);
  std::string path;
  path.reserve(base.size() + 1 + rel.size());
  path.append(base);
  if (rel.front() != '[') path.push_back('.');
  path.append(rel);
  return path;
}

using RuleTree = PathTree<SchemaRule>;

// The table's groups (lib/api/crd_tables.cpp), found at first use: each group's rows on a tree of
// their paths, the group each kUse row names, and each row's rank, its place among its group's rules
// once kUse rows are expanded (FlattenSchema's order), which orders the problems found at one
// position. A table mistake (a group's rows split, or a path's, a kUse row naming no group, groups
// nesting too deep: a kUse cycle) throws std::logic_error.
class Groups {
 public:
  static const Groups& Get() {
    static const Groups groups(SchemaRules());
    return groups;
  }

  const RuleTree& tree() const { return tree_; }
  std::span<const SchemaRule> Rows(std::string_view group) const { return groups_[Find(group)].rows; }
  const RuleTree::Node& Root(std::string_view group) const { return tree_[groups_[Find(group)].root]; }

  // The root of the group a kUse row names.
  const RuleTree::Node& Used(const SchemaRule& row) const { return tree_[used_[IndexOf(row)]]; }

  // The number of rules before `row` in its group, groups expanded.
  std::size_t Rank(const SchemaRule& row) const { return rank_[IndexOf(row)]; }

 private:
  struct Group {
    std::string_view name;
    std::span<const SchemaRule> rows;
    std::size_t root = 0;  // in tree_
    std::size_t size = 0;  // its rules, groups expanded; 0 until known
  };

  explicit Groups(std::span<const SchemaRule> table) : table_(table), used_(table.size()), rank_(table.size()) {
    std::size_t begin = 0;
    for (std::size_t i = 1; i <= table.size(); ++i) {
      if (i < table.size() && table[i].group == table[begin].group) continue;
      for (const Group& group : groups_) {
        if (group.name == table[begin].group) throw std::logic_error("schema table: a group's rows are split");
      }
      const std::span<const SchemaRule> rows = table.subspan(begin, i - begin);
      groups_.push_back(Group{table[begin].group, rows, tree_.Add(rows)});
      begin = i;
    }
    for (std::size_t g = 0; g < groups_.size(); ++g) Size(g, 0);
  }

  std::size_t IndexOf(const SchemaRule& row) const { return static_cast<std::size_t>(&row - table_.data()); }

  std::size_t Find(std::string_view group) const {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].name == group) return g;
    }
    throw std::logic_error(fmt::format("schema table: no group {}", group));
  }

  // The rules of group `g` with its kUse rows expanded; sets the ranks of its rows.
  std::size_t Size(std::size_t g, int depth) {
    if (groups_[g].size != 0) return groups_[g].size;
    if (depth > 16) throw std::logic_error(fmt::format("schema table: groups nest too deep at {}", groups_[g].name));
    std::size_t size = 0;
    for (const SchemaRule& row : groups_[g].rows) {
      rank_[IndexOf(row)] = size;
      if (row.check == Check::kUse) {
        const std::size_t used = Find(row.arg);
        used_[IndexOf(row)] = groups_[used].root;
        size += Size(used, depth + 1);
      } else {
        ++size;
      }
    }
    groups_[g].size = size;
    return size;
  }

  std::span<const SchemaRule> table_;
  RuleTree tree_;
  std::vector<Group> groups_;
  std::vector<std::size_t> used_;  // of each kUse row: the root of its group
  std::vector<std::size_t> rank_;
};

void Flatten(std::string_view group, const std::string& base, std::vector<FlatSchemaRule>& out) {
  for (const SchemaRule& rule : Groups::Get().Rows(group)) {
    std::string path = JoinPath(base, rule.path);
    if (rule.check == Check::kUse) {
      Flatten(rule.arg, path, out);
    } else {
      out.push_back(FlatSchemaRule{std::move(path), rule.check, rule.arg, rule.message});
    }
  }
}

// One step from a parent to a value: a map key (a field, or a key under additionalProperties) or a
// list index.
struct Step {
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};

// The API path of a value, as the API server spells it (list items "[i]", map values ".key"),
// built only when a rule reports the value.
std::string PathOf(const std::vector<Step>& steps) {
  std::string path;
  for (const Step& step : steps) {
    if (step.is_index) {
      path += fmt::format("[{}]", step.index);
    } else {
      path = JoinPath(path, step.key);
    }
  }
  return path;
}

// A value reached by a rule's path, with the position to report (the field's key, or the item).
struct Target {
  const Tree* value;
  const std::vector<Step>* steps;
  Origin where;
  std::string Path() const { return PathOf(*steps); }
};

// The values `path` reaches from `node` (for a CEL rule's reported field). Nulls are absent fields.
std::vector<Target> Reach(const Tree& node, const std::vector<std::string_view>& segments, std::size_t at,
                          const Origin& where) {
  if (at == segments.size()) return {Target{&node, nullptr, where}};
  if (!node.IsMap()) return {};
  const Tree* value = node.Find(segments[at]);
  if (value == nullptr || value->IsNull()) return {};
  const std::size_t i = static_cast<std::size_t>(value - node.items().data());
  return Reach(*value, segments, at + 1, node.KeyOriginAt(i));
}

// The API server's message for a list longer than its maxItems.
std::string TooMany(std::size_t count, std::string_view bound) {
  return fmt::format("Too many: {}: must have at most {} {}", count, bound, bound == "1" ? "item" : "items");
}

std::int64_t Number(std::string_view text) {
  std::int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Unicode code points, as the API server counts string lengths.
std::size_t RuneCount(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Whether `value` is one of the '|'-separated words of `list`.
bool IsOneOf(std::string_view list, std::string_view value) {
  while (true) {
    const std::size_t bar = list.find('|');
    if (list.substr(0, bar) == value) return true;
    if (bar == std::string_view::npos) return false;
    list.remove_prefix(bar + 1);
  }
}

// Go's encoding/json for a scalar: strings quoted with HTML-safe escapes, numbers and booleans as is.
std::string JsonScalar(const Tree& v) {
  if (v.IsNull()) return "null";
  if (!v.IsString()) return v.text();
  std::string out;
  AppendJsonString(v.text(), out);
  return out;
}

// A field.Error's bad value as ErrorBody prints it: strings %q, numbers and booleans %v.
std::string BadValue(const Tree& v) { return v.IsString() ? GoQuote(v.text()) : v.text(); }

// strfmt's IsDateTime: a full date, "T", then hh:mm:ss with optional fraction and a zone.
bool IsDateTime(std::string_view s) { return ParseRfc3339(s, Rfc3339Reader::kOpenApi).has_value(); }

// ---- CEL rules ---------------------------------------------------------------------------------

bool Has(const Tree& object, std::string_view key) {
  const Tree* v = object.IsMap() ? object.Find(key) : nullptr;
  return v != nullptr && !v->IsNull();
}

// ^[a-z]([-a-z0-9]*[a-z0-9])?$
bool IsLowerDnsLabelShape(std::string_view s) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (s.empty() || !(s.front() >= 'a' && s.front() <= 'z') || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return c == '-' || lower_alnum(c); });
}

// ^[A-Za-z][A-Za-z0-9+.-]*://.+$ (RE2's "." takes any character but a newline)
bool IsUrlShape(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (s.empty() || !alpha(s.front())) return false;
  std::size_t i = 1;
  while (i < s.size() && (alpha(s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '.' || s[i] == '-')) ++i;
  if (s.substr(i, 3) != "://") return false;
  std::string_view rest = s.substr(i + 3);
  return !rest.empty() && rest.find('\n') == std::string_view::npos;
}

// kQuantityPattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
bool MatchesQuantityPattern(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t begin = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > begin;
  };
  // A decimal: digits with an optional "." and digits, or "." and at least one digit.
  auto decimal = [&] {
    if (digits()) {
      if (i < s.size() && s[i] == '.') {
        ++i;
        digits();
      }
      return true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      return digits();
    }
    return false;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (!decimal()) return false;
  if (i == s.size()) return true;
  const std::string_view suffix = s.substr(i);
  if (suffix.size() == 2 && suffix[1] == 'i' && std::string_view("KMGTPE").find(suffix[0]) != std::string_view::npos) return true;
  if (suffix.size() == 1 && std::string_view("numkMGTPE").find(suffix[0]) != std::string_view::npos) return true;
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  ++i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  return decimal() && i == s.size();
}

// Each rule of the CRDs, evaluated on `self`. A value of another type than the rule expects is
// left to decoding and passes here; so do fields a rule reads that are absent (the API server
// reports those as evaluation errors, which only malformed objects reach).
struct CelRule {
  std::string_view rule;
  bool (*holds)(const Tree& self);
  std::string_view field = {};  // reported field when not the rule's path
};

const CelRule kCelRules[] = {
    {"self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
     [](const Tree& self) {
       const Tree* meta = self.Find("metadata");
       const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
       return name == nullptr || IsLowerDnsLabelShape(*name);
     },
     "metadata.name"},
    {"size(self.metadata.name) <= 63",
     [](const Tree& self) {
       const Tree* meta = self.Find("metadata");
       const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
       return name == nullptr || RuneCount(*name) <= 63;
     },
     "metadata.name"},
    {"self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')",
     [](const Tree& self) {
       return !self.IsString() || self.text().empty() || IsUrlShape(self.text());
     }},
    {"self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']",
     [](const Tree& self) {
       return !self.IsString() || self.text() == "trainer.kubeflow.org/trainjob-controller" ||
              self.text() == "kueue.x-k8s.io/multikueue";
     }},
    {"self >= 1", [](const Tree& self) { return !self.IsInt() || self.AsInt() >= 1; }},
    {"[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1",
     [](const Tree& self) {
       int count = 0;
       for (const char* policy : {"torch", "mpi", "jax", "xgboost", "flux"}) count += Has(self, policy) ? 1 : 0;
       return count <= 1;
     }},
    {"!self.exists(c, c == 'node')",
     [](const Tree& self) {
       if (!self.IsList()) return true;
       return std::none_of(self.items().begin(), self.items().end(),
                           [](const Tree& c) { return c.IsString() && c.text() == "node"; });
     }},
    {"!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
     "self.replicatedJobs.exists(x, has(x.dependsOn)))",
     [](const Tree& self) {
       const Tree* startup = self.IsMap() ? self.Find("startupPolicy") : nullptr;
       const std::string* order = startup && startup->IsMap() ? startup->FindString("startupPolicyOrder") : nullptr;
       if (order == nullptr || *order != "InOrder") return true;
       const Tree* rjobs = self.Find("replicatedJobs");
       if (rjobs == nullptr || !rjobs->IsList()) return true;
       return std::none_of(rjobs->items().begin(), rjobs->items().end(),
                           [](const Tree& x) { return Has(x, "dependsOn"); });
     }},
    {"self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)",
     [](const Tree& self) {
       const Tree* templates = self.IsMap() ? self.Find("templates") : nullptr;
       if (templates == nullptr || !templates->IsList()) return true;
       return std::all_of(templates->items().begin(), templates->items().end(), [](const Tree& t) {
         const Tree* meta = t.IsMap() ? t.Find("metadata") : nullptr;
         const Tree* ns = meta && meta->IsMap() ? meta->Find("namespace") : nullptr;
         return ns == nullptr || ns->IsNull() || (ns->IsString() && ns->text().empty());
       });
     }},
};

const CelRule* FindCelRule(std::string_view rule) {
  for (const CelRule& r : kCelRules) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

// ---- Checks ------------------------------------------------------------------------------------

class Checker {
 public:
  Checker(const std::string& subject, std::vector<Diagnostic>& out) : subject_(subject), out_(out) {}

  void Run(const Tree& document, std::string_view root_group) {
    Walk(document, document.origin(), groups_.Root(root_group), 0);
  }

  // The API server reports a document's errors in the order of the rules, then of the values a rule
  // reaches; sorted by position, ties keep that order.
  void SortByPosition() {
    std::vector<std::size_t> order(out_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Origin& x = out_[a].where;
      const Origin& y = out_[b].where;
      return std::tie(x.line, x.column, rule_of_[a]) < std::tie(y.line, y.column, rule_of_[b]);
    });
    std::vector<Diagnostic> sorted;
    sorted.reserve(out_.size());
    for (std::size_t i : order) sorted.push_back(std::move(out_[i]));
    out_ = std::move(sorted);
  }

 private:
  // Checks the rules at tree node `here` and below on `node`; `rank` is the rank of the first rule of
  // the group `here` belongs to.
  void Walk(const Tree& node, const Origin& where, const RuleTree::Node& here, std::size_t rank) {
    for (const SchemaRule& row : here.rules) {
      if (row.check == Check::kUse) {
        Walk(node, where, groups_.Used(row), rank + groups_.Rank(row));
      } else {
        rule_ = rank + groups_.Rank(row);
        One(row, Target{&node, &steps_, where});
      }
    }
    const RuleTree& tree = groups_.tree();
    for (std::size_t c = here.first_child; c != RuleTree::kNone; c = tree[c].next_sibling) {
      const RuleTree::Node& child = tree[c];
      if (child.segment == "[*]") {
        if (node.IsList()) {
          for (std::size_t i = 0; i < node.items().size(); ++i) {
            const Tree& item = node.items()[i];
            if (item.IsNull()) continue;
            steps_.push_back(Step{{}, i, true});
            Walk(item, item.origin(), child, rank);
            steps_.pop_back();
          }
        } else if (node.IsMap()) {
          for (std::size_t i = 0; i < node.size(); ++i) {
            const Tree& value = node.items()[i];
            if (value.IsNull()) continue;
            steps_.push_back(Step{node.KeyAt(i), 0, false});
            Walk(value, node.KeyOriginAt(i), child, rank);
            steps_.pop_back();
          }
        }
        continue;
      }
      if (!node.IsMap()) continue;
      // The API server prunes nulls of non-nullable fields: a null is an absent field.
      const Tree* value = node.Find(child.segment);
      if (value == nullptr || value->IsNull()) continue;
      const std::size_t i = static_cast<std::size_t>(value - node.items().data());
      steps_.push_back(Step{child.segment, 0, false});
      Walk(*value, node.KeyOriginAt(i), child, rank);
      steps_.pop_back();
    }
  }

  void Add(const Origin& where, std::string field, std::string message) {
    out_.push_back(
        Diagnostic{.where = where, .subject = subject_, .field = std::move(field), .message = std::move(message)});
    rule_of_.push_back(rule_);
  }

  void One(const SchemaRule& rule, const Target& t) {
    const Tree& v = *t.value;
    switch (rule.check) {
      case Check::kRequired:
        if (v.IsMap() && !Has(v, rule.arg)) Add(v.origin(), JoinPath(t.Path(), rule.arg), "Required value");
        return;
      case Check::kMinimum:
        if (v.IsInt() && v.AsInt() < Number(rule.arg)) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should be greater than or equal to {}", v.AsInt(), t.Path(),
                          rule.arg));
        }
        return;
      case Check::kMaximum:
        if (v.IsInt() && v.AsInt() > Number(rule.arg)) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should be less than or equal to {}", v.AsInt(), t.Path(), rule.arg));
        }
        return;
      case Check::kMinLength:
        if (v.IsString() && RuneCount(v.text()) < static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should be at least {} chars long", GoQuote(v.text()), t.Path(),
                          rule.arg));
        }
        return;
      case Check::kMaxLength:
        if (v.IsString() && RuneCount(v.text()) > static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Too long: may not be more than {} {}", rule.arg, rule.arg == "1" ? "byte" : "bytes"));
        }
        return;
      case Check::kMinItems:
        if (v.IsList() && v.items().size() < static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should have at least {} items", v.items().size(), t.Path(),
                          rule.arg));
        }
        return;
      case Check::kMaxItems:
        if (v.IsList() && v.items().size() > static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(), TooMany(v.items().size(), rule.arg));
        }
        return;
      case Check::kMinProperties:
        if (v.IsMap() && v.size() < static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should have at least {} properties", v.size(), t.Path(), rule.arg));
        }
        return;
      case Check::kEnum: {
        // Checked on every enum value of every document: no allocation unless it is reported.
        if (!v.IsString() || IsOneOf(rule.arg, v.text())) return;
        const std::vector<std::string_view> values = Split(rule.arg, '|');
        std::string supported;
        for (std::string_view value : values) supported += (supported.empty() ? "" : ", ") + GoQuote(value);
        Add(t.where, t.Path(), fmt::format("Unsupported value: {}: supported values: {}", GoQuote(v.text()), supported));
        return;
      }
      case Check::kPattern:
        if (v.IsString() && !MatchesPattern(v.text(), rule.arg)) {
          // The API server's words, then, for a quantity, what was likely meant.
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should match '{}'{}", GoQuote(v.text()), t.Path(), rule.arg,
                          rule.arg == kQuantityPattern ? "; " + QuantityAdvice(v.text()) : std::string()));
        }
        return;
      case Check::kFormat:
        if (v.IsString() && rule.arg == "date-time" && !IsDateTime(v.text())) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body must be of type {}: {}", GoQuote(v.text()), t.Path(), rule.arg,
                          GoQuote(v.text())));
        }
        return;
      case Check::kListMap: ListMap(v, t, Split(rule.arg, ',')); return;
      case Check::kListSet: ListSet(v, t); return;
      case Check::kRule: {
        const CelRule* cel = FindCelRule(rule.arg);
        if (cel == nullptr) throw std::logic_error(fmt::format("schema table: no evaluator for rule {}", rule.arg));
        if (cel->holds(v)) return;
        std::string field = cel->field.empty() ? t.Path() : std::string(cel->field);
        Origin where = t.where;
        if (!cel->field.empty()) {
          std::vector<Target> at = Reach(v, Segments(field), 0, v.origin());
          if (!at.empty()) where = at.front().where;
        }
        // Objects and lists are left out of the message, scalars shown as the API server prints them.
        std::string value = v.IsMap() || v.IsList() ? "" : BadValue(v) + ": ";
        Add(where, field, fmt::format("Invalid value: {}{}", value, rule.message));
        return;
      }
      case Check::kUse: return;
    }
  }

  // x-kubernetes-list-type: map. The second item with the keys of an earlier one is a duplicate.
  void ListMap(const Tree& v, const Target& t, const std::vector<std::string_view>& keys) {
    if (!v.IsList()) return;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      const Tree& item = v.items()[i];
      if (!item.IsMap() && !item.IsNull()) return;
      // Go marshals the key map with its keys sorted; the table lists them sorted.
      std::string json;
      for (std::string_view key : keys) {
        const Tree* k = item.IsMap() ? item.Find(key) : nullptr;
        if (k == nullptr) continue;
        json += fmt::format("{}\"{}\":{}", json.empty() ? "" : ",", key, JsonScalar(*k));
      }
      json = "{" + json + "}";
      if (++seen[json] == 2) Add(item.origin(), fmt::format("{}[{}]", t.Path(), i), "Duplicate value: " + json);
    }
  }

  void ListSet(const Tree& v, const Target& t) {
    if (!v.IsList()) return;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      const Tree& item = v.items()[i];
      if (!item.IsScalar()) continue;
      std::string key = JsonScalar(item);
      if (++seen[key] == 2) Add(item.origin(), fmt::format("{}[{}]", t.Path(), i), "Duplicate value: " + BadValue(item));
    }
  }

  static bool MatchesPattern(const std::string& text, std::string_view pattern) {
    if (pattern == kQuantityPattern) return MatchesQuantityPattern(text);
    return std::regex_search(text, Pattern(pattern));
  }

  static const std::regex& Pattern(std::string_view pattern) {
    // The table's patterns, compiled once; they live as long as the table.
    static std::map<std::string_view, std::regex> patterns;
    auto it = patterns.find(pattern);
    if (it == patterns.end()) it = patterns.emplace(pattern, std::regex(std::string(pattern))).first;
    return it->second;
  }

  const Groups& groups_ = Groups::Get();
  const std::string& subject_;
  std::vector<Diagnostic>& out_;
  std::vector<Step> steps_;            // from the document to the value being checked
  std::size_t rule_ = 0;               // the rank of the rule being checked
  std::vector<std::size_t> rule_of_;   // the rule of each diagnostic in out_
};

}  // namespace

bool HasCelEvaluator(std::string_view rule) { return FindCelRule(rule) != nullptr; }

std::vector<FlatSchemaRule> FlattenSchema(SchemaScope scope) {
  std::vector<FlatSchemaRule> out;
  Flatten(kRootGroup[static_cast<int>(scope)], "", out);
  return out;
}

std::vector<Diagnostic> CheckSchema(const Tree& document, SchemaScope scope, const std::string& subject) {
  std::vector<Diagnostic> out;
  if (!document.IsMap()) return out;
  Checker checker(subject, out);
  checker.Run(document, kRootGroup[static_cast<int>(scope)]);
  checker.SortByPosition();
  return out;
}

std::optional<Diagnostic> CheckRuntimePatchLimit(const Tree& document, const std::string& subject) {
  const Tree* spec = document.IsMap() ? document.Find("spec") : nullptr;
  const Tree* patches = spec && spec->IsMap() ? spec->Find("runtimePatches") : nullptr;
  if (patches == nullptr || !patches->IsList() || patches->items().size() <= kMaxRuntimePatches) return std::nullopt;
  const std::size_t i = static_cast<std::size_t>(patches - spec->items().data());
  return Diagnostic{
      .where = spec->KeyOriginAt(i),
      .subject = subject,
      .field = "spec.runtimePatches",
      .message = TooMany(patches->items().size(), std::to_string(kMaxRuntimePatches)) + " (runtime patch limit)"};
}

}  // namespace trainer
