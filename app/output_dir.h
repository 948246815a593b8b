// `trainer render --output-dir DIR`: one file per object, all renamed into place at the end.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "render/render.h"
#include "util/staged_files.h"

namespace trainer::app {

// A file of --output-dir that cannot be written (a full disk, a folder that refuses it). Not an
// Error on purpose: the renderer keeps each TrainJob's Errors and goes on with the next one, but
// this failure would be the same for every TrainJob, so it ends the render with one message.
class OutputDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Each object's file is written to a temporary file in DIR as it renders (lib/util/staged_files.h)
// and all are renamed into place by Commit, once every TrainJob rendered. Dropped uncommitted, it
// removes what it wrote (and DIR, when it made it and it is empty).
class DirSink : public RenderSink {
 public:
  DirSink(std::string dir, FileWriter& writer);
  DirSink(const DirSink&) = delete;
  DirSink& operator=(const DirSink&) = delete;
  ~DirSink() override;

  bool WantsFiles() const override { return true; }
  // Throws OutputDirError, also for a second object of the same file name.
  void File(const std::string& name, std::string_view yaml, FileAccess access) override;
  // Renames every file into place. Throws Error naming each destination it refuses (a folder, a
  // symbolic link) before renaming any, or the files replaced before a rename failed.
  void Commit();

 private:
  std::string dir_;
  FileWriter& writer_;
  StagedFiles staged_;
  std::set<std::string> names_;
  bool started_ = false;
  bool made_dir_ = false;
  bool done_ = false;
};

}  // namespace trainer::app
