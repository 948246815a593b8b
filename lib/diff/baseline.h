// The baseline of `trainer diff --legacy --baseline FILE`, as linters keep one: the changes of the
// upgrade a team has reviewed, which later reports show as acknowledged and leave out of the exit
// status. FILE is YAML:
//
//   version: 1
//   changes:
//   - trainJob: ml/new-run                   NAMESPACE/NAME
//     object: JobSet/ml/new-run              KIND/NAMESPACE/NAME
//     path: spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image
//     newValue: registry.example.com/ml/llm:3.2
//
// `path` is the report form of the field path ("" for an object added or removed as a whole),
// `newValue` the value the current behaviour gives (absent for a field or object removed). The list
// is sorted and free of duplicates, so that a rewrite of the same changes is byte-identical.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diff/report.h"
#include "yaml/tree.h"

namespace trainer {

struct BaselineEntry {
  std::string train_job;  // NAMESPACE/NAME
  std::string object;     // KIND/NAMESPACE/NAME
  std::string path;       // FormatPath; "" for a whole object
  std::optional<Tree> new_value;
};

class Baseline {
 public:
  // Reads FILE's content; `file` names it in errors and must outlive the baseline. Throws Error
  // (file:line:col: field: message) for malformed YAML, a missing or unknown version, an unknown
  // key, and a field of the wrong type.
  static Baseline Parse(std::string_view content, const std::string* file);
  // Every change of a migration report, blocked TrainJobs' included. With `old`, the entries it
  // holds for the TrainJobs of the report that could not be checked are kept, so that a rewrite
  // does not drop what the team recorded for them.
  static Baseline Of(const Report& report, const Baseline* old = nullptr);

  // FILE's content: the version, then the entries sorted.
  std::string Format() const;
  bool Contains(const BaselineEntry& entry) const;
  const std::vector<BaselineEntry>& entries() const { return entries_; }

 private:
  void Sort();
  std::vector<BaselineEntry> entries_;
};

// Marks in `report` (a migration report) each change that `baseline` records with the same new
// value as acknowledged (ReportObject::acknowledged), except in blocked TrainJobs: a suspend or
// resume the JobSet webhook refuses is never acknowledged.
void Acknowledge(Report& report, const Baseline& baseline);

}  // namespace trainer
