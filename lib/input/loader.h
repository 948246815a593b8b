// Loading inputs: files, directories and stdin into TrainJobs and runtimes, and runtime lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/decode.h"  // Subject
#include "api/types.h"
#include "api/validation.h"
#include "runtime/snapshot.h"

namespace trainer {

// The file system, behind an interface so that tests stay hermetic.
class FileSystem {
 public:
  enum class Kind { kMissing, kFile, kDirectory, kOther };
  virtual ~FileSystem() = default;
  virtual Kind Stat(const std::string& path) = 0;
  // Throws Error naming the path when it cannot be read.
  virtual std::string ReadFile(const std::string& path) = 0;
  virtual std::string ReadStdin() = 0;
  // Every input file under `dir` (see IsInputFileName), recursively, in sorted order.
  virtual std::vector<std::string> ListInputFiles(const std::string& dir) = 0;
  // A key that is equal for two paths naming the same file.
  virtual std::string Identity(const std::string& path) = 0;
};

std::unique_ptr<FileSystem> NewRealFileSystem();

// Whether a file found in a directory is read: *.yaml, *.yml and *.json, as `kubectl apply -f DIR`
// reads them (JSON is read as the YAML it is).
bool IsInputFileName(std::string_view name);

// Whether an object is a JobSet (jobset.x-k8s.io, any version), which the loader reads as state.
bool IsJobSet(std::string_view api_version, std::string_view kind);

struct LoadOptions {
  std::vector<std::string> paths;          // TrainJobs and runtimes; "-" is stdin, once in both lists
  std::vector<std::string> runtime_paths;  // runtimes only (-r)
  std::string default_namespace = "default";
  // Whether default_namespace was given (-n): then an object naming another namespace is an error,
  // as kubectl's.
  bool namespace_given = false;
  // Unknown fields, CRD schema rules and the runtime webhooks' rules: errors, warnings, or unchecked.
  ValidationMode validate = ValidationMode::kStrict;
  // Names and namespaces become file names (--output-dir): those that break the API server's
  // metadata rules, and a bad default_namespace, are errors whatever `validate` says.
  bool names_in_file_names = false;
};

// A JobSet found in the inputs (a cluster dump holds them beside their TrainJobs): read as the
// state of the cluster by `diff --legacy`, never rendered and never reported as skipped.
struct JobSetState {
  std::string namespace_;  // the default namespace when the document names none
  std::string name;
  bool suspended = false;  // spec.suspend is true
  Origin origin;           // where the document starts
  Tree object;             // the document as read: the live JobSet the controller's next apply meets
};

struct Inputs {
  std::deque<std::string> names;  // file names as given; Origins point into this
  std::vector<TrainJob> jobs;     // in input order
  std::vector<Runtime> runtimes;
  std::vector<JobSetState> jobsets;  // in input order
  // The runtime snapshot ConfigMaps (<trainjob>-runtime-snapshot) of the TrainJobs read, in input
  // order; while loading, those of TrainJobs not read yet too (left out at the end, and counted
  // as skipped).
  std::deque<RuntimeSnapshot> snapshots;
  std::unordered_map<std::string, std::size_t> snapshot_index;  // by namespace/TrainJob name
  std::vector<std::string> skipped;  // the kind of each object skipped as not a Trainer object
  // Lines for stderr once loading is over: one summing up `skipped`, when it holds any.
  std::vector<std::string> notices;
  std::vector<Diagnostic> warnings;                  // what --validate=warn lets through, and deprecation warnings
  std::vector<Diagnostic> errors;                    // the problems of the documents left out
  std::unordered_set<std::string> refused_runtimes;  // keys of runtimes left out for their problems
  std::unordered_map<std::string, std::size_t> runtime_index;  // runtimes by key (kind/namespace/name)
  std::unordered_set<const std::string*> malformed_files;      // entries of `names` that are not valid YAML
  // While a source is read (so while a JobHandler runs): its text, to keep the lines problems
  // point at.
  const SourceText* current_source = nullptr;

  // Whether `job` refers to a runtime that was left out for its problems, which explain the job's.
  bool RefersToRefusedRuntime(const TrainJob& job) const;

  // Whether the runtime `job` refers to has been read, loaded or refused: no later input changes
  // how the job resolves, short of a conflicting second definition, which is an error anyway.
  bool RuntimeSettled(const TrainJob& job) const;

  // The snapshot ConfigMap named after `job` in its namespace, as the controller looks it up;
  // nullptr when there is none (so far).
  const RuntimeSnapshot* FindSnapshot(const TrainJob& job) const;

  // Whether `job`'s snapshot is settled: read, or sure to be of no use. A TrainJob without a uid
  // has not been created, and a ConfigMap named after it is another object's (CheckRuntimeSnapshot);
  // one with a uid comes from a cluster, and its snapshot may come later in the input.
  bool SnapshotSettled(const TrainJob& job) const;

  // The runtime a TrainJob refers to, as the controller looks it up. Throws Error; one of a
  // runtime not found among none loaded says how to get the cluster's (GetRuntimesHint), unless
  // hint_runtimes is false, and marks the kind in missed_runtimes.
  const Runtime& Resolve(const TrainJob& job) const;
  // diff --legacy says how to get the runtimes once, not for each TrainJob.
  bool hint_runtimes = true;
  // The kinds Resolve found no runtime of among none loaded.
  struct MissedRuntimes {
    bool cluster = false;
    bool namespaced = false;
  };
  mutable MissedRuntimes missed_runtimes;

  // Throws an Error holding every problem in `errors`, if there is any.
  void Checkpoint() const;
};

// How to get the cluster's runtimes of the kinds `missed` names: "save the cluster's runtimes with `kubectl get
// clustertrainingruntimes -o yaml > runtimes.yaml` and add `-r runtimes.yaml`"; TrainingRuntimes
// of `ns`, or of every namespace when `ns` is empty.
std::string GetRuntimesHint(Inputs::MissedRuntimes missed, std::string_view ns = {});

// Takes each TrainJob as it loads, with the inputs read so far (the runtimes before it).
using JobHandler = std::function<void(const Inputs& so_far, TrainJob& job)>;

// Reads every input, checking each object as the API server and the runtime webhooks would on
// create (see LoadOptions::validate). The problems of every document go to Inputs::errors
// (Inputs::Checkpoint throws them together), and the objects without problems are loaded, so that
// later steps can report theirs too. With `on_job`, each TrainJob goes to it as soon as it loads
// instead of to Inputs::jobs, and is not kept: input streams are read one document at a time, so
// memory does not grow with the number of TrainJobs. A TrainJob handed over may belong to a stream
// that turns out malformed later; its file is then in Inputs::malformed_files.
Inputs Load(const LoadOptions& options, FileSystem& fs, const JobHandler& on_job = {});

}  // namespace trainer
