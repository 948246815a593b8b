#include "diff/reasons.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/info.h"
#include "util/quote.h"

namespace trainer {

namespace {

// The image field of one container of one replicatedJob of a JobSet, as a diff path names it:
// spec.replicatedJobs[name=J].template.spec.template.spec.(init)containers[name=C].image
struct ContainerImage {
  std::string job;
  std::string container;
};

std::optional<ContainerImage> ContainerImageAt(const ReasonContext& context, const Path& path) {
  if (context.id == nullptr || context.id->kind != "JobSet" ||
      !context.id->api_version.starts_with("jobset.x-k8s.io/")) {
    return std::nullopt;
  }
  using K = PathSegment::Kind;
  constexpr std::string_view kKeys[] = {"spec",     "replicatedJobs", "", "template", "spec",
                                        "template", "spec",           "", "",         "image"};
  if (path.size() != std::size(kKeys)) return std::nullopt;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (kKeys[i].empty()) continue;
    if (path[i].kind != K::kKey || path[i].name != kKeys[i]) return std::nullopt;
  }
  const PathSegment& job = path[2];
  const PathSegment& list = path[7];
  const PathSegment& container = path[8];
  if (job.kind != K::kItem || job.name != "name" || container.kind != K::kItem || container.name != "name") {
    return std::nullopt;
  }
  if (list.kind != K::kKey || (list.name != "containers" && list.name != "initContainers")) return std::nullopt;
  return ContainerImage{job.value, container.value};
}

const Tree* FindByName(const Tree* list, std::string_view name) {
  if (list == nullptr || !list->IsList()) return nullptr;
  for (const Tree& item : list->items()) {
    const std::string* n = item.IsMap() ? item.FindString("name") : nullptr;
    if (n && *n == name) return &item;
  }
  return nullptr;
}

const Tree* Walk(const Tree* t, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    if (t == nullptr || !t->IsMap()) return nullptr;
    t = t->Find(key);
  }
  return t;
}

// The names of the replicatedJobs of a JobSet spec labelled as trainer ancestors, in list order.
std::vector<std::string> TrainerAncestorJobs(const Tree* jobset_spec) {
  std::vector<std::string> names;
  const Tree* jobs = Walk(jobset_spec, {"replicatedJobs"});
  if (jobs == nullptr || !jobs->IsList()) return names;
  for (const Tree& job : jobs->items()) {
    const Tree* labels = Walk(&job, {"template", "metadata", "labels"});
    const std::string* ancestor = labels && labels->IsMap() ? labels->FindString(kLabelTrainJobAncestor) : nullptr;
    const std::string* name = job.IsMap() ? job.FindString("name") : nullptr;
    if (ancestor && *ancestor == kAncestorTrainer && name) names.push_back(*name);
  }
  return names;
}

// The image the runtime's template gives the named container of the named replicatedJob; null
// when the runtime sets none.
const Tree* RuntimeImage(const Runtime& runtime, const ContainerImage& at) {
  const Tree* job = FindByName(Walk(&runtime.spec.template_.spec, {"replicatedJobs"}), at.job);
  const Tree* pod = Walk(job, {"template", "spec", "template", "spec"});
  const Tree* container = FindByName(Walk(pod, {"containers"}), at.container);
  if (container == nullptr) container = FindByName(Walk(pod, {"initContainers"}), at.container);
  return Walk(container, {"image"});
}

// MPI sets the TrainJob image on the node container of the `node` Job too, which the legacy
// builder left with the runtime's image.
bool MPINodeImage(const ReasonContext& context, const FieldChange& change) {
  if (context.runtime == nullptr || !context.runtime->spec.ml_policy || !context.runtime->spec.ml_policy->mpi) {
    return false;
  }
  if (change.kind != FieldChange::Kind::kModified && change.kind != FieldChange::Kind::kAdded) return false;
  auto at = ContainerImageAt(context, change.path);
  return at && at->job == kNode && at->container == kNode;
}

// What the runtime's node container of the node Job runs: "command and args" and its words
// (each Printable), and whether to say "them"; no words when it sets neither.
struct NodeCommand {
  std::string what;
  std::vector<std::string> words;
  bool plural = true;
};

NodeCommand NodeCommandOf(const Runtime& runtime) {
  const Tree* job = FindByName(Walk(&runtime.spec.template_.spec, {"replicatedJobs"}), kNode);
  const Tree* container = FindByName(Walk(job, {"template", "spec", "template", "spec", "containers"}), kNode);
  NodeCommand out;
  bool command = false;
  bool args = false;
  for (std::string_view key : {"command", "args"}) {
    const Tree* list = Walk(container, {key});
    if (list == nullptr || !list->IsList() || list->items().empty()) continue;
    (key == "command" ? command : args) = true;
    for (const Tree& word : list->items()) {
      if (word.IsScalar()) out.words.push_back(Printable(word.text()));
    }
  }
  out.what = command && args ? "command and args" : command ? "command" : "args";
  out.plural = args;
  return out;
}

std::string MPINodeImageAsks(const ReasonContext& context) {
  NodeCommand node = context.runtime ? NodeCommandOf(*context.runtime) : NodeCommand{};
  if (node.words.empty()) {
    return "the runtime sets no command for the MPI nodes: they now start the TrainJob image's entrypoint, which "
           "must run the MPI node (its SSH server)";
  }
  const char* pronoun = node.plural ? "them" : "it";
  return fmt::format(
      "the MPI nodes keep the runtime's {} (`{}`) and now run {} from the TrainJob image, which must "
      "ship {}",
      node.what, fmt::join(node.words, " "), pronoun, pronoun);
}

// The legacy builder set the TrainJob image on the node container of every trainer-ancestor Job;
// the ML policy plugins set it on the first one only, so the others keep the runtime's image.
bool FirstTrainerAncestorOnly(const ReasonContext& context, const FieldChange& change) {
  if (context.runtime == nullptr || context.to == nullptr) return false;
  auto at = ContainerImageAt(context, change.path);
  if (!at || at->container != kNode) return false;
  std::vector<std::string> trainers = TrainerAncestorJobs(Walk(context.to, {"spec"}));
  if (trainers.size() < 2 || trainers.front() == at->job ||
      std::find(trainers.begin(), trainers.end(), at->job) == trainers.end()) {
    return false;
  }
  const Tree* runtime_image = RuntimeImage(*context.runtime, *at);
  switch (change.kind) {
    case FieldChange::Kind::kModified: return runtime_image && change.to && *change.to == *runtime_image;
    case FieldChange::Kind::kRemoved: return runtime_image == nullptr;
    default: return false;
  }
}

// The known breaking changes, most specific first: the first rule that applies names the reason.
constexpr BreakingChange kBreakingChanges[] = {
    {"mpi-node-image", "MPI nodes now run the TrainJob image", MPINodeImage, MPINodeImageAsks},
    {"first-trainer-ancestor-image", "the TrainJob image now goes only to the first trainer-ancestor Job",
     FirstTrainerAncestorOnly, nullptr},
};

}  // namespace

std::span<const BreakingChange> BreakingChanges() { return kBreakingChanges; }

std::string ReasonFor(const ReasonContext& context, const FieldChange& change) {
  for (const BreakingChange& b : kBreakingChanges) {
    if (b.applies(context, change)) return b.text;
  }
  return "";
}

std::string AsksFor(const ReasonContext& context, const FieldChange& change) {
  for (const BreakingChange& b : kBreakingChanges) {
    if (b.applies(context, change)) return b.asks ? b.asks(context) : "";
  }
  return "";
}

}  // namespace trainer
