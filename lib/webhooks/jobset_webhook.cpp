#include "webhooks/jobset_webhook.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <utility>

#include "api/object_meta.h"
#include "util/quote.h"
#include "webhooks/trainjob.h"

namespace trainer {

namespace {

constexpr std::size_t kMaxLabelLength = 63;  // DNS-1035 labels, managedBy, PVC names
constexpr std::int64_t kMaxInt32 = 2147483647;
constexpr std::int64_t kMaxReplicasForRestartJob = 1024;
constexpr std::size_t kMaxRuleNameLength = 128;

constexpr const char* kGroupNameTooLong =
    ".spec.replicatedJob[].groupName is too long, must be less than 63 characters";
constexpr const char* kJobNameTooLong =
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters";
constexpr const char* kPodNameTooLong =
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters";
constexpr const char* kSubdomainTooLong = ".spec.network.subdomain is too long, must be less than 63 characters";
constexpr const char* kDns1035MaxLength = "must be no more than 63 characters";
// Go prints a []ReplicatedJob bad value with %#v, a dump of every field of the Go structs that no
// Tree can reproduce; this stands for it.
constexpr const char* kReplicatedJobsValue = "[]v1alpha2.ReplicatedJob{...}";

// The Job failure reasons a failure policy rule may name (batch/v1 JobReason*).
constexpr std::string_view kJobFailureReasons[] = {"BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes",
                                                   "MaxFailedIndexesExceeded", "PodFailurePolicy"};

// --- Reading the tree ---

const Tree* At(const Tree* t, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) t = t && t->IsMap() ? t->Find(key) : nullptr;
  return t;
}

Tree* MutableAt(Tree* t, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) t = t && t->IsMap() ? t->Find(key) : nullptr;
  return t;
}

// A string field's text; "" when absent or not a string, as Go's zero value.
std::string Text(const Tree* t) { return t && t->IsString() ? t->text() : std::string(); }

std::optional<std::int64_t> Int(const Tree* t) {
  if (t && t->IsInt()) return t->AsInt();
  return std::nullopt;
}

bool Present(const Tree* t) { return t != nullptr && !t->IsNull(); }

const std::vector<Tree>& Items(const Tree* t) {
  static const std::vector<Tree> kNone;
  return t && t->IsList() ? t->items() : kNone;
}

// Whether a Go struct built from `t` would hold the zero value: absent, null, "", 0, false, or a
// collection of such.
bool IsZero(const Tree& t) {
  switch (t.type()) {
    case Tree::Type::kNull: return true;
    case Tree::Type::kBool: return !t.AsBool();
    case Tree::Type::kInt: return t.AsInt() == 0;
    case Tree::Type::kFloat: return false;
    case Tree::Type::kString: return t.text().empty();
    case Tree::Type::kList: return t.items().empty();
    case Tree::Type::kMap: return std::all_of(t.items().begin(), t.items().end(), IsZero);
  }
  return false;
}

// Equality as apimachinery's semantic DeepEqual sees two values decoded into Go types: a field that
// is absent equals one at its zero value, and an empty list or map equals a missing one.
bool SemanticEqual(const Tree& a, const Tree& b) {
  if (a.IsMap() && b.IsMap()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      const Tree* other = b.Find(a.KeyAt(i));
      if (other ? !SemanticEqual(a.items()[i], *other) : !IsZero(a.items()[i])) return false;
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (a.Find(b.KeyAt(i)) == nullptr && !IsZero(b.items()[i])) return false;
    }
    return true;
  }
  if (a.IsList() && b.IsList()) {
    if (a.items().size() != b.items().size()) return false;
    for (std::size_t i = 0; i < a.items().size(); ++i) {
      if (!SemanticEqual(a.items()[i], b.items()[i])) return false;
    }
    return true;
  }
  if (a.type() != b.type()) return IsZero(a) && IsZero(b);
  return a == b;
}

// --- apimachinery's messages ---

