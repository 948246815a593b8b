#include "diff/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "util/error.h"
#include "util/quote.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

constexpr std::size_t kNoIndex = PathSegment::kNoIndex;

// The list-map keys of the Kubernetes types we render, in the order they are tried on a list whose
// field has no entry in kListKeyByField. A key is used only when every item on both sides is a map
// holding a unique scalar for it.
constexpr std::string_view kListMapKeys[] = {"name", "mountPath", "containerPort", "devicePath"};

// Lists whose Kubernetes merge key is not `name`, although their items often have one (a volume
// mount names its volume, which several mounts may share). Tried first, then kListMapKeys.
struct ListKeyByField {
  std::string_view field;
  std::string_view key;
};
constexpr ListKeyByField kListKeyByField[] = {
    {"volumeMounts", "mountPath"},
    {"ports", "containerPort"},
    {"volumeDevices", "devicePath"},
};

// Maps with more keys than this are looked up through a hash index instead of Tree::Find.
constexpr std::size_t kLinearLookupLimit = 16;

// A key value with its type, so that 1 and "1" are different keys.
std::string EncodeScalar(const Tree& value) {
  std::string out;
  out.reserve(value.text().size() + 1);
  out.push_back(static_cast<char>('0' + static_cast<int>(value.type())));
  out += value.text();
  return out;
}

// Finds map keys in linear time overall, however large the map.
class KeyLookup {
 public:
  explicit KeyLookup(const Tree& map) : map_(map) {
    if (map.size() <= kLinearLookupLimit) return;
    index_.reserve(map.size());
    for (std::size_t i = 0; i < map.size(); ++i) index_.emplace(map.KeyAt(i), i);
  }
  const Tree* Find(std::string_view key) const {
    if (map_.size() <= kLinearLookupLimit) return map_.Find(key);
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &map_.items()[it->second];
  }

 private:
  const Tree& map_;
  std::unordered_map<std::string_view, std::size_t> index_;
};

// The key values of one side of a keyed list, and where each one is.
struct KeyedSide {
  std::vector<const Tree*> values;
  std::unordered_map<std::string, std::size_t> index;
};

// Whether every item of `list` is a map with a unique scalar at `field`; fills `side` if so.
bool IndexByKey(const Tree& list, std::string_view field, KeyedSide& side) {
  side.values.clear();
  side.index.clear();
  side.values.reserve(list.items().size());
  side.index.reserve(list.items().size());
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    const Tree& item = list.items()[i];
    if (!item.IsMap()) return false;
    const Tree* value = item.Find(field);
    if (value == nullptr || !value->IsScalar() || value->IsNull()) return false;
    if (!side.index.emplace(EncodeScalar(*value), i).second) return false;
    side.values.push_back(value);
  }
  return true;
}

class Differ {
 public:
  explicit Differ(std::vector<FieldChange>& out) : out_(out) {}

  void Diff(const Tree& a, const Tree& b) {
    if (a.type() != b.type()) return Emit(FieldChange::Kind::kModified, a, b);
    if (a.IsMap()) return DiffMaps(a, b);
    if (a.IsList()) return DiffLists(a, b);
    if (a != b) Emit(FieldChange::Kind::kModified, a, b);
  }

 private:
  void Emit(FieldChange::Kind kind, std::optional<Tree> from, std::optional<Tree> to) {
    out_.push_back(FieldChange{kind, path_, std::move(from), std::move(to)});
  }

  // Keys are matched by name; the changes of different keys are then put in the YAML writer's
  // key order, sorting only the keys that have changes.
  void DiffMaps(const Tree& a, const Tree& b) {
    struct Entry {
      const std::string* key;
      const Tree* from;
      const Tree* to;
    };
    std::vector<Entry> entries;
    entries.reserve(a.size());
    KeyLookup in_b(b);
    for (std::size_t i = 0; i < a.size(); ++i) entries.push_back({&a.KeyAt(i), &a.items()[i], in_b.Find(a.KeyAt(i))});
    KeyLookup in_a(a);
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (in_a.Find(b.KeyAt(j)) == nullptr) entries.push_back({&b.KeyAt(j), nullptr, &b.items()[j]});
    }

