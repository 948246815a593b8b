#include "api/validation.h"

namespace trainer {

std::optional<ValidationMode> ParseValidationMode(std::string_view text) {
  if (text == "strict" || text == "true") return ValidationMode::kStrict;
  if (text == "warn") return ValidationMode::kWarn;
  if (text == "ignore" || text == "false") return ValidationMode::kIgnore;
  return std::nullopt;
}

void Findings::Reject(Diagnostic d) {
  switch (mode_) {
    case ValidationMode::kStrict: errors_.push_back(std::move(d)); return;
    case ValidationMode::kWarn: warnings_.push_back(std::move(d)); return;
    case ValidationMode::kIgnore: return;
  }
}

void Findings::Warn(Diagnostic d) {
  if (mode_ != ValidationMode::kIgnore) warnings_.push_back(std::move(d));
}

std::string FormatWarning(const Diagnostic& warning) {
  Diagnostic rest = warning;
  std::string location = rest.location.empty() ? rest.where.Position() : rest.location;
  rest.where = {};
  rest.location.clear();
  return (location.empty() ? std::string("trainer") : location) + ": warning: " + rest.Format();
}

}  // namespace trainer