// validation.IsDNS1035Label.
std::vector<std::string> IsDNS1035Label(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > kMaxLabelLength) errors.emplace_back(kDns1035MaxLength);
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool ok = !value.empty() && value.front() >= 'a' && value.front() <= 'z' && lower_alnum(value.back()) &&
            std::all_of(value.begin(), value.end(), [&](char c) { return lower_alnum(c) || c == '-'; });
  if (!ok) {
    errors.emplace_back(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return errors;
}

// Collects errors as field.Error prints them.
class Errors {
 public:
  explicit Errors(JobSetError::Source source) : source_(source) {}

  // field.Invalid with a bad value already printed (a quoted string, a number, "null").
  JobSetError& Invalid(std::string field, const Tree* node, std::string_view value, std::string_view detail) {
    std::string message = fmt::format("{}: Invalid value: {}", field, value);
    if (!detail.empty()) message += fmt::format(": {}", detail);
    return Add(std::move(field), node, std::move(message));
  }
  JobSetError& InvalidString(std::string field, const Tree* node, std::string_view value, std::string_view detail) {
    return Invalid(std::move(field), node, GoQuote(value), detail);
  }
  // field.Required, field.Forbidden, field.TooLong: no bad value in the text.
  JobSetError& Typed(std::string field, const Tree* node, std::string_view type, std::string_view detail) {
    std::string message = fmt::format("{}: {}", field, type);
    if (!detail.empty()) message += fmt::format(": {}", detail);
    return Add(std::move(field), node, std::move(message));
  }
  // A plain Go error, which the webhook hands over as field.InternalError(nil, err).
  JobSetError& Plain(const Tree* node, std::string_view text) {
    return Add("<nil>", node, fmt::format("<nil>: Internal error: {}", text));
  }

  std::vector<JobSetError> Take() { return std::move(errors_); }
  bool empty() const { return errors_.empty(); }

 private:
  JobSetError& Add(std::string field, const Tree* node, std::string message) {
    errors_.push_back(JobSetError{source_, std::move(field), std::move(message), node, std::nullopt});
    return errors_.back();
  }

  JobSetError::Source source_;
  std::vector<JobSetError> errors_;
};

// A bad value the way field.Error prints an *int32: its number, or null.
std::string IntValue(const Tree* t) {
  std::optional<std::int64_t> v = Int(t);
  return v ? std::to_string(*v) : "null";
}

// n - 1 computed in int32, as Go computes it on an int32 field: the smallest int32 wraps around.
std::int64_t Int32MinusOne(std::int64_t n) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(n)) - 1U);
}

std::string ReplicatedJobPath(std::size_t index) { return fmt::format("spec.replicatedJobs[{}]", index); }

const Tree* FindReplicatedJob(const Tree* rjobs, std::string_view name) {
  for (const Tree& rjob : Items(rjobs)) {
    if (Text(At(&rjob, {"name"})) == name) return &rjob;
  }
  return nullptr;
}

bool IsIndexed(const Tree& rjob) { return Text(At(&rjob, {"template", "spec", "completionMode"})) == "Indexed"; }

// How the rules read the fields the API server's defaulting fills: as they are, in a JobSet already
// defaulted; or, with `fill_defaults`, as ApplyJobSetSchemaDefaults and DefaultJobSet would fill
// them where they are unset, in a JobSet as sent.
struct Reading {
  bool fill_defaults = false;

  std::int64_t Replicas(const Tree& rjob) const {
    const Tree* replicas = At(&rjob, {"replicas"});
    if (fill_defaults && rjob.IsMap() && !Present(replicas)) return 1;
    return Int(replicas).value_or(0);
  }
  std::string GroupName(const Tree& rjob) const {
    const Tree* group = At(&rjob, {"groupName"});
    if (fill_defaults && rjob.IsMap() && !Present(group)) return "default";
    return Text(group);
  }

  bool Indexed(const Tree& rjob) const {
    const Tree* job_spec = At(&rjob, {"template", "spec"});
    const Tree* mode = At(job_spec, {"completionMode"});
    if (fill_defaults && job_spec && job_spec->IsMap() && !Present(mode)) return true;
    return Text(mode) == "Indexed";
  }
  std::string RuleName(const Tree& rule, std::size_t index) const {
    std::string name = Text(At(&rule, {"name"}));
    if (fill_defaults && rule.IsMap() && name.empty()) return fmt::format("failurePolicyRule{}", index);
    return name;
  }
};

// Sets map[key] to `value` (with Origin::Default()) when it is absent or null.
void Default(Tree& map, std::string_view key, Tree value) {
  if (!map.IsMap() || Present(map.Find(key))) return;
  value.SetOriginRecursive(Origin::Default());
  map.Set(key, std::move(value));
}

Tree MapOf(std::string_view key, Tree value) {
  Tree map = Tree::Map();
  map.Set(key, std::move(value));
  return map;
}

// --- ValidateCreate's parts ---

void ValidateManagedBy(const Tree& spec, Errors& errors) {
  const Tree* managed_by = At(&spec, {"managedBy"});
  if (!Present(managed_by)) return;
  const std::string manager = Text(managed_by);
  const std::string path = "spec.managedBy";
  // IsDomainPrefixedPath's messages: its bad value is the whole path, its host or its path part.
  for (const std::string& message : IsDomainPrefixedPath(manager)) {
    const std::size_t slash = manager.find('/');
    if (message == "Required value") {
      errors.Typed(path, managed_by, "Required value", "");
    } else if (message.starts_with("must be a domain-prefixed path")) {
      errors.InvalidString(path, managed_by, manager, message);
    } else if (message.starts_with("Invalid path")) {
      errors.InvalidString(path, managed_by, manager.substr(slash + 1), message);
    } else {
      errors.InvalidString(path, managed_by, manager.substr(0, slash), message);
    }
  }
  if (manager.size() > kMaxLabelLength) {
    errors.Typed(path, managed_by, "Too long", fmt::format("may not be more than {} bytes", kMaxLabelLength));
  }
}

