#include "k8s/quantity_advice.h"

#include <fmt/format.h>

#include <vector>

#include "k8s/quantity.h"
#include "util/quote.h"

namespace trainer {

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

struct Guess {
  std::string text;
  std::string note;  // " (10^9)", " (2^30)" or ""
};

std::vector<Guess> Guesses(std::string_view text) {
  std::string compact;
  for (char c : text) {
    if (c != ' ' && c != '\t') compact.push_back(c);
  }
  std::size_t digits = 0;
  if (digits < compact.size() && (compact[digits] == '+' || compact[digits] == '-')) ++digits;
  const std::size_t sign = digits;
  while (digits < compact.size() && ((compact[digits] >= '0' && compact[digits] <= '9') || compact[digits] == '.')) ++digits;
  if (digits == sign) return {};
  const std::string number = compact.substr(0, digits);
  std::string unit;
  for (char c : std::string_view(compact).substr(digits)) unit.push_back(Lower(c));

  std::vector<Guess> guesses;
  if (compact != text) guesses.push_back({compact, ""});  // only the spaces were in the way
  static constexpr std::string_view kWords[] = {"cpu", "cpus", "core", "cores", "vcpu", "vcpus", "gpu", "gpus"};
  for (std::string_view w : kWords) {
    if (unit == w) guesses.push_back({number, ""});
  }
  // k, kb, kib, ki and their kin in any case: the decimal and the binary quantity, or only the
  // binary one when an i says so.
  static constexpr std::string_view kLetters = "kmgtpe";
  std::string_view u = unit;
  if (u.size() >= 2 && u.back() == 'b') u.remove_suffix(1);
  const bool binary = u.size() == 2 && u[1] == 'i';
  // A lone e is an exponent without its digits more likely than exa.
  if ((u.size() == 1 || binary) && kLetters.find(u[0]) != std::string_view::npos && unit != "e") {
    const std::size_t power = kLetters.find(u[0]) + 1;
    const char upper = static_cast<char>(u[0] - 'a' + 'A');
    if (!binary) guesses.push_back({number + (u[0] == 'k' ? 'k' : upper), fmt::format(" (10^{})", 3 * power)});
    guesses.push_back({number + upper + 'i', fmt::format(" (2^{})", 10 * power)});
  }
  std::vector<Guess> valid;
  for (Guess& g : guesses) {
    bool seen = false;
    for (const Guess& v : valid) seen = seen || v.text == g.text;
    if (!seen && g.text != text && Quantity::Parse(g.text)) valid.push_back(std::move(g));
  }
  return valid;
}

}  // namespace

std::string QuantityAdvice(std::string_view text) {
  const std::vector<Guess> guesses = Guesses(text);
  if (guesses.empty()) {
    return fmt::format("{} is not a quantity: write a number with an optional suffix. Suffixes: {}", GoQuote(text),
                       kQuantitySuffixes);
  }
  std::string meant;
  for (std::size_t i = 0; i < guesses.size(); ++i) {
    if (i > 0) meant += i + 1 == guesses.size() ? " or " : ", ";
    meant += GoQuote(guesses[i].text) + guesses[i].note;
  }
  return fmt::format("{} is not a quantity: did you mean {}? Suffixes: {}", GoQuote(text), meant, kQuantitySuffixes);
}

}  // namespace trainer
