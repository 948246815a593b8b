#include "util/suggest.h"

#include <doctest/doctest.h>

#include <array>

namespace trainer {
namespace {

TEST_CASE("EditDistance counts insertions, deletions, substitutions and adjacent swaps") {
  CHECK(EditDistance("", "") == 0);
  CHECK(EditDistance("numNode", "numNodes") == 1);
  CHECK(EditDistance("imgae", "image") == 1);  // one swap, not two substitutions
  CHECK(EditDistance("comand", "command") == 1);
  CHECK(EditDistance("kitten", "sitting") == 3);
  CHECK(EditDistance("abc", "") == 3);
}

TEST_CASE("NearestName suggests within distance 2, or a match ignoring case") {
  constexpr std::array<std::string_view, 5> kFields{"image", "command", "args", "numNodes", "numProcPerNode"};
  CHECK(NearestName("numNode", kFields) == std::optional<std::string_view>("numNodes"));
  CHECK(NearestName("NumNodes", kFields) == std::optional<std::string_view>("numNodes"));
  CHECK(NearestName("numprocpernode", kFields) == std::optional<std::string_view>("numProcPerNode"));
  CHECK(NearestName("imgae", kFields) == std::optional<std::string_view>("image"));
  CHECK(NearestName("arg", kFields) == std::optional<std::string_view>("args"));
  CHECK_FALSE(NearestName("replicas", kFields));  // nothing close
  CHECK_FALSE(NearestName("x", kFields));         // as far as it is long
  CHECK_FALSE(NearestName("image", kFields));     // known: nothing to suggest
  CHECK_FALSE(NearestName("anything", std::span<const std::string_view>{}));
}

}  // namespace
}  // namespace trainer