void ValidateFailurePolicy(const Tree& spec, const std::set<std::string>& rjob_names, const JobSetFeatureGates& gates,
                           const Reading& read, Errors& errors) {
  const Tree* policy = At(&spec, {"failurePolicy"});
  if (!Present(policy)) return;
  const Tree* rules = At(policy, {"rules"});
  const bool restarts_job = std::any_of(Items(rules).begin(), Items(rules).end(), [](const Tree& rule) {
    const std::string action = Text(At(&rule, {"action"}));
    return action == "RestartJob" || action == "RestartJobAndIgnoreMaxRestarts";
  });
  if (restarts_job) {
    if (!gates.restart_job) {
      errors.Plain(rules,
                   "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when "
                   "RestartJob feature gate is disabled");
      return;
    }
    for (const Tree& rjob : Items(At(&spec, {"replicatedJobs"}))) {
      if (read.Replicas(rjob) > kMaxReplicasForRestartJob) {
        errors.Plain(At(&rjob, {"replicas"}),
                     fmt::format("JobSet cannot have a failure policy rule with RestartJob or "
                                 "RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > {}",
                                 kMaxReplicasForRestartJob));
        break;
      }
    }
  }
  // Names in the order they first appear (upstream walks a Go map, in random order).
  std::vector<std::pair<std::string, std::vector<std::size_t>>> by_name;
  for (std::size_t index = 0; index < Items(rules).size(); ++index) {
    const Tree& rule = Items(rules)[index];
    const Tree* name_node = At(&rule, {"name"});
    const std::string name = read.RuleName(rule, index);
    if (name.empty() || name.size() > kMaxRuleNameLength) {
      errors.Plain(name_node ? name_node : &rule,
                   fmt::format("invalid failure policy rule name of length {}, the rule name must be at least 1 "
                               "characters long and at most {} characters long",
                               name.size(), kMaxRuleNameLength));
    }
    auto same = std::find_if(by_name.begin(), by_name.end(), [&](const auto& e) { return e.first == name; });
    if (same == by_name.end()) {
      by_name.emplace_back(name, std::vector<std::size_t>{index});
    } else {
      same->second.push_back(index);
    }
    // ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    auto word = [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '_'; };
    const bool valid = !name.empty() && alpha(name.front()) && (name.size() == 1 || word(name.back())) &&
                       std::all_of(name.begin(), name.end(), [&](char c) { return word(c) || c == ',' || c == ':'; });
    if (!valid) {
      errors.Plain(name_node ? name_node : &rule,
                   fmt::format("invalid failure policy rule name '{}', a failure policy rule name must start with an "
                               "alphabetic character, optionally followed by a string of alphanumeric characters or "
                               "'_,:', and must end with an alphanumeric character or '_'",
                               name));
    }
    for (const Tree& target : Items(At(&rule, {"targetReplicatedJobs"}))) {
      if (!rjob_names.count(Text(&target))) {
        errors.Plain(&target, fmt::format("invalid replicatedJob name '{}' in failure policy does not appear in "
                                          ".spec.ReplicatedJobs",
                                          Text(&target)));
      }
    }
    for (const Tree& reason : Items(At(&rule, {"onJobFailureReasons"}))) {
      if (std::find(std::begin(kJobFailureReasons), std::end(kJobFailureReasons), Text(&reason)) ==
          std::end(kJobFailureReasons)) {
        errors.Plain(&reason, fmt::format("invalid job failure reason '{}' in failure policy is not a recognized job "
                                          "failure reason",
                                          Text(&reason)));
      }
    }
  }
  for (const auto& [name, indices] : by_name) {
    if (indices.size() < 2) continue;
    errors.Plain(rules, fmt::format("rule names are not unique, rules with indices [{}] all have the same name '{}'",
                                    fmt::join(indices, " "), name));
  }
}

void ValidateCoordinator(const Tree& jobset, const Tree& spec, const Reading& read, Errors& errors) {
  const Tree* coordinator = At(&spec, {"coordinator"});
  if (!Present(coordinator)) return;
  const std::string rjob_name = Text(At(coordinator, {"replicatedJob"}));
  const std::int64_t job_index = Int(At(coordinator, {"jobIndex"})).value_or(0);
  const std::int64_t pod_index = Int(At(coordinator, {"podIndex"})).value_or(0);
  // The first problem of the coordinator's reference, as upstream returns at the first.
  if (const Tree* rjob = FindReplicatedJob(At(&spec, {"replicatedJobs"}), rjob_name); rjob == nullptr) {
    errors.Plain(coordinator, fmt::format("coordinator replicatedJob {} does not exist", rjob_name));
  } else if (job_index < 0 || job_index >= read.Replicas(*rjob)) {
    errors.Plain(coordinator,
                 fmt::format("coordinator job index {} is invalid for replicatedJob {}", job_index, rjob_name));
  } else if (!read.Indexed(*rjob) || !Int(At(rjob, {"template", "spec", "completions"}))) {
    errors.Plain(coordinator,
                 "job for coordinator pod must be indexed completion mode, and completions number must be set");
  } else if (pod_index < 0 || pod_index >= *Int(At(rjob, {"template", "spec", "completions"}))) {
    errors.Plain(coordinator, fmt::format("coordinator pod index {} is invalid for replicatedJob {} job index {}",
                                          pod_index, rjob_name, job_index));
  }
  // The label value the controller puts on every Pod: <jobset>-<rjob>-<job>-<pod>.<subdomain>.
  const std::string name = Text(At(&jobset, {"metadata", "name"}));
  std::string subdomain = Text(At(&spec, {"network", "subdomain"}));
  if (subdomain.empty()) subdomain = name;
  const std::string value = fmt::format("{}-{}-{}-{}.{}", name, rjob_name, job_index, pod_index, subdomain);
  std::vector<std::string> problems = IsValidLabelValue(value);
  if (!problems.empty()) {
    errors.Plain(coordinator, fmt::format("spec will lead to invalid label value {} for coordinator label "
                                          "\"jobset.sigs.k8s.io/coordinator\" (long JobSet / ReplicatedJob / "
                                          "SubDomain name?): {}",
                                          GoQuote(value), fmt::join(problems, ", ")));
  }
}

