#include "yaml/tree.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

namespace trainer {

namespace {

Tree MapOf(int n, const std::string& prefix = "k") {
  Tree map = Tree::Map();
  for (int i = 0; i < n; ++i) map.Set(fmt::format("{}{}", prefix, i), Tree::Int(i));
  return map;
}

// Every key of `map` (prefix + 0..n-1) is found with its value, and a few others are not.
void CheckAllFound(const Tree& map, int n, const std::string& prefix = "k") {
  REQUIRE(map.size() == static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Tree* v = map.Find(fmt::format("{}{}", prefix, i));
    REQUIRE(v != nullptr);
    CHECK(v->AsInt() == i);
  }
  CHECK(map.Find("absent") == nullptr);
  CHECK(map.Find("") == nullptr);
  CHECK(map.Find(fmt::format("{}{}", prefix, n)) == nullptr);
}

}  // namespace

TEST_CASE("maps below and above the index size find every key") {
  for (int n : {0, 1, 31, 32, 33, 64, 65, 1000}) {
    CAPTURE(n);
    CheckAllFound(MapOf(n), n);
  }
}

TEST_CASE("Set replaces a key in place in a large map and keeps the insertion order") {
  Tree map = MapOf(100);
  map.Set("k50", Tree::String("fifty"));
  CHECK(map.size() == 100);
  CHECK(map.KeyAt(50) == "k50");
  CHECK(map.Find("k50")->text() == "fifty");
  map.Set("new", Tree::Int(7));
  CHECK(map.KeyAt(100) == "new");
  CHECK(map.Find("new")->AsInt() == 7);
}

TEST_CASE("Erase keeps the index of a large map right, also when it shrinks below the index size") {
  Tree map = MapOf(40);
  CHECK(map.Erase("k0"));
  CHECK_FALSE(map.Erase("k0"));
  CHECK(map.Find("k0") == nullptr);
  CHECK(map.KeyAt(0) == "k1");
  for (int i = 1; i < 40; ++i) CHECK(map.Find(fmt::format("k{}", i))->AsInt() == i);
  for (int i = 1; i < 20; ++i) CHECK(map.Erase(fmt::format("k{}", i)));
  CHECK(map.size() == 20);
  for (int i = 20; i < 40; ++i) CHECK(map.Find(fmt::format("k{}", i))->AsInt() == i);
  map.Set("k5", Tree::Int(5));
  CHECK(map.Find("k5")->AsInt() == 5);
  CHECK(map.KeyAt(20) == "k5");
}

TEST_CASE("copies and moves of a large map find their own keys") {
  Tree original = MapOf(200);
  Tree copy = original;
  copy.Set("only-in-copy", Tree::Int(1));
  CHECK(original.Find("only-in-copy") == nullptr);
  CHECK(copy.Find("only-in-copy") != nullptr);
  CheckAllFound(original, 200);
  Tree assigned = MapOf(3, "x");
  assigned = original;
  CheckAllFound(assigned, 200);
  Tree moved = std::move(copy);
  CHECK(moved.Find("k199")->AsInt() == 199);
  CHECK(moved.Find("only-in-copy") != nullptr);
  // A map nested in a list survives the list's reallocations.
  Tree list = Tree::List();
  for (int i = 0; i < 20; ++i) list.Append(MapOf(50, fmt::format("m{}-", i)));
  for (int i = 0; i < 20; ++i) CheckAllFound(list.items()[static_cast<std::size_t>(i)], 50, fmt::format("m{}-", i));
}

TEST_CASE("keys that differ only late or collide on short prefixes are told apart") {
  Tree map = Tree::Map();
  std::string long_key(300, 'a');
  for (int i = 0; i < 100; ++i) map.Set(long_key + std::to_string(i), Tree::Int(i));
  for (int i = 0; i < 100; ++i) CHECK(map.Find(long_key + std::to_string(i))->AsInt() == i);
  CHECK(map.Find(long_key) == nullptr);
}

TEST_CASE("equality of large maps ignores key order") {
  Tree a = MapOf(100);
  Tree b = Tree::Map();
  for (int i = 99; i >= 0; --i) b.Set(fmt::format("k{}", i), Tree::Int(i));
  CHECK(a == b);
  b.Set("k3", Tree::Int(-1));
  CHECK(a != b);
}

TEST_CASE("a map of 100k keys, indexed, finds every key, and its copy is equal") {
  Tree map = MapOf(100'000);
  CheckAllFound(map, 100'000);
  Tree copy = map;
  CHECK(copy == map);
  CheckAllFound(copy, 100'000);
}

}  // namespace trainer
