#include "diff/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "api/decode.h"
#include "diff/reasons.h"
#include "diff/unified.h"
#include "util/quote.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

// Values whose flow form is longer than this are printed as YAML blocks in human output.
constexpr std::size_t kInlineWidth = 100;

struct Colors {
  const char* bold = "";
  const char* old_value = "";
  const char* new_value = "";
  const char* reason = "";
  const char* dim = "";
  const char* reset = "";

  static Colors Pick(bool on) {
    if (!on) return {};
    return Colors{"\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[2m", "\x1b[m"};
  }
};

// ---- Counting and naming ----

std::string Plural(std::size_t n, std::string_view noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

// "file:line" of a value read from a file, "" otherwise.
std::string Location(const Origin& origin) {
  if (!origin.HasPosition()) return "";
  return fmt::format("{}:{}", Printable(*origin.file), origin.line);
}

const Tree* Visible(const ObjectDiff& d) { return d.to ? d.to : d.from; }

// Where an object of a stream comparison is: the new side, or the old one for a removal.
std::string Location(const ObjectDiff& d) {
  const Tree* t = Visible(d);
  return t ? Location(t->origin()) : "";
}

// "loc: text", or just the text when the location is unknown.
std::string At(const std::string& location, const std::string& text) {
  return location.empty() ? text : location + ": " + text;
}

std::string Flow(const std::optional<Tree>& t);

// When the current behaviour reaches a changed TrainJob, as the reports say it.
const char* When(Reach reach) {
  switch (reach) {
    case Reach::kNow: return "now";
    case Reach::kOnResume: return "on resume";
    case Reach::kAfterSuspendAndResume: return "after suspend and resume";
    case Reach::kSuspendBlocked: return "suspend blocked";
    case Reach::kResumeBlocked: return "resume blocked";
    case Reach::kManagedElsewhere:
    case Reach::kFinished: break;
  }
  return "never";
}

// The same in JSON.
const char* WhenKey(Reach reach) {
  switch (reach) {
    case Reach::kNow: return "now";
    case Reach::kOnResume: return "onResume";
    case Reach::kAfterSuspendAndResume: return "afterSuspendAndResume";
    case Reach::kSuspendBlocked: return "suspendBlocked";
    case Reach::kResumeBlocked: return "resumeBlocked";
    case Reach::kManagedElsewhere: return "managedElsewhere";
    case Reach::kFinished: return "finished";
  }
  return "";
}

// "deepspeed (ClusterTrainingRuntime)", "team/torch (TrainingRuntime)".
std::string RuntimeLabel(const Runtime& runtime) {
  const ObjectMeta& m = runtime.metadata;
  const std::string name = runtime.kind == kClusterTrainingRuntimeKind ? m.name : m.namespace_ + "/" + m.name;
  return Printable(fmt::format("{} ({})", name, runtime.kind));
}

// What a group is called in reports: its TrainJob, or under --runtimes-only the runtime it probes.
std::string GroupSubject(const Report& report, const ReportGroup& group) {
  if (report.by_runtime && group.runtime) return Subject(*group.runtime);
  return Subject(*group.job);
}

const Origin& GroupOrigin(const Report& report, const ReportGroup& group) {
  if (report.by_runtime && group.runtime) return group.runtime->origin;
  return group.job->origin;
}

// The classes of changed TrainJobs in the order reports list them: the blocked ones first.
constexpr Reach kChangedReaches[] = {Reach::kSuspendBlocked, Reach::kResumeBlocked, Reach::kNow, Reach::kOnResume,
                                     Reach::kAfterSuspendAndResume};

// The subject of the human format's heading: the TrainJob and the runtime it rendered with,
// "TrainJob ml/run on mpi-cluster (ClusterTrainingRuntime)", as the summary by runtime names it.
std::string HumanSubject(const Report& report, const ReportGroup& group) {
  if (report.by_runtime || group.runtime == nullptr) return GroupSubject(report, group);
  return GroupSubject(report, group) + " on " + RuntimeLabel(*group.runtime);
}

// "TrainJob ns/name changes now", "ClusterTrainingRuntime x is affected", "TrainJob ns/name:
// suspend blocked (...)", of `subject` (the group's, by default).
std::string ChangesText(const Report& report, const ReportGroup& group, const std::string& subject) {
  if (report.by_runtime) return subject + " is affected";
  switch (group.reach) {
    case Reach::kSuspendBlocked:
      return subject +
             ": suspend blocked (the JobSet webhook would refuse the controller's suspend apply: a suspend leaves "
             "the pods running)";
    case Reach::kResumeBlocked:
      return subject +
             ": resume blocked (the JobSet webhook would refuse the controller's resume apply: the TrainJob does "
             "not resume)";
    default: return fmt::format("{} changes {}", subject, When(group.reach));
  }
}

std::string ChangesText(const Report& report, const ReportGroup& group) {
  return ChangesText(report, group, GroupSubject(report, group));
}

// ", acknowledged" when the baseline records every change of a group, "" otherwise.
std::string AcknowledgedSuffix(const ReportGroup& group) { return group.Acknowledged() ? ": acknowledged" : ""; }

// "2 of 3 changes acknowledged" (counting objects added or removed as one change), or "" when the
// group has none or all are.
std::string PartlyAcknowledged(const ReportGroup& group) {
  std::size_t total = 0;
  std::size_t acknowledged = 0;
  for (const ReportObject& o : group.objects) {
    total += o.acknowledged.size();
    acknowledged += static_cast<std::size_t>(std::count(o.acknowledged.begin(), o.acknowledged.end(), true));
  }
  if (acknowledged == 0 || group.Acknowledged()) return "";
  return fmt::format("{} of {} acknowledged", acknowledged, Plural(total, "change"));
}

bool IsAcknowledged(const ReportObject& o, std::size_t i) { return i < o.acknowledged.size() && o.acknowledged[i]; }

// What to do about a blocked TrainJob. Holding the upgrade helps only where the upgrade blocks it.
std::string FixText(const ReportGroup& group) {
  const ObjectMeta& m = group.job->metadata;
  const bool by_drift = group.next_apply && group.next_apply->legacy_refused;
  return Printable(fmt::format(
      "delete JobSet {}/{} (the controller recreates it with the current behaviour; its pods restart){}", m.namespace_,
      m.name,
      by_drift ? "; holding the upgrade does not help: the legacy controller's apply is refused too, for the drift "
                 "below"
               : ", or hold the upgrade for this TrainJob"));
}

// The lines a blocked or drifted TrainJob's report adds about its live JobSet (human and github).
std::vector<std::string> NextApplyLines(const ReportGroup& group) {
  std::vector<std::string> lines;
  if (!group.next_apply) return lines;
  const NextApply& next = *group.next_apply;
  for (const std::string& refusal : next.refusals) lines.push_back("refused: " + Printable(refusal));
  if (Blocked(group.reach)) lines.push_back("fix: " + FixText(group));
  if (!next.drift.empty()) {
    lines.push_back(fmt::format(
        "drift: the live JobSet differs from what the legacy controller applies in {} (edited by hand, or its "
        "runtime edited since it was made), apart from the change of the upgrade:",
        Plural(next.drift.size(), "field")));
    for (const FieldChange& change : next.drift) {
      lines.push_back(fmt::format("  {}: {} (live) → {} (legacy apply)", FormatPath(change.path), Flow(change.from),
                                  Flow(change.to)));
    }
  }
  if (next.predicted_from_status && (Blocked(group.reach) || group.Changed())) {
    lines.push_back("predicted from status: the inputs hold no JobSets (dump jobsets to confirm)");
  }
  return lines;
}

// The problems of a group that could not be checked, one per line.
std::vector<std::string> ErrorLines(const ReportGroup& group) {
  std::vector<std::string> lines;
  for (const Diagnostic& d : group.errors) lines.push_back(d.Format());
  return lines;
}

struct GroupCounts {
  std::size_t modified = 0, added = 0, removed = 0, fields = 0;
};

GroupCounts Count(const ReportGroup& group) {
  GroupCounts c;
  for (const ReportObject& o : group.objects) {
    switch (o.diff.type) {
      case ChangeType::kModify:
        ++c.modified;
        c.fields += o.diff.changes.size();
        break;
      case ChangeType::kAdd: ++c.added; break;
      case ChangeType::kRemove: ++c.removed; break;
      case ChangeType::kUnchanged: break;
    }
  }
  return c;
}

// "3 fields in 2 objects, 1 object added, 1 object removed", leaving out the zeros.
std::string Details(std::size_t modified, std::size_t fields, std::size_t added, std::size_t removed) {
  std::vector<std::string> parts;
  if (modified > 0) parts.push_back(fmt::format("{} in {}", Plural(fields, "field"), Plural(modified, "object")));
  if (added > 0) parts.push_back(Plural(added, "object") + " added");
  if (removed > 0) parts.push_back(Plural(removed, "object") + " removed");
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The distinct reasons of a group's changes, in order of first appearance.
std::vector<std::string> Reasons(const std::vector<ReportObject>& objects) {
  std::vector<std::string> reasons;
  for (const ReportObject& o : objects) {
    for (const std::string& r : o.reasons) {
      if (!r.empty() && std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
    }
  }
  return reasons;
}

// ---- Values ----

std::string Flow(const std::optional<Tree>& t) {
  if (!t) return "(none)";
  std::string out;
  AppendFlow(*t, out);
  return out;
}

std::string Indent(std::size_t n) { return std::string(n, ' '); }

// "label: value" on one line, or "label:" and the value as an indented YAML block.
void AppendSide(std::string_view label, const std::optional<Tree>& value, const char* color, std::size_t indent,
                const Colors& colors, std::string& out) {
  std::string flow = Flow(value);
  bool multi_line = value && value->IsString() && value->text().find('\n') != std::string::npos;
  if (!value || (value->IsScalar() && !multi_line) || (!multi_line && flow.size() <= kInlineWidth)) {
    out += fmt::format("{}{}: {}{}{}\n", Indent(indent), label, color, flow, colors.reset);
    return;
  }
  std::string yaml;
  WriteYaml(*value, yaml);
  std::vector<std::string> lines = SplitLines(yaml);
  // A literal block keeps its header ("|", "|-") on the label's line.
  std::size_t first = 0;
  if (multi_line && !lines.empty() && lines[0].starts_with("|")) {
    out += fmt::format("{}{}: {}{}{}\n", Indent(indent), label, color, lines[0], colors.reset);
    first = 1;
  } else {
    out += fmt::format("{}{}:\n", Indent(indent), label);
  }
  for (std::size_t i = first; i < lines.size(); ++i) {
    out += fmt::format("{}{}{}{}\n", Indent(indent + 2), color, Printable(lines[i]), colors.reset);
  }
}

std::string PathText(const FieldChange& change) {
  std::string path = FormatPath(change.path);
  if (path.empty()) path = "(the whole object)";
  if (change.kind == FieldChange::Kind::kReordered) path += " (order)";
  return path;
}

// ---- human ----

// `source`: say where the new value came from (with --legacy: the TrainJob, the runtime, or a plugin).
void AppendHumanChange(const FieldChange& change, const std::string& reason, const std::string& asks, bool source,
                       bool acknowledged, std::size_t indent, const Colors& c, std::string& out) {
  out += fmt::format("{}{}\n", Indent(indent), PathText(change));
  std::string old_text = Flow(change.from);
  std::string new_text = Flow(change.to);
  std::size_t inner = indent + 2;
  bool multi_line = old_text.find("\\n") != std::string::npos || new_text.find("\\n") != std::string::npos;
  const DiffColors line_colors{"", c.dim, c.old_value, c.new_value, c.reset};
  if (std::vector<std::string> lines = StringLineDiff(change, 3, line_colors); !lines.empty()) {
    for (const std::string& line : lines) out += fmt::format("{}{}\n", Indent(inner), line);
  } else if (change.kind == FieldChange::Kind::kModified &&
             (IsLongValue(change.from ? &*change.from : nullptr) || IsLongValue(change.to ? &*change.to : nullptr))) {
    out += fmt::format("{}(a string of more than {} lines, shown whole)\n", Indent(inner), kWholeValueLines);
    AppendSide("old", change.from, c.old_value, inner, c, out);
    AppendSide("new", change.to, c.new_value, inner, c, out);
  } else if (!multi_line && old_text.size() + new_text.size() <= kInlineWidth) {
    out += fmt::format("{}{}{}{} → {}{}{}\n", Indent(inner), c.old_value, old_text, c.reset, c.new_value, new_text,
                       c.reset);
  } else {
    AppendSide("old", change.from, c.old_value, inner, c, out);
    AppendSide("new", change.to, c.new_value, inner, c, out);
  }
  if (!reason.empty()) out += fmt::format("{}{}reason: {}{}\n", Indent(inner), c.reason, reason, c.reset);
  if (!asks.empty()) out += fmt::format("{}{}asks: {}{}\n", Indent(inner), c.reason, asks, c.reset);
  if (source && change.to && change.kind != FieldChange::Kind::kRemoved) {
    std::string where = change.to->origin().Source();
    if (!where.empty()) out += fmt::format("{}{}source: {}{}\n", Indent(inner), c.dim, where, c.reset);
  }
  if (acknowledged) out += fmt::format("{}{}acknowledged: in the baseline{}\n", Indent(inner), c.dim, c.reset);
}

void AppendHumanObject(const ReportObject& o, std::string_view heading, bool source, std::size_t indent,
                       const Colors& c, std::string& out) {
  std::string suffix;
  if (o.diff.type == ChangeType::kAdd) suffix = fmt::format(": {}added{}", c.new_value, c.reset);
  if (o.diff.type == ChangeType::kRemove) suffix = fmt::format(": {}removed{}", c.old_value, c.reset);
  if (o.diff.type != ChangeType::kModify && IsAcknowledged(o, 0)) suffix += " (acknowledged)";
  if (o.diff.ignored > 0) suffix += fmt::format(" ({} ignored)", o.diff.ignored);
  out += fmt::format("{}{}{}{}{}\n", Indent(indent), c.bold, heading, c.reset, suffix);
  for (std::size_t i = 0; i < o.diff.changes.size(); ++i) {
    AppendHumanChange(o.diff.changes[i], o.reasons[i], o.asks.empty() ? std::string() : o.asks[i], source,
                      o.diff.type == ChangeType::kModify && IsAcknowledged(o, i), indent + 2, c, out);
  }
}

std::size_t ChangedBy(const ReportSummary& s, Reach reach) {
  switch (reach) {
    case Reach::kNow: return s.changed_now;
    case Reach::kOnResume: return s.changed_on_resume;
    case Reach::kAfterSuspendAndResume: return s.changed_after_suspend;
    case Reach::kSuspendBlocked: return s.suspend_blocked;
    case Reach::kResumeBlocked: return s.resume_blocked;
    default: return 0;
  }
}

std::string SummaryLine(const Report& report) {
  ReportSummary s = Summarize(report);
  std::string ignored = s.ignored > 0 ? fmt::format("; {} ignored by --ignore", s.ignored) : "";
  if (s.acknowledged > 0) ignored = fmt::format("; {} acknowledged by the baseline", s.acknowledged) + ignored;
  std::string not_checked = s.not_checked > 0 ? fmt::format("; {} could not be checked", s.not_checked) : "";
  if (report.by_runtime) {
    return fmt::format("{} checked: {} affected, {} unaffected{}{}", Plural(s.trainjobs, "runtime"),
                       s.changed_trainjobs, s.trainjobs - s.changed_trainjobs, not_checked, ignored);
  }
  if (report.by_trainjob) {
    std::vector<std::string> when;
    for (Reach reach : kChangedReaches) {
      std::size_t n = ChangedBy(s, reach);
      if (n > 0) when.push_back(fmt::format("{} {}", n, When(reach)));
    }
    std::string details = when.empty() ? "" : fmt::format(" ({})", fmt::join(when, ", "));
    std::string not_affected = s.not_affected > 0 ? fmt::format(", {} not affected", s.not_affected) : "";
    std::string drifted = s.drifted > 0 ? fmt::format("; {} with drift", s.drifted) : "";
    std::string from_status =
        s.predicted_from_status > 0 ? fmt::format("; {} predicted from status", s.predicted_from_status) : "";
    return fmt::format("{} checked: {} changed{}, {} unchanged{}{}{}{}{}", Plural(s.trainjobs, "TrainJob"),
                       s.changed_trainjobs, details, s.trainjobs - s.changed_trainjobs - s.not_affected, not_affected,
                       not_checked, drifted, from_status, ignored);
  }
  std::string details = s.modified > 0 ? fmt::format(" ({})", Plural(s.fields, "field")) : "";
  std::string added = s.added > 0 ? fmt::format(", {} added", s.added) : "";
  std::string removed = s.removed > 0 ? fmt::format(", {} removed", s.removed) : "";
  return fmt::format("{} compared: {} changed{}{}{}, {} unchanged{}", Plural(s.objects, "object"), s.modified, details,
                     added, removed, s.objects - s.modified - s.added - s.removed, ignored);
}

// The changed TrainJobs of one runtime that change for the same reasons.
struct RuntimeChange {
  const Runtime* runtime;
  std::string reasons;
  std::size_t trainjobs = 0;
  std::size_t by_reach[kReachCount] = {};
};

// The changed TrainJobs by runtime and reasons, the largest share first (then in input order).
std::vector<RuntimeChange> ByRuntime(const Report& report) {
  std::vector<RuntimeChange> out;
  // By the runtime's name, not its object: a TrainJob built from its runtime snapshot counts under
  // the runtime the snapshot holds.
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const ReportGroup& group : report.groups) {
    if (!group.Checked() || !group.Changed() || group.runtime == nullptr) continue;
    std::vector<std::string> reasons = Reasons(group.objects);
    std::string text = !reasons.empty() ? fmt::format("{}", fmt::join(reasons, "; "))
                       : group.Drifted() && Blocked(group.reach)
                           ? std::string("blocked by the live JobSet's drift, without changes of the upgrade")
                           : std::string("changes no known reason explains");
    auto [it, added] = index.emplace(std::make_pair(RuntimeLabel(*group.runtime), text), out.size());
    if (added) out.push_back(RuntimeChange{group.runtime, std::move(text)});
    RuntimeChange& entry = out[it->second];
    ++entry.trainjobs;
    ++entry.by_reach[static_cast<std::size_t>(group.reach)];
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RuntimeChange& a, const RuntimeChange& b) { return a.trainjobs > b.trainjobs; });
  return out;
}

// "(380 on resume, 32 after suspend and resume)", the classes with TrainJobs, in table order.
std::string ReachCounts(const RuntimeChange& change) {
  std::vector<std::string> parts;
  for (Reach reach : kChangedReaches) {
    std::size_t n = change.by_reach[static_cast<std::size_t>(reach)];
    if (n > 0) parts.push_back(fmt::format("{} {}", n, When(reach)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Above this many changed TrainJobs, the human report opens with the summary by runtime.
constexpr std::size_t kByRuntimeAbove = 5;

std::string ByRuntimeText(const Report& report, const Colors& c) {
  std::string out;
  for (const RuntimeChange& change : ByRuntime(report)) {
    if (out.empty()) out += fmt::format("{}Changed TrainJobs by runtime:{}\n", c.bold, c.reset);
    out += fmt::format("  {}: {} — {} ({})\n", RuntimeLabel(*change.runtime), Plural(change.trainjobs, "TrainJob"),
                       change.reasons, ReachCounts(change));
  }
  return out;
}

// -v: the TrainJobs (runtimes) that do not change, then those not affected, one a line.
std::string VerboseLists(const Report& report, const Colors& c) {
  std::string unchanged;
  std::string not_affected;
  for (const ReportGroup& group : report.groups) {
    if (!group.Checked() || group.Changed()) continue;
    const std::string where = Location(GroupOrigin(report, group));
    if (Reconciled(group.reach)) {
      unchanged += fmt::format("  {}\n", At(where, HumanSubject(report, group)));
    } else {
      std::string why = group.reach == Reach::kFinished ? "finished" : "managed by another controller";
      if (group.reach == Reach::kManagedElsewhere && group.job->spec.managed_by)
        why = "managed by " + Printable(*group.job->spec.managed_by);
      not_affected += fmt::format("  {}\n", At(where, GroupSubject(report, group) + ": " + why));
    }
  }
  std::string out;
  if (!unchanged.empty()) {
    out +=
        fmt::format("{}Unchanged {}:{}\n", c.bold, report.by_runtime ? "runtimes" : "TrainJobs", c.reset) + unchanged;
  }
  if (!not_affected.empty()) {
    if (!out.empty()) out.push_back('\n');
    out += fmt::format("{}Not affected TrainJobs:{}\n", c.bold, c.reset) + not_affected;
  }
  return out;
}

std::string FormatHuman(const Report& report, const Colors& c, bool summary_only, bool verbose) {
  std::string out;
  if (report.by_trainjob && !report.by_runtime &&
      (summary_only || Summarize(report).changed_trainjobs > kByRuntimeAbove)) {
    out += ByRuntimeText(report, c);
  }
  if (summary_only) {
    if (verbose && report.by_trainjob) {
      if (std::string lists = VerboseLists(report, c); !lists.empty()) {
        if (!out.empty()) out.push_back('\n');
        out += lists;
      }
    }
    if (!out.empty()) out.push_back('\n');
    out += fmt::format("{}{}{}\n", c.bold, SummaryLine(report), c.reset);
    return out;
  }
  for (const ReportGroup& group : report.groups) {
    if (report.by_trainjob) {
      if (!group.Checked()) {
        if (!out.empty()) out.push_back('\n');
        out += fmt::format("{}{}: could not be checked{}\n", c.bold,
                           At(Location(GroupOrigin(report, group)), GroupSubject(report, group)), c.reset);
        for (const std::string& line : ErrorLines(group)) out += fmt::format("  {}\n", line);
        continue;
      }
      if (!group.Changed() && !group.Drifted()) continue;
      if (!out.empty()) out.push_back('\n');
      std::string heading = group.Changed()
                                ? ChangesText(report, group, HumanSubject(report, group)) + AcknowledgedSuffix(group)
                                : HumanSubject(report, group) + " is unchanged";
      if (std::string partly = PartlyAcknowledged(group); !partly.empty()) heading += " (" + partly + ")";
      out += fmt::format("{}{}{}\n", c.bold, At(Location(GroupOrigin(report, group)), heading), c.reset);
      for (const ReportObject& o : group.objects) {
        if (Changed(o)) AppendHumanObject(o, o.diff.id.Label(), true, 2, c, out);
      }
      for (const std::string& line : NextApplyLines(group)) out += fmt::format("  {}\n", line);
      continue;
    }
    for (const ReportObject& o : group.objects) {
      if (!Changed(o)) continue;
      if (!out.empty()) out.push_back('\n');
      AppendHumanObject(o, At(Location(o.diff), o.diff.id.Label()), false, 0, c, out);
    }
  }
  if (verbose && report.by_trainjob) {
    if (std::string lists = VerboseLists(report, c); !lists.empty()) {
      if (!out.empty()) out.push_back('\n');
      out += lists;
    }
  }
  if (!out.empty()) out.push_back('\n');
  out += fmt::format("{}{}{}\n", c.bold, SummaryLine(report), c.reset);
  return out;
}

// ---- brief ----

std::string ObjectBrief(const ReportObject& o) {
  switch (o.diff.type) {
    case ChangeType::kAdd: return o.diff.id.Label() + " added";
    case ChangeType::kRemove: return o.diff.id.Label() + " removed";
    default: return fmt::format("{} changes {}", o.diff.id.Label(), Plural(o.diff.changes.size(), "field"));
  }
}

std::string TrainJobBrief(const Report& report, const ReportGroup& group) {
  GroupCounts n = Count(group);
  std::string details = Details(n.modified, n.fields, n.added, n.removed);
  std::string text = fmt::format("{}: {}", ChangesText(report, group), details.empty() ? "no field changes" : details);
  std::vector<std::string> reasons = Reasons(group.objects);
  if (!reasons.empty()) text += fmt::format(" ({})", fmt::join(reasons, "; "));
  if (group.Drifted())
    text += fmt::format("; its live JobSet drifted in {}", Plural(group.next_apply->drift.size(), "field"));
  if (group.next_apply && group.next_apply->predicted_from_status) text += "; predicted from status";
  if (group.Acknowledged()) text += "; acknowledged";
  if (std::string partly = PartlyAcknowledged(group); !partly.empty()) text += "; " + partly;
  return text;
}

std::string FormatBrief(const Report& report) {
  std::string out;
  for (const ReportGroup& group : report.groups) {
    if (report.by_trainjob) {
      const std::string where = Location(GroupOrigin(report, group));
      if (!group.Checked()) {
        out +=
            At(where, GroupSubject(report, group) + " could not be checked: " + group.errors.front().Format()) + "\n";
      } else if (group.Changed()) {
        out += At(where, TrainJobBrief(report, group)) + "\n";
      } else if (group.Drifted()) {
        out += At(where, fmt::format("{} is unchanged; its live JobSet drifted in {}", GroupSubject(report, group),
                                     Plural(group.next_apply->drift.size(), "field"))) +
               "\n";
      }
      continue;
    }
    for (const ReportObject& o : group.objects) {
      if (Changed(o)) out += At(Location(o.diff), ObjectBrief(o)) + "\n";
    }
  }
  return out;
}

// ---- github ----

// Escapes for the data of a workflow command, and further for its properties.
std::string EscapeData(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out.push_back(ch);
    }
  }
  return out;
}

std::string EscapeProperty(std::string_view s) {
  std::string out;
  for (char ch : EscapeData(s)) {
    switch (ch) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out.push_back(ch);
    }
  }
  return out;
}

std::string ChangeLine(const FieldChange& change, const std::string& reason) {
  std::string line = fmt::format("{}: {} → {}", PathText(change), Flow(change.from), Flow(change.to));
  if (!reason.empty()) line += fmt::format(" ({})", reason);
  return line;
}

// A workflow command: ::warning for a change, ::error for a TrainJob that could not be checked.
std::string Annotation(std::string_view level, const Origin& where, const std::vector<std::string>& lines) {
  std::string properties;
  if (where.HasPosition()) {
    properties = fmt::format("file={},line={},", EscapeProperty(Printable(*where.file)), where.line);
  }
  std::string message;
  for (const std::string& line : lines) message += (message.empty() ? "" : "\n") + line;
  return fmt::format("::{} {}title=trainer diff::{}\n", level, properties, EscapeData(message));
}

std::string Warning(const Origin& where, const std::vector<std::string>& lines) {
  return Annotation("warning", where, lines);
}

std::string FormatGithub(const Report& report) {
  std::string out;
  for (const ReportGroup& group : report.groups) {
    if (report.by_trainjob) {
      if (!group.Checked()) {
        std::vector<std::string> lines = {GroupSubject(report, group) + " could not be checked"};
        for (std::string& line : ErrorLines(group)) lines.push_back(std::move(line));
        out += Annotation("error", GroupOrigin(report, group), lines);
        continue;
      }
      if (!group.Changed() && !group.Drifted()) continue;
      GroupCounts n = Count(group);
      std::string details = Details(n.modified, n.fields, n.added, n.removed);
      std::vector<std::string> lines = {fmt::format(
          "{} {} the current image behaviour{}{}", ChangesText(report, group), report.by_runtime ? "by" : "with",
          details.empty() ? "" : ": " + details, group.Acknowledged() ? " (acknowledged)" : "")};
      for (const ReportObject& o : group.objects) {
        if (!Changed(o)) continue;
        if (o.diff.type != ChangeType::kModify) lines.push_back(ObjectBrief(o));
        for (std::size_t i = 0; i < o.diff.changes.size(); ++i) {
          lines.push_back(o.diff.id.Label() + " " + ChangeLine(o.diff.changes[i], o.reasons[i]) +
                          (o.diff.type == ChangeType::kModify && IsAcknowledged(o, i) ? " [acknowledged]" : ""));
          if (!o.asks.empty() && !o.asks[i].empty()) lines.push_back("  asks: " + o.asks[i]);
        }
      }
      for (std::string& line : NextApplyLines(group)) lines.push_back(std::move(line));
      // A TrainJob whose changes were all reviewed is a notice, not a warning.
      const char* level = Blocked(group.reach) ? "error" : group.Acknowledged() ? "notice" : "warning";
      out += Annotation(level, GroupOrigin(report, group), lines);
      continue;
    }
    for (const ReportObject& o : group.objects) {
      if (!Changed(o)) continue;
      std::vector<std::string> lines = {ObjectBrief(o)};
      for (std::size_t i = 0; i < o.diff.changes.size(); ++i) {
        lines.push_back(ChangeLine(o.diff.changes[i], o.reasons[i]));
      }
      out += Warning(Visible(o.diff)->origin(), lines);
    }
  }
  return out;
}

// ---- json ----

const char* FieldChangeName(FieldChange::Kind kind) {
  switch (kind) {
    case FieldChange::Kind::kAdded: return "ADD";
    case FieldChange::Kind::kRemoved: return "REMOVE";
    case FieldChange::Kind::kModified: return "MODIFY";
    case FieldChange::Kind::kReordered: return "REORDER";
  }
  return "?";
}

Tree Str(std::string_view s) { return Tree::String(std::string(s)); }

// The TrainJob (or --runtimes-only, the runtime) a JSON entry belongs to.
Tree JsonSubject(const Report& report, const ReportGroup& group) {
  Tree t = Tree::Map();
  if (report.by_runtime && group.runtime) {
    t.Set("kind", Str(group.runtime->kind));
    if (group.runtime->kind != kClusterTrainingRuntimeKind) t.Set("namespace", Str(group.runtime->metadata.namespace_));
    t.Set("name", Str(group.runtime->metadata.name));
  } else {
    t.Set("namespace", Str(group.job->metadata.namespace_));
    t.Set("name", Str(group.job->metadata.name));
  }
  const Origin& where = GroupOrigin(report, group);
  if (where.HasPosition()) {
    t.Set("file", Str(*where.file));
    t.Set("line", Tree::Int(where.line));
  }
  return t;
}

Tree JsonObject(const Report& report, const ReportObject& o, const ReportGroup& group) {
  Tree t = Tree::Map();
  t.Set("apiVersion", Str(o.diff.id.api_version));
  t.Set("kind", Str(o.diff.id.kind));
  t.Set("namespace", Str(o.diff.id.ns));
  t.Set("name", Str(o.diff.id.name));
  t.Set("changeType", Str(ChangeTypeName(o.diff.type)));
  Tree& changes = t.Set("changes", Tree::List());
  for (std::size_t i = 0; i < o.diff.changes.size(); ++i) {
    const FieldChange& change = o.diff.changes[i];
    Tree& c = changes.Append(Tree::Map());
    c.Set("path", Str(change.Pointer()));
    c.Set("field", Str(FormatPath(change.path)));
    c.Set("changeType", Str(FieldChangeName(change.kind)));
    if (change.from) c.Set("oldValue", *change.from);
    if (change.to) c.Set("newValue", *change.to);
    if (!o.reasons[i].empty()) c.Set("reason", Str(o.reasons[i]));
    if (!o.asks.empty() && !o.asks[i].empty()) c.Set("asks", Str(o.asks[i]));
    if (report.with_baseline && o.diff.type == ChangeType::kModify)
      c.Set("acknowledged", Tree::Bool(IsAcknowledged(o, i)));
  }
  if (report.with_baseline && o.diff.type != ChangeType::kModify)
    t.Set("acknowledged", Tree::Bool(IsAcknowledged(o, 0)));
  if (o.diff.ignored > 0) t.Set("ignored", Tree::Int(static_cast<std::int64_t>(o.diff.ignored)));
  if (report.by_runtime) {
    t.Set("runtime", JsonSubject(report, group));
  } else if (group.job) {
    Tree& job = t.Set("trainJob", JsonSubject(report, group));
    job.Set("changes", Str(WhenKey(group.reach)));
    if (report.with_baseline) job.Set("acknowledged", Tree::Bool(group.Acknowledged()));
  } else if (const Origin& where = Visible(o.diff)->origin(); where.HasPosition()) {
    t.Set("file", Str(*where.file));
    t.Set("line", Tree::Int(where.line));
  }
  return t;
}

Tree Count(std::size_t n) { return Tree::Int(static_cast<std::int64_t>(n)); }

// What the report says of a TrainJob's live JobSet: the class, the refusals and the fix when
// blocked, the drift, and whether it was predicted from status.
Tree JsonNextApply(const Report& report, const ReportGroup& group) {
  const NextApply& next = *group.next_apply;
  Tree t = JsonSubject(report, group);
  t.Set("changes", Str(group.Changed() ? WhenKey(group.reach) : "unchanged"));
  t.Set("predictedFromStatus", Tree::Bool(next.predicted_from_status));
  if (Blocked(group.reach)) {
    Tree& refusals = t.Set("refusals", Tree::List());
    for (const std::string& r : next.refusals) refusals.Append(Str(r));
    t.Set("fix", Str(FixText(group)));
  }
  if (!next.drift.empty()) {
    Tree& drift = t.Set("drift", Tree::List());
    for (const FieldChange& change : next.drift) {
      Tree& c = drift.Append(Tree::Map());
      c.Set("field", Str(FormatPath(change.path)));
      if (change.from) c.Set("liveValue", *change.from);
      if (change.to) c.Set("legacyValue", *change.to);
    }
  }
  return t;
}

std::string FormatJson(const Report& report, bool summary_only) {
  ReportSummary s = Summarize(report);
  Tree root = Tree::Map();
  Tree& summary = root.Set("summary", Tree::Map());
  if (report.by_runtime) {
    summary.Set("runtimes", Count(s.trainjobs));
    summary.Set("affectedRuntimes", Count(s.changed_trainjobs));
    summary.Set("unaffectedRuntimes", Count(s.trainjobs - s.changed_trainjobs));
    summary.Set("notCheckedRuntimes", Count(s.not_checked));
  } else if (report.by_trainjob) {
    summary.Set("trainJobs", Count(s.trainjobs));
    summary.Set("changedTrainJobs", Count(s.changed_trainjobs));
    Tree& when = summary.Set("changedTrainJobsBy", Tree::Map());
    when.Set("now", Count(s.changed_now));
    when.Set("onResume", Count(s.changed_on_resume));
    when.Set("afterSuspendAndResume", Count(s.changed_after_suspend));
    when.Set("suspendBlocked", Count(s.suspend_blocked));
    when.Set("resumeBlocked", Count(s.resume_blocked));
    summary.Set("unchangedTrainJobs", Count(s.trainjobs - s.changed_trainjobs - s.not_affected));
    summary.Set("notAffectedTrainJobs", Count(s.not_affected));
    summary.Set("notCheckedTrainJobs", Count(s.not_checked));
    summary.Set("driftedTrainJobs", Count(s.drifted));
    summary.Set("predictedFromStatusTrainJobs", Count(s.predicted_from_status));
    if (report.with_baseline) summary.Set("acknowledgedTrainJobs", Count(s.acknowledged));
    Tree& by_runtime = summary.Set("byRuntime", Tree::List());
    for (const RuntimeChange& change : ByRuntime(report)) {
      Tree& entry = by_runtime.Append(Tree::Map());
      entry.Set("kind", Str(change.runtime->kind));
      if (change.runtime->kind != kClusterTrainingRuntimeKind)
        entry.Set("namespace", Str(change.runtime->metadata.namespace_));
      entry.Set("name", Str(change.runtime->metadata.name));
      entry.Set("reason", Str(change.reasons));
      entry.Set("trainJobs", Count(change.trainjobs));
      entry.Set("now", Count(change.by_reach[static_cast<std::size_t>(Reach::kNow)]));
      entry.Set("onResume", Count(change.by_reach[static_cast<std::size_t>(Reach::kOnResume)]));
      entry.Set("afterSuspendAndResume",
                Count(change.by_reach[static_cast<std::size_t>(Reach::kAfterSuspendAndResume)]));
      entry.Set("suspendBlocked", Count(change.by_reach[static_cast<std::size_t>(Reach::kSuspendBlocked)]));
      entry.Set("resumeBlocked", Count(change.by_reach[static_cast<std::size_t>(Reach::kResumeBlocked)]));
    }
  }
  summary.Set("objects", Count(s.objects));
  summary.Set("modifiedObjects", Count(s.modified));
  summary.Set("addedObjects", Count(s.added));
  summary.Set("removedObjects", Count(s.removed));
  summary.Set("unchangedObjects", Count(s.objects - s.modified - s.added - s.removed));
  summary.Set("changedFields", Count(s.fields));
  summary.Set("ignoredFields", Count(s.ignored));
  summary.Set("differences", Tree::Bool(s.Differs()));
  if (!summary_only) {
    Tree& objects = root.Set("objects", Tree::List());
    for (const ReportGroup& group : report.groups) {
      for (const ReportObject& o : group.objects) {
        if (Changed(o)) objects.Append(JsonObject(report, o, group));
      }
    }
    if (report.by_trainjob) {
      Tree not_affected = Tree::List();
      Tree& not_checked = root.Set("notChecked", Tree::List());
      Tree next_apply = Tree::List();
      for (const ReportGroup& group : report.groups) {
        if (group.Checked() && group.next_apply &&
            (Blocked(group.reach) || group.Drifted() || (group.next_apply->predicted_from_status && group.Changed()))) {
          next_apply.Append(JsonNextApply(report, group));
        }
        if (!group.Checked()) {
          Tree& entry = not_checked.Append(JsonSubject(report, group));
          Tree& errors = entry.Set("errors", Tree::List());
          for (const std::string& line : ErrorLines(group)) errors.Append(Str(line));
        } else if (!Reconciled(group.reach)) {
          Tree& entry = not_affected.Append(JsonSubject(report, group));
          entry.Set("reason", Str(WhenKey(group.reach)));
          if (group.reach == Reach::kManagedElsewhere)
            entry.Set("managedBy", Str(group.job->spec.managed_by.value_or("")));
        }
      }
      if (!report.by_runtime) {
        root.Set("notAffected", std::move(not_affected));
        root.Set("liveJobSets", std::move(next_apply));
      }
    }
  }
  std::string out;
  WriteJson(root, out);
  out.push_back('\n');
  return out;
}

// ---- unified ----

std::string SideLabel(const Report& report, const ObjectDiff& d, const Tree* side, const std::string& fallback) {
  if (side == nullptr) return "/dev/null";
  std::string label = fallback;
  if (!report.by_trainjob && side->origin().file != nullptr) label = Printable(*side->origin().file);
  return fmt::format("{} ({})", d.id.Label(), label);
}

std::string FormatUnified(const Report& report, const ReportOptions& options) {
  DiffColors colors = options.color ? DiffColors::On() : DiffColors{};
  std::string out;
  for (const ReportGroup& group : report.groups) {
    if (report.by_trainjob && !group.Checked()) {
      out += fmt::format("{}# {}: could not be checked{}\n", colors.header,
                         At(Location(GroupOrigin(report, group)), GroupSubject(report, group)), colors.reset);
      for (const std::string& line : ErrorLines(group))
        out += fmt::format("{}#   {}{}\n", colors.header, line, colors.reset);
      continue;
    }
    if (!group.Changed()) continue;
    if (report.by_trainjob) {
      out += fmt::format("{}# {}{}{}\n", colors.header,
                         At(Location(GroupOrigin(report, group)), ChangesText(report, group)),
                         AcknowledgedSuffix(group), colors.reset);
    }
    for (const ReportObject& o : group.objects) {
      if (Changed(o)) out += UnifiedObject(report, o, options);
    }
  }
  return out;
}

// ---- building ----

ReportObject MakeObject(ObjectDiff diff, const std::vector<IgnoreRule>& ignore, const Runtime* runtime) {
  ReportObject o;
  if (diff.type == ChangeType::kModify && !ignore.empty()) {
    for (const FieldChange& change : diff.changes) {
      bool ignored = std::any_of(ignore.begin(), ignore.end(),
                                 [&](const IgnoreRule& rule) { return Matches(rule, diff.id.kind, change.path); });
      if (ignored) o.ignored.push_back(change);
    }
    std::vector<ObjectDiff> one;
    one.push_back(std::move(diff));
    ApplyIgnoreRules(ignore, one);
    diff = std::move(one.front());
  }
  o.diff = std::move(diff);
  ReasonContext context{runtime, &o.diff.id, o.diff.from, o.diff.to};
  for (const FieldChange& change : o.diff.changes) {
    o.reasons.push_back(ReasonFor(context, change));
    o.asks.push_back(AsksFor(context, change));
  }
  return o;
}

}  // namespace

bool ReportGroup::Changed() const {
  return Blocked(reach) || std::any_of(objects.begin(), objects.end(), trainer::Changed);
}

bool ReportGroup::Acknowledged() const {
  if (Blocked(reach) || !Changed()) return false;
  return std::all_of(objects.begin(), objects.end(),
                     [](const ReportObject& o) { return !trainer::Changed(o) || trainer::Acknowledged(o); });
}

ReportSummary Summarize(const Report& report) {
  ReportSummary s;
  for (const ReportGroup& group : report.groups) {
    GroupCounts n = Count(group);
    if (group.job) {
      if (!group.Checked()) {
        ++s.not_checked;
        continue;
      }
      ++s.trainjobs;
      if (!Reconciled(group.reach)) {
        ++s.not_affected;
      } else if (group.Changed()) {
        ++s.changed_trainjobs;
        switch (group.reach) {
          case Reach::kNow: ++s.changed_now; break;
          case Reach::kOnResume: ++s.changed_on_resume; break;
          case Reach::kAfterSuspendAndResume: ++s.changed_after_suspend; break;
          case Reach::kSuspendBlocked: ++s.suspend_blocked; break;
          case Reach::kResumeBlocked: ++s.resume_blocked; break;
          default: break;
        }
        if (group.next_apply && group.next_apply->predicted_from_status) ++s.predicted_from_status;
        if (group.Acknowledged()) ++s.acknowledged;
      }
      if (group.Drifted()) ++s.drifted;
    }
    s.objects += group.objects.size() + group.unchanged;
    s.modified += n.modified;
    s.added += n.added;
    s.removed += n.removed;
    s.fields += n.fields;
    for (const ReportObject& o : group.objects) {
      s.ignored += o.diff.ignored;
      if (Changed(o) && Acknowledged(o)) ++s.acknowledged_objects;
    }
  }
  s.not_checked += report.not_loaded;
  return s;
}

void AddObjects(ReportGroup& group, const RenderedJob& from, const std::vector<Tree>& to,
                const std::vector<IgnoreRule>& ignore) {
  group.runtime = from.runtime;
  for (ObjectDiff& d : DiffObjects(from.objects, to))
    group.objects.push_back(MakeObject(std::move(d), ignore, from.runtime));
}

Report CompareRenderings(const std::vector<RenderedJob>& legacy, const std::vector<RenderedJob>& current,
                         const std::vector<IgnoreRule>& ignore) {
  Report report;
  report.by_trainjob = true;
  report.from_label = "legacy";
  report.to_label = "current";
  static const std::vector<Tree> kNone;
  for (const RenderedJob& from : legacy) {
    auto to = std::find_if(current.begin(), current.end(), [&](const RenderedJob& r) { return r.job == from.job; });
    ReportGroup group;
    group.job = from.job;
    AddObjects(group, from, to == current.end() ? kNone : to->objects, ignore);
    report.groups.push_back(std::move(group));
  }
  return report;
}

Report CompareStreams(const std::vector<Tree>& from, const std::vector<Tree>& to,
                      const std::vector<IgnoreRule>& ignore) {
  Report report;
  ReportGroup group;
  for (ObjectDiff& d : DiffObjects(from, to)) group.objects.push_back(MakeObject(std::move(d), ignore, nullptr));
  report.groups.push_back(std::move(group));
  return report;
}

std::optional<ReportFormat> ParseReportFormat(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kReportFormatNames); ++i) {
    if (name == kReportFormatNames[i]) return static_cast<ReportFormat>(i);
  }
  return std::nullopt;
}

