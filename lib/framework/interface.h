// One interface per extension point, as upstream pkg/runtime/framework/interface.go.
//
// The pipeline (core/pipeline.cpp) runs the points in this order: EnforceMLPolicy,
// EnforcePodGroupPolicy, EnforcePodSpec, PreBuildSync, Build. Validate runs on its own, as the
// admission webhook does. Within one point, plugins run in registry order (plugins/registry.cpp).
// Plugins report problems by throwing Error; Validate collects into Diagnostics instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "api/validation.h"
#include "runtime/info.h"
#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

// Options that select behaviour across plugins.
struct RenderOptions {
  // The JobSet builder sets the TrainJob image on every trainer-ancestor `node` container, as the
  // controller did before the MLPolicy plugins took it over (docs: image-behaviour-change).
  bool legacy_image = false;
  // MPI: a fresh ECDSA P-521 key pair in the SSH auth Secret instead of the fixed placeholder.
  bool generate_ssh_keys = false;
  // Flux: a directory holding upstream's broker.toml, entrypoint.sh and init.sh templates, to
  // render the entrypoint ConfigMap's scripts in full; empty for the values-only ConfigMap.
  std::string flux_templates_dir;
  // The order plugins run in within an extension point: "" for the registry order, "reversed", or
  // "rotated:N" (the registry order starting at entry N). Upstream's order is random; this lets
  // tests find outputs that depend on it.
  std::string plugin_order;
  // Admission: whether the TrainJob webhook's rejections are errors, warnings, or not checked.
  ValidationMode validate = ValidationMode::kStrict;
  // The output size limit: a rendering of more bytes fails (trainer(1), INPUT LIMITS), and no
  // object grows much past it in memory (a few kilobytes of numNodes can ask for gigabytes).
  std::size_t max_output_bytes = kMaxRenderedBytes;
  // And of more values, as `trainer diff` reads them back (yaml/reader.h: kMaxRenderedValues).
  std::size_t max_output_values = kMaxRenderedValues;
};

// The error of a rendering past RenderOptions::max_output_bytes or max_output_values, at the
// TrainJob's numNodes (what makes a rendering large) or at the TrainJob. It ends the whole render,
// not just the TrainJob's.
class OutputLimitError : public Error {
 public:
  enum class Unit { kBytes, kValues };
  OutputLimitError(const TrainJob& job, std::size_t limit, Unit unit = Unit::kBytes);
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Sets the ML framework parameters of the runtime's mlPolicy on the Info. Like upstream, a plugin
// may also change the TrainJob's trainer command and args, which the JobSet builder then applies;
// the pipeline hands plugins its own working copy of the TrainJob.
class EnforceMLPolicyPlugin : public virtual Plugin {
 public:
  virtual void EnforceMLPolicy(Info& info, TrainJob& job) = 0;
};

// Sets gang-scheduling parameters; runs after every EnforceMLPolicy, which may change counts.
class EnforcePodGroupPolicyPlugin : public virtual Plugin {
 public:
  virtual void EnforcePodGroupPolicy(Info& info, const TrainJob& job) = 0;
};

// Changes PodSets for concerns outside mlPolicy and podGroupPolicy; runs after both.
class EnforcePodSpecPlugin : public virtual Plugin {
 public:
  virtual void EnforcePodSpec(std::vector<PodSet>& pod_sets, const TrainJob& job) = 0;
};

// Consolidates the Info with the template before anything is built; only the template's owner.
class PreComponentBuilderPlugin : public virtual Plugin {
 public:
  virtual void PreBuildSync(Info& info, const TrainJob& job) = 0;
};

// Builds objects from the consolidated Info; appends them to `objects`.
class ComponentBuilderPlugin : public virtual Plugin {
 public:
  virtual void Build(Info& info, const TrainJob& job, std::vector<Tree>& objects) = 0;
};

// Admission checks of a TrainJob against its runtime; `old_job` is null on create.
class CustomValidationPlugin : public virtual Plugin {
 public:
  virtual void Validate(const Info* info, const TrainJob* old_job, const TrainJob& job, Diagnostics& errors) = 0;
};

}  // namespace trainer