bool HasVolumeMount(const Tree* containers, std::string_view name) {
  return std::any_of(Items(containers).begin(), Items(containers).end(), [&](const Tree& container) {
    const std::vector<Tree>& mounts = Items(At(&container, {"volumeMounts"}));
    return std::any_of(mounts.begin(), mounts.end(), [&](const Tree& m) { return Text(At(&m, {"name"})) == name; });
  });
}

void ValidateVolumeClaimPolicies(const Tree& jobset, const Tree& spec, Errors& errors) {
  const Tree* rjobs = At(&spec, {"replicatedJobs"});
  const std::string jobset_name = Text(At(&jobset, {"metadata", "name"}));
  std::set<std::string> claim_names;
  const std::vector<Tree>& policies = Items(At(&spec, {"volumeClaimPolicies"}));
  for (std::size_t p = 0; p < policies.size(); ++p) {
    // Upstream names the list "template", not "templates".
    const std::vector<Tree>& templates = Items(At(&policies[p], {"templates"}));
    for (std::size_t t = 0; t < templates.size(); ++t) {
      const Tree* name_node = At(&templates[t], {"metadata", "name"});
      const std::string name = Text(name_node);
      const std::string path = fmt::format("spec.volumeClaimPolicies[{}].template[{}].name", p, t);
      if (claim_names.count(name)) {
        errors.InvalidString(path, name_node, name, "names must be unique for VolumeClaimPolicies template");
      }
      for (const std::string& message : IsDNS1123Subdomain(name)) errors.InvalidString(path, name_node, name, message);
      // The claim is named <template>-<jobset>.
      if (name.size() + 1 + jobset_name.size() > kMaxLabelLength) {
        errors.InvalidString(path, name_node, name, "VolumeClaimPolicies template name is too long");
      }
      bool mounted = false;
      for (std::size_t r = 0; r < Items(rjobs).size(); ++r) {
        const Tree* pod_spec = At(&Items(rjobs)[r], {"template", "spec", "template", "spec"});
        const std::vector<Tree>& volumes = Items(At(pod_spec, {"volumes"}));
        for (std::size_t v = 0; v < volumes.size(); ++v) {
          const Tree* volume_name = At(&volumes[v], {"name"});
          if (Text(volume_name) != name) continue;
          errors.InvalidString(fmt::format("{}.template.spec.template.spec.volumes[{}].name", ReplicatedJobPath(r), v),
                               volume_name, name,
                               fmt::format("volume name conflicts with VolumeClaimPolicy template name: {}", name));
        }
        mounted = mounted || HasVolumeMount(At(pod_spec, {"initContainers"}), name) ||
                  HasVolumeMount(At(pod_spec, {"containers"}), name);
      }
      if (!mounted) {
        errors.Invalid("spec.replicatedJobs", rjobs, kReplicatedJobsValue,
                       fmt::format("replicatedJob containers don't have a matching volumeMount: {} from "
                                   "VolumeClaimPolicies",
                                   name));
      }
      claim_names.insert(name);
    }
  }
}

void ValidateInPlaceRestart(const Tree& rjob, std::size_t index, Errors& errors) {
  const std::string path = ReplicatedJobPath(index);
  const std::string name = Text(At(&rjob, {"name"}));
  const Tree* job_spec = At(&rjob, {"template", "spec"});
  const Tree* backoff = At(job_spec, {"backoffLimit"});
  if (Int(backoff) != kMaxInt32) {
    errors.Invalid(path + ".template.spec.backoffLimit", backoff, IntValue(backoff),
                   fmt::format("replicatedJob {}: must be set to {} (MaxInt32) when in-place restart is enabled", name,
                               kMaxInt32));
  }
  const Tree* replacement = At(job_spec, {"podReplacementPolicy"});
  if (Text(replacement) != "Failed") {
    errors.Invalid(path + ".template.spec.podReplacementPolicy", replacement,
                   Present(replacement) ? GoQuote(Text(replacement)) : "null",
                   fmt::format("replicatedJob {}: must be set to Failed when in-place restart is enabled", name));
  }
  const Tree* completions = At(job_spec, {"completions"});
  std::optional<std::int64_t> parallelism = Int(At(job_spec, {"parallelism"}));
  if (!Int(completions) || !parallelism || *Int(completions) != *parallelism) {
    errors.Invalid(path + ".template.spec.completions", completions, IntValue(completions),
                   fmt::format("replicatedJob {}: completions and parallelism must be set and equal to each other "
                               "when in-place restart is enabled",
                               name));
  }
}

