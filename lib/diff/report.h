// What `trainer diff` prints: the comparison of two renderings, grouped by TrainJob (--legacy) or
// by object (FROM TO), and its five formats.
//
//   human    per TrainJob and object, one entry per changed field: path, old → new, the reason,
//            and (--legacy) where the new value came from; always a closing summary
//   unified  a unified diff of the YAML of each object that changed (-C N lines of context)
//   brief    one line per changed TrainJob (or object)
//   json     {"summary": {...}, "objects": [{apiVersion, kind, namespace, name, changeType,
//            changes: [{path, field, changeType, oldValue, newValue, reason}]}]}
//   github   one ::warning workflow command per changed TrainJob (or object), at its file:line
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "diff/migration.h"
#include "render/render.h"

namespace trainer {

struct ReportObject {
  ObjectDiff diff;
  std::vector<std::string> reasons;  // parallel to diff.changes; "" where no known change explains it
  std::vector<std::string> asks;     // parallel to diff.changes: what the reason asks of the user, or ""
  std::vector<FieldChange> ignored;  // the changes --ignore dropped
  // --baseline (Acknowledge, diff/baseline.h): whether the baseline records each change, parallel to
  // diff.changes, or one flag for an object added or removed; empty without a baseline and in a
  // blocked TrainJob.
  std::vector<bool> acknowledged;
  // CheckMigration keeps no renderings (diff.from and diff.to are null): a changed object's part of
  // the unified report, made while they were at hand, when it was asked for.
  std::optional<std::string> unified;
};

// The objects of one TrainJob, or every object when comparing two streams.
struct ReportGroup {
  const TrainJob* job = nullptr;        // null when comparing two streams
  const Runtime* runtime = nullptr;     // --legacy: the runtime it rendered with, when it rendered
  Reach reach = Reach::kNow;            // --legacy
  std::vector<Diagnostic> errors;       // --legacy: why it could not be checked (then no objects)
  std::optional<NextApply> next_apply;  // --legacy, where the TrainJob has a JobSet
  std::vector<ReportObject> objects;
  // CheckMigration: the objects found equal (no change ignored either), left out of `objects`.
  std::size_t unchanged = 0;

  // Whether an object changes, or the next apply is blocked.
  bool Changed() const;
  // Whether it changes and the baseline records every change (never when blocked).
  bool Acknowledged() const;
  bool Checked() const { return errors.empty(); }
  bool Drifted() const { return next_apply && !next_apply->drift.empty(); }
};

struct Report {
  bool by_trainjob = false;  // --legacy: groups are TrainJobs
  bool by_runtime = false;   // --runtimes-only: groups are probe TrainJobs, one per runtime
  std::string from_label;    // names the sides in unified headers: "legacy"/"current"
  std::string to_label;
  std::vector<ReportGroup> groups;
  // What the groups point into, when the report owns it (CheckMigration's probes).
  std::shared_ptr<const void> keep;
  // CheckMigration: TrainJobs that did not load (their problems are the inputs' errors); counted
  // among those that could not be checked.
  std::size_t not_loaded = 0;
  bool with_baseline = false;  // --baseline: Acknowledge marked the changes the baseline records
};

// Whether `o` is modified, added or removed.
inline bool Changed(const ReportObject& o) { return o.diff.type != ChangeType::kUnchanged; }

// Whether the baseline records every change of `o`.
inline bool Acknowledged(const ReportObject& o) {
  return !o.acknowledged.empty() && std::all_of(o.acknowledged.begin(), o.acknowledged.end(), [](bool a) { return a; });
}

struct ReportSummary {
  std::size_t trainjobs = 0;  // --legacy only: TrainJobs checked (not affected ones included)
  std::size_t changed_trainjobs = 0;
  std::size_t changed_now = 0;
  std::size_t changed_on_resume = 0;
  std::size_t changed_after_suspend = 0;
  std::size_t suspend_blocked = 0;        // counted in changed_trainjobs
  std::size_t resume_blocked = 0;         // counted in changed_trainjobs
  std::size_t drifted = 0;                // TrainJobs whose live JobSet differs from the legacy apply
  std::size_t predicted_from_status = 0;  // changed TrainJobs whose JobSet was assumed from status
  std::size_t not_affected = 0;
  std::size_t not_checked = 0;  // could not be checked (not counted in `trainjobs`)
  std::size_t objects = 0;      // objects compared: pairs, additions and removals
  std::size_t modified = 0;
  std::size_t added = 0;
  std::size_t removed = 0;
  std::size_t fields = 0;        // field changes reported
  std::size_t ignored = 0;       // field changes dropped by --ignore
  std::size_t acknowledged = 0;  // --baseline: changed TrainJobs wholly acknowledged (counted in changed_trainjobs)
  std::size_t acknowledged_objects = 0;  // objects whose every change is acknowledged (counted in modified...)

  // Whether anything changes that the baseline does not acknowledge, or a TrainJob is blocked (a
  // blocked TrainJob is never acknowledged, and may be blocked by drift alone, without changes).
  bool Differs() const {
    return modified + added + removed > acknowledged_objects || suspend_blocked + resume_blocked > 0;
  }
};

ReportSummary Summarize(const Report& report);

// Renders every TrainJob both ways and compares, per TrainJob, the objects of the legacy rendering
// (from) with the current one (to), explaining the known breaking changes. `legacy` and
// `current` come from RenderJobs on the same Inputs and must outlive the report.
Report CompareRenderings(const std::vector<RenderedJob>& legacy, const std::vector<RenderedJob>& current,
                         const std::vector<IgnoreRule>& ignore);

// The objects of one TrainJob's two renderings, paired and diffed, into `group`, each change with
// its reason (CompareRenderings, CheckMigration).
void AddObjects(ReportGroup& group, const RenderedJob& from, const std::vector<Tree>& to,
                const std::vector<IgnoreRule>& ignore);

// Compares two streams of objects; `from` and `to` must outlive the report.
Report CompareStreams(const std::vector<Tree>& from, const std::vector<Tree>& to,
                      const std::vector<IgnoreRule>& ignore);

enum class ReportFormat : std::uint8_t { kHuman, kUnified, kBrief, kJson, kGithub };

// The names -o accepts, in the order help lists them.
inline constexpr const char* kReportFormatNames[] = {"human", "unified", "brief", "json", "github"};
std::optional<ReportFormat> ParseReportFormat(std::string_view name);

struct ReportOptions {
  ReportFormat format = ReportFormat::kHuman;
  bool summary_only = false;  // --summary (human and json): the summary by runtime and the totals
  bool verbose = false;       // -v (human): list the unchanged and not affected TrainJobs by name
  bool color = false;         // ANSI colours (human and unified only)
  std::size_t context = 3;    // unified: lines of context
};

std::string FormatReport(const Report& report, const ReportOptions& options);

// A changed object's part of the unified report: `o.unified` when CheckMigration made it.
std::string UnifiedObject(const Report& report, const ReportObject& o, const ReportOptions& options);

}  // namespace trainer
