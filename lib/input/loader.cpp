#include "input/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include "api/decode.h"
#include "api/defaults.h"
#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

namespace fs = std::filesystem;

class RealFileSystem : public FileSystem {
 public:
  Kind Stat(const std::string& path) override {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return Kind::kMissing;
    if (fs::is_directory(status)) return Kind::kDirectory;
    if (fs::is_regular_file(status)) return Kind::kFile;
    return Kind::kOther;
  }

  std::string ReadFile(const std::string& path) override {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) throw Error(fmt::format("{}: cannot read", path));
    return std::move(content).str();
  }

  std::string ReadStdin() override {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }

  std::vector<std::string> ListYamlFiles(const std::string& dir) override {
    std::vector<std::string> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::follow_directory_symlink, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      auto ext = it->path().extension();
      if (ext == ".yaml" || ext == ".yml") files.push_back(it->path().string());
    }
    if (ec) throw Error(fmt::format("{}: cannot list: {}", dir, ec.message()));
    std::sort(files.begin(), files.end());
    return files;
  }

  std::string Identity(const std::string& path) override {
    std::error_code ec;
    auto canonical = fs::weakly_canonical(path, ec);
    return ec ? path : canonical.string();
  }
};

bool IsTrainerKind(const std::string& kind) {
  return kind == kTrainJobKind || kind == kTrainingRuntimeKind || kind == kClusterTrainingRuntimeKind;
}

std::string RuntimeKey(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind == kClusterTrainingRuntimeKind ? fmt::format("{}/{}", kind, name) : fmt::format("{}/{}/{}", kind, ns, name);
}

class Loader {
 public:
  Loader(const LoadOptions& options, FileSystem& fs, Inputs& inputs) : options_(options), fs_(fs), inputs_(inputs) {}

  void Run() {
    for (const auto& path : options_.paths) LoadPath(path, false);
    for (const auto& path : options_.runtime_paths) LoadPath(path, true);
    if (!errors_.empty()) throw Error(std::move(errors_));
  }

 private:
  void LoadPath(const std::string& path, bool runtimes_only) {
    if (path == "-") {
      if (stdin_read_) return;
      stdin_read_ = true;
      LoadStream(fs_.ReadStdin(), "<stdin>", runtimes_only);
      return;
    }
    switch (fs_.Stat(path)) {
      case FileSystem::Kind::kMissing:
        errors_.push_back(Diagnostic{{}, "", "", fmt::format("{}: no such file or directory", path)});
        return;
      case FileSystem::Kind::kDirectory:
        for (const auto& file : fs_.ListYamlFiles(path)) LoadFile(file, runtimes_only);
        return;
      case FileSystem::Kind::kFile:
      case FileSystem::Kind::kOther:  // FIFOs and devices are read as streams
        LoadFile(path, runtimes_only);
        return;
    }
  }