// The names built from the JobSet's name for one replicatedJob: its longest Job name and, for an
// Indexed Job with completions set, its longest Pod name.
void ValidateGeneratedNames(const std::string& jobset_name, const Tree& rjob, std::size_t index, const Reading& read,
                            Errors& errors) {
  const Tree* name_node = At(&rjob, {"name"});
  const std::string rjob_name = Text(name_node);
  const std::int64_t replicas = read.Replicas(rjob);
  const std::string job_name = fmt::format("{}-{}-{}", jobset_name, rjob_name, Int32MinusOne(replicas));
  for (const std::string& message : IsDNS1035Label(job_name)) {
    const bool too_long = message == kDns1035MaxLength;
    JobSetError& e = errors.InvalidString(ReplicatedJobPath(index) + ".name", name_node, job_name,
                                          too_long ? kJobNameTooLong : message);
    if (too_long) e.too_long = JobSetNameTooLong{JobSetNameTooLong::Kind::kJob, job_name, job_name.size()};
  }
  std::optional<std::int64_t> completions = Int(At(&rjob, {"template", "spec", "completions"}));
  if (!read.Indexed(rjob) || !completions) return;
  // The Job controller adds 5 random characters; upstream stands "abcde" for them.
  const std::string pod_name =
      fmt::format("{}-{}-{}-{}-xxxxx", jobset_name, rjob_name, Int32MinusOne(replicas), Int32MinusOne(*completions));
  std::string checked = pod_name;
  checked.replace(checked.size() - 5, 5, "abcde");
  for (const std::string& message : IsDNS1035Label(checked)) {
    // Upstream reports the Job name as the bad value here too.
    const bool too_long = message == kDns1035MaxLength;
    JobSetError& e = errors.InvalidString(ReplicatedJobPath(index) + ".name", name_node, job_name,
                                          too_long ? kPodNameTooLong : message);
    if (too_long) e.too_long = JobSetNameTooLong{JobSetNameTooLong::Kind::kPod, pod_name, pod_name.size()};
  }
}

void ValidateReplicatedJob(const Tree& jobset, const Tree& rjob, std::size_t index, const Reading& read,
                           const std::set<std::string>& names_so_far, const JobSetFeatureGates& gates, Errors& errors) {
  const std::string name = Text(At(&rjob, {"name"}));
  const Tree* replicas = At(&rjob, {"replicas"});
  const Tree* parallelism = At(&rjob, {"template", "spec", "parallelism"});
  if (Int(parallelism).value_or(1) * read.Replicas(rjob) > kMaxInt32) {
    errors.Plain(replicas, fmt::format("the product of replicas and parallelism must not exceed {} for "
                                       "replicatedJob '{}'",
                                       kMaxInt32, name));
  }
  const Tree* group = At(&rjob, {"groupName"});
  const std::string group_name = read.GroupName(rjob);
  for (const std::string& message : IsDNS1035Label(group_name)) {
    errors.InvalidString(ReplicatedJobPath(index) + ".groupName", group, group_name,
                         message == kDns1035MaxLength ? kGroupNameTooLong : message);
  }

  ValidateGeneratedNames(Text(At(&jobset, {"metadata", "name"})), rjob, index, read, errors);
  for (const Tree& dependency : Items(At(&rjob, {"dependsOn"}))) {
    const std::string on = Text(At(&dependency, {"name"}));
    if (!names_so_far.count(on)) {
      errors.Plain(&dependency, fmt::format("replicatedJob: {} cannot depend on replicatedJob: {}", name, on));
    }
  }
  const bool in_place = Text(At(&jobset, {"spec", "failurePolicy", "restartStrategy"})) == "InPlaceRestart";
  if (gates.in_place_restart && in_place) ValidateInPlaceRestart(rjob, index, errors);
}

// --- The CRD's CEL rules ---