    struct Span {
      const std::string* key;
      std::size_t begin, end;
    };
    std::vector<Span> spans;
    for (const Entry& e : entries) {
      std::size_t begin = out_.size();
      path_.push_back(PathSegment::Key(*e.key));
      if (e.from && e.to) {
        Diff(*e.from, *e.to);
      } else if (e.from) {
        Emit(FieldChange::Kind::kRemoved, *e.from, std::nullopt);
      } else {
        Emit(FieldChange::Kind::kAdded, std::nullopt, *e.to);
      }
      path_.pop_back();
      if (out_.size() > begin) spans.push_back({e.key, begin, out_.size()});
    }

    auto key_less = [](const Span& x, const Span& y) { return YamlKeyLess(*x.key, *y.key); };
    if (spans.size() < 2 || std::is_sorted(spans.begin(), spans.end(), key_less)) return;
    std::size_t start = spans.front().begin;
    std::stable_sort(spans.begin(), spans.end(), key_less);
    std::vector<FieldChange> sorted;
    sorted.reserve(out_.size() - start);
    for (const Span& s : spans) {
      for (std::size_t k = s.begin; k < s.end; ++k) sorted.push_back(std::move(out_[k]));
    }
    out_.resize(start);
    std::move(sorted.begin(), sorted.end(), std::back_inserter(out_));
  }

  void DiffLists(const Tree& a, const Tree& b) {
    if (a.items().empty() && b.items().empty()) return;
    std::string_view field;
    if (!path_.empty() && path_.back().kind == PathSegment::Kind::kKey) field = path_.back().name;

    std::vector<std::string_view> candidates;
    for (const auto& entry : kListKeyByField) {
      if (entry.field == field) candidates.push_back(entry.key);
    }
    for (std::string_view key : kListMapKeys) {
      if (std::find(candidates.begin(), candidates.end(), key) == candidates.end()) candidates.push_back(key);
    }
    KeyedSide from, to;
    for (std::string_view key : candidates) {
      if (IndexByKey(a, key, from) && IndexByKey(b, key, to)) return DiffKeyedLists(a, b, key, from, to);
    }
    DiffIndexedLists(a, b);
  }

  void DiffKeyedLists(const Tree& a, const Tree& b, std::string_view key, const KeyedSide& from, const KeyedSide& to) {
    const std::size_t n = a.items().size();
    const std::size_t m = b.items().size();
    std::vector<std::size_t> match(n, kNoIndex);
    std::vector<bool> matched(m, false);
    bool reordered = false;
    std::size_t last = 0;
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      auto it = to.index.find(EncodeScalar(*from.values[i]));
      if (it == to.index.end()) continue;
      match[i] = it->second;
      matched[it->second] = true;
      if (any && it->second < last) reordered = true;
      last = it->second;
      any = true;
    }

    if (reordered) {
      Tree old_order = Tree::List(a.origin());
      Tree new_order = Tree::List(b.origin());
      for (std::size_t i = 0; i < n; ++i) {
        if (match[i] != kNoIndex) old_order.Append(*from.values[i]);
      }
      for (std::size_t j = 0; j < m; ++j) {
        if (matched[j]) new_order.Append(*to.values[j]);
      }
      Emit(FieldChange::Kind::kReordered, std::move(old_order), std::move(new_order));
    }

    std::string field(key);
    for (std::size_t i = 0; i < n; ++i) {
      path_.push_back(PathSegment::Item(field, from.values[i]->text(), i, match[i]));
      if (match[i] != kNoIndex) {
        Diff(a.items()[i], b.items()[match[i]]);
      } else {
        Emit(FieldChange::Kind::kRemoved, a.items()[i], std::nullopt);
      }
      path_.pop_back();
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (matched[j]) continue;
      path_.push_back(PathSegment::Item(field, to.values[j]->text(), kNoIndex, j));
      Emit(FieldChange::Kind::kAdded, std::nullopt, b.items()[j]);
      path_.pop_back();
    }
  }

  void DiffIndexedLists(const Tree& a, const Tree& b) {
    const std::size_t n = a.items().size();
    const std::size_t m = b.items().size();
    for (std::size_t i = 0; i < std::max(n, m); ++i) {
      path_.push_back(PathSegment::Index(i));
      if (i < n && i < m) {
        Diff(a.items()[i], b.items()[i]);
      } else if (i < n) {
        Emit(FieldChange::Kind::kRemoved, a.items()[i], std::nullopt);
      } else {
        Emit(FieldChange::Kind::kAdded, std::nullopt, b.items()[i]);
      }
      path_.pop_back();
    }
  }

  Path path_;
  std::vector<FieldChange>& out_;
};

