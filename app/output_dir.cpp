#include "app/output_dir.h"

#include <fmt/format.h>

#include <utility>

#include "util/error.h"

namespace trainer::app {

DirSink::DirSink(std::string dir, FileWriter& writer)
    : dir_(std::move(dir)), writer_(writer), staged_(writer, fmt::format("--output-dir {}: ", dir_)) {}

DirSink::~DirSink() {
  if (done_) return;
  staged_.Discard();
  if (!made_dir_) return;
  try {
    writer_.Remove(dir_);  // only when empty
  } catch (const Error&) {
  }
}

void DirSink::File(const std::string& name, std::string_view yaml, FileAccess access) {
  const std::string context = fmt::format("--output-dir {}: ", dir_);
  if (!started_) {
    started_ = true;
    try {
      made_dir_ = writer_.MakeDirectories(dir_);
    } catch (const Error& e) {
      throw OutputDirError(context + e.what());
    }
  }
  const std::string path = fmt::format("{}/{}", dir_, name);
  if (!names_.insert(name).second) {
    throw OutputDirError(fmt::format("{}{}: two objects have this file name; no file was replaced", context, path));
  }
  try {
    staged_.Stage(path, yaml, access);
  } catch (const Error& e) {
    throw OutputDirError(e.what());  // which says the context
  }
}

void DirSink::Commit() {
  staged_.Commit();
  done_ = true;
}

}  // namespace trainer::app
