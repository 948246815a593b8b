// How strictly inputs are checked before rendering, like `kubectl --validate`, extended to the
// rules the API server's CRD schemas and the Trainer admission webhooks apply.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace trainer {

enum class ValidationMode {
  kStrict,  // unknown fields and admission rules are errors
  kWarn,    // both are warnings; unknown fields are dropped, as the API server prunes them
  kIgnore,  // neither is checked: what the controller does with an object that bypassed the webhook
};

// "strict", "warn", "ignore", and kubectl's "true" (strict) and "false" (ignore).
std::optional<ValidationMode> ParseValidationMode(std::string_view text);

// Where findings of the admission rules go under a mode: errors when strict, warnings when warn,
// nowhere when ignore.
class Findings {
 public:
  explicit Findings(ValidationMode mode) : mode_(mode) {}

  ValidationMode mode() const { return mode_; }
  // A rule the API server or a webhook rejects the object for.
  void Reject(Diagnostic d);
  // Something the API server or a webhook only warns about; dropped when ignoring.
  void Warn(Diagnostic d);
  // An error whatever the mode (malformed input, wrong types, missing objects).
  void Fail(Diagnostic d) { errors_.push_back(std::move(d)); }

  std::vector<Diagnostic>& errors() { return errors_; }
  std::vector<Diagnostic>& warnings() { return warnings_; }

 private:
  ValidationMode mode_;
  std::vector<Diagnostic> errors_;
  std::vector<Diagnostic> warnings_;
};

// One stderr line for a warning: "file:line:col: warning: TrainJob ns/name: field: message", or
// "trainer: warning: ..." when the position is unknown.
std::string FormatWarning(const Diagnostic& warning);

}  // namespace trainer
