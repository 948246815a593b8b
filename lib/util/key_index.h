// Where each key of a sequence stands in it, for lookups in constant time: the index of a large
// map's keys (yaml/tree.h) and of a decoded object's field paths (api/types.h FieldPositions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace trainer {

// An open-addressing table of positions plus one (0: an empty slot), at most half full. It holds
// positions, not pointers, so that a copy of the sequence and a copy of its index stay valid
// together. The keys are read through `key_of(position)`, a std::string_view; of keys that
// repeat, the first is found.
class KeyIndex {
 public:
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

  bool empty() const { return slots_.empty(); }
  void clear() { slots_.clear(); }

  // Indexes positions 0 to count - 1, anew.
  template <class KeyOf>
  void Build(std::size_t count, const KeyOf& key_of) {
    std::size_t slots = 1;
    while (slots < 2 * count) slots *= 2;
    slots_.assign(slots, 0);
    for (std::size_t i = 0; i < count; ++i) Insert(i, key_of);
  }

  // Indexes `position`, the one after those indexed; builds anew when the table would be more
  // than half full.
  template <class KeyOf>
  void Add(std::size_t position, const KeyOf& key_of) {
    if (2 * (position + 1) > slots_.size()) return Build(position + 1, key_of);
    Insert(position, key_of);
  }

  // The position of `key`, or kAbsent.
  template <class KeyOf>
  std::size_t Find(std::string_view key, const KeyOf& key_of) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = std::hash<std::string_view>{}(key) & mask; slots_[s] != 0; s = (s + 1) & mask) {
      if (key_of(slots_[s] - 1) == key) return slots_[s] - 1;
    }
    return kAbsent;
  }

 private:
  template <class KeyOf>
  void Insert(std::size_t position, const KeyOf& key_of) {
    const std::string_view key = key_of(position);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = std::hash<std::string_view>{}(key) & mask;; s = (s + 1) & mask) {
      if (slots_[s] == 0) {
        slots_[s] = static_cast<std::uint32_t>(position + 1);
        return;
      }
      if (key_of(slots_[s] - 1) == key) return;  // the first stays
    }
  }

  std::vector<std::uint32_t> slots_;
};

}  // namespace trainer
