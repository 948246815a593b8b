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
    // The API server defaults the merged object as it decodes the request, before the webhook.
    Tree predicted = ApplyOnto(*object, WithSuspend(current, suspend), JobSetApplySchema());
    ApplyJobSetSchemaDefaults(predicted);
    for (const JobSetError& e : ValidateJobSetUpdate(*object, predicted)) next.refusals.push_back(e.message);
  } catch (const Error& e) {
    // The API server refuses the apply itself (a list item twice): so does the cluster.
    for (const Diagnostic& d : e.diagnostics()) next.refusals.push_back(d.Format());
  }
  // Drift: what the legacy controller's apply would change on the live JobSet, suspension apart;
  // and whether that controller's own next apply is refused for it.
  if (live.object != nullptr) {
    try {
      next.drift = DiffTrees(*object, ApplyOnto(*object, WithSuspend(legacy, live.suspended), JobSetApplySchema()));
      if (!next.drift.empty() && !next.refusals.empty()) {
        Tree legacy_apply = ApplyOnto(*object, WithSuspend(legacy, suspend), JobSetApplySchema());
        ApplyJobSetSchemaDefaults(legacy_apply);
        next.legacy_refused = !ValidateJobSetUpdate(*object, legacy_apply).empty();
      }
    } catch (const Error&) {
      // The legacy apply is refused as the current one is: nothing to compare.
      next.legacy_refused = !next.refusals.empty();
    }
  }
  return next;
}

}  // namespace trainer