  void LoadFile(const std::string& path, bool runtimes_only) {
    if (!seen_files_.insert(fs_.Identity(path)).second) return;
    try {
      LoadStream(fs_.ReadFile(path), path, runtimes_only);
    } catch (const Error& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }

  void LoadStream(std::string content, const std::string& name, bool runtimes_only) {
    inputs_.names.push_back(name);
    const std::string* file = &inputs_.names.back();
    std::vector<Tree> documents;
    try {
      documents = ReadYamlStream(content, file);
    } catch (const Error& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
      return;
    }
    for (Tree& doc : documents) LoadDocument(std::move(doc), runtimes_only);
  }

  void LoadDocument(Tree doc, bool runtimes_only) {
    if (!doc.IsMap()) {
      errors_.push_back(Diagnostic{doc.origin(), "", "", fmt::format("expected an object, got {}", Tree::TypeName(doc.type()))});
      return;
    }
    TypeMeta tm = ReadTypeMeta(doc);
    if (tm.kind.empty()) {
      errors_.push_back(Diagnostic{doc.origin(), "", "kind", "Required value: every object needs a kind"});
      return;
    }
    if (tm.kind.size() >= 4 && tm.kind.compare(tm.kind.size() - 4, 4, "List") == 0 && doc.Find("items")) {
      Tree* items = doc.Find("items");
      if (!items->IsList()) {
        errors_.push_back(Diagnostic{items->origin(), "", "items", "expected an array"});
        return;
      }
      for (Tree& item : items->items()) LoadDocument(std::move(item), runtimes_only);
      return;
    }
    if (!IsTrainerKind(tm.kind)) {
      const Tree* meta = doc.Find("metadata");
      const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
      inputs_.notices.push_back(fmt::format("{}: skipping {} {}: not a Trainer object", doc.origin().Position(), tm.kind,
                                            name ? *name : std::string("(unnamed)")));
      return;
    }
    if (tm.api_version != kTrainerApiVersion) {
      const Tree* at = doc.Find("apiVersion");
      errors_.push_back(Diagnostic{at ? at->origin() : doc.origin(), tm.kind, "apiVersion",
                                   fmt::format("unsupported apiVersion \"{}\" for {}: expected {}", tm.api_version,
                                               tm.kind, kTrainerApiVersion)});
      return;
    }
    if (tm.kind != kClusterTrainingRuntimeKind) {
      // Namespaced objects without a namespace land in the default one, as with kubectl apply.
      Tree* meta = doc.Find("metadata");
      const Tree* ns = meta && meta->IsMap() ? meta->Find("namespace") : nullptr;
      if (meta && meta->IsMap() && (ns == nullptr || ns->IsNull())) {
        meta->Set("namespace", Tree::String(options_.default_namespace));
      }
    }
    try {
      if (tm.kind == kTrainJobKind) {
        if (runtimes_only) return;  // -r sources contribute runtimes only
        ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
        TrainJob job = DecodeTrainJob(doc);
        if (job.metadata.namespace_.empty()) job.metadata.namespace_ = options_.default_namespace;
        inputs_.jobs.push_back(std::move(job));
      } else {
        ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
        AddRuntime(DecodeRuntime(doc));
      }
    } catch (const Error& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }

  void AddRuntime(Runtime runtime) {
    if (runtime.kind == kClusterTrainingRuntimeKind) {
      runtime.metadata.namespace_.clear();
    } else if (runtime.metadata.namespace_.empty()) {
      runtime.metadata.namespace_ = options_.default_namespace;
    }
    std::string key = RuntimeKey(runtime.kind, runtime.metadata.namespace_, runtime.metadata.name);
    for (const Runtime& existing : inputs_.runtimes) {
      if (RuntimeKey(existing.kind, existing.metadata.namespace_, existing.metadata.name) != key) continue;
      if (existing.source == runtime.source) return;  // the same definition reached twice
      errors_.push_back(Diagnostic{runtime.origin, Describe(runtime), "",
                                   fmt::format("defined twice with different content (first at {})",
                                               existing.origin.Position())});
      return;
    }
    inputs_.runtimes.push_back(std::move(runtime));
  }

  const LoadOptions& options_;
  FileSystem& fs_;
  Inputs& inputs_;
  std::set<std::string> seen_files_;
  bool stdin_read_ = false;
  std::vector<Diagnostic> errors_;
};

}  // namespace

std::unique_ptr<FileSystem> NewRealFileSystem() { return std::make_unique<RealFileSystem>(); }

std::string Describe(const Runtime& runtime) {
  if (runtime.kind == kClusterTrainingRuntimeKind) return fmt::format("{} {}", runtime.kind, runtime.metadata.name);
  return fmt::format("{} {}/{}", runtime.kind, runtime.metadata.namespace_, runtime.metadata.name);
}

Inputs Load(const LoadOptions& options, FileSystem& fs) {
  Inputs inputs;
  Loader(options, fs, inputs).Run();
  return inputs;
}

const Runtime& Inputs::Resolve(const TrainJob& job) const {
  const RuntimeRef& ref = job.spec.runtime_ref;
  std::string group = ref.api_group.value_or("");
  std::string kind = ref.kind.value_or("");
  std::string subject = fmt::format("{} {}/{}", kTrainJobKind, job.metadata.namespace_, job.metadata.name);
  Origin at = job.positions.Find("spec.runtimeRef");
  if (group != kTrainerGroup || (kind != kTrainingRuntimeKind && kind != kClusterTrainingRuntimeKind)) {
    throw Error(Diagnostic{at, subject, "spec.runtimeRef", fmt::format("unsupported runtime: {}.{}", kind, group)});
  }
  std::string key = RuntimeKey(kind, job.metadata.namespace_, ref.name);
  for (const Runtime& runtime : runtimes) {
    if (RuntimeKey(runtime.kind, runtime.metadata.namespace_, runtime.metadata.name) == key) return runtime;
  }
  std::string wanted = kind == kClusterTrainingRuntimeKind
                           ? fmt::format("{} \"{}\"", kind, ref.name)
                           : fmt::format("{} \"{}\" in namespace \"{}\"", kind, ref.name, job.metadata.namespace_);
  std::string loaded;
  for (const Runtime& runtime : runtimes) loaded += (loaded.empty() ? "" : ", ") + Describe(runtime);
  throw Error(Diagnostic{at, subject, "spec.runtimeRef",
                         fmt::format("{} not found; loaded runtimes: {}", wanted, loaded.empty() ? "none" : loaded)});
}

}  // namespace trainer
