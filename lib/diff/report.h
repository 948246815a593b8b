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

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "render/render.h"

namespace trainer {

struct ReportObject {
  ObjectDiff diff;
  std::vector<std::string> reasons;  // parallel to diff.changes; "" where no known change explains it
  std::vector<FieldChange> ignored;  // the changes --ignore dropped
};

// The objects of one TrainJob, or every object when comparing two streams.
struct ReportGroup {
  const TrainJob* job = nullptr;  // null when comparing two streams
  std::vector<ReportObject> objects;

  bool Changed() const;
};

struct Report {
  bool by_trainjob = false;  // --legacy: groups are TrainJobs
  std::string from_label;    // names the sides in unified headers: "legacy"/"current"
  std::string to_label;
  std::vector<ReportGroup> groups;
};

struct ReportSummary {
  std::size_t trainjobs = 0;  // --legacy only
  std::size_t changed_trainjobs = 0;
  std::size_t objects = 0;  // objects compared: pairs, additions and removals
  std::size_t modified = 0;
  std::size_t added = 0;
  std::size_t removed = 0;
  std::size_t fields = 0;   // field changes reported
  std::size_t ignored = 0;  // field changes dropped by --ignore

  bool Differs() const { return modified + added + removed > 0; }
};

ReportSummary Summarize(const Report& report);

// Renders every TrainJob both ways and compares, per TrainJob, the objects of the legacy rendering
// (from) with the current one (to), explaining the known breaking changes. `legacy` and
// `current` come from RenderJobs on the same Inputs and must outlive the report.
Report CompareRenderings(const std::vector<RenderedJob>& legacy, const std::vector<RenderedJob>& current,
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
  bool color = false;       // ANSI colours (human and unified only)
  std::size_t context = 3;  // unified: lines of context
};

std::string FormatReport(const Report& report, const ReportOptions& options);

}  // namespace trainer
