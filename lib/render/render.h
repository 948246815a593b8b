// `trainer render`: every object the controller would create for the input TrainJobs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/interface.h"
#include "input/loader.h"
#include "util/staged_files.h"
#include "yaml/writer.h"

namespace trainer {

struct RenderRequest {
  enum class Format { kYaml, kJson, kName };  // kName: kind.group/name a line, as kubectl's -o name
  LoadOptions load;
  RenderOptions render;
  Format format = Format::kYaml;
  std::vector<std::string> show_only;  // KIND or KIND/NAME, case-insensitive kinds
  bool explain = false;                // YAML: a comment on each value saying where it came from
  // Print each TrainJob's runtime snapshot ConfigMap first among its objects, unless the input
  // holds it.
  bool snapshots = false;
  // Render each runtime of the inputs with its ProbeTrainJob: the inputs are read as runtimes
  // only (-r), so that the TrainJobs in them are not read.
  bool probe = false;
  // An input that holds no TrainJob (with probe: no runtime) renders nothing, which is an error
  // unless this is set.
  bool allow_empty = false;
};

// Takes the rendered output piece by piece, in order, while TrainJobs render one at a time. Nothing
// it takes is final until RenderTo returns: when RenderTo throws, the caller drops what it took
// (all or nothing).
class RenderSink {
 public:
  virtual ~RenderSink() = default;
  // The string the next piece of standard output (an object's YAML, or a part of the JSON List) is
  // appended to; nullptr when no standard output is wanted. Asked again before each piece, so that
  // the sink can start a new string.
  virtual std::string* OutputText() { return nullptr; }
  // Whether one YAML file per object is wanted (--output-dir).
  virtual bool WantsFiles() const { return false; }
  // One object's file: <group>_<version>_<kind>_<namespace>_<name>.yaml and its YAML document, or
  // with -o json .json and its JSON; kPrivate for a Secret.
  virtual void File(const std::string& name, std::string_view yaml, FileAccess access) {
    (void)name;
    (void)yaml;
    (void)access;
  }
};

// The standard output text, kept in memory until the render succeeded (--quiet: not formatted).
// Kept in pieces of about a MiB, each object written straight into one, so that a long output is
// written once and never copied at the doubling of a string.
class StringSink : public RenderSink {
 public:
  explicit StringSink(bool wants_output = true) : wants_output_(wants_output) {}
  std::string* OutputText() override;
  // The text in order, in pieces.
  const std::vector<std::string>& pieces() const { return pieces_; }
  // The whole text as one string.
  std::string text() const;

 private:
  bool wants_output_;
  std::vector<std::string> pieces_;
};

// What a render says besides its objects, for stderr.
struct RenderResult {
  std::vector<std::string> notices;  // one line per skipped document
  // One line per TrainJob that spec.managedBy hands to another controller: checked, not rendered.
  std::vector<std::string> unmanaged;
  std::vector<Diagnostic> warnings;  // with FormatWarning
};

// The objects of one TrainJob, the JobSet first.
struct RenderedJob {
  const TrainJob* job;
  const Runtime* runtime;  // the live runtime, or the one the snapshot holds
  std::vector<Tree> objects;
  const RuntimeSnapshot* snapshot = nullptr;  // the input's snapshot `runtime` came from, if it did
};

// Every TrainJob of `inputs` rendered (which must outlive the result: origins point into it), each
// first judged by the TrainJob webhook as options.validate says; its warnings go to `warnings`
// when given. For comparing whole renderings (CompareRenderings); RenderTo prints them. All or
// nothing: throws Error holding every problem of every TrainJob.
std::vector<RenderedJob> RenderJobs(const Inputs& inputs, const RenderOptions& options,
                                    std::vector<Diagnostic>* warnings = nullptr);

// Renders TrainJobs one at a time for the migration check, which keeps going: a TrainJob that
// cannot be rendered (its runtime missing or refused, the webhook refusing it) gives its problems,
// and the next one renders. The caller keeps of each rendering only what it needs; every rendering
// counts against options.max_output_bytes all the same.
class EachJobRenderer {
 public:
  // The TrainJobs' warnings go to `warnings` at Finish when given.
  explicit EachJobRenderer(const RenderOptions& options, std::vector<Diagnostic>* warnings = nullptr);
  ~EachJobRenderer();

  // `job` rendered, judged first by the TrainJob webhook as options.validate says; or nothing, and
  // its problems appended to `errors`. `inputs` must outlive the rendering (origins point into it).
  // Throws only the Error of the output size limit.
  std::optional<RenderedJob> Render(const Inputs& inputs, const TrainJob& job, std::vector<Diagnostic>& errors);

  // Hands the warnings over, leaving out those of TrainJobs in malformed streams.
  void Finish(const Inputs& inputs);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The JobSet of a TrainJob's rendered objects: the first, when it is one (a TrainJob's JobSet
// comes first); null otherwise.
const Tree* JobSetOf(const std::vector<Tree>& objects);

// "file:line: TrainJob ns/name is managed by X: the Trainer controller creates nothing for it".
std::string UnmanagedNotice(const TrainJob& job);

// "# Source: <file>: TrainJob <ns>/<name> -> <RuntimeKind>/<name>\n", the comment before each object;
// with " from ConfigMap <ns>/<name>" before the line break when the runtime came from `snapshot`.
std::string SourceComment(const TrainJob& job, const Runtime& runtime, const RuntimeSnapshot* snapshot = nullptr);

// Explains the origins of a TrainJob's rendered objects in terms of its inputs: "TrainJob
// job.yaml:14 spec.trainer.image, set by MPI", "ClusterTrainingRuntime rt.yaml:30", "CRD default",
// "set by JobSet"; a runtime from `snapshot` as "ClusterTrainingRuntime in ConfigMap ns/name dump.yaml:40".
Explain OriginExplainer(const TrainJob& job, const Runtime& runtime, const RuntimeSnapshot* snapshot = nullptr);

// The probe TrainJob of `render --probe` and `diff --legacy --runtimes-only` for `runtime`: named
// probe, in the runtime's namespace (or `default`), referring to it, with spec.trainer.image
// trainer-probe:latest and nothing else, as the loader would have decoded and defaulted it.
TrainJob ProbeTrainJob(const Runtime& runtime);

// Loads, renders the TrainJobs one at a time, and hands the formatted objects to `sink` as they
// render, so that memory does not grow with the number of TrainJobs. All or nothing: throws Error
// holding every problem of every TrainJob (and of --show-only, and of an input that renders nothing
// without allow_empty), and then `sink` must be dropped.
RenderResult RenderTo(const RenderRequest& request, FileSystem& fs, RenderSink& sink);

}  // namespace trainer
