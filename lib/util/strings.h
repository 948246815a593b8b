// Small string helpers that several parts of trainer share.
#pragma once

#include <string_view>
#include <vector>

namespace trainer {

// The parts of `text` between `separator`s: n separators give n + 1 parts, empty ones included
// ("" gives one empty part).
std::vector<std::string_view> Split(std::string_view text, char separator);

}  // namespace trainer