// ---- Path rendering ----

bool IsBareKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool IsBareValueChar(char c) { return IsBareKeyChar(c) || c == '.' || c == '/' || c == ':' || c == '@' || c == '+'; }

bool IsBare(std::string_view s, bool (*is_char)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_char);
}

std::size_t SideIndex(const PathSegment& s, Side side) {
  std::size_t preferred = side == Side::kFrom ? s.from_index : s.to_index;
  return preferred != kNoIndex ? preferred : (side == Side::kFrom ? s.to_index : s.from_index);
}

// ---- Pattern parsing ----

class PatternParser {
 public:
  explicit PatternParser(std::string_view pattern) : pattern_(pattern) {}

  IgnoreRule Parse() {
    IgnoreRule rule;
    rule.pattern = std::string(pattern_);
    if (pattern_.empty()) throw Error(fmt::format("invalid ignore pattern \"\": the pattern is empty"));
    std::size_t stop = pattern_.find_first_of(".[:");
    if (stop != std::string_view::npos && pattern_[stop] == ':') {
      rule.kind = std::string(pattern_.substr(0, stop));
      if (!IsKind(rule.kind)) Fail("expected a kind such as JobSet before ':'", 0);
      pos_ = stop + 1;
      if (AtEnd()) Fail("expected a path after the kind", pos_);
    }
    if (Peek() == '[') {
      rule.path.push_back(Bracket());
    } else {
      rule.path.push_back(PathSegment::Key(BareKey()));
    }
    while (!AtEnd()) {
      if (Peek() == '.') {
        ++pos_;
        rule.path.push_back(PathSegment::Key(BareKey()));
      } else if (Peek() == '[') {
        rule.path.push_back(Bracket());
      } else {
        Fail(fmt::format("expected '.' or '[' instead of '{}'", Peek()), pos_);
      }
    }
    return rule;
  }

