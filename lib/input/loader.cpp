#include "input/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <map>
#include <set>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/decode.h"
#include "api/defaults.h"
#include "api/object_meta.h"
#include "api/schema.h"
#include "util/error.h"
#include "util/quote.h"
#include "webhooks/trainingruntime.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

namespace fs = std::filesystem;

// Reads `fd` to its end, or to the YAML reader's size limit plus one byte: enough for it to report
// a stream beyond the limit, without reading an endless one (/dev/zero, a FIFO fed forever) to its
// end. Straight into the string: `expected` (a regular file's size, or 0) sizes it up front, and
// it doubles from 64 KiB otherwise. Throws Error naming `name`.
std::string ReadBounded(int fd, std::uintmax_t expected, const std::string& name) {
  const std::size_t cap = ReadLimits{}.max_bytes + 1;
  std::string content;
  // One byte more than expected: the read that returns nothing then fits without growing it.
  content.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(expected + 1, cap)));
  std::size_t size = 0;
  while (size < cap) {
    if (size == content.size()) content.resize(std::min(cap, std::max(content.size() * 2, std::size_t{1} << 16)));
    const ssize_t n = read(fd, content.data() + size, content.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: cannot read: {}", name, std::strerror(errno)));
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  content.resize(size);
  return content;
}

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
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    struct Closer {
      int fd;
      ~Closer() { close(fd); }
    } closer{fd};
    struct stat st {};
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    return ReadBounded(fd, regular ? static_cast<std::uintmax_t>(st.st_size) : 0, path);
  }

  std::string ReadStdin() override { return ReadBounded(STDIN_FILENO, 0, "<stdin>"); }

  std::vector<std::string> ListInputFiles(const std::string& dir) override {
    std::vector<std::string> files;
    std::set<std::pair<dev_t, ino_t>> walked;
    Walk(dir, fs::path(dir), walked, files);
    std::sort(files.begin(), files.end());
    return files;
  }

  // The file's device and inode, by one stat.
  std::string Identity(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return path;
    return fmt::format("{}:{}", st.st_dev, st.st_ino);
  }

 private:
  // Lists the input files under `folder`, following symbolic links, and walks each real folder
  // (device and inode) once: a link back up ends, and links that meet again (a DAG of links,
  // exponential in paths) cost one walk each. Entries go in name order, so that a folder reached
  // by two ways is always named by the same one.
  void Walk(const std::string& root, const fs::path& folder, std::set<std::pair<dev_t, ino_t>>& walked,
            std::vector<std::string>& files) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0 || !walked.emplace(st.st_dev, st.st_ino).second) return;
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      entries.push_back(*it);
    }
    if (ec) throw Error(fmt::format("{}: cannot list: {}", root, ec.message()));
    std::sort(entries.begin(), entries.end(),
              [](const fs::directory_entry& a, const fs::directory_entry& b) { return a.path().filename() < b.path().filename(); });
    for (const fs::directory_entry& entry : entries) {
      std::error_code type_ec;
      if (entry.is_directory(type_ec)) {
        Walk(root, entry.path(), walked, files);
      } else if (entry.is_regular_file(type_ec) && IsInputFileName(entry.path().filename().string())) {
        files.push_back(entry.path().string());
      }
    }
  }
};

// A field path as the API server's schema validation spells it: map keys after a dot
// ("limits.cpu"), where decoding writes them in brackets ("limits[cpu]").
std::string ApiPath(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    std::size_t close = path[i] == '[' ? path.find(']', i) : std::string::npos;
    if (close == std::string::npos) {
      out.push_back(path[i]);
      continue;
    }
    std::string inside = path.substr(i + 1, close - i - 1);
    bool index = !inside.empty() && inside.find_first_not_of("0123456789") == std::string::npos;
    out += index ? "[" + inside + "]" : "." + inside;
    i = close;
  }
  return out;
}

bool IsTrainerKind(std::string_view kind) {
  return kind == kTrainJobKind || kind == kTrainingRuntimeKind || kind == kClusterTrainingRuntimeKind;
}

// The lists of the Trainer kinds, as `kubectl get -o yaml` writes them.
bool IsTrainerListKind(std::string_view kind) {
  return kind.ends_with("List") && IsTrainerKind(kind.substr(0, kind.size() - 4));
}