// The rules on values alone: StartupPolicy and DependsOn exclusive; no namespace on a claim template.
// `changed` says whether the rule on a value runs (on update, only on values that changed).
void CheckSchemaRules(const Tree& spec, const Tree* old_spec, Errors& errors) {
  auto changed = [&](const Tree* now, std::initializer_list<std::string_view> keys) {
    if (old_spec == nullptr) return true;
    const Tree* before = At(old_spec, keys);
    return before == nullptr || *before != *now;
  };
  const std::vector<Tree>& rjobs = Items(At(&spec, {"replicatedJobs"}));
  const bool depends =
      std::any_of(rjobs.begin(), rjobs.end(), [](const Tree& r) { return Present(At(&r, {"dependsOn"})); });
  if (depends && Text(At(&spec, {"startupPolicy", "startupPolicyOrder"})) == "InOrder" && changed(&spec, {})) {
    errors.InvalidString("spec", &spec, "object", "StartupPolicy and DependsOn APIs are mutually exclusive");
  }
  const Tree* policies = At(&spec, {"volumeClaimPolicies"});
  for (std::size_t p = 0; p < Items(policies).size(); ++p) {
    const Tree& policy = Items(policies)[p];
    const std::vector<Tree>& templates = Items(At(&policy, {"templates"}));
    const bool namespaced = std::any_of(templates.begin(), templates.end(), [](const Tree& t) {
      return !Text(At(&t, {"metadata", "namespace"})).empty();
    });
    const Tree* before = old_spec ? At(old_spec, {"volumeClaimPolicies"}) : nullptr;
    const bool policy_changed =
        old_spec == nullptr || before == nullptr || p >= Items(before).size() || Items(before)[p] != policy;
    if (namespaced && policy_changed) {
      errors.InvalidString(fmt::format("spec.volumeClaimPolicies[{}]", p), &policy, "object",
                           "namespace cannot be set for VolumeClaimPolicies templates");
    }
  }
}

}  // namespace

void ApplyJobSetSchemaDefaults(Tree& jobset) {
  Tree* spec = MutableAt(&jobset, {"spec"});
  if (spec == nullptr || !spec->IsMap()) return;
  if (Tree* rjobs = spec->Find("replicatedJobs"); rjobs && rjobs->IsList()) {
    for (Tree& rjob : rjobs->items()) {
      Default(rjob, "groupName", Tree::String("default"));
      Default(rjob, "replicas", Tree::Int(1));
    }
  }
  if (Tree* policy = spec->Find("failurePolicy"); policy && policy->IsMap()) {
    Default(*policy, "restartStrategy", Tree::String("Recreate"));
  }
  if (Tree* policies = spec->Find("volumeClaimPolicies"); policies && policies->IsList()) {
    for (Tree& policy : policies->items()) {
      if (Tree* retention = MutableAt(&policy, {"retentionPolicy"}); retention && retention->IsMap()) {
        Default(*retention, "whenDeleted", Tree::String("Delete"));
      }
    }
  }
}

void DefaultJobSet(Tree& jobset) {
  Tree* spec_node = MutableAt(&jobset, {"spec"});
  if (spec_node == nullptr || !spec_node->IsMap()) return;
  Tree& spec = *spec_node;
  if (Tree* rjobs = spec.Find("replicatedJobs"); rjobs && rjobs->IsList()) {
    for (Tree& rjob : rjobs->items()) {
      Tree* job_spec = MutableAt(&rjob, {"template", "spec"});
      if (job_spec == nullptr || !job_spec->IsMap()) continue;
      Default(*job_spec, "completionMode", Tree::String("Indexed"));
      Tree* pod_spec = MutableAt(job_spec, {"template", "spec"});
      if (pod_spec && pod_spec->IsMap() && Text(pod_spec->Find("restartPolicy")).empty()) {
        pod_spec->Erase("restartPolicy");
        Default(*pod_spec, "restartPolicy", Tree::String("OnFailure"));
      }
    }
  }
  Default(spec, "successPolicy", MapOf("operator", Tree::String("All")));
  Default(spec, "startupPolicy", MapOf("startupPolicyOrder", Tree::String("AnyOrder")));
  Default(spec, "network", Tree::Map());
  if (Tree* network = spec.Find("network"); network->IsMap()) {
    Default(*network, "enableDNSHostnames", Tree::Bool(true));
    Default(*network, "publishNotReadyAddresses", Tree::Bool(true));
  }
  if (Tree* rules = MutableAt(&spec, {"failurePolicy", "rules"}); rules && rules->IsList()) {
    for (std::size_t i = 0; i < rules->items().size(); ++i) {
      Tree& rule = rules->items()[i];
      if (!rule.IsMap() || !Text(rule.Find("name")).empty()) continue;
      rule.Erase("name");
      Default(rule, "name", Tree::String(fmt::format("failurePolicyRule{}", i)));
    }
  }
  if (Tree* policies = spec.Find("volumeClaimPolicies"); policies && policies->IsList()) {
    for (Tree& policy : policies->items()) {
      if (!policy.IsMap()) continue;
      Default(policy, "retentionPolicy", Tree::Map());
      if (Tree* retention = policy.Find("retentionPolicy"); retention->IsMap()) {
        Default(*retention, "whenDeleted", Tree::String("Delete"));
      }
    }
  }
}