 private:
  static bool IsKind(std::string_view s) {
    if (s.empty() || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return IsBareKeyChar(c) && c != '-' && c != '_'; });
  }

  bool AtEnd() const { return pos_ >= pattern_.size(); }
  char Peek() const { return AtEnd() ? '\0' : pattern_[pos_]; }

  [[noreturn]] void Fail(const std::string& reason, std::size_t at) const {
    throw Error(fmt::format("invalid ignore pattern \"{}\": {} at column {}", pattern_, reason, at + 1));
  }

  void Expect(char c) {
    if (AtEnd()) Fail(fmt::format("expected '{}'", c), pos_);
    if (Peek() != c) Fail(fmt::format("expected '{}' instead of '{}'", c, Peek()), pos_);
    ++pos_;
  }

  std::string BareKey() {
    std::size_t begin = pos_;
    while (!AtEnd() && IsBareKeyChar(Peek())) ++pos_;
    if (pos_ == begin) {
      Fail(AtEnd() ? std::string("expected a key")
                   : fmt::format("expected a key instead of '{}' (quote other keys: [\"a.b\"])", Peek()),
           pos_);
    }
    return std::string(pattern_.substr(begin, pos_ - begin));
  }

  // The `count` hex digits of a \x, \u or \U escape (`escape` is its letter), as strconv.Unquote reads them.
  char32_t HexDigits(char escape, int count) {
    char32_t value = 0;
    for (int k = 0; k < count; ++k) {
      char h = Peek();
      unsigned digit = 0;
      if (h >= '0' && h <= '9') {
        digit = static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        digit = static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        digit = static_cast<unsigned>(h - 'A' + 10);
      } else {
        Fail(fmt::format("expected {} hex digits after \\{}",
                         count == 2   ? "two"
                         : count == 4 ? "four"
                                      : "eight",
                         escape),
             pos_);
      }
      value = value * 16 + digit;
      ++pos_;
    }
    return value;
  }

  std::string Quoted() {
    std::size_t begin = pos_;
    Expect('"');
    std::string out;
    while (true) {
      if (AtEnd()) Fail("unterminated string", begin);
      char c = pattern_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (AtEnd()) Fail("unterminated string", begin);
      char e = pattern_[pos_++];
      switch (e) {
        case 'a': out.push_back('\a'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'v': out.push_back('\v'); break;
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case 'x': out.push_back(static_cast<char>(HexDigits(e, 2))); break;
        case 'u':
        case 'U': {
          std::size_t escape = pos_ - 2;
          char32_t rune = HexDigits(e, e == 'u' ? 4 : 8);
          if (rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) {
            Fail(fmt::format("'{}' is not a Unicode character", pattern_.substr(escape, pos_ - escape)), escape);
          }
          AppendRune(out, rune);
          break;
        }
        default: Fail(fmt::format("unknown escape '\\{}'", e), pos_ - 2);
      }
    }
  }

  // After '[': ["key"], [*], [2] or [field=value].
  PathSegment Bracket() {
    std::size_t open = pos_;
    Expect('[');
    PathSegment segment;
    char c = Peek();
    if (c == '"') {
      segment = PathSegment::Key(Quoted());
    } else if (c == '*') {
      ++pos_;
      segment = PathSegment::AnyItem();
    } else if (c >= '0' && c <= '9') {
      std::size_t index = 0;
      while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
        std::size_t digit = static_cast<std::size_t>(Peek() - '0');
        if (index > (kNoIndex - 1 - digit) / 10) Fail("list index too large", open + 1);
        index = index * 10 + digit;
        ++pos_;
      }
      segment = PathSegment::Index(index);
    } else if (IsBareKeyChar(c)) {
      std::string field = BareKey();
      Expect('=');
      std::string value;
      if (Peek() == '"') {
        value = Quoted();
      } else {
        std::size_t begin = pos_;
        while (!AtEnd() && IsBareValueChar(Peek())) ++pos_;
        if (pos_ == begin) Fail("expected a value after '=' (quote other values: [name=\"a b\"])", pos_);
        value = std::string(pattern_.substr(begin, pos_ - begin));
      }
      segment = PathSegment::Item(std::move(field), std::move(value), kNoIndex, kNoIndex);
    } else {
      Fail("expected \"key\", *, an index or field=value after '['", pos_);
    }
    Expect(']');
    return segment;
  }

  std::string_view pattern_;
  std::size_t pos_ = 0;
};

bool SegmentMatches(const PathSegment& rule, const PathSegment& at) {
  using K = PathSegment::Kind;
  switch (rule.kind) {
    case K::kKey: return at.kind == K::kKey && at.name == rule.name;
    case K::kIndex: return at.kind == K::kIndex && at.from_index == rule.from_index;
    case K::kItem: return at.kind == K::kItem && at.name == rule.name && at.value == rule.value;
    case K::kAnyItem: return at.kind == K::kIndex || at.kind == K::kItem;
  }
  return false;
}

std::string IdentityKey(const ObjectId& id) {
  std::string key;
  for (const std::string* part : {&id.api_version, &id.kind, &id.ns, &id.name}) {
    key += *part;
    key.push_back('\0');
  }
  return key;
}