std::string UnifiedObject(const Report& report, const ReportObject& o, const ReportOptions& options) {
  if (o.unified) return *o.unified;
  DiffColors colors = options.color ? DiffColors::On() : DiffColors{};
  std::string out;
  YamlLines from_lines;
  YamlLines to_lines;
  if (o.diff.from) from_lines = WriteYamlLines(*o.diff.from);
  if (o.diff.to) to_lines = WriteYamlLines(o.ignored.empty() ? *o.diff.to : UndoChanges(*o.diff.to, o.ignored));
  for (const FieldChange& change : o.diff.changes) {
    if (change.kind != FieldChange::Kind::kModified) continue;
    if (!IsLongValue(change.from ? &*change.from : nullptr) && !IsLongValue(change.to ? &*change.to : nullptr))
      continue;
    out += fmt::format("{}# {}: a value of more than {} lines, shown whole: removed, then added{}\n", colors.header,
                       FormatPath(change.path), kWholeValueLines, colors.reset);
  }
  out += fmt::format("{}--- {}{}\n", colors.header, SideLabel(report, o.diff, o.diff.from, report.from_label),
                     colors.reset);
  out +=
      fmt::format("{}+++ {}{}\n", colors.header, SideLabel(report, o.diff, o.diff.to, report.to_label), colors.reset);
  out += UnifiedHunks(from_lines, to_lines, options.context, colors);
  return out;
}

std::string FormatReport(const Report& report, const ReportOptions& options) {
  switch (options.format) {
    case ReportFormat::kHuman:
      return FormatHuman(report, Colors::Pick(options.color), options.summary_only, options.verbose);
    case ReportFormat::kUnified: return FormatUnified(report, options);
    case ReportFormat::kBrief: return FormatBrief(report);
    case ReportFormat::kJson: return FormatJson(report, options.summary_only);
    case ReportFormat::kGithub: return FormatGithub(report);
  }
  return "";
}

}  // namespace trainer
