// "Did you mean" suggestions for misspelt names, as kubectl and cobra make them for commands.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace trainer {

// The optimal string alignment distance (Damerau-Levenshtein without repeated edits of one
// substring): insertions, deletions, substitutions and swaps of two adjacent characters, by bytes.
std::size_t EditDistance(std::string_view a, std::string_view b);

// The candidate `typed` most likely stands for: the first that equals it ignoring ASCII case, or
// else the first at the smallest edit distance when that distance is at most 2 (cobra's
// SuggestionsMinimumDistance) and smaller than the length of `typed` (so that "x" does not become
// "id"). nullopt when nothing is that close, or when `typed` is itself a candidate.
std::optional<std::string_view> NearestName(std::string_view typed, std::span<const std::string_view> candidates);

// `unknown field "numNode"`, with `; did you mean "numNodes"?` when NearestName finds one among
// the fields `known` at that place.
std::string UnknownFieldMessage(std::string_view field, std::span<const std::string_view> known);

}  // namespace trainer
