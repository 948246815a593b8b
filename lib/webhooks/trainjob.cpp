#include "webhooks/trainjob.h"

#include <fmt/format.h>

#include <algorithm>

#include <map>
#include <optional>
#include <set>

#include "api/decode.h"
#include "api/object_meta.h"
#include "runtime/info.h"
#include "runtime/trainer_fields.h"
#include "core/pipeline.h"
#include "webhooks/trainingruntime.h"

namespace trainer {

namespace {

constexpr const char* kRuntimePatchesPath = "spec.runtimePatches";

// The names of every init container and container of each replicatedJob of a JobSet spec.
std::map<std::string, std::set<std::string>, std::less<>> ContainerNames(const Tree& spec) {
  std::map<std::string, std::set<std::string>, std::less<>> out;
  const Tree* rjobs = spec.IsMap() ? spec.Find("replicatedJobs") : nullptr;
  if (rjobs == nullptr || !rjobs->IsList()) return out;
  for (const Tree& rjob : rjobs->items()) {
    const std::string* name = rjob.IsMap() ? rjob.FindString("name") : nullptr;
    if (name == nullptr) continue;
    std::set<std::string>& names = out[*name];
    const Tree* pod_spec = &rjob;
    for (const char* key : {"template", "spec", "template", "spec"})
      pod_spec = pod_spec && pod_spec->IsMap() ? pod_spec->Find(key) : nullptr;
    for (const char* list : {"initContainers", "containers"}) {
      const Tree* items = pod_spec && pod_spec->IsMap() ? pod_spec->Find(list) : nullptr;
      for (std::size_t i = 0; items && items->IsList() && i < items->items().size(); ++i) {
        if (const std::string* c = items->items()[i].FindString("name")) names.insert(*c);
      }
    }
  }
  return out;
}

}  // namespace

namespace {

// [A-Za-z0-9/\-._~%!$&'()*+,;=:]+
bool IsHttpPath(std::string_view s) {
  static constexpr std::string_view kPunctuation = "/-._~%!$&'()*+,;=:";
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kPunctuation.find(c) != std::string_view::npos;
  });
}

}  // namespace

std::vector<std::string> IsDomainPrefixedPath(std::string_view value) {
  if (value.empty()) return {"Required value"};
  std::size_t slash = value.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size()) {
    return {"must be a domain-prefixed path (such as \"acme.io/foo\")"};
  }
  std::vector<std::string> errors = IsDNS1123Subdomain(value.substr(0, slash));
  if (!IsHttpPath(value.substr(slash + 1))) {
    errors.emplace_back("Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
  }
  return errors;
}

void ValidateRuntimePatches(const TrainJob& job, const Tree& runtime_spec, Diagnostics& errors) {
  const auto names = ContainerNames(runtime_spec);
  auto add = [&](const std::string& at, std::string field, std::string message) {
    errors.Add(job.positions.Find(at), std::move(field), std::move(message));
  };
  for (std::size_t p = 0; p < job.spec.runtime_patches.size(); ++p) {
    const RuntimePatch& patch = job.spec.runtime_patches[p];
    std::string at = fmt::format("{}[{}]", kRuntimePatchesPath, p);
    // Upstream names the field without the patch's index.
    for (std::string& message : IsDomainPrefixedPath(patch.manager))
      add(at + ".manager", "spec.runtimePatches.manager", std::move(message));
    if (!patch.template_ || !patch.template_->replicated_jobs) continue;
    const std::vector<ReplicatedJobPatch>& rjobs = *patch.template_->replicated_jobs;
    for (std::size_t r = 0; r < rjobs.size(); ++r) {
      const ReplicatedJobPatch& rjob = rjobs[r];
      std::string rjob_at = fmt::format("{}.trainingRuntimeSpec.template.spec.replicatedJobs[{}]", at, r);
      auto containers = names.find(rjob.name);
      if (containers == names.end()) {
        add(rjob_at + ".name", kRuntimePatchesPath,
            "must not have replicated job that doesn't exist in the runtime job template");
        continue;
      }
      if (!rjob.pod_template || !rjob.pod_template->spec) continue;
      const PodSpecPatch& pod = *rjob.pod_template->spec;
      std::string pod_at = rjob_at + ".template.spec.template.spec";
      for (std::size_t c = 0; c < pod.init_containers.size(); ++c) {
        if (containers->second.count(pod.init_containers[c].name)) continue;
        add(fmt::format("{}.initContainers[{}].name", pod_at, c), kRuntimePatchesPath,
            fmt::format("must not have initContainer that doesn't exist in the runtime job {}", rjob.name));
      }
      for (std::size_t c = 0; c < pod.containers.size(); ++c) {
        const ContainerPatch& container = pod.containers[c];
        if (!containers->second.count(container.name)) {
          add(fmt::format("{}.containers[{}].name", pod_at, c), kRuntimePatchesPath,
              fmt::format("must not have container that doesn't exist in the runtime job {}", rjob.name));
        } else if (!container.env.empty() && (container.name == kDatasetInitializer ||
                                              container.name == kModelInitializer || container.name == kNode)) {
          add(fmt::format("{}.containers[{}].env", pod_at, c), kRuntimePatchesPath,
              fmt::format("must not have envs for the {}, {}, {} containers", kDatasetInitializer, kModelInitializer,
                          kNode));
        }
      }
    }
  }
}

std::optional<Info> ValidateTrainJob(const TrainJob& job, const Runtime& runtime, Framework& framework,
                                     Findings& findings) {
  // Not the webhook's: trainer's own warning, in every mode, about values the controller drops.
  for (Diagnostic& d : UnreceivedTrainerFields(job, runtime)) findings.warnings().push_back(std::move(d));
  if (findings.mode() == ValidationMode::kIgnore) return std::nullopt;
  std::string subject = Subject(job);
  if (runtime.kind == kClusterTrainingRuntimeKind && IsSupportDeprecated(runtime)) {
    findings.Warn(Diagnostic{
        .where = job.positions.Find("spec.runtimeRef.name"),
        .subject = subject,
        .message = fmt::format(
            "Referenced ClusterTrainingRuntime \"{}\" is deprecated and will be removed in a future release of "
            "Kubeflow Trainer. See runtime deprecation policy: {}",
            runtime.metadata.name, kRuntimeDeprecationPolicyURL)});
  }
  // Upstream ignores an error building the Info and hands the plugins none.
  std::optional<Info> info;
  try {
    info = NewRuntimeInfo(job, runtime);
  } catch (const Error&) {
  }
  Diagnostics errors;
  framework.RunCustomValidationPlugins(info ? &*info : nullptr, nullptr, job, errors);
  ValidateRuntimePatches(job, runtime.spec.template_.spec, errors);
  for (Diagnostic d : errors.items()) {
    if (d.subject.empty()) d.subject = subject;
    if (!d.HasLocation()) d.where = d.field.empty() ? job.origin : job.positions.Find(d.field);
    if (!d.HasLocation()) d.where = job.origin;
    findings.Reject(std::move(d));
  }
  return info;
}

}  // namespace trainer
