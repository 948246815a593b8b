#include "util/key_index.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace trainer {

TEST_CASE("KeyIndex finds every key's position, the first of keys that repeat, through growth") {
  std::vector<std::string> keys;
  auto key_of = [&](std::size_t i) -> std::string_view { return keys[i]; };
  KeyIndex index;
  CHECK(index.empty());
  for (int i = 0; i < 100; ++i) {
    keys.push_back("k" + std::to_string(i));
    if (keys.size() == 1) {
      index.Build(1, key_of);
    } else {
      index.Add(keys.size() - 1, key_of);  // rebuilds as it fills up
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(index.Find(keys[i], key_of) == i);
  CHECK(index.Find("k100", key_of) == KeyIndex::kAbsent);
  keys.push_back("k7");  // a repeat: the first stays found
  index.Build(keys.size(), key_of);
  CHECK(index.Find("k7", key_of) == 7);
  index.clear();
  CHECK(index.empty());
}

}  // namespace trainer