// The one line that sums up the objects skipped as not Trainer objects: their kinds by count,
// most first, ties by name.
std::string SkippedSummary(const std::vector<std::string>& skipped) {
  std::map<std::string, std::size_t> counts;
  for (const std::string& kind : skipped) ++counts[kind];
  std::vector<std::pair<std::string, std::size_t>> kinds(counts.begin(), counts.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string listed;
  for (const auto& [kind, count] : kinds) listed += fmt::format("{}{} {}", listed.empty() ? "" : ", ", count, kind);
  return skipped.size() == 1
             ? fmt::format("skipped 1 object that is not a Trainer object: {}", listed)
             : fmt::format("skipped {} objects that are not Trainer objects: {}", skipped.size(), listed);
}

// What to add to the first problem of a file named `name` holding `content` when it holds "{{",
// as a Helm template does before `helm template` renders it: one hint for the file, with the line
// of its first "{{"; "" for other files. A file below a templates/ folder is taken for a chart's.
std::string HelmTemplateHint(std::string_view content, const std::string& name) {
  const std::size_t at = content.find("{{");
  if (at == std::string_view::npos) return {};
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  const bool in_chart = name.starts_with("templates/") || name.find("/templates/") != std::string::npos;
  if (in_chart) {
    return fmt::format("; this file is a template of a Helm chart (\"{{{{\" at line {}): render the chart with "
                       "\"helm template\" and give trainer its output",
                       line);
  }
  return fmt::format("; this looks like a Helm template (\"{{{{\" at line {}): render it with \"helm template\" first", line);
}

std::string RuntimeKey(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind == kClusterTrainingRuntimeKind ? fmt::format("{}/{}", kind, name) : fmt::format("{}/{}/{}", kind, ns, name);
}

// One input to read: a file, standard input, or a path that names neither.
struct Source {
  enum class Kind { kFile, kStdin, kMissing, kUnlistable };
  Kind kind = Kind::kFile;
  const std::string* name = nullptr;  // in Inputs::names; Origins point to it
  bool runtimes_only = false;
  std::optional<Error> unlistable;  // kUnlistable: the directory listing's error, thrown at its turn
};

class Loader {
 public:
  Loader(const LoadOptions& options, FileSystem& fs, Inputs& inputs) : options_(options), fs_(fs), inputs_(inputs) {}

  // Reads every input; the problems found are left in errors(). The runtime-only sources (-r) go
  // first, so that TrainJobs find their runtimes loaded as they stream past.
  void Run(const JobHandler* on_job) {
    on_job_ = on_job;
    CheckDefaultNamespace();
    for (const auto& path : options_.runtime_paths) Plan(path, true);
    for (const auto& path : options_.paths) Plan(path, false);
    for (const Source& source : sources_) {
      if (Begin(source)) LoadSource(source);
    }
  }
  std::vector<Diagnostic>& errors() { return errors_; }

  // Leaves out the snapshots of TrainJobs that were not read: ConfigMaps like any other, skipped.
  void DropUnclaimedSnapshots() {
    std::deque<RuntimeSnapshot> kept;
    inputs_.snapshot_index.clear();
    for (RuntimeSnapshot& s : inputs_.snapshots) {
      std::string key = OwnerKey(s);
      if (job_names_.count(key) == 0) {
        inputs_.skipped.push_back("ConfigMap");
        continue;
      }
      inputs_.snapshot_index.emplace(std::move(key), kept.size());
      kept.push_back(std::move(s));
    }
    inputs_.snapshots = std::move(kept);
  }

 private:
  // The namespace of the objects that set none, as the API server would check it on each of them.
  void CheckDefaultNamespace() {
    std::optional<Diagnostic> problem = ValidateNamespaceOption(options_.default_namespace);
    if (!problem) return;
    if (options_.names_in_file_names) throw Error(std::move(*problem));  // before any object renders
    Findings findings(options_.validate);
    findings.Reject(std::move(*problem));
    errors_.insert(errors_.end(), findings.errors().begin(), findings.errors().end());
    inputs_.warnings.insert(inputs_.warnings.end(), findings.warnings().begin(), findings.warnings().end());
  }

  // Lists the sources `path` names, in the order they load. Once a directory cannot be listed,
  // nothing after it is read.
  void Plan(const std::string& path, bool runtimes_only) {
    if (!sources_.empty() && sources_.back().kind == Source::Kind::kUnlistable) return;
    if (path == "-") {
      // Standard input is read once, in one role: named again, the other role would be dropped
      // (-r - - would read its TrainJobs as nothing).
      if (stdin_planned_) {
        throw Error("standard input (-) can be only one of the inputs: give - once, as PATH, -f or -r");
      }
      stdin_planned_ = true;
      AddSource(Source::Kind::kStdin, "<stdin>", runtimes_only);
      return;
    }
    switch (fs_.Stat(path)) {
      case FileSystem::Kind::kMissing:
        AddSource(Source::Kind::kMissing, path, runtimes_only);
        return;
      case FileSystem::Kind::kDirectory: {
        std::vector<std::string> files;
        try {
          files = fs_.ListInputFiles(path);
        } catch (const Error& e) {
          AddSource(Source::Kind::kUnlistable, path, runtimes_only).unlistable = e;
          return;
        }
        for (const auto& file : files) PlanFile(file, runtimes_only);
        return;
      }
      case FileSystem::Kind::kFile:
      case FileSystem::Kind::kOther:  // FIFOs and devices are read as streams
        PlanFile(path, runtimes_only);
        return;
    }
  }
  // A file is read once, at its first place; named with -r and as PATH too, everything in it loads.
  void PlanFile(const std::string& path, bool runtimes_only) {
    auto [seen, added] = seen_files_.emplace(fs_.Identity(path), sources_.size());
    if (added) {
      AddSource(Source::Kind::kFile, path, runtimes_only);
    } else if (!runtimes_only) {
      sources_[seen->second].runtimes_only = false;
    }
  }
  Source& AddSource(Source::Kind kind, const std::string& name, bool runtimes_only) {
    inputs_.names.push_back(name);
    sources_.push_back(Source{kind, &inputs_.names.back(), runtimes_only, std::nullopt});
    return sources_.back();
  }

  std::string Read(const Source& source) {
    return source.kind == Source::Kind::kStdin ? fs_.ReadStdin() : fs_.ReadFile(*source.name);
  }

  // Starts loading `source`; false when it yields nothing to read (it is reported here).
  bool Begin(const Source& source) {
    switch (source.kind) {
      case Source::Kind::kMissing:
        errors_.push_back(Diagnostic{.message = fmt::format("{}: no such file or directory", *source.name)});
        return false;
      case Source::Kind::kUnlistable:
        throw *source.unlistable;
      case Source::Kind::kFile:
      case Source::Kind::kStdin:
        break;
    }
    errors_before_ = errors_.size();
    warnings_before_ = inputs_.warnings.size();
    skipped_before_ = inputs_.skipped.size();
    return true;
  }

  // Reads and loads one source. Running out of memory there ends the load with an error naming
  // the source and the limits that bound one (trainer(1), INPUT LIMITS).
  void LoadSource(const Source& source) {
    try {
      LoadSourceText(source);
    } catch (const std::bad_alloc&) {
      inputs_.current_source = nullptr;
      const ReadLimits limits;
      throw Error(fmt::format("{}: out of memory while reading it (one stream may hold {} bytes and {} values)",
                              *source.name, limits.max_bytes, limits.max_values));
    }
  }

  // Reads a file or standard input and loads each document as soon as it is parsed. A stream that
  // turns out malformed reports that problem alone: what its earlier documents said is dropped, as
  // their objects are.
  void LoadSourceText(const Source& source) {
    std::string content;
    try {
      content = Read(source);
      // UTF-16 as the UTF-8 that the reader reads, so that problems show their lines as written.
      if (std::optional<std::string> utf8 = DecodeUtf16(content, source.name)) content = std::move(*utf8);
    } catch (const Error& e) {
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
      return;
    }
    const SourceText text(source.name, content);
    inputs_.current_source = &text;
    content_ = content;
    content_lines_.reset();
    try {
      ForEachYamlDocument(content, source.name, [&](Tree& doc) {
        try {
          LoadDocument(std::move(doc), source.runtimes_only);
        } catch (const Error& e) {  // the document's own problem, not the stream's
          errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
        }
      });
    } catch (const Error& e) {
      errors_.resize(errors_before_);
      inputs_.warnings.resize(warnings_before_);
      inputs_.skipped.resize(skipped_before_);
      std::erase_if(inputs_.jobs, [&](const TrainJob& job) { return job.origin.file == source.name; });
      std::erase_if(inputs_.jobsets, [&](const JobSetState& jobset) { return jobset.origin.file == source.name; });
      DropSnapshotsOf(source.name);
      inputs_.malformed_files.insert(source.name);
      errors_.insert(errors_.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
    if (errors_.size() > errors_before_) errors_[errors_before_].message += HelmTemplateHint(content, *source.name);
    // The text goes away here: what it said at each problem is kept for the terminal.
    for (std::size_t i = errors_before_; i < errors_.size(); ++i) text.Attach(errors_[i]);
    for (std::size_t i = warnings_before_; i < inputs_.warnings.size(); ++i) text.Attach(inputs_.warnings[i]);
    inputs_.current_source = nullptr;
    content_ = {};
    content_lines_.reset();
  }

  void LoadDocument(Tree doc, bool runtimes_only) {
    if (!doc.IsMap()) {
      errors_.push_back(Diagnostic{
          .where = doc.origin(), .message = fmt::format("expected an object, got {}", Tree::DescribeType(doc.type()))});
      return;
    }
    TypeMeta tm = ReadTypeMeta(doc);
    if (tm.kind.empty()) {
      std::string message = "Required value: every object needs a kind";
      // Without an apiVersion either, it is other YAML met in a folder (a CI workflow, a .pre-commit-config.yaml).
      if (tm.api_version.empty()) {
        message += "; this is no Kubernetes object: --skip-non-trainer skips the files that hold no Trainer object";
      }
      errors_.push_back(Diagnostic{.where = doc.origin(), .field = "kind", .message = std::move(message)});
      return;
    }
    const std::string_view group = ApiGroup(tm.api_version);
    if (std::string_view(tm.kind).ends_with("List") && doc.Find("items")) {
      Tree* items = doc.Find("items");
      if (!items->IsList()) {
        errors_.push_back(Diagnostic{.where = items->origin(), .field = "items", .message = "expected an array"});
        return;
      }
      // The snapshots first: a dump (kubectl get trainjobs,configmaps) lists them after their
      // TrainJobs, which then find them as they stream past.
      std::vector<bool> loaded(items->items().size(), false);
      for (std::size_t i = 0; i < loaded.size(); ++i) {
        if (!IsSnapshotDocument(items->items()[i])) continue;
        loaded[i] = true;
        LoadDocument(std::move(items->items()[i]), runtimes_only);
      }
      for (std::size_t i = 0; i < loaded.size(); ++i) {
        if (!loaded[i]) LoadDocument(std::move(items->items()[i]), runtimes_only);
      }
      return;
    }
    if (IsJobSet(tm.api_version, tm.kind)) {
      AddJobSet(doc);
      return;
    }
    if (IsSnapshotDocument(doc)) {
      AddSnapshot(doc);
      return;
    }
    if (!IsTrainerKind(tm.kind)) {
      if (group != kTrainerGroup) {
        inputs_.skipped.push_back(std::move(tm.kind));
      } else if (!IsTrainerListKind(tm.kind)) {  // a list without items holds nothing
        // As kubectl: the API server serves no other kind in the group.
        const Tree* at = doc.Find("kind");
        errors_.push_back(
            Diagnostic{.where = at ? at->origin() : doc.origin(),
                       .message = fmt::format("no matches for kind \"{}\" in version \"{}\": the Trainer kinds are {}, "
                                              "{} and {}",
                                              tm.kind, tm.api_version, kTrainJobKind, kTrainingRuntimeKind,
                                              kClusterTrainingRuntimeKind)});
      }
      return;
    }
    if (tm.api_version != kTrainerApiVersion) {
      const Tree* at = doc.Find("apiVersion");
      errors_.push_back(Diagnostic{.where = at ? at->origin() : doc.origin(),
                                   .subject = tm.kind,
                                   .field = "apiVersion",
                                   .message = fmt::format("unsupported apiVersion \"{}\" for {}: expected {}",
                                                          tm.api_version, tm.kind, kTrainerApiVersion)});
      return;
    }
    // Whether the document names its own namespace, which the API server then checks; the default
    // one (-n) is checked once, before any input.
    bool own_namespace = false;
    if (tm.kind != kClusterTrainingRuntimeKind) {
      // Namespaced objects without a namespace land in the default one, as with kubectl apply.
      Tree* meta = doc.Find("metadata");
      const Tree* ns = meta && meta->IsMap() ? meta->Find("namespace") : nullptr;
      own_namespace = ns != nullptr && !ns->IsNull();
      if (own_namespace && options_.namespace_given && ns->IsString() && ns->text() != options_.default_namespace &&
          !(tm.kind == kTrainJobKind && runtimes_only)) {
        errors_.push_back(Diagnostic{
            .where = ns->origin(),
            .subject = DocumentSubject(doc, tm.kind),
            .field = "metadata.namespace",
            .message = fmt::format("the namespace from the provided object \"{}\" does not match the "
                                   "namespace \"{}\" given with -n: pass -n {}, or leave -n out",
                                   GoEscape(ns->text()), GoEscape(options_.default_namespace), GoEscape(ns->text()))});
        if (tm.kind != kTrainJobKind) inputs_.refused_runtimes.insert(DocumentRuntimeKey(tm.kind, doc));
        return;
      }
      if (meta && meta->IsMap() && (ns == nullptr || ns->IsNull())) {
        const Origin from = Origin::CommandLine(options_.namespace_given ? "namespace from -n"
                                                                           : "the default namespace (no -n given)");
        meta->Set("namespace", Tree::String(options_.default_namespace, from), from);
      }
    }
    if (tm.kind == kTrainJobKind && runtimes_only) return;  // -r sources contribute runtimes only
    bool is_job = tm.kind == kTrainJobKind;
    ApplyDefaults(doc, is_job ? DefaultRule::Scope::kTrainJob : DefaultRule::Scope::kRuntime);
    const std::string subject = DocumentSubject(doc, tm.kind);
    Findings findings(options_.validate);
    // As the API server: unknown fields (pruned unless strict), then the schema of the CRD, then
    // the validating webhook. Problems of decoding other than unknown fields always fail.
    std::vector<Diagnostic> decode_errors;
    std::vector<Diagnostic> unknown_fields;
    std::optional<TrainJob> job;
    std::optional<Runtime> runtime;
    try {
      bool strict = options_.validate == ValidationMode::kStrict;
      if (is_job) {
        job = strict ? DecodeTrainJob(doc) : DecodeTrainJobPruned(doc, unknown_fields);
      } else {
        runtime = strict ? DecodeRuntime(doc) : DecodeRuntimePruned(doc, unknown_fields);
      }
    } catch (const Error& e) {
      decode_errors = e.diagnostics();
    }
    for (Diagnostic& d : decode_errors) findings.Fail(std::move(d));
    for (Diagnostic& d : unknown_fields) findings.Reject(std::move(d));
    // The one schema rule that holds whatever the mode; the schema then finds its field reported.
    if (is_job) {
      std::optional<Diagnostic> d = CheckRuntimePatchLimit(doc, subject);
      if (d) findings.Fail(std::move(*d));
    }
    if (options_.validate != ValidationMode::kIgnore) {
      for (Diagnostic& d : CheckSchema(doc, is_job ? SchemaScope::kTrainJob : SchemaScope::kRuntime,
                                       subject)) {
        // One message for a field: decoding already reports the fields it could not read.
        bool reported = std::any_of(findings.errors().begin(), findings.errors().end(),
                                    [&](const Diagnostic& e) { return ApiPath(e.field) == d.field; });
        if (!reported) findings.Reject(std::move(d));
      }
    }
    // The API server's metadata rules, after the schema's (the TrainJob's own rule on its name comes
    // first). Names and namespaces bound for file names must hold whatever the mode.
    if (options_.validate != ValidationMode::kIgnore || options_.names_in_file_names) {
      for (Diagnostic& d : ValidateObjectMeta(doc, own_namespace, subject)) {
        const bool file_name = d.field == "metadata.name" || d.field == "metadata.namespace";
        if (file_name && options_.names_in_file_names) {
          findings.Fail(std::move(d));
        } else {
          findings.Reject(std::move(d));
        }
      }
    }
    if (runtime) ValidateRuntime(*runtime, findings);
    // One document's problems in the order of its lines.
    for (auto* list : {&findings.errors(), &findings.warnings()}) {
      std::stable_sort(list->begin(), list->end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::make_pair(a.where.line, a.where.column) < std::make_pair(b.where.line, b.where.column);
      });
    }
    errors_.insert(errors_.end(), findings.errors().begin(), findings.errors().end());
    inputs_.warnings.insert(inputs_.warnings.end(), findings.warnings().begin(), findings.warnings().end());
    if (!findings.errors().empty()) {
      if (!is_job) inputs_.refused_runtimes.insert(DocumentRuntimeKey(tm.kind, doc));
      return;
    }
    if (job) {
      if (job->metadata.namespace_.empty()) job->metadata.namespace_ = options_.default_namespace;
      // The API server creates the first of two TrainJobs of one namespace and name and refuses
      // the second. (The same file reached twice is read once: no duplicate.)
      Origin at = job->positions.Find("metadata.name");
      if (!at.HasPosition()) at = job->origin;
      auto [first, added] = job_names_.emplace(job->metadata.namespace_ + "/" + job->metadata.name, at);
      if (!added) {
        errors_.push_back(
            Diagnostic{.where = at,
                       .subject = Subject(*job),
                       .field = "metadata.name",
                       .message = fmt::format("already exists: the TrainJob at {} has this namespace and name (the "
                                              "API server refuses the second)",
                                              first->second.Position())});
        return;
      }
      if (on_job_ && *on_job_) {
        (*on_job_)(inputs_, *job);
      } else {
        inputs_.jobs.push_back(std::move(*job));
      }
    } else if (runtime) {
      AddRuntime(std::move(*runtime));
    }
  }

  // A JobSet, read leniently as state: a dump's objects are not checked, and one without a name is
  // not recorded.
  void AddJobSet(const Tree& doc) {
    const Tree* meta = doc.Find("metadata");
    const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
    if (name == nullptr || name->empty()) return;
    const std::string* ns = meta->FindString("namespace");
    const Tree* spec = doc.Find("spec");
    const Tree* suspend = spec && spec->IsMap() ? spec->Find("suspend") : nullptr;
    inputs_.jobsets.push_back(JobSetState{ns && !ns->empty() ? *ns : options_.default_namespace, *name,
                                          suspend && suspend->IsBool() && suspend->AsBool(), doc.origin(), doc});
  }

  static bool IsSnapshotDocument(const Tree& doc) {
    const std::string* kind = doc.IsMap() ? doc.FindString("kind") : nullptr;
    if (kind == nullptr || *kind != "ConfigMap") return false;  // most documents, at once
    const std::string* api_version = doc.FindString("apiVersion");
    const Tree* meta = doc.Find("metadata");
    const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
    return api_version != nullptr && name != nullptr && IsRuntimeSnapshot(*api_version, *kind, *name);
  }

  // namespace/name of the TrainJob a snapshot is named after.
  static std::string OwnerKey(const RuntimeSnapshot& s) {
    return s.namespace_ + "/" + s.name.substr(0, s.name.size() - kRuntimeSnapshotSuffix.size());
  }

  // A runtime snapshot ConfigMap, read leniently as state (the controller's client reads it so);
  // its problems are the TrainJob's, reported when it renders.
  void AddSnapshot(const Tree& doc) {
    if (!content_.empty() && !content_lines_) content_lines_.emplace(content_);
    RuntimeSnapshot snapshot = ReadRuntimeSnapshot(doc, options_.default_namespace,
                                                   content_lines_ ? &*content_lines_ : nullptr, snapshot_values_left_);
    auto [at, added] = inputs_.snapshot_index.emplace(OwnerKey(snapshot), inputs_.snapshots.size());
    if (!added) {
      const RuntimeSnapshot& existing = inputs_.snapshots[at->second];
      if (existing.document == snapshot.document) return;  // the same ConfigMap reached twice
      errors_.push_back(Diagnostic{
          .where = snapshot.origin,
          .subject = snapshot.Subject(),
          .message = fmt::format("defined twice with different content (first at {})", existing.origin.Position())});
      return;
    }
    inputs_.snapshots.push_back(std::move(snapshot));
  }

  void DropSnapshotsOf(const std::string* file) {
    std::erase_if(inputs_.snapshots, [&](const RuntimeSnapshot& s) { return s.origin.file == file; });
    inputs_.snapshot_index.clear();
    for (std::size_t i = 0; i < inputs_.snapshots.size(); ++i) {
      inputs_.snapshot_index.emplace(OwnerKey(inputs_.snapshots[i]), i);
    }
  }

  std::string DocumentRuntimeKey(const std::string& kind, const Tree& doc) const {
    const Tree* meta = doc.Find("metadata");
    const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
    const std::string* ns = meta && meta->IsMap() ? meta->FindString("namespace") : nullptr;
    return RuntimeKey(kind, ns ? *ns : options_.default_namespace, name ? *name : std::string());
  }

  void AddRuntime(Runtime runtime) {
    if (runtime.kind == kClusterTrainingRuntimeKind) {
      runtime.metadata.namespace_.clear();
    } else if (runtime.metadata.namespace_.empty()) {
      runtime.metadata.namespace_ = options_.default_namespace;
    }
    std::string key = RuntimeKey(runtime.kind, runtime.metadata.namespace_, runtime.metadata.name);
    auto [at, added] = inputs_.runtime_index.emplace(std::move(key), inputs_.runtimes.size());
    if (!added) {
      const Runtime& existing = inputs_.runtimes[at->second];
      if (existing.source == runtime.source) return;  // the same definition reached twice
      errors_.push_back(Diagnostic{
          .where = runtime.origin,
          .subject = Subject(runtime),
          .message = fmt::format("defined twice with different content (first at {})", existing.origin.Position())});
      return;
    }
    inputs_.runtimes.push_back(std::move(runtime));
  }

  const LoadOptions& options_;
  FileSystem& fs_;
  Inputs& inputs_;
  std::vector<Source> sources_;
  std::map<std::string, std::size_t> seen_files_;  // each file planned (its identity): its source
  std::unordered_map<std::string, Origin> job_names_;  // namespace/name of each TrainJob loaded: where
  bool stdin_planned_ = false;
  const JobHandler* on_job_ = nullptr;
  std::vector<Diagnostic> errors_;
  // Of the source being loaded: what had been reported before it.
  std::size_t errors_before_ = 0;
  std::size_t warnings_before_ = 0;
  std::size_t skipped_before_ = 0;
  // The text of the source being loaded, and its lines once a snapshot needs them.
  std::string_view content_;
  std::optional<InputLines> content_lines_;
  // What the snapshots' data.runtime may still read, together: one stream's worth.
  std::size_t snapshot_values_left_ = ReadLimits{}.max_values;
};

}  // namespace

std::unique_ptr<FileSystem> NewRealFileSystem() { return std::make_unique<RealFileSystem>(); }

bool IsInputFileName(std::string_view name) {
  return name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json");
}

bool IsJobSet(std::string_view api_version, std::string_view kind) {
  return kind == "JobSet" && ApiGroup(api_version) == "jobset.x-k8s.io";
}

Inputs Load(const LoadOptions& options, FileSystem& fs, const JobHandler& on_job) {
  Inputs inputs;
  Loader loader(options, fs, inputs);
  loader.Run(&on_job);
  loader.DropUnclaimedSnapshots();
  inputs.errors = std::move(loader.errors());
  if (!inputs.skipped.empty()) inputs.notices.push_back(SkippedSummary(inputs.skipped));
  // Positions point into `inputs.names`, which the Inputs keep; fill them in anyway, as Error does.
  for (Diagnostic& d : inputs.errors) {
    if (d.location.empty()) d.location = d.where.Position();
  }
  return inputs;
}

void Inputs::Checkpoint() const {
  if (!errors.empty()) throw Error(errors);
}

namespace {

// The key of the runtime a TrainJob refers to.
std::string RuntimeKeyOf(const TrainJob& job) {
  const RuntimeRef& ref = job.spec.runtime_ref;
  return RuntimeKey(ref.kind.value_or(""), job.metadata.namespace_, ref.name);
}

}  // namespace

bool Inputs::RefersToRefusedRuntime(const TrainJob& job) const { return refused_runtimes.count(RuntimeKeyOf(job)) != 0; }

const RuntimeSnapshot* Inputs::FindSnapshot(const TrainJob& job) const {
  auto it = snapshot_index.find(job.metadata.namespace_ + "/" + job.metadata.name);
  return it == snapshot_index.end() ? nullptr : &snapshots[it->second];
}

bool Inputs::SnapshotSettled(const TrainJob& job) const {
  return job.metadata.uid.empty() || FindSnapshot(job) != nullptr;
}

bool Inputs::RuntimeSettled(const TrainJob& job) const {
  std::string key = RuntimeKeyOf(job);
  return runtime_index.count(key) != 0 || refused_runtimes.count(key) != 0;
}

const Runtime& Inputs::Resolve(const TrainJob& job) const {
  const RuntimeRef& ref = job.spec.runtime_ref;
  std::string group = ref.api_group.value_or("");
  std::string kind = ref.kind.value_or("");
  std::string subject = Subject(job);
  Origin at = job.positions.Find("spec.runtimeRef");
  if (group != kTrainerGroup || (kind != kTrainingRuntimeKind && kind != kClusterTrainingRuntimeKind)) {
    throw Error(Diagnostic{.where = at,
                           .subject = subject,
                           .field = "spec.runtimeRef",
                           .message = fmt::format("unsupported runtime: {}.{}", kind, group)});
  }
  const bool cluster = kind == kClusterTrainingRuntimeKind;
  std::string key = RuntimeKey(kind, job.metadata.namespace_, ref.name);
  if (auto it = runtime_index.find(key); it != runtime_index.end()) return runtimes[it->second];
  std::string wanted = cluster ? fmt::format("{} \"{}\"", kind, ref.name)
                               : fmt::format("{} \"{}\" in namespace \"{}\"", kind, ref.name, job.metadata.namespace_);
  if (runtimes.empty()) {
    (cluster ? missed_runtimes.cluster : missed_runtimes.namespaced) = true;
    const std::string hint =
        hint_runtimes ? " (" + GetRuntimesHint({cluster, !cluster}, job.metadata.namespace_) + ")" : std::string();
    throw Error(Diagnostic{.where = at,
                           .subject = subject,
                           .field = "spec.runtimeRef",
                           .message = fmt::format("{} not found; loaded runtimes: none{}", wanted, hint)});
  }
  // The same name under the other kind: the runtimeRef's kind is likely wrong (it defaults to
  // ClusterTrainingRuntime when left out).
  const char* other = cluster ? kTrainingRuntimeKind : kClusterTrainingRuntimeKind;
  const bool other_found = runtime_index.count(RuntimeKey(other, job.metadata.namespace_, ref.name)) != 0;
  const std::string did_you_mean = other_found ? fmt::format("; did you mean \"kind: {}\"?", other) : std::string();
  // The first few in load order, so that many missing runtimes among many loaded ones do not
  // print every name for each.
  constexpr std::size_t kListed = 5;
  std::string loaded;
  for (std::size_t i = 0; i < runtimes.size() && i < kListed; ++i) loaded += (i ? ", " : "") + Subject(runtimes[i]);
  if (runtimes.size() > kListed) loaded += fmt::format(" and {} more", runtimes.size() - kListed);
  throw Error(Diagnostic{.where = at,
                         .subject = subject,
                         .field = "spec.runtimeRef",
                         .message = fmt::format("{} not found; loaded runtimes: {}{}", wanted, loaded, did_you_mean)});
}

std::string GetRuntimesHint(Inputs::MissedRuntimes missed, std::string_view ns) {
  std::string resources = missed.cluster ? "clustertrainingruntimes" : "";
  if (missed.namespaced) resources += missed.cluster ? ",trainingruntimes" : "trainingruntimes";
  // -A (every namespace) is accepted for cluster-scoped resources too, as kubectl ignores it there.
  std::string scope = !missed.namespaced ? "" : ns.empty() ? " -A" : fmt::format(" -n {}", ns);
  return fmt::format(
      "save the cluster's runtimes with `kubectl get {}{} -o yaml > runtimes.yaml` and add `-r runtimes.yaml`",
      resources, scope);
}

}  // namespace trainer
