#include "yaml/tree.h"

#include <fmt/format.h>

#include <functional>

#include "util/quote.h"
#include "yaml/resolve.h"

namespace trainer {

Tree Tree::Bool(bool value, Origin origin) {
  Tree t(Type::kBool, origin);
  t.boolean_ = value;
  t.text_ = value ? "true" : "false";
  return t;
}

namespace {

// The room Set and Append make in an empty collection: most maps built key by key (a container,
// an environment variable, an owner reference) have a few keys.
constexpr std::size_t kFirstCapacity = 4;

}  // namespace

std::optional<Tree> Tree::BoolWord(std::string_view word, Origin origin) {
  const std::optional<std::uint8_t> i = FindBoolWord(word);
  if (!i) return std::nullopt;
  Tree t = Bool(BoolWordAt(*i).value, origin);
  if (*i > 1) t.spelling_ = *i;
  return t;
}

std::optional<std::string_view> Tree::Spelling() const {
  switch (type_) {
    case Type::kBool: return spelling_ != 0 ? BoolWordAt(spelling_).word : std::string_view(text_);
    case Type::kInt:
      if (spelling_ != 0) return std::nullopt;
      return std::string_view(text_);
    case Type::kFloat:
    case Type::kString: return std::string_view(text_);
    default: return std::nullopt;
  }
}

void Tree::set_spelling(std::string_view written) {
  if (type_ == Type::kInt) spelling_ = written == text_ ? 0 : 1;
}

Tree Tree::Int(std::int64_t value, Origin origin) {
  Tree t(Type::kInt, origin);
  t.integer_ = value;
  t.text_ = std::to_string(value);
  return t;
}

Tree Tree::Float(std::string text, Origin origin) {
  Tree t(Type::kFloat, origin);
  t.text_ = std::move(text);
  return t;
}

Tree Tree::String(std::string value, Origin origin) {
  Tree t(Type::kString, origin);
  t.text_ = std::move(value);
  return t;
}

std::size_t Tree::Position(std::string_view key) const {
  if (!index_.table_) {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i].text == key) return i;
    }
    return keys_.size();
  }
  const std::size_t i = index_.table_->Find(key, [this](std::size_t k) -> std::string_view { return keys_[k].text; });
  return i == KeyIndex::kAbsent ? keys_.size() : i;
}

void Tree::RebuildIndex() {
  if (keys_.size() < kIndexedMapSize) {
    index_.table_.reset();
    return;
  }
  if (!index_.table_) index_.table_ = std::make_unique<KeyIndex>();
  index_.table_->Build(keys_.size(), [this](std::size_t k) -> std::string_view { return keys_[k].text; });
}

void Tree::AdoptEntries(std::vector<MapKey> keys, std::vector<Tree> items) {
  keys_ = std::move(keys);
  items_ = std::move(items);
  RebuildIndex();
}

std::vector<std::string> Tree::keys() const {
  std::vector<std::string> out;
  out.reserve(keys_.size());
  for (const MapKey& k : keys_) out.push_back(k.text);
  return out;
}

const Tree* Tree::Find(std::string_view key) const {
  std::size_t i = Position(key);
  return i < keys_.size() ? &items_[i] : nullptr;
}

Tree* Tree::Find(std::string_view key) {
  return const_cast<Tree*>(static_cast<const Tree*>(this)->Find(key));
}

Tree& Tree::Set(std::string_view key, Tree value, Origin key_origin) {
  if (Tree* existing = Find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  if (keys_.capacity() == 0) {
    keys_.reserve(kFirstCapacity);
    items_.reserve(kFirstCapacity);
  }
  keys_.push_back(MapKey{std::string(key), key_origin});
  items_.push_back(std::move(value));
  if (index_.table_) {
    index_.table_->Add(keys_.size() - 1, [this](std::size_t k) -> std::string_view { return keys_[k].text; });
  } else if (keys_.size() >= kIndexedMapSize) {
    RebuildIndex();
  }
  return items_.back();
}

Tree& Tree::Child(std::string_view key, Origin origin) {
  if (Tree* existing = Find(key)) return *existing;
  return Set(key, Tree::Map(origin), origin);
}

bool Tree::Erase(std::string_view key) {
  std::size_t i = Position(key);
  if (i == keys_.size()) return false;
  keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(i));
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(i));
  if (index_.table_) RebuildIndex();
  return true;
}

Tree& Tree::Append(Tree value) {
  if (items_.capacity() == 0) items_.reserve(kFirstCapacity);
  items_.push_back(std::move(value));
  return items_.back();
}

const std::string* Tree::FindString(std::string_view key) const {
  const Tree* t = Find(key);
  return t && t->IsString() ? &t->text_ : nullptr;
}

bool operator==(const Tree& a, const Tree& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Tree::Type::kNull: return true;
    case Tree::Type::kBool: return a.boolean_ == b.boolean_;
    case Tree::Type::kInt: return a.integer_ == b.integer_;
    case Tree::Type::kFloat:
    case Tree::Type::kString: return a.text_ == b.text_;
    case Tree::Type::kList: return a.items_ == b.items_;
    case Tree::Type::kMap: {
      if (a.keys_.size() != b.keys_.size()) return false;
      for (std::size_t i = 0; i < a.keys_.size(); ++i) {
        const Tree* other = b.Find(a.keys_[i].text);
        if (!other || !(a.items_[i] == *other)) return false;
      }
      return true;
    }
  }
  return false;
}

namespace {

void OutlineInto(const Tree& tree, const std::string& indent, std::string& out) {
  out += indent;
  out += Tree::TypeName(tree.type());
  if (tree.IsScalar()) {
    out += ' ';
    out += tree.IsInt() ? std::to_string(tree.AsInt()) : tree.IsBool() ? (tree.AsBool() ? "true" : "false") : tree.text();
  }
  out += " @" + tree.origin().Position() + "\n";
  for (std::size_t i = 0; i < tree.items().size(); ++i) {
    if (tree.IsMap()) out += indent + "key " + tree.KeyAt(i) + " @" + tree.KeyOriginAt(i).Position() + "\n";
    OutlineInto(tree.items()[i], indent + "  ", out);
  }
}

}  // namespace

std::string Tree::Outline() const {
  std::string out;
  OutlineInto(*this, "", out);
  return out;
}

void Tree::SetOriginRecursive(const Origin& origin) {
  origin_ = origin;
  for (auto& k : keys_) k.origin = origin;
  for (auto& item : items_) item.SetOriginRecursive(origin);
}

const char* Tree::TypeName(Type type) {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBool: return "boolean";
    case Type::kInt: return "integer";
    case Type::kFloat: return "number";
    case Type::kString: return "string";
    case Type::kMap: return "object";
    case Type::kList: return "array";
  }
  return "value";
}

std::string Tree::DescribeType(Type type) {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kInt:
    case Type::kMap:
    case Type::kList: return std::string("an ") + TypeName(type);
    default: return std::string("a ") + TypeName(type);
  }
}

std::string QuoteAdvice(const Tree& value) {
  if (!value.IsBool() && !value.IsInt() && !value.IsFloat()) return {};
  const std::optional<std::string_view> written = value.Spelling();
  return written ? " (quote it: " + GoQuote(*written) + ")" : std::string(" (quote it)");
}

}  // namespace trainer
