// The one error type of `trainer`, and the diagnostics it carries.
//
// Every problem a user can cause is reported as a Diagnostic, formatted like a compiler's:
//   file:line:col: TrainJob ns/name: spec.trainer.numNodes: message
// Parts that are unknown are left out. Error carries one or more diagnostics; it is thrown by
// steps that fail fast and by checkpoints after steps that collect.
#pragma once

#include <stdexcept>
#include <string>
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

  bool HasLocation() const { return !location.empty() || where.HasPosition(); }
  std::string Format() const;
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
    items_.push_back(Diagnostic{where, subject_, std::move(field), std::move(message)});
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
