#include "runtime/trainer_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "api/decode.h"
#include "runtime/info.h"
#include "util/suggest.h"

namespace trainer {

namespace {

const std::string* Label(const Tree& labels, std::string_view key) { return labels.IsMap() ? labels.FindString(key) : nullptr; }

// The ancestor label of a replicatedJob: the runtime's, unless a runtime patch of the TrainJob
// sets it on the job of that name (the last patch wins, as they apply in order).
std::optional<std::string> AncestorOf(const Tree& rjob, const std::string& name, const TrainJob& job) {
  std::optional<std::string> ancestor;
  const Tree* tmpl = rjob.Find("template");
  const Tree* meta = tmpl && tmpl->IsMap() ? tmpl->Find("metadata") : nullptr;
  const Tree* labels = meta && meta->IsMap() ? meta->Find("labels") : nullptr;
  if (labels) {
    if (const std::string* value = Label(*labels, kLabelTrainJobAncestor)) ancestor = *value;
  }
  for (const RuntimePatch& patch : job.spec.runtime_patches) {
    if (!patch.template_ || !patch.template_->replicated_jobs) continue;
    for (const ReplicatedJobPatch& p : *patch.template_->replicated_jobs) {
      if (p.name != name || !p.job_metadata || !p.job_metadata->labels) continue;
      auto it = p.job_metadata->labels->find(kLabelTrainJobAncestor);
      if (it != p.job_metadata->labels->end()) ancestor = it->second;
    }
  }
  return ancestor;
}

// The names of the containers of a replicatedJob's pod template.
std::vector<std::string> ContainerNames(const Tree& rjob) {
  std::vector<std::string> names;
  const Tree* at = &rjob;
  for (const char* key : {"template", "spec", "template", "spec", "containers"}) {
    at = at->IsMap() ? at->Find(key) : nullptr;
    if (at == nullptr) return names;
  }
  if (!at->IsList()) return names;
  for (const Tree& c : at->items()) {
    const std::string* name = c.IsMap() ? c.FindString("name") : nullptr;
    if (name) names.push_back(*name);
  }
  return names;
}

}  // namespace

std::vector<Diagnostic> UnreceivedTrainerFields(const TrainJob& job, const Runtime& runtime) {
  std::vector<Diagnostic> warnings;
  if (!job.spec.trainer) return warnings;
  const TrainerSpec& trainer = *job.spec.trainer;
  const MLPolicy* ml = runtime.spec.ml_policy ? &*runtime.spec.ml_policy : nullptr;
  const bool mpi = ml && ml->mpi;
  const bool flux = ml && ml->flux;
  const bool launcher_as_node = mpi && ml->mpi->run_launcher_as_node.value_or(false);
  bool trainer_job = false;   // a trainer-ancestor job, which takes numNodes as its count
  bool trainer_node = false;  // a trainer-ancestor job with a node container
  bool env_node = false;      // where env goes besides: the MPI node job, when the launcher is a node
  bool node_job = false;      // a job named "node", whose count MPI sets from numNodes
  std::string detail;         // the first likely cause: a misspelt label, a container otherwise named
  const Tree* rjobs = runtime.spec.template_.spec.IsMap() ? runtime.spec.template_.spec.Find("replicatedJobs") : nullptr;
  if (rjobs && rjobs->IsList()) {
    for (const Tree& rjob : rjobs->items()) {
      const std::string* name_field = rjob.IsMap() ? rjob.FindString("name") : nullptr;
      const std::string name = name_field ? *name_field : std::string();
      const std::optional<std::string> ancestor = AncestorOf(rjob, name, job);
      const std::vector<std::string> containers = ContainerNames(rjob);
      const bool has_node = std::find(containers.begin(), containers.end(), kNode) != containers.end();
      const std::string_view expected[] = {kAncestorTrainer};
      if (ancestor && *ancestor == kAncestorTrainer) {
        trainer_job = true;
        trainer_node = trainer_node || has_node;
        if (!has_node && detail.empty()) {
          std::string names;
          for (const std::string& c : containers) names += (names.empty() ? "\"" : ", \"") + c + "\"";
          detail = fmt::format("; its trainer job \"{}\" has no container named \"{}\" ({})", name, kNode,
                               names.empty() ? std::string("no containers") : "containers " + names);
        }
      } else if (ancestor && detail.empty() && NearestName(*ancestor, expected)) {
        detail = fmt::format("; replicatedJob \"{}\" is labelled \"{}\": did you mean \"{}\"?", name, *ancestor,
                             kAncestorTrainer);
      }
      if (launcher_as_node && name == kNode && has_node) env_node = true;
      if (name == kNode) node_job = true;
    }
  }
  const std::string subject = Subject(job);
  auto at = [&](const char* field) {
    const Origin where = job.positions.Find(field);
    return where.HasPosition() ? where : job.origin;
  };
  // numNodes 0 is valid, and the controller makes a Job of no pods of it (MPI under
  // runLauncherAsNode keeps one node, and the launcher runs either way).
  const bool counted = flux || (mpi ? node_job : trainer_job);
  if (trainer.num_nodes == 0 && counted && !launcher_as_node) {
    warnings.push_back(
        Diagnostic{.where = at("spec.trainer.numNodes"),
                   .subject = subject,
                   .field = "spec.trainer.numNodes",
                   .message = mpi ? "is 0, which is valid: the controller starts the MPI launcher and no node pods"
                                  : "is 0, which is valid: the controller starts no training pods"});
  }
  if (trainer_node) return warnings;
  const std::string runtime_name = Subject(runtime);
  auto warn = [&](const char* field, std::string_view receiver, std::string_view holder) {
    warnings.push_back(Diagnostic{
        .where = at(field),
        .subject = subject,
        .field = field,
        .message =
            fmt::format("no {} receives it, and the controller drops it: {} has no replicatedJob labelled {}: {}{}{}",
                        receiver, runtime_name, kLabelTrainJobAncestor, kAncestorTrainer, holder, detail)});
  };
  const std::string with_node = fmt::format(" with a \"{}\" container", kNode);
  auto dropped = [&](const char* field) { warn(field, "container", with_node); };
  if (trainer.image) dropped("spec.trainer.image");
  if (trainer.command) dropped("spec.trainer.command");
  if (trainer.args) dropped("spec.trainer.args");
  if (!trainer.env.empty() && !env_node) dropped("spec.trainer.env");
  // MPI counts its "node" job and settles its slots whatever the labels say; Flux writes all three
  // into its entrypoint.
  if (trainer.num_nodes && !counted) warn("spec.trainer.numNodes", "replicatedJob", "");
  if (trainer.num_proc_per_node && !mpi && !flux) dropped("spec.trainer.numProcPerNode");
  if (trainer.resources_per_node && !mpi && !flux) dropped("spec.trainer.resourcesPerNode");
  return warnings;
}

}  // namespace trainer
