#include "diff/migration.h"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "diff/next_apply.h"
#include "diff/report.h"

namespace trainer {

namespace {

// Where the TrainJob has a JobSet, the controller's next apply of it: the suspend apply while it
// runs, the resume apply while it is suspended. A refused one blocks the TrainJob.
void JudgeNextApply(const ClusterState& state, const RenderedJob& legacy, const RenderedJob& current,
                    ReportGroup& group) {
  std::optional<LiveJobSet> live = state.Live(*group.job);
  const Tree* legacy_jobset = JobSetOf(legacy.objects);
  const Tree* current_jobset = JobSetOf(current.objects);
  if (!live || legacy_jobset == nullptr || current_jobset == nullptr) return;
  group.next_apply = PredictNextApply(*live, *legacy_jobset, *current_jobset);
  if (!group.next_apply->refusals.empty())
    group.reach = live->suspended ? Reach::kResumeBlocked : Reach::kSuspendBlocked;
}

}  // namespace

ClusterState::ClusterState(const std::vector<JobSetState>& jobsets) : have_jobsets_(!jobsets.empty()) {
  for (const JobSetState& js : jobsets) jobsets_.emplace(js.namespace_ + "/" + js.name, &js);
}

std::optional<LiveJobSet> ClusterState::Live(const TrainJob& job) const {
  if (!have_jobsets_) {
    if (!job.status.has_jobs_status) return std::nullopt;
    return LiveJobSet{nullptr, job.status.suspended};
  }
  auto it = jobsets_.find(job.metadata.namespace_ + "/" + job.metadata.name);
  if (it == jobsets_.end()) return std::nullopt;
  return LiveJobSet{&it->second->object, it->second->suspended};
}

Reach ClusterState::Classify(const TrainJob& job) const {
  if (ManagedByAnotherController(job)) return Reach::kManagedElsewhere;
  if (Finished(job)) return Reach::kFinished;
  std::optional<LiveJobSet> live = Live(job);
  if (!live) return Reach::kNow;
  return job.spec.suspend.value_or(false) || live->suspended ? Reach::kOnResume : Reach::kAfterSuspendAndResume;
}

Report CheckMigration(const Inputs& inputs, const RenderOptions& options, const std::vector<IgnoreRule>& ignore,
                      std::vector<Diagnostic>* warnings, bool runtimes_only, const ReportOptions* unified) {
  auto probes = std::make_shared<std::vector<TrainJob>>();
  if (runtimes_only) {
    for (const Runtime& runtime : inputs.runtimes) probes->push_back(ProbeTrainJob(runtime));
  }
  const std::vector<TrainJob>& jobs = runtimes_only ? *probes : inputs.jobs;
  const ClusterState state(inputs.jobsets);

  RenderOptions legacy_options = options;
  legacy_options.legacy_image = true;
  EachJobRenderer legacy(legacy_options, warnings);
  RenderOptions current_options = options;
  current_options.legacy_image = false;
  EachJobRenderer current(current_options);
  // The current renderings' size limit, when crossed: the legacy renderings' is reported before it,
  // at whichever TrainJob crosses it, as though every legacy rendering came first.
  std::optional<Error> current_over;
  static const std::vector<Tree> kNone;
  Report report;
  report.by_trainjob = true;
  report.by_runtime = runtimes_only;
  report.from_label = "legacy";
  report.to_label = "current";
  report.groups.reserve(jobs.size());
  for (const TrainJob& job : jobs) {
    ReportGroup group;
    group.job = &job;
    group.reach = runtimes_only ? Reach::kNow : state.Classify(job);
    if (runtimes_only) group.runtime = &inputs.runtimes[static_cast<std::size_t>(&job - jobs.data())];
    if (Reconciled(group.reach)) {
      std::optional<RenderedJob> from = legacy.Render(inputs, job, group.errors);
      std::optional<RenderedJob> to;
      if (group.errors.empty() && !current_over) {
        try {
          to = current.Render(inputs, job, group.errors);
        } catch (const Error& e) {
          current_over = e;
        }
      }
      if (from && group.errors.empty() && !current_over) {
        AddObjects(group, *from, to ? to->objects : kNone, ignore);
        if (!runtimes_only && to) JudgeNextApply(state, *from, *to, group);
      }
      // Of the comparison, the report keeps what it prints.
      group.unchanged =
          std::erase_if(group.objects, [](const ReportObject& o) { return !Changed(o) && o.diff.ignored == 0; });
      group.objects.shrink_to_fit();
      for (ReportObject& o : group.objects) {
        if (unified && Changed(o)) o.unified = UnifiedObject(report, o, *unified);
        o.diff.from = o.diff.to = nullptr;
        o.ignored = {};
      }
    }
    if (!current_over) report.groups.push_back(std::move(group));
  }
  if (current_over) throw *current_over;
  legacy.Finish(inputs);
  // TrainJobs that did not load: their problems are among the inputs' errors, by subject.
  std::unordered_set<std::string> unloaded;
  const std::string prefix = std::string(kTrainJobKind) + " ";
  for (const Diagnostic& e : inputs.errors) {
    if (e.subject.starts_with(prefix)) unloaded.insert(e.subject);
  }
  report.not_loaded = unloaded.size();
  report.keep = std::move(probes);
  return report;
}

}  // namespace trainer