// Whether a string reads back as the same string without quotes, in a flow collection too, and
// shows every character it holds (GoQuote would escape none).
bool IsPlainSafe(const std::string& s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
  if (std::string_view(",[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos) return false;
  if (std::string_view("-?:").find(s.front()) != std::string_view::npos && (s.size() == 1 || s[1] == ' ')) return false;
  for (std::size_t i = 0; i < s.size();) {
    auto [rune, len] = DecodeRune(s, i);
    if (!PrintsAsItself(rune, len) || rune == '"' || rune == '\\' || rune == ',' || rune == '[' || rune == ']' ||
        rune == '{' || rune == '}') {
      return false;
    }
    i += len;
  }
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.find("→") != std::string::npos) {
    return false;
  }
  return ResolvePlainScalar(s, {}).IsString();
}

}  // namespace

PathSegment PathSegment::Key(std::string key) {
  PathSegment s;
  s.kind = Kind::kKey;
  s.name = std::move(key);
  return s;
}

PathSegment PathSegment::Index(std::size_t index) {
  PathSegment s;
  s.kind = Kind::kIndex;
  s.from_index = index;
  s.to_index = index;
  return s;
}

PathSegment PathSegment::Item(std::string field, std::string value, std::size_t from_index, std::size_t to_index) {
  PathSegment s;
  s.kind = Kind::kItem;
  s.name = std::move(field);
  s.value = std::move(value);
  s.from_index = from_index;
  s.to_index = to_index;
  return s;
}

PathSegment PathSegment::AnyItem() {
  PathSegment s;
  s.kind = Kind::kAnyItem;
  return s;
}

std::string FormatPath(const Path& path) {
  std::string out;
  for (const PathSegment& s : path) {
    switch (s.kind) {
      case PathSegment::Kind::kKey:
        if (IsBare(s.name, IsBareKeyChar)) {
          if (!out.empty()) out.push_back('.');
          out += s.name;
        } else {
          out += '[' + GoQuote(s.name) + ']';
        }
        break;
      case PathSegment::Kind::kIndex: out += fmt::format("[{}]", SideIndex(s, Side::kFrom)); break;
      case PathSegment::Kind::kItem:
        out.push_back('[');
        out += s.name;
        out.push_back('=');
        if (IsBare(s.value, IsBareValueChar)) {
          out += s.value;
        } else {
          out += GoQuote(s.value);
        }
        out.push_back(']');
        break;
      case PathSegment::Kind::kAnyItem: out += "[*]"; break;
    }
  }
  return out;
}

std::string FormatJsonPointer(const Path& path, Side side) {
  std::string out;
  for (const PathSegment& s : path) {
    out.push_back('/');
    switch (s.kind) {
      case PathSegment::Kind::kKey:
        for (char c : s.name) {
          if (c == '~') {
            out += "~0";
          } else if (c == '/') {
            out += "~1";
          } else {
            out.push_back(c);
          }
        }
        break;
      case PathSegment::Kind::kIndex:
      case PathSegment::Kind::kItem: out += std::to_string(SideIndex(s, side)); break;
      case PathSegment::Kind::kAnyItem: out.push_back('*'); break;
    }
  }
  return out;
}

