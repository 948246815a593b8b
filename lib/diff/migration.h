// The migration check (trainer(1), THE MIGRATION CHECK): what an upgrade of the controller does
// to each TrainJob of a cluster dump, by the state the dump records, and the check that renders the
// reconciled TrainJobs both ways and compares them into a Report (diff/report.h formats it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "diff/diff.h"
#include "render/render.h"

namespace trainer {

// What happens to a TrainJob of a cluster dump when the controller is upgraded, by the state the
// dump records (trainer(1), THE MIGRATION CHECK). First match wins, in this order.
enum class Reach : std::uint8_t {
  kManagedElsewhere,       // not affected: spec.managedBy names another controller, which skips it
  kFinished,               // not affected: condition Complete or Failed is true; not reconciled
  kSuspendBlocked,         // its JobSet runs, neither suspended, and the JobSet webhook would refuse
                           // the controller's suspend apply: a suspend leaves the pods running
  kAfterSuspendAndResume,  // its JobSet runs, unsuspended: not rebuilt until a suspend and resume
  kResumeBlocked,          // its JobSet is suspended and the webhook would refuse the resume apply:
                           // the TrainJob does not resume
  kOnResume,               // its JobSet exists, the TrainJob or the JobSet suspended: re-applied
                           // at once, new pods on resume
  kNow,                    // no JobSet yet: created with the current behaviour
};
inline constexpr std::size_t kReachCount = static_cast<std::size_t>(Reach::kNow) + 1;  // kNow comes last

inline bool Blocked(Reach reach) { return reach == Reach::kSuspendBlocked || reach == Reach::kResumeBlocked; }

// The live JobSet of a TrainJob: from the inputs, or (predicted from status) the legacy rendering
// as the JobSet webhook defaulted it, suspended as the TrainJob's status says.
struct LiveJobSet {
  const Tree* object = nullptr;  // the JobSet document of the inputs; null when predicted from status
  bool suspended = false;
};

// Classes TrainJobs by the JobSets of the inputs, or by their status when the inputs hold none.
class ClusterState {
 public:
  explicit ClusterState(const std::vector<JobSetState>& jobsets);
  // The class before the next apply is judged: kAfterSuspendAndResume, kOnResume or kNow for a
  // reconciled TrainJob.
  Reach Classify(const TrainJob& job) const;
  // The TrainJob's JobSet, when Classify finds one.
  std::optional<LiveJobSet> Live(const TrainJob& job) const;

 private:
  bool have_jobsets_;
  std::unordered_map<std::string, const JobSetState*> jobsets_;  // by "namespace/name"
};

// Whether the TrainJob is rendered and compared at all (kManagedElsewhere and kFinished are not).
inline bool Reconciled(Reach reach) { return reach != Reach::kManagedElsewhere && reach != Reach::kFinished; }

// The controller's next apply of a TrainJob's existing JobSet, as the JobSet webhook judges it.
struct NextApply {
  bool predicted_from_status = false;  // the inputs hold no JobSets; the live one is assumed
  // Why the webhook refuses the current apply, as the API server says it: then the TrainJob is
  // blocked. Empty when it is accepted.
  std::vector<std::string> refusals;
  // Fields the legacy apply sets whose live values differ already (a JobSet edited by hand, a
  // runtime edited since the JobSet was made): live (from) against the legacy apply (to).
  std::vector<FieldChange> drift;
  // Whether the drift alone blocks the TrainJob: the legacy controller's apply is refused too.
  bool legacy_refused = false;
};

// In diff/report.h, which includes this header for Reach and NextApply.
struct Report;
struct ReportOptions;

// The migration check on loaded inputs: classes each TrainJob by the state the inputs record,
// renders the reconciled ones with the legacy and with the current image behaviour, and compares
// them. Keeps going: a TrainJob that cannot be rendered becomes a group with `errors`. With
// `runtimes_only`, the TrainJobs are a probe of each runtime (ProbeTrainJob; the report is
// by_runtime, every probe classed kNow) instead of `inputs.jobs`. Each TrainJob's two renderings
// are compared as soon as they are made, and only the changed objects (and those with ignored
// changes) are kept, without the renderings, so that memory grows with the report: a report for
// -o unified needs `unified`, the options it will be formatted with (ReportObject::unified). The
// report owns the probes; `inputs` must outlive it. Throws OutputLimitError.
Report CheckMigration(const Inputs& inputs, const RenderOptions& options, const std::vector<IgnoreRule>& ignore,
                      std::vector<Diagnostic>* warnings, bool runtimes_only = false,
                      const ReportOptions* unified = nullptr);

}  // namespace trainer
