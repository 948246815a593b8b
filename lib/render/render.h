// `trainer render`: every object the controller would create for the input TrainJobs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/interface.h"
#include "input/loader.h"
#include "yaml/writer.h"

namespace trainer {

struct RenderRequest {
  enum class Format { kYaml, kJson };
  LoadOptions load;
  RenderOptions render;
  Format format = Format::kYaml;
  std::vector<std::string> show_only;  // KIND or KIND/NAME, case-insensitive kinds
  bool explain = false;                // YAML: a comment on each value saying where it came from
};

struct RenderedFile {
  std::string name;  // <group>_<version>_<kind>_<namespace>_<name>.yaml
  std::string content;
};

struct RenderResult {
  std::string output;               // the whole stdout text
  std::vector<RenderedFile> files;  // one per object, for --output-dir
  std::vector<std::string> notices; // for stderr
  std::vector<Diagnostic> warnings;  // for stderr, with FormatWarning
};

// The objects of one TrainJob, the JobSet first.
struct RenderedJob {
  const TrainJob* job;
  const Runtime* runtime;
  std::vector<Tree> objects;
};

// Renders every TrainJob of `inputs` (which must outlive the result: origins point into it), each
// first judged by the TrainJob webhook as options.validate says; its warnings go to `warnings`
// when given. All or nothing: throws Error holding every problem of every TrainJob.
std::vector<RenderedJob> RenderJobs(const Inputs& inputs, const RenderOptions& options,
                                    std::vector<Diagnostic>* warnings = nullptr);

// "# Source: <file>: TrainJob <ns>/<name> -> <RuntimeKind>/<name>\n", the comment before each object.
std::string SourceComment(const TrainJob& job, const Runtime& runtime);

// Explains origins in terms of the inputs: "TrainJob job.yaml:14 spec.trainer.image, set by MPI",
// "ClusterTrainingRuntime rt.yaml:30", "CRD default", "set by JobSet".
Explain OriginExplainer(const Inputs& inputs);

// Loads, renders every TrainJob, and formats the result. All or nothing: throws Error holding
// every problem of every TrainJob.
RenderResult Render(const RenderRequest& request, FileSystem& fs);

}  // namespace trainer