void AppendFlow(const Tree& t, std::string& out) {
  switch (t.type()) {
    case Tree::Type::kNull: out += "null"; return;
    case Tree::Type::kBool:
    case Tree::Type::kInt:
    case Tree::Type::kFloat: out += t.text(); return;
    case Tree::Type::kString:
      if (IsPlainSafe(t.text())) {
        out += t.text();
      } else {
        out += GoQuote(t.text());
      }
      return;
    case Tree::Type::kList:
      out.push_back('[');
      for (std::size_t i = 0; i < t.items().size(); ++i) {
        if (i > 0) out += ", ";
        AppendFlow(t.items()[i], out);
      }
      out.push_back(']');
      return;
    case Tree::Type::kMap: {
      std::vector<std::size_t> order(t.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return YamlKeyLess(t.KeyAt(a), t.KeyAt(b)); });
      out.push_back('{');
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (k > 0) out += ", ";
        const std::string& key = t.KeyAt(order[k]);
        if (IsPlainSafe(key)) {
          out += key;
        } else {
          out += GoQuote(key);
        }
        out += ": ";
        AppendFlow(t.items()[order[k]], out);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string FlowValue(const Tree& value) {
  std::string out;
  AppendFlow(value, out);
  return out;
}

std::vector<FieldChange> DiffTrees(const Tree& from, const Tree& to) {
  std::vector<FieldChange> changes;
  Differ(changes).Diff(from, to);
  return changes;
}

ObjectId ObjectId::Of(const Tree& object) {
  ObjectId id;
  if (!object.IsMap()) return id;
  if (const std::string* s = object.FindString("apiVersion")) id.api_version = *s;
  if (const std::string* s = object.FindString("kind")) id.kind = *s;
  if (const Tree* metadata = object.Find("metadata"); metadata && metadata->IsMap()) {
    if (const std::string* s = metadata->FindString("namespace")) id.ns = *s;
    if (const std::string* s = metadata->FindString("name")) id.name = *s;
  }
  return id;
}

std::string ObjectId::Label() const {
  std::string out = kind.empty() ? "object" : kind;
  out.push_back(' ');
  if (!ns.empty()) out += ns + "/";
  out += name;
  return Printable(out);
}

const char* ChangeTypeName(ChangeType type) {
  switch (type) {
    case ChangeType::kUnchanged: return "UNCHANGED";
    case ChangeType::kAdd: return "ADD";
    case ChangeType::kModify: return "MODIFY";
    case ChangeType::kRemove: return "REMOVE";
  }
  return "?";
}

std::vector<ObjectDiff> DiffObjects(const std::vector<Tree>& from, const std::vector<Tree>& to) {
  struct Candidates {
    std::vector<std::size_t> indices;
    std::size_t next = 0;
  };
  std::unordered_map<std::string, Candidates> by_id;
  for (std::size_t j = 0; j < to.size(); ++j) by_id[IdentityKey(ObjectId::Of(to[j]))].indices.push_back(j);
  std::vector<bool> paired(to.size(), false);

  std::vector<ObjectDiff> diffs;
  diffs.reserve(std::max(from.size(), to.size()));
  for (const Tree& object : from) {
    ObjectDiff d;
    d.id = ObjectId::Of(object);
    d.from = &object;
    auto it = by_id.find(IdentityKey(d.id));
    if (it == by_id.end() || it->second.next == it->second.indices.size()) {
      d.type = ChangeType::kRemove;
    } else {
      std::size_t j = it->second.indices[it->second.next++];
      paired[j] = true;
      d.to = &to[j];
      d.changes = DiffTrees(object, to[j]);
      d.type = d.changes.empty() ? ChangeType::kUnchanged : ChangeType::kModify;
    }
    diffs.push_back(std::move(d));
  }
  for (std::size_t j = 0; j < to.size(); ++j) {
    if (paired[j]) continue;
    ObjectDiff d;
    d.type = ChangeType::kAdd;
    d.id = ObjectId::Of(to[j]);
    d.to = &to[j];
    diffs.push_back(std::move(d));
  }
  return diffs;
}

IgnoreRule IgnoreRule::Parse(std::string_view pattern) { return PatternParser(pattern).Parse(); }

bool Matches(const IgnoreRule& rule, std::string_view kind, const Path& path) {
  if (!rule.kind.empty() && rule.kind != kind) return false;
  if (rule.path.empty() || rule.path.size() > path.size()) return false;
  for (std::size_t i = 0; i < rule.path.size(); ++i) {
    if (!SegmentMatches(rule.path[i], path[i])) return false;
  }
  return true;
}

void ApplyIgnoreRules(const std::vector<IgnoreRule>& rules, std::vector<ObjectDiff>& diffs) {
  if (rules.empty()) return;
  for (ObjectDiff& d : diffs) {
    if (d.type != ChangeType::kModify) continue;
    std::size_t before = d.changes.size();
    std::erase_if(d.changes, [&](const FieldChange& change) {
      return std::any_of(rules.begin(), rules.end(),
                         [&](const IgnoreRule& rule) { return Matches(rule, d.id.kind, change.path); });
    });
    d.ignored += before - d.changes.size();
    if (d.changes.empty()) d.type = ChangeType::kUnchanged;
  }
}

}  // namespace trainer
