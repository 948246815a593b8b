// "Did you mean ...?": the known word nearest to a mistyped one, as kubectl suggests commands.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace trainer {

// The candidate nearest to `word` by optimal string alignment distance (insertions, deletions,
// substitutions and swaps of two neighbours, each 1), case-insensitively, when that distance is at
// most 2 and smaller than `word` itself; the first of equally near ones. nullopt when none is close.
std::optional<std::string> Nearest(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace trainer
