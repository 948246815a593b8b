// The Trainer controller's next apply of a TrainJob's existing JobSet, and whether the JobSet
// webhook accepts it (trainer(1), THE MIGRATION CHECK).
//
// The controller re-applies a JobSet only while the TrainJob or the JobSet is suspended (upstream
// plugins/jobset/jobset.go, Build): a running JobSet meets the apply at the TrainJob's next suspend
// (with spec.suspend true), a suspended one at its resume (spec.suspend false). The apply is
// server-side, forced, by field manager `trainer`; the prediction merges the rendering onto the
// live JobSet by the JobSet CRD's list types (k8s/server_side_apply.h) and asks the webhook's
// ValidateUpdate and the CRD's immutability rules about the result. managedFields are not
// simulated: fields an earlier apply set and this one leaves out are kept.
#pragma once

#include "diff/migration.h"
#include "yaml/tree.h"

namespace trainer {

// `legacy` and `current`: the TrainJob's JobSet as the legacy and the current controller build it.
// Without a live object (predicted from status) the live JobSet is taken as the legacy one, as the
// JobSet webhook defaulted it at its creation, suspended as `live` says.
NextApply PredictNextApply(const LiveJobSet& live, const Tree& legacy, const Tree& current);

}  // namespace trainer
