#include "util/suggest.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace trainer {

namespace {

constexpr std::size_t kMaxDistance = 2;

char Fold(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance, case-insensitive.
std::size_t Distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = Fold(a[i - 1]) == Fold(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && Fold(a[i - 1]) == Fold(b[j - 2]) && Fold(a[i - 2]) == Fold(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

}  // namespace

std::optional<std::string> Nearest(std::string_view word, std::span<const std::string_view> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = kMaxDistance + 1;
  for (std::string_view candidate : candidates) {
    // Words longer than the limit past either one's length are far apart: skip the table.
    const std::size_t gap = word.size() > candidate.size() ? word.size() - candidate.size() : candidate.size() - word.size();
    if (gap >= best_distance) continue;
    const std::size_t distance = Distance(word, candidate);
    if (distance < best_distance && distance < word.size()) {
      best_distance = distance;
      best = std::string(candidate);
    }
  }
  return best;
}

}  // namespace trainer
