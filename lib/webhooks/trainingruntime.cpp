#include "webhooks/trainingruntime.h"

#include <fmt/format.h>

#include "api/decode.h"
#include "runtime/info.h"

namespace trainer {

namespace {

std::string_view Label(const Runtime& runtime, std::string_view key) {
  if (!runtime.metadata.labels) return {};
  auto it = runtime.metadata.labels->find(std::string(key));
  return it == runtime.metadata.labels->end() ? std::string_view() : std::string_view(it->second);
}

// The position of map[key]'s key, or of the map when the key is absent or has none.
Origin KeyOrigin(const Tree& map, std::string_view key) {
  for (std::size_t i = 0; map.IsMap() && i < map.size(); ++i) {
    if (map.KeyAt(i) == key && map.KeyOriginAt(i).HasPosition()) return map.KeyOriginAt(i);
  }
  return map.origin();
}

const Tree* At(const Tree& tree, std::initializer_list<std::string_view> keys) {
  const Tree* t = &tree;
  for (std::string_view key : keys) {
    t = t->IsMap() ? t->Find(key) : nullptr;
    if (t == nullptr) return nullptr;
  }
  return t;
}

// The container each ancestor's replicatedJob must have.
const char* RequiredContainer(std::string_view ancestor) {
  if (ancestor == kAncestorTrainer) return kNode;
  if (ancestor == kModelInitializer) return kModelInitializer;
  if (ancestor == kDatasetInitializer) return kDatasetInitializer;
  return nullptr;
}

}  // namespace

bool IsSupportDeprecated(const Runtime& runtime) { return Label(runtime, kLabelSupport) == "deprecated"; }

void ValidateRuntime(const Runtime& runtime, Findings& findings) {
  if (Label(runtime, kLabelWebhookValidation) == "disabled") return;
  std::string subject = Subject(runtime);
  // Only the ClusterTrainingRuntime webhook warns, and only on create.
  if (runtime.kind == kClusterTrainingRuntimeKind && IsSupportDeprecated(runtime)) {
    findings.Warn(Diagnostic{
        .where = runtime.positions.Find(fmt::format("metadata.labels[{}]", kLabelSupport)),
        .subject = subject,
        .message = fmt::format(
            "ClusterTrainingRuntime \"{}\" is deprecated and will be removed in a future release of Kubeflow "
            "Trainer. See runtime deprecation policy: {}",
            runtime.metadata.name, kRuntimeDeprecationPolicyURL)});
  }
  const Tree* rjobs = runtime.spec.template_.spec.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return;
  // The replicatedJobs as the webhook receives them: the typed round trip drops a `replicas: 0`
  // (omitempty), which the webhook still sees; the CRD default fills only a missing one.
  const Tree* received = At(runtime.source, {"spec", "template", "spec", "replicatedJobs"});
  for (std::size_t i = 0; i < rjobs->items().size(); ++i) {
    const Tree& rjob = rjobs->items()[i];
    const Tree* labels = At(rjob, {"template", "metadata", "labels"});
    const std::string* ancestor = labels && labels->IsMap() ? labels->FindString(kLabelTrainJobAncestor) : nullptr;
    const char* required = ancestor ? RequiredContainer(*ancestor) : nullptr;
    if (required == nullptr) continue;
    std::string path = fmt::format("spec.template.spec.replicatedJobs[{}]", i);
    const Tree& sent = received && received->IsList() && i < received->items().size() ? received->items()[i] : rjob;
    const Tree* replicas = sent.IsMap() ? sent.Find("replicas") : nullptr;
    if (replicas != nullptr && replicas->IsInt() && replicas->AsInt() != 1) {
      findings.Reject(Diagnostic{.where = KeyOrigin(sent, "replicas"),
                                 .subject = subject,
                                 .field = path + ".replicas",
                                 .message = "always must be 1"});
    }
    const Tree* pod_spec = At(rjob, {"template", "spec", "template", "spec"});
    const Tree* containers = pod_spec ? pod_spec->Find("containers") : nullptr;
    bool found = false;
    for (std::size_t c = 0; containers && containers->IsList() && c < containers->items().size(); ++c) {
      const std::string* name = containers->items()[c].FindString("name");
      found = found || (name && *name == required);
    }
    if (!found) {
      Origin where = pod_spec ? KeyOrigin(*pod_spec, "containers") : rjob.origin();
      findings.Reject(
          Diagnostic{.where = where,
                     .subject = subject,
                     .field = path + ".template.spec.template.spec.containers",
                     .message = fmt::format("must contain the required container for the ancestor: {}", *ancestor)});
    }
  }
}

}  // namespace trainer
