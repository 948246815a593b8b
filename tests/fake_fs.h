// An in-memory FileSystem for hermetic tests.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "input/loader.h"
#include "util/error.h"

namespace trainer::testing {

class FakeFileSystem : public FileSystem {
 public:
  std::map<std::string, std::string> files;  // path -> content; directories are path prefixes
  std::string stdin_content;

  Kind Stat(const std::string& path) override {
    if (files.count(path)) return Kind::kFile;
    for (const auto& [p, _] : files) {
      if (p.rfind(path + "/", 0) == 0) return Kind::kDirectory;
    }
    return Kind::kMissing;
  }
  std::string ReadFile(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) throw Error(path + ": cannot open");
    return it->second;
  }
  std::string ReadStdin() override { return stdin_content; }
  std::vector<std::string> ListInputFiles(const std::string& dir) override {
    std::vector<std::string> out;
    for (const auto& [p, _] : files) {
      if (p.rfind(dir + "/", 0) == 0 && IsInputFileName(p.substr(p.rfind('/') + 1))) out.push_back(p);
    }
    return out;  // std::map keeps them sorted
  }
  std::string Identity(const std::string& path) override { return path; }
};

}  // namespace trainer::testing
