#include "util/error.h"

#include <algorithm>

#include "util/quote.h"

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
  // Each part Printable, whatever made it: a diagnostic is one line, and obeys no input.
  auto part = [&text](const std::string& p) {
    if (p.empty()) return;
    AppendPrintable(p, text);
    text += ": ";
  };
  part(location.empty() ? where.Position() : location);
  part(subject);
  part(field);
  AppendPrintable(message, text);
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

Error::Error(const std::string& message) : Error(Diagnostic{.message = message}) {}

void SourceText::Attach(Diagnostic& d) const {
  if (d.where.file != file_ || d.where.line == 0 || !d.source_line.empty()) return;
  if (starts_.empty()) {
    starts_.push_back(0);
    for (std::size_t i = text_.find('\n'); i != std::string_view::npos; i = text_.find('\n', i + 1))
      starts_.push_back(i + 1);
  }
  if (d.where.line > starts_.size()) return;
  std::string_view line = text_.substr(starts_[d.where.line - 1]);
  line = line.substr(0, std::min({line.find('\n'), line.size(), kSourceLineBytes}));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  d.source_line.assign(line);
  // Nothing for a terminal to obey: each byte of a control, a line break, a format character or
  // invalid UTF-8 becomes '?', so that the caret under the column stays where it was.
  for (std::size_t i = 0; i < d.source_line.size();) {
    auto [rune, len] = DecodeRune(d.source_line, i);
    if (rune != '\t' && !PrintsAsItself(rune, len)) d.source_line.replace(i, len, len, '?');
    i += len;
  }
}

void Diagnostics::Checkpoint() {
  if (items_.empty()) return;
  std::vector<Diagnostic> items;
  items.swap(items_);
  throw Error(std::move(items));
}

}  // namespace trainer
