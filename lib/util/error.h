// The one error type of `trainer`, and the diagnostics it carries.
//
// Every problem a user can cause is reported as a Diagnostic, formatted like a compiler's:
//   file:line:col: TrainJob ns/name: spec.trainer.numNodes: message
// Parts that are unknown are left out; each part is Printable (util/quote.h), so that a diagnostic
// is one line whatever the input holds. Error carries one or more diagnostics; it is thrown by
// steps that fail fast and by checkpoints after steps that collect.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "util/origin.h"

namespace trainer {

struct Diagnostic {
  Origin where;          // position in an input file, when known
  std::string subject;   // e.g. "TrainJob default/job"
  std::string field;     // e.g. "spec.trainer.numNodes"
  std::string message;
  // "file:line:col", filled from `where` when an Error is made, so that it outlives the inputs
  // whose file names `where` points into.
  std::string location;
  // The input line at `where` as it was read (at most kSourceLineBytes of it, each byte of a rune
  // other than a tab that Printable would escape shown as '?'), for a terminal to show under the
  // message; empty when the text was not at hand.
  std::string source_line;

  bool HasLocation() const { return !location.empty() || where.HasPosition(); }
  std::string Format() const;
};

inline constexpr std::size_t kSourceLineBytes = 512;

// An input's text while it is at hand, to keep the lines that diagnostics point at: a terminal
// shows them after the input is gone, without reading it again.
class SourceText {
 public:
  SourceText(const std::string* file, std::string_view text) : file_(file), text_(text) {}
  // Gives `d` its line of this text when it points into it and has none yet.
  void Attach(Diagnostic& d) const;

 private:
  const std::string* file_;
  std::string_view text_;
  mutable std::vector<std::size_t> starts_;  // of each line, built for the first diagnostic
};

class Error : public std::runtime_error {
 public:
  explicit Error(Diagnostic diagnostic);
  explicit Error(std::vector<Diagnostic> diagnostics);
  // A diagnostic with only a message.
  explicit Error(const std::string& message);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Collects diagnostics and throws them together at a checkpoint.
class Diagnostics {
 public:
  void Add(Diagnostic diagnostic) { items_.push_back(std::move(diagnostic)); }
  void Add(const Origin& where, std::string field, std::string message) {
    items_.push_back(
        Diagnostic{.where = where, .subject = subject_, .field = std::move(field), .message = std::move(message)});
  }
  void Append(const std::vector<Diagnostic>& more) { items_.insert(items_.end(), more.begin(), more.end()); }
  void set_subject(std::string subject) { subject_ = std::move(subject); }
  const std::string& subject() const { return subject_; }
  bool empty() const { return items_.empty(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  // Throws an Error holding every collected diagnostic, if there is any.
  void Checkpoint();

 private:
  std::string subject_;
  std::vector<Diagnostic> items_;
};

}  // namespace trainer
