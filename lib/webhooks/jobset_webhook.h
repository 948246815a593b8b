// The JobSet admission webhook as JobSet v0.12.0 (the version Trainer pins) runs it on the JobSet the
// Trainer controller creates, with the JobSet CRD's CEL rules (x-kubernetes-validations) around it.
// Follows upstream sigs.k8s.io/jobset pkg/webhooks/jobset_webhook.go (Default, ValidateCreate,
// ValidateUpdate), with the feature gates of pkg/features at their v0.12.0 defaults unless told
// otherwise. Works on the generic Tree of a JobSet, as trainer renders it.
//
// What it cannot do without a cluster: the check of a VolumeClaimPolicies template against a
// PersistentVolumeClaim that already exists (upstream asks the API server) is left out; no claim is
// taken to exist.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

// The JobSet feature gates the webhook consults, at their v0.12.0 defaults (all alpha, off).
struct JobSetFeatureGates {
  bool in_place_restart = false;  // InPlaceRestart
  bool restart_job = false;       // RestartJob
  bool elastic_job_set = false;   // ElasticJobSet
};

// A generated name that exceeds the DNS-1035 label limit: what the caller needs to say how much to
// shorten the JobSet (so the TrainJob) name by.
struct JobSetNameTooLong {
  enum class Kind { kJob, kPod };
  Kind kind;
  // The longest name as JobSet builds it; a Pod name ends in "-xxxxx" where the Job controller puts
  // its 5 random characters.
  std::string name;
  std::size_t length;
  std::size_t limit = 63;
};

struct JobSetError {
  enum class Source {
    kWebhook,  // the validating webhook (vjobset.kb.io)
    kSchema,   // the CRD's CEL rules, checked by the API server itself
  };
  Source source = Source::kWebhook;
  // The field path as Go prints it ("spec.replicatedJobs[0].name"); "<nil>" for the webhook's errors
  // that name no field, as field.InternalError(nil, ...) prints them.
  std::string field;
  // The whole field.Error text, as the API server lists it: "<field>: Invalid value: ...".
  std::string message;
  // The value the error concerns, in the judged tree (nullptr when none stands for it).
  const Tree* node = nullptr;
  // For the longest-Job-name and longest-Pod-name rules, when the name is too long.
  std::optional<JobSetNameTooLong> too_long;
};

// The CRD defaults the API server applies to a JobSet as it decodes a request, before any webhook,
// for the fields the webhook reads: replicatedJobs[].replicas 1 and groupName "default",
// failurePolicy.restartStrategy Recreate, volumeClaimPolicies[].retentionPolicy.whenDeleted Delete.
// Defaulted values carry Origin::Default(), as all below.
void ApplyJobSetSchemaDefaults(Tree& jobset);

// The mutating webhook (CREATE only): successPolicy {operator: All}, startupPolicy {startupPolicyOrder:
// AnyOrder}, network.enableDNSHostnames and publishNotReadyAddresses true, each Job Indexed and its
// Pods restartPolicy OnFailure when unset, failurePolicy rules named failurePolicyRule<index> when
// unnamed, volumeClaimPolicies[].retentionPolicy {whenDeleted: Delete} when unset.
void DefaultJobSet(Tree& jobset);

// The rules a defaulted JobSet meets on create: the CRD's CEL rules first, and, when they pass, the
// webhook's ValidateCreate (the API server calls validating webhooks only for an object its schema
// accepts). Nodes of the errors point into `jobset`. Empty when the JobSet is admitted.
std::vector<JobSetError> ValidateJobSetCreate(const Tree& jobset, const JobSetFeatureGates& gates = {});

// ValidateJobSetCreate of `jobset` as sent on create, before the API server's defaulting: reads each
// field that ApplyJobSetSchemaDefaults and DefaultJobSet would fill as they would fill it, so finds
// what defaulting a copy and judging it finds, without the copy. Nodes point into `jobset`.
std::vector<JobSetError> ValidateJobSetAsSent(const Tree& jobset, const JobSetFeatureGates& gates = {});

// The rules an update from `old_jobset` to `new_jobset` meets: the CRD's `self == oldSelf` rules
// (and its other CEL rules on values that changed), then, when they pass, the webhook's
// ValidateUpdate. Nodes point into `new_jobset`.
std::vector<JobSetError> ValidateJobSetUpdate(const Tree& old_jobset, const Tree& new_jobset,
                                              const JobSetFeatureGates& gates = {});

// The API server's answer to a request refused for `errors` (all of one source), as kubectl shows
// it after "Error from server (Invalid): ": `admission webhook "vjobset.kb.io" denied the request:
// JobSet.jobset.x-k8s.io "NAME" is invalid: [e1, e2]` (without the brackets for one error, without
// the webhook part for the schema's errors).
std::string JobSetDenial(std::string_view name, const std::vector<JobSetError>& errors);

}  // namespace trainer
