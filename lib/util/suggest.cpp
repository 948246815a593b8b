#include "util/suggest.h"

#include <algorithm>
#include <vector>

#include "util/quote.h"

namespace trainer {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  // Three rows: the one before the previous one is needed for swaps.
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string_view> NearestName(std::string_view typed, std::span<const std::string_view> candidates) {
  constexpr std::size_t kMaxDistance = 2;
  for (std::string_view c : candidates) {
    if (c == typed) return std::nullopt;
  }
  for (std::string_view c : candidates) {
    if (EqualsIgnoringCase(c, typed)) return c;
  }
  std::optional<std::string_view> best;
  std::size_t best_distance = kMaxDistance + 1;
  for (std::string_view c : candidates) {
    const std::size_t d = EditDistance(typed, c);
    if (d < best_distance && d < typed.size()) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string UnknownFieldMessage(std::string_view field, std::span<const std::string_view> known) {
  // The field as it was typed (Printable), as the message has always shown it; the suggestion is a
  // known name.
  std::string message = "unknown field \"" + Printable(field) + "\"";
  if (auto nearest = NearestName(field, known)) message += "; did you mean \"" + std::string(*nearest) + "\"?";
  return message;
}

}  // namespace trainer
