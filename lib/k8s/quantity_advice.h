// What to tell a user whose text is not a resource quantity: the quantity they likely meant, and
// the suffixes there are, instead of the regular expression Kubernetes quotes.
#pragma once

#include <string>
#include <string_view>

namespace trainer {

// The suffixes a quantity may end with, for messages.
inline constexpr std::string_view kQuantitySuffixes = "n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3";

// '"16GB" is not a quantity: did you mean "16G" (10^9) or "16Gi" (2^30)? Suffixes: ...'. The
// guesses, each checked to parse: the text without its spaces ("16 Gi"); a byte unit or a suffix in
// the wrong case, as its decimal and binary quantities ("16GB", "16gi", "16kb"); a unit word
// after the number, as the number alone ("4 cpu", "2 GPUs"). Without a guess: '"two" is not a
// quantity: write a number with an optional suffix. Suffixes: ...'.
std::string QuantityAdvice(std::string_view text);

}  // namespace trainer
