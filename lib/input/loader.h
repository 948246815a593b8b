// Loading inputs: files, directories and stdin into TrainJobs and runtimes, and runtime lookup.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/types.h"
#include "api/validation.h"

namespace trainer {

// The file system, behind an interface so that tests stay hermetic. When the loader parses ahead,
// two threads read files at once (ReadFile).
class FileSystem {
 public:
  enum class Kind { kMissing, kFile, kDirectory, kOther };
  virtual ~FileSystem() = default;
  virtual Kind Stat(const std::string& path) = 0;
  // Throws Error naming the path when it cannot be read.
  virtual std::string ReadFile(const std::string& path) = 0;
  virtual std::string ReadStdin() = 0;
  // Every *.yaml and *.yml file under `dir`, recursively, in sorted order.
  virtual std::vector<std::string> ListYamlFiles(const std::string& dir) = 0;
  // A key that is equal for two paths naming the same file.
  virtual std::string Identity(const std::string& path) = 0;
  // The size of a regular file; nothing when unknown (a FIFO, a device).
  virtual std::optional<std::uintmax_t> FileSize(const std::string& path) = 0;
};

std::unique_ptr<FileSystem> NewRealFileSystem();

// Where the loader reads and parses its inputs. yaml-cpp's parse is most of what trainer does, so
// with kAuto, inputs of kParseAheadBytes or more in all are read and parsed on a second thread
// (when the machine has a second core), a few documents ahead of the thread that checks them and
// hands TrainJobs over. Everything else, the JobHandler included, runs on the calling thread, in
// input order, either way.
// A stream parsed ahead that is longer than kParsePieceBytes is cut into pieces (ParseSplit in
// yaml/reader.h), parsed side by side by the second thread and the calling one, which parses a
// piece itself whenever the next one to hand over is not parsed yet. Pieces are a sixteenth of the
// stream, between kParsePieceBytes and four times that: the documents of the last piece are
// loaded by the calling thread alone, after every piece is parsed, so short streams get small
// pieces; long ones get fewer. When a few short files come before the first long stream, that
// stream is read first, and the calling thread parses its pieces while it waits for theirs.
enum class ParseAhead { kAuto, kNever, kAlways };
inline constexpr std::size_t kParseAheadBytes = 64 * 1024;
inline constexpr std::size_t kParsePieceBytes = 4 * 1024;
inline std::size_t ParsePieceBytes(std::size_t stream_bytes) {
  return std::clamp(stream_bytes / 16, kParsePieceBytes, 4 * kParsePieceBytes);
}

struct LoadOptions {
  std::vector<std::string> paths;          // TrainJobs and runtimes; "-" is stdin
  std::vector<std::string> runtime_paths;  // runtimes only (-r)
  std::string default_namespace = "default";
  // Unknown fields, CRD schema rules and the runtime webhooks' rules: errors, warnings, or unchecked.
  ValidationMode validate = ValidationMode::kStrict;
  // Whether the inputs are read and parsed on a second thread (tests force either way).
  ParseAhead parse_ahead = ParseAhead::kAuto;
};

struct Inputs {
  std::deque<std::string> names;  // file names as given; Origins point into this
  std::vector<TrainJob> jobs;     // in input order
  std::vector<Runtime> runtimes;
  std::vector<std::string> notices;  // one line per skipped document
  std::vector<Diagnostic> warnings;  // what --validate=warn lets through, and deprecation warnings
  std::vector<Diagnostic> errors;    // LoadAll only: the problems of the documents left out
  std::unordered_set<std::string> refused_runtimes;  // LoadAll only: keys of runtimes left out for their problems
  std::unordered_map<std::string, std::size_t> runtime_index;  // runtimes by key (kind/namespace/name)
  std::unordered_set<const std::string*> malformed_files;      // entries of `names` that are not valid YAML

  // Whether `job` refers to a runtime that was left out for its problems, which explain the job's.
  bool RefersToRefusedRuntime(const TrainJob& job) const;

  // Whether the runtime `job` refers to has been read, loaded or refused: no later input changes
  // how the job resolves, short of a conflicting second definition, which is an error anyway.
  bool RuntimeSettled(const TrainJob& job) const;

  // The runtime a TrainJob refers to, as the controller looks it up. Throws Error.
  const Runtime& Resolve(const TrainJob& job) const;
};

// Reads every input, checking each object as the API server and the runtime webhooks would on
// create (see LoadOptions::validate). Collects the problems of all documents and throws them
// together.
Inputs Load(const LoadOptions& options, FileSystem& fs);

// Takes each TrainJob as it loads, with the inputs read so far (the runtimes before it).
using JobHandler = std::function<void(const Inputs& so_far, TrainJob& job)>;

// The same, but the problems stay in Inputs::errors, and the objects without problems are loaded,
// so that later steps can report theirs too. With `on_job`, each TrainJob goes to it as soon as
// it loads instead of to Inputs::jobs, and is not kept: input streams are read one document at a
// time, so memory does not grow with the number of TrainJobs. A TrainJob handed over may belong to
// a stream that turns out malformed later; its file is then in Inputs::malformed_files.
Inputs LoadAll(const LoadOptions& options, FileSystem& fs, const JobHandler& on_job = {});

// "Kind ns/name" or "Kind name" for cluster-scoped runtimes.
std::string Subject(const Runtime& runtime);

}  // namespace trainer
