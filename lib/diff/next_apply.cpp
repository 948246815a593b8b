#include "diff/next_apply.h"

#include "k8s/server_side_apply.h"
#include "util/error.h"
#include "webhooks/jobset_webhook.h"

namespace trainer {

namespace {

// The JobSet as the controller applies it, with spec.suspend as the apply in question sets it.
Tree WithSuspend(const Tree& jobset, bool suspend) {
  Tree applied = jobset;
  if (applied.IsMap()) applied.Child("spec").Set("suspend", Tree::Bool(suspend));
  return applied;
}

// The refusals of the JobSet webhook for `jobset` applied onto `live` with spec.suspend as the apply
// sets it. The API server defaults the merged object as it decodes the request, before the webhook.
// Throws Error when the API server refuses the apply itself (a list item twice).
std::vector<JobSetError> JudgeApply(const Tree& live, const Tree& jobset, bool suspend) {
  Tree merged = ApplyOnto(live, WithSuspend(jobset, suspend), JobSetApplySchema());
  ApplyJobSetSchemaDefaults(merged);
  return ValidateJobSetUpdate(live, merged);
}

}  // namespace

NextApply PredictNextApply(const LiveJobSet& live, const Tree& legacy, const Tree& current) {
  NextApply next;
  Tree assumed;
  const Tree* object = live.object;
  if (object == nullptr) {
    // What the legacy controller created, as the webhook defaulted it on create.
    next.predicted_from_status = true;
    assumed = WithSuspend(legacy, live.suspended);
    ApplyJobSetSchemaDefaults(assumed);
    DefaultJobSet(assumed);
    object = &assumed;
  }
  // The apply that meets the live JobSet: a running one is suspended first, a suspended one resumed.
  const bool suspend = !live.suspended;
  try {
    for (const JobSetError& e : JudgeApply(*object, current, suspend)) next.refusals.push_back(e.message);
  } catch (const Error& e) {
    // The API server refuses the apply itself (a list item twice): so does the cluster.
    for (const Diagnostic& d : e.diagnostics()) next.refusals.push_back(d.Format());
  }
  // Drift: what the legacy controller's apply would change on the live JobSet, suspension apart;
  // and whether that controller's own next apply is refused for it.
  if (live.object != nullptr) {
    try {
      next.drift = DiffTrees(*object, ApplyOnto(*object, WithSuspend(legacy, live.suspended), JobSetApplySchema()));
      if (!next.drift.empty() && !next.refusals.empty()) next.legacy_refused = !JudgeApply(*object, legacy, suspend).empty();
    } catch (const Error&) {
      // The legacy apply is refused as the current one is: nothing to compare.
      next.legacy_refused = !next.refusals.empty();
    }
  }
  return next;
}

}  // namespace trainer
