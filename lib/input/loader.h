// Loading inputs: files, directories and stdin into TrainJobs and runtimes, and runtime lookup.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "api/types.h"

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
  // Every *.yaml and *.yml file under `dir`, recursively, in sorted order.
  virtual std::vector<std::string> ListYamlFiles(const std::string& dir) = 0;
  // A key that is equal for two paths naming the same file.
  virtual std::string Identity(const std::string& path) = 0;
};

std::unique_ptr<FileSystem> NewRealFileSystem();

struct LoadOptions {
  std::vector<std::string> paths;          // TrainJobs and runtimes; "-" is stdin
  std::vector<std::string> runtime_paths;  // runtimes only (-r)
  std::string default_namespace = "default";
};

struct Inputs {
  std::deque<std::string> names;  // file names as given; Origins point into this
  std::vector<TrainJob> jobs;     // in input order
  std::vector<Runtime> runtimes;
  std::vector<std::string> notices;  // one line per skipped document

  // The runtime a TrainJob refers to, as the controller looks it up. Throws Error.
  const Runtime& Resolve(const TrainJob& job) const;
};

// Reads every input. Collects the problems of all documents and throws them together.
Inputs Load(const LoadOptions& options, FileSystem& fs);

// "Kind ns/name" or "Kind name" for cluster-scoped runtimes.
std::string Describe(const Runtime& runtime);

}  // namespace trainer