namespace {

std::vector<JobSetError> ValidateCreate(const Tree& jobset, const JobSetFeatureGates& gates, const Reading& read) {
  static const Tree kEmpty = Tree::Map();
  const Tree* spec_node = At(&jobset, {"spec"});
  const Tree& spec = spec_node && spec_node->IsMap() ? *spec_node : kEmpty;
  Errors schema(JobSetError::Source::kSchema);
  CheckSchemaRules(spec, nullptr, schema);
  if (!schema.empty()) return schema.Take();

  Errors errors(JobSetError::Source::kWebhook);
  const Tree* strategy = At(&spec, {"failurePolicy", "restartStrategy"});
  if (!gates.in_place_restart && Text(strategy) == "InPlaceRestart") {
    errors.Plain(strategy,
                 "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled");
  }
  const Tree* rjobs = At(&spec, {"replicatedJobs"});
  if (!Items(rjobs).empty() && Present(At(&Items(rjobs)[0], {"dependsOn"}))) {
    errors.Plain(At(&Items(rjobs)[0], {"dependsOn"}), "DependsOn can't be set for the first ReplicatedJob");
  }
  if (const Tree* subdomain = At(&spec, {"network", "subdomain"}); !Text(subdomain).empty()) {
    const std::string value = Text(subdomain);
    for (const std::string& message : IsDNS1123Subdomain(value)) {
      errors.InvalidString("spec.network.subdomain", subdomain, value, message);
    }
    // It names the headless Service too, so it must be a DNS-1035 label as well.
    for (const std::string& message : IsDNS1035Label(value)) {
      errors.InvalidString("spec.network.subdomain", subdomain, value,
                           message == kDns1035MaxLength ? kSubdomainTooLong : message);
    }
  }
  ValidateManagedBy(spec, errors);
  std::set<std::string> names;
  for (std::size_t i = 0; i < Items(rjobs).size(); ++i) {
    names.insert(Text(At(&Items(rjobs)[i], {"name"})));
    ValidateReplicatedJob(jobset, Items(rjobs)[i], i, read, names, gates, errors);
  }
  for (const Tree& target : Items(At(&spec, {"successPolicy", "targetReplicatedJobs"}))) {
    if (!names.count(Text(&target))) {
      errors.Plain(&target, fmt::format("invalid replicatedJob name '{}' does not appear in .spec.ReplicatedJobs",
                                        Text(&target)));
    }
  }
  ValidateFailurePolicy(spec, names, gates, read, errors);
  ValidateCoordinator(jobset, spec, read, errors);
  ValidateVolumeClaimPolicies(jobset, spec, errors);
  return errors.Take();
}

}  // namespace

std::vector<JobSetError> ValidateJobSetCreate(const Tree& jobset, const JobSetFeatureGates& gates) {
  return ValidateCreate(jobset, gates, Reading{});
}

std::vector<JobSetError> ValidateJobSetAsSent(const Tree& jobset, const JobSetFeatureGates& gates) {
  return ValidateCreate(jobset, gates, Reading{.fill_defaults = true});
}

namespace {

// The fields of a replicatedJob that may change on update, cleared in `rjob` (its pod template).
void ClearMutableFields(Tree& rjob, bool suspended, bool elastic) {
  if (Tree* job_spec = MutableAt(&rjob, {"template", "spec"}); elastic && job_spec && job_spec->IsMap()) {
    job_spec->Erase("parallelism");
    job_spec->Erase("completions");
  }
  if (!suspended) return;
  if (Tree* meta = MutableAt(&rjob, {"template", "spec", "template", "metadata"}); meta && meta->IsMap()) {
    meta->Erase("annotations");
    meta->Erase("labels");
  }
  if (Tree* pod = MutableAt(&rjob, {"template", "spec", "template", "spec"}); pod && pod->IsMap()) {
    for (const char* key : {"nodeSelector", "tolerations", "schedulingGates"}) pod->Erase(key);
  }
}

bool ConditionTrue(const Tree& jobset, std::string_view type) {
  const std::vector<Tree>& conditions = Items(At(&jobset, {"status", "conditions"}));
  return std::any_of(conditions.begin(), conditions.end(), [&](const Tree& c) {
    return Text(At(&c, {"type"})) == type && Text(At(&c, {"status"})) == "True";
  });
}

}  // namespace

