// An in-memory FileWriter for hermetic tests: from its n-th write on, all writes fail (a full
// disk); its n-th rename can fail.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>

#include "util/error.h"
#include "util/staged_files.h"

namespace trainer::testing {

class FakeFileWriter : public FileWriter {
 public:
  std::map<std::string, std::string> files;  // path -> content
  std::map<std::string, FileAccess> access;  // path -> who may read it, for each file written
  std::map<std::string, Kind> others;        // folders, symbolic links...: never written
  int fail_write = -1;                       // counting from 0; -1: none
  int fail_rename = -1;
  std::string write_error = "No space left on device";
  int writes = 0;

  std::string WriteTemporary(const std::string& path, std::string_view content, FileAccess how) override {
    if (writes++ >= fail_write && fail_write >= 0) throw Error(path + ": cannot write: " + write_error);
    std::string name = TemporaryTemplate(path);
    name.replace(name.size() - 6, 6, fmt::format("{:06}", writes));
    files[name] = content;
    access[path] = how;
    return name;
  }
  Kind KindOf(const std::string& path) override {
    if (auto it = others.find(path); it != others.end()) return it->second;
    return files.count(path) ? Kind::kFile : Kind::kMissing;
  }
  bool MakeDirectories(const std::string& path) override { return others.emplace(path, Kind::kDirectory).second; }
  void Rename(const std::string& from, const std::string& to) override {
    if (renames_++ == fail_rename) throw Error(to + ": cannot rename " + from + " to it: Input/output error");
    files[to] = files.at(from);
    files.erase(from);
  }
  void Remove(const std::string& path) override {
    files.erase(path);
    if (auto it = others.find(path); it != others.end() && it->second == Kind::kDirectory) others.erase(it);
  }

 private:
  int renames_ = 0;
};

}  // namespace trainer::testing
