#include "util/error.h"

namespace trainer {

namespace {

std::string Join(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.Format();
  }
  return text;
}

}  // namespace

std::string Diagnostic::Format() const {
  std::string text;
  auto part = [&text](const std::string& p) {
    if (p.empty()) return;
    text += p;
    text += ": ";
  };
  part(location.empty() ? where.Position() : location);
  part(subject);
  part(field);
  text += message;
  return text;
}

Error::Error(Diagnostic diagnostic) : Error(std::vector<Diagnostic>{std::move(diagnostic)}) {}

namespace {

std::vector<Diagnostic> WithLocations(std::vector<Diagnostic> diagnostics) {
  for (Diagnostic& d : diagnostics) {
    if (d.location.empty()) d.location = d.where.Position();
  }
  return diagnostics;
}

}  // namespace

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(Join(diagnostics)), diagnostics_(WithLocations(std::move(diagnostics))) {}

Error::Error(const std::string& message) : Error(Diagnostic{{}, "", "", message}) {}

void Diagnostics::Checkpoint() {
  if (items_.empty()) return;
  std::vector<Diagnostic> items;
  items.swap(items_);
  throw Error(std::move(items));
}

}  // namespace trainer