std::vector<JobSetError> ValidateJobSetUpdate(const Tree& old_jobset, const Tree& new_jobset,
                                              const JobSetFeatureGates& gates) {
  static const Tree kEmpty = Tree::Map();
  const Tree* old_node = At(&old_jobset, {"spec"});
  const Tree* new_node = At(&new_jobset, {"spec"});
  const Tree& old_spec = old_node && old_node->IsMap() ? *old_node : kEmpty;
  const Tree& new_spec = new_node && new_node->IsMap() ? *new_node : kEmpty;

  // The CRD's rules. A transition rule runs where both the old and the new value exist; under
  // spec.replicatedJobs, an atomic list, no item has an old value, so the rule on dependsOn never runs.
  Errors schema(JobSetError::Source::kSchema);
  for (const char* key : {"failurePolicy", "network", "startupPolicy", "successPolicy", "volumeClaimPolicies"}) {
    const Tree* before = old_spec.Find(key);
    const Tree* now = new_spec.Find(key);
    if (Present(before) && Present(now) && *before != *now) {
      schema.InvalidString(fmt::format("spec.{}", key), now, now->IsList() ? "array" : "object", "Value is immutable");
    }
  }
  CheckSchemaRules(new_spec, &old_spec, schema);
  if (!schema.empty()) return schema.Take();

  Errors errors(JobSetError::Source::kWebhook);
  const Tree* old_rjobs = At(&old_spec, {"replicatedJobs"});
  const Tree* new_rjobs = At(&new_spec, {"replicatedJobs"});
  const bool terminal = ConditionTrue(old_jobset, "Completed") || ConditionTrue(old_jobset, "Failed");
  auto is_true = [](const Tree* t) { return t && t->IsBool() && t->AsBool(); };
  const bool suspended = is_true(At(&old_spec, {"suspend"})) || is_true(At(&new_spec, {"suspend"}));
  // Both lists with the fields that may change cleared, each replicatedJob paired by name.
  Tree old_masked = old_rjobs ? *old_rjobs : Tree::Null();
  Tree new_masked = new_rjobs ? *new_rjobs : Tree::Null();
  for (std::size_t i = 0; i < Items(new_rjobs).size(); ++i) {
    const Tree& rjob = Items(new_rjobs)[i];
    const std::string name = Text(At(&rjob, {"name"}));
    std::size_t o = 0;
    while (o < Items(old_rjobs).size() && Text(At(&Items(old_rjobs)[o], {"name"})) != name) ++o;
    if (o == Items(old_rjobs).size()) continue;
    const Tree& old_rjob = Items(old_rjobs)[o];
    bool elastic = false;
    if (gates.elastic_job_set && IsIndexed(rjob)) {
      elastic = true;
      const std::string path = ReplicatedJobPath(i) + ".template.spec";
      const Tree* parallelism = At(&rjob, {"template", "spec", "parallelism"});
      const Tree* completions = At(&rjob, {"template", "spec", "completions"});
      const bool parallelism_changed = Int(parallelism) != Int(At(&old_rjob, {"template", "spec", "parallelism"}));
      const bool completions_changed = Int(completions) != Int(At(&old_rjob, {"template", "spec", "completions"}));
      if ((parallelism_changed || completions_changed) && terminal) {
        errors.Typed(path, At(&rjob, {"template", "spec"}), "Forbidden",
                     "Cannot mutate parallelism or completions when JobSet is in a terminal state (Completed or "
                     "Failed)");
      } else if (parallelism_changed || completions_changed) {
        if (parallelism_changed && Int(parallelism) && *Int(parallelism) < 1) {
          errors.Invalid(path + ".parallelism", parallelism, IntValue(parallelism), "parallelism must be >= 1");
        }
        if (completions_changed && Int(completions) && *Int(completions) < 1) {
          errors.Invalid(path + ".completions", completions, IntValue(completions), "completions must be >= 1");
        }
        if (Int(parallelism) && Int(completions) && *Int(parallelism) != *Int(completions)) {
          errors.Invalid(path + ".completions", completions, IntValue(completions),
                         "completions must be equal to parallelism for Elastic Indexed Jobs");
        }
      }
    }
    if (new_masked.IsList()) ClearMutableFields(new_masked.items()[i], suspended, elastic);
    if (old_masked.IsList()) ClearMutableFields(old_masked.items()[o], suspended, elastic);
  }
  if (!SemanticEqual(new_masked, old_masked)) {
    errors.Invalid("spec.replicatedJobs", new_rjobs, kReplicatedJobsValue, "field is immutable");
  }
  const Tree* old_manager = At(&old_spec, {"managedBy"});
  const Tree* new_manager = At(&new_spec, {"managedBy"});
  if (Present(old_manager) != Present(new_manager) || Text(old_manager) != Text(new_manager)) {
    errors.Invalid("spec.managedBy", new_manager, Present(new_manager) ? GoQuote(Text(new_manager)) : "null",
                   "field is immutable");
  }
  return errors.Take();
}

std::string JobSetDenial(std::string_view name, const std::vector<JobSetError>& errors) {
  // The error list as an aggregate prints it: duplicates dropped, brackets around two or more.
  std::vector<std::string> messages;
  for (const JobSetError& e : errors) {
    if (std::find(messages.begin(), messages.end(), e.message) == messages.end()) messages.push_back(e.message);
  }
  std::string list = messages.size() == 1 ? messages.front() : fmt::format("[{}]", fmt::join(messages, ", "));
  const bool webhook = !errors.empty() && errors.front().source == JobSetError::Source::kWebhook;
  return fmt::format("{}JobSet.jobset.x-k8s.io {} is invalid: {}",
                     webhook ? "admission webhook \"vjobset.kb.io\" denied the request: " : "", GoQuote(name), list);
}

}  // namespace trainer
