// A JSON-like value tree that remembers where each value came from.
//
// Everything `trainer` reads and writes passes through Tree: the loader builds it from YAML, the
// typed API decodes from it, the JobSet template stays one (so no PodSpec field is lost), and the
// writers print it. Maps keep their insertion order; writers sort keys on output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/key_index.h"
#include "util/origin.h"

namespace trainer {

class Tree {
 public:
  enum class Type : std::uint8_t { kNull, kBool, kInt, kFloat, kString, kMap, kList };

  Tree() = default;
  explicit Tree(Type type, Origin origin = {}) : type_(type), origin_(origin) {}

  static Tree Null(Origin origin = {}) { return Tree(Type::kNull, origin); }
  static Tree Bool(bool value, Origin origin = {});
  // The boolean a plain scalar `word` reads as, one of YAML 1.1's words as go-yaml v2 reads them
  // (y, Yes, ON, false, ...), with the word kept as its spelling; nullopt for any other text.
  static std::optional<Tree> BoolWord(std::string_view word, Origin origin = {});
  static Tree Int(std::int64_t value, Origin origin = {});
  // A floating-point number kept as the text it was written with.
  static Tree Float(std::string text, Origin origin = {});
  static Tree String(std::string value, Origin origin = {});
  static Tree Map(Origin origin = {}) { return Tree(Type::kMap, origin); }
  static Tree List(Origin origin = {}) { return Tree(Type::kList, origin); }

  Type type() const { return type_; }
  bool IsNull() const { return type_ == Type::kNull; }
  bool IsBool() const { return type_ == Type::kBool; }
  bool IsInt() const { return type_ == Type::kInt; }
  bool IsFloat() const { return type_ == Type::kFloat; }
  bool IsString() const { return type_ == Type::kString; }
  bool IsMap() const { return type_ == Type::kMap; }
  bool IsList() const { return type_ == Type::kList; }
  bool IsScalar() const { return type_ != Type::kMap && type_ != Type::kList; }

  const Origin& origin() const { return origin_; }
  void set_origin(const Origin& origin) { origin_ = origin; }

  bool AsBool() const { return boolean_; }
  std::int64_t AsInt() const { return integer_; }
  // The text of a string or float; for other scalars, their canonical text.
  const std::string& text() const { return text_; }

  // How a scalar was written, for messages that quote it back: a boolean's word ("yes", "On"; see
  // BoolWord), the text of a float or string, an integer's decimal text; nullopt for an integer
  // written otherwise (010, 0x1F, 1_000), for null and for collections.
  std::optional<std::string_view> Spelling() const;
  // Notes how an integer was written: any text other than its decimal one marks it as written
  // otherwise.
  void set_spelling(std::string_view written);

  // Map access. Keys are unique; Set replaces an existing key in place, or appends.
  std::size_t size() const { return items_.size(); }
  // The keys in order (a copy: for tests and messages).
  std::vector<std::string> keys() const;
  const std::string& KeyAt(std::size_t i) const { return keys_[i].text; }
  const Origin& KeyOriginAt(std::size_t i) const { return keys_[i].origin; }
  const Tree* Find(std::string_view key) const;
  Tree* Find(std::string_view key);
  Tree& Set(std::string_view key, Tree value, Origin key_origin = {});
  // Returns the value at key, inserting an empty map there when the key is absent.
  Tree& Child(std::string_view key, Origin origin = {});
  bool Erase(std::string_view key);

  // A map key with its origin, as a map keeps it.
  struct MapKey {
    std::string text;
    Origin origin;
  };
  // Replaces this collection's entries: map keys with their values, or list items (no keys). The
  // keys must be unique. For builders that gather entries first and so allocate them once.
  void AdoptEntries(std::vector<MapKey> keys, std::vector<Tree> items);

  // List (and map value) access.
  const std::vector<Tree>& items() const { return items_; }
  std::vector<Tree>& items() { return items_; }
  Tree& Append(Tree value);

  // Convenience lookups for typed accessors; nullptr when absent or of another type.
  const std::string* FindString(std::string_view key) const;

  // Deep structural equality (origins ignored).
  friend bool operator==(const Tree& a, const Tree& b);
  friend bool operator!=(const Tree& a, const Tree& b) { return !(a == b); }

  // Every value below and including this one, with its type, text and position (and map keys with
  // theirs), one per line: for tests that compare what was read, positions included.
  std::string Outline() const;

  // Sets the origin of this value and of everything below it.
  void SetOriginRecursive(const Origin& origin);

  static const char* TypeName(Type type);
  // The name with its indefinite article, as messages use it: "an integer", "a string", "null".
  static std::string DescribeType(Type type);

  // Maps with at least this many keys keep a hash index of their keys.
  static constexpr std::size_t kIndexedMapSize = 32;

 private:
  // A large map's KeyIndex of its keys, so that Find and Set stay constant-time in maps of many
  // keys. Small maps, the common case, have none and cost one pointer. A copy of a Tree copies its
  // table.
  class LargeMapIndex {
   public:
    LargeMapIndex() = default;
    LargeMapIndex(const LargeMapIndex& other)
        : table_(other.table_ ? std::make_unique<KeyIndex>(*other.table_) : nullptr) {}
    LargeMapIndex& operator=(const LargeMapIndex& other) {
      if (this != &other) table_ = other.table_ ? std::make_unique<KeyIndex>(*other.table_) : nullptr;
      return *this;
    }
    LargeMapIndex(LargeMapIndex&&) noexcept = default;
    LargeMapIndex& operator=(LargeMapIndex&&) noexcept = default;
    ~LargeMapIndex() = default;

    std::unique_ptr<KeyIndex> table_;
  };

  // The position of `key` in keys_, or keys_.size() when absent.
  std::size_t Position(std::string_view key) const;
  // Builds the index anew (or drops it, below kIndexedMapSize keys).
  void RebuildIndex();

  Type type_ = Type::kNull;
  bool boolean_ = false;
  // A boolean: its word's index among the boolean words (resolve.h), 0 for its canonical text. An
  // integer: 1 when written otherwise than in decimal. Ignored by comparisons.
  std::uint8_t spelling_ = 0;
  std::int64_t integer_ = 0;
  std::string text_;
  std::vector<MapKey> keys_;  // map keys, parallel to items_
  std::vector<Tree> items_;  // list items, or map values
  LargeMapIndex index_;      // maps of kIndexedMapSize keys or more
  Origin origin_;
};

// What to add to a message that a string was expected where `value` is a boolean or a number, as
// YAML reads an unquoted yes, on or 3: ' (quote it: "yes")', or ' (quote it)' for an integer
// written otherwise than in decimal; "" for other values.
std::string QuoteAdvice(const Tree& value);

}  // namespace trainer
