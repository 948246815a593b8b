// --skip-non-trainer: which input files hold a Trainer object.
#include "app/trainer_files.h"

#include <string_view>

#include "api/types.h"
#include "util/error.h"
#include "yaml/reader.h"

namespace trainer::app {

namespace {

// Whether the loader reads `doc`: a Trainer object, or a JobSet.
bool IsTrainerObject(const Tree& doc) {
  if (!doc.IsMap()) return false;
  const std::string* kind = doc.FindString("kind");
  const std::string* api_version = doc.FindString("apiVersion");
  if (kind != nullptr && (*kind == kTrainJobKind || *kind == kTrainingRuntimeKind || *kind == kClusterTrainingRuntimeKind)) {
    return true;
  }
  if (api_version != nullptr && api_version->rfind(std::string(kTrainerGroup) + "/", 0) == 0) return true;
  if (kind != nullptr && api_version != nullptr && IsJobSet(*api_version, *kind)) return true;
  const Tree* items = doc.Find("items");
  if (kind != nullptr && items != nullptr && items->IsList() && std::string_view(*kind).ends_with("List")) {
    for (const Tree& item : items->items()) {
      if (IsTrainerObject(item)) return true;
    }
  }
  return false;
}

bool HoldsTrainerObject(const std::string& path, FileSystem& fs) {
  std::string content;
  try {
    content = fs.ReadFile(path);
  } catch (const Error&) {
    return true;  // the loader reports it
  }
  try {
    for (const Tree& doc : ReadYamlStream(content, &path)) {
      if (IsTrainerObject(doc)) return true;
    }
    return false;
  } catch (const Error&) {
    return content.find(kTrainerGroup) != std::string::npos;
  }
}

}  // namespace

std::vector<std::string> KeepTrainerFiles(const std::vector<std::string>& paths, FileSystem& fs) {
  std::vector<std::string> kept;
  for (const std::string& path : paths) {
    if (path == "-") {
      kept.push_back(path);
      continue;
    }
    switch (fs.Stat(path)) {
      case FileSystem::Kind::kDirectory:
        for (const std::string& file : fs.ListInputFiles(path)) {
          if (HoldsTrainerObject(file, fs)) kept.push_back(file);
        }
        break;
      case FileSystem::Kind::kFile:
        if (HoldsTrainerObject(path, fs)) kept.push_back(path);
        break;
      case FileSystem::Kind::kMissing:
      case FileSystem::Kind::kOther:  // a pipe can be read only once: the loader reads it
        kept.push_back(path);
        break;
    }
  }
  return kept;
}

}  // namespace trainer::app
