#include "render/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "api/decode.h"
#include "api/defaults.h"
#include "core/pipeline.h"
#include "framework/framework.h"
#include "plugins/registry.h"
#include "runtime/snapshot.h"
#include "util/quote.h"
#include "webhooks/jobset_webhook.h"
#include "webhooks/trainjob.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Field(const Tree& object, std::string_view a, std::string_view b = {}) {
  const Tree* t = object.Find(a);
  if (t && !b.empty()) t = t->IsMap() ? t->Find(b) : nullptr;
  return t && t->IsString() ? t->text() : std::string();
}

// The names kubectl knows for the kinds trainer prints: singular, plural and the short names their
// CRDs declare (JobSet declares none), each kind with its API group.
struct KindNames {
  std::string_view kind;
  std::string_view group;
  std::initializer_list<std::string_view> names;
};
constexpr std::string_view kCoreGroup;
const KindNames kKindNames[] = {
    {"JobSet", "jobset.x-k8s.io", {"jobset", "jobsets"}},
    {"ConfigMap", kCoreGroup, {"configmap", "configmaps", "cm"}},
    {"Secret", kCoreGroup, {"secret", "secrets"}},
    {"PodGroup", "scheduling.x-k8s.io", {"podgroup", "podgroups", "pg", "pgs"}},
    {"PodGroup", "scheduling.volcano.sh", {"podgroup", "podgroups", "pg", "podgroup-v1beta1"}},
};

// Whether `selector`'s kind (lower case: a kind, a name kubectl knows for it, or either followed by
// ".group", as `kubectl get podgroups.scheduling.volcano.sh`) names the kind of `object`.
bool KindMatches(std::string_view selector, const Tree& object) {
  const std::string kind = Field(object, "kind");
  const std::string api_version = Field(object, "apiVersion");
  const std::string_view group = ApiGroup(api_version);
  // "name.group" names the kind in that group only.
  if (!group.empty() && selector.size() > group.size() + 1 && selector.ends_with(group) &&
      selector[selector.size() - group.size() - 1] == '.') {
    selector.remove_suffix(group.size() + 1);
  }
  if (selector == Lower(kind)) return true;
  return std::any_of(std::begin(kKindNames), std::end(kKindNames), [&](const KindNames& k) {
    return k.kind == kind && k.group == group &&
           std::find(k.names.begin(), k.names.end(), selector) != k.names.end();
  });
}

bool Selected(const Tree& object, const std::vector<std::string>& show_only, std::vector<bool>& used) {
  if (show_only.empty()) return true;
  bool any = false;
  for (std::size_t i = 0; i < show_only.size(); ++i) {
    const std::string& sel = show_only[i];
    auto slash = sel.find('/');
    if (!KindMatches(Lower(sel.substr(0, slash)), object)) continue;
    if (slash != std::string::npos && sel.substr(slash + 1) != Field(object, "metadata", "name")) continue;
    used[i] = true;
    any = true;
  }
  return any;
}

// A plain file name: the loader refused the names and namespaces that are no DNS names
// (LoadOptions::names_in_file_names), so none holds a '/' or a NUL, and the name ends in
// `extension` (".yaml", or ".json" with -o json).
std::string FileName(const Tree& object, std::string_view extension) {
  const std::string api_version = Field(object, "apiVersion");
  const std::string_view group = ApiGroup(api_version);
  const std::string_view version = group.empty() ? std::string_view(api_version) : std::string_view(api_version).substr(group.size() + 1);
  const std::string prefix = group.empty() ? std::string(version) : fmt::format("{}_{}", group, version);
  return fmt::format("{}_{}_{}_{}{}", prefix, Field(object, "kind"), Field(object, "metadata", "namespace"),
                     Field(object, "metadata", "name"), extension);
}

// `object` as `kubectl get -o name` prints it, one a line: the kind in lower case, then "." and
// the API group unless it is the core group, then "/" and the name (Printable).
void AppendKubectlName(const Tree& object, std::string& out) {
  const std::string api_version = Field(object, "apiVersion");
  const std::string_view group = ApiGroup(api_version);
  out += Lower(Field(object, "kind"));
  if (!group.empty()) {
    out += '.';
    out += group;
  }
  out += '/';
  AppendPrintable(Field(object, "metadata", "name"), out);
  out += '\n';
}

// Who may read an object's file: a Secret's, only its owner (the SSH key of --generate-ssh-keys).
FileAccess AccessOf(const Tree& object) {
  const bool secret = Field(object, "apiVersion") == "v1" && Field(object, "kind") == "Secret";
  return secret ? FileAccess::kPrivate : FileAccess::kShared;
}

}  // namespace

const Tree* JobSetOf(const std::vector<Tree>& objects) {
  if (objects.empty() || !objects.front().IsMap()) return nullptr;
  const std::string* kind = objects.front().FindString("kind");
  return kind && *kind == "JobSet" ? &objects.front() : nullptr;
}

std::string SourceComment(const TrainJob& job, const Runtime& runtime, const RuntimeSnapshot* snapshot) {
  // Printable, so that no byte of a file name or a name can end the comment and start YAML.
  return fmt::format("# Source: {}: {} -> {}{}\n", Printable(job.origin.file ? *job.origin.file : "<unknown>"),
                     Subject(job), Printable(runtime.kind + "/" + runtime.metadata.name),
                     snapshot ? " from " + snapshot->Subject() : std::string());
}

Explain OriginExplainer(const TrainJob& job, const Runtime& runtime, const RuntimeSnapshot* snapshot) {
  // The two documents a rendered value can come from, and the field path of every decoded
  // TrainJob field by its position.
  struct Document {
    const std::string* file;
    std::uint32_t line;
    std::string kind;
  };
  // A runtime read from a snapshot is named with the ConfigMap that holds it.
  std::vector<Document> documents{{job.origin.file, job.origin.line, kTrainJobKind},
                                  {runtime.origin.file, runtime.origin.line,
                                   snapshot ? runtime.kind + " in " + snapshot->Subject() : runtime.kind}};
  auto fields = std::make_shared<std::map<std::tuple<const std::string*, std::uint32_t, std::uint32_t>, std::string>>();
  job.positions.ForEach([&](std::string_view path, const Origin& o) {
    auto key = std::make_tuple(o.file, o.line, o.column);
    auto [it, added] = fields->emplace(key, path);
    if (!added && path.size() > it->second.size()) it->second = path;  // the deepest field at a key
  });
  return [documents = std::move(documents), fields](const Origin& o) -> std::string {
    switch (o.kind) {
      case Origin::Kind::kNone: return "";
      case Origin::Kind::kDefault: return "CRD default";
      case Origin::Kind::kPlugin: return fmt::format("set by {}", o.by ? o.by : "?");
      case Origin::Kind::kCommandLine: return o.by ? o.by : "";
      case Origin::Kind::kInput: break;
    }
    // The document of the value: the later of the two that start before it in its file.
    std::string_view kind;
    std::uint32_t start = 0;
    for (const Document& d : documents) {
      if (d.file == o.file && d.line <= o.line && d.line >= start) {
        kind = d.kind;
        start = d.line;
      }
    }
    std::string text = fmt::format("{}{}:{}", kind.empty() ? "" : std::string(kind) + " ", o.file ? *o.file : "?", o.line);
    if (auto it = fields->find(std::make_tuple(o.file, o.line, o.column)); it != fields->end()) text += " " + it->second;
    if (o.by) text += fmt::format(", set by {}", o.by);
    return text;
  };
}

namespace {

// An OutputLimitError on its way out of the render: not an Error, so that no handler of one
// TrainJob's or one document's problems keeps it and goes on (every later TrainJob would only add
// to the output).
struct OutputLimitCrossed {
  Error error;
};

// Counts the bytes of a rendering against RenderOptions::max_output_bytes, and the values of one
// that is printed or written against max_output_values.
class OutputBudget {
 public:
  explicit OutputBudget(std::size_t max_bytes, std::size_t max_values = SIZE_MAX)
      : max_bytes_(max_bytes), max_values_(max_values) {}
  void Spend(const TrainJob& job, std::size_t bytes) {
    spent_ += bytes;
    if (spent_ > max_bytes_) throw OutputLimitError(job, max_bytes_);
  }
  void SpendValues(const TrainJob& job, const Tree& object) {
    values_ += CountValues(object);
    if (values_ > max_values_) throw OutputLimitError(job, max_values_, OutputLimitError::Unit::kValues);
  }
  // What the output holds besides the objects (the JSON List around them).
  void Reserve(std::size_t bytes, std::size_t values) {
    spent_ += bytes;
    values_ += values;
  }

 private:
  std::size_t max_bytes_;
  std::size_t max_values_;
  std::size_t spent_ = 0;
  std::size_t values_ = 0;
};

// The JobSet webhook's (and the JobSet CRD's) judgement of the JobSet the controller creates for
// `job`, `objects` first, as the API server gives it on create: judged with the CRD's and the
// mutating webhook's defaults read in, which the printed JobSet leaves out (the controller applies
// it without them). A generated name too long points at the TrainJob's name and says how much shorter
// it must be; other problems point at the input their value came from (a runtime's field), or at
// the TrainJob.
void JudgeJobSet(const TrainJob& job, const std::vector<Tree>& objects, Findings& findings) {
  const Tree* jobset = JobSetOf(objects);
  if (findings.mode() == ValidationMode::kIgnore || jobset == nullptr) return;
  for (const JobSetError& e : ValidateJobSetAsSent(*jobset)) {
    const char* who = e.source == JobSetError::Source::kWebhook ? "the JobSet webhook would refuse the JobSet"
                                                                : "the API server would refuse the JobSet";
    Diagnostic d{job.origin, Subject(job), "", fmt::format("{}: {}", who, e.message)};
    if (e.too_long) {
      const JobSetNameTooLong& name = *e.too_long;
      const std::size_t excess = name.length - name.limit;
      d.field = "metadata.name";
      d.message = fmt::format(
          "the longest {} name, {}, is {} characters (at most {}): shorten the TrainJob name by "
          "{} character{}; {}",
          name.kind == JobSetNameTooLong::Kind::kPod ? "Pod" : "Job", GoQuote(name.name), name.length, name.limit,
          excess, excess == 1 ? "" : "s", d.message);
      if (Origin at = job.positions.Find("metadata.name"); at.HasPosition()) d.where = at;
    } else if (e.node && e.node->origin().kind == Origin::Kind::kInput && e.node->origin().HasPosition()) {
      d.where = e.node->origin();
    }
    findings.Reject(std::move(d));
  }
}

// Judges and renders TrainJobs one at a time, as the webhook and then the controller would, and
// keeps the problems of each in the order the TrainJobs came.
class JobRenderer {
 public:
  // `unmanaged` takes the TrainJobs that another controller manages, which are judged but not
  // rendered; without it they render (the migration check leaves them out before).
  JobRenderer(const RenderOptions& options, std::vector<Diagnostic>* warnings,
              const std::function<void(RenderedJob&)>& rendered,
              const std::function<void(const TrainJob&)>& unmanaged = {})
      : framework_(PluginRegistry(), options),
        validate_(options.validate),
        warnings_(warnings),
        rendered_(rendered),
        unmanaged_(unmanaged) {}

  void Render(const Inputs& inputs, const TrainJob& job) {
    // NewObjects: the runtime kept in the TrainJob's snapshot, when it has one; the live runtime
    // when not, or when --validate lets a refused snapshot through.
    const RuntimeSnapshot* snapshot = inputs.FindSnapshot(job);
    if (snapshot) {
      if (std::optional<Diagnostic> refusal = CheckRuntimeSnapshot(job, *snapshot)) {
        if (RefuseSnapshot(inputs, job.origin.file, std::move(*refusal))) return;
        snapshot = nullptr;
      }
    }
    if (!snapshot && inputs.RefersToRefusedRuntime(job)) {
      // The runtime's problems are reported with the loading's, before the TrainJobs': say which
      // TrainJob they stop, at its reference.
      const Origin at = job.positions.Find("spec.runtimeRef.name");
      const RuntimeRef& ref = job.spec.runtime_ref;
      Keep(inputs, job,
           Diagnostic{.where = at.HasPosition() ? at : job.origin,
                      .subject = Subject(job),
                      .field = "spec.runtimeRef",
                      .message = fmt::format("its runtime {} {} was refused (see its errors above)",
                                             ref.kind.value_or(kClusterTrainingRuntimeKind), ref.name)},
           errors_);
      return;
    }
    try {
      const Runtime& runtime = snapshot ? *snapshot->runtime : inputs.Resolve(job);
      // The webhook judges the TrainJob before the controller ever sees it.
      Findings admission(validate_);
      std::optional<Info> info = ValidateTrainJob(job, runtime, framework_, admission);
      if (!Admitted(inputs, job, admission)) return;
      // The controller skips a TrainJob that another controller manages; the webhook judged it all
      // the same.
      if (unmanaged_ && ManagedByAnotherController(job)) return unmanaged_(job);
      RenderedJob one{&job, &runtime, RenderTrainJob(job, runtime, framework_, std::move(info)), snapshot};
      // The JobSet webhook judges the JobSet the controller creates: refused, the TrainJob never
      // starts.
      Findings jobset_admission(validate_);
      JudgeJobSet(job, one.objects, jobset_admission);
      if (!Admitted(inputs, job, jobset_admission)) return;
      rendered_(one);
    } catch (const OutputLimitError& e) {
      throw OutputLimitCrossed{e};
    } catch (const Error& e) {
      for (const Diagnostic& d : e.diagnostics()) Keep(inputs, job, d, errors_);
    }
  }

  // Keeps an admission's warnings and errors; whether it let the TrainJob through.
  bool Admitted(const Inputs& inputs, const TrainJob& job, Findings& admission) {
    for (const Diagnostic& w : admission.warnings()) Keep(inputs, job, w, warnings_kept_);
    for (const Diagnostic& e : admission.errors()) Keep(inputs, job, e, errors_);
    return admission.errors().empty();
  }

  // A refused snapshot of a TrainJob whose objects are in `job_file`: an error under
  // --validate=strict, and then true (the TrainJob does not render); else a warning or nothing,
  // and the TrainJob renders from the live runtime.
  bool RefuseSnapshot(const Inputs& inputs, const std::string* job_file, Diagnostic refusal) {
    if (validate_ == ValidationMode::kStrict) {
      Keep(inputs, job_file, refusal, errors_);
      return true;
    }
    if (validate_ == ValidationMode::kWarn) {
      refusal.message += "; rendered from the live runtime, as if there were no snapshot";
      Keep(inputs, job_file, refusal, warnings_kept_);
    }
    return false;
  }

  // Hands over the warnings and throws the errors, leaving out those of TrainJobs in malformed
  // streams: the stream's own problem is the one to report.
  void Finish(const Inputs& inputs) {
    auto drop = [&](auto& list) {
      std::erase_if(list, [&](const auto& kept) { return inputs.malformed_files.count(kept.first) != 0; });
    };
    drop(errors_);
    drop(warnings_kept_);
    if (warnings_) {
      for (auto& [file, w] : warnings_kept_) warnings_->push_back(std::move(w));
    }
    if (errors_.empty()) return;
    std::vector<Diagnostic> errors;
    errors.reserve(errors_.size());
    for (auto& [file, e] : errors_) errors.push_back(std::move(e));
    throw Error(std::move(errors));
  }

  // The errors kept so far, handed over (keep-going callers take them after each TrainJob).
  std::vector<Diagnostic> TakeErrors() {
    std::vector<Diagnostic> errors;
    for (auto& [file, e] : errors_) errors.push_back(std::move(e));
    errors_.clear();
    return errors;
  }

 private:
  using Kept = std::vector<std::pair<const std::string*, Diagnostic>>;  // by the TrainJob's file
  static void Keep(const Inputs& inputs, const TrainJob& job, const Diagnostic& d, Kept& list) {
    Keep(inputs, job.origin.file, d, list);
  }
  static void Keep(const Inputs& inputs, const std::string* job_file, const Diagnostic& d, Kept& list) {
    list.emplace_back(job_file, d);
    if (inputs.current_source) inputs.current_source->Attach(list.back().second);
  }

  Framework framework_;
  ValidationMode validate_;
  std::vector<Diagnostic>* warnings_;
  std::function<void(RenderedJob&)> rendered_;
  std::function<void(const TrainJob&)> unmanaged_;
  Kept errors_;
  Kept warnings_kept_;
};

// Whether everything `job` renders from has been read: its snapshot (Inputs::SnapshotSettled), and
// its runtime unless the snapshot holds it.
bool ReadyToRender(const Inputs& so_far, const TrainJob& job) {
  if (!so_far.SnapshotSettled(job)) return false;
  const RuntimeSnapshot* snapshot = so_far.FindSnapshot(job);
  return (snapshot != nullptr && !CheckRuntimeSnapshot(job, *snapshot)) || so_far.RuntimeSettled(job);
}

// A rendering that is not printed counts as the YAML it would print; `scratch` holds that of one
// object at a time.
void SpendRendering(OutputBudget& budget, const RenderedJob& one, std::string& scratch) {
  for (const Tree& object : one.objects) {
    scratch.clear();
    WriteYaml(object, scratch);
    budget.Spend(*one.job, scratch.size());
  }
}

}  // namespace

std::vector<RenderedJob> RenderJobs(const Inputs& inputs, const RenderOptions& options,
                                    std::vector<Diagnostic>* warnings) {
  std::vector<RenderedJob> all;
  OutputBudget budget(options.max_output_bytes);
  std::string scratch;
  JobRenderer renderer(options, warnings, [&](RenderedJob& one) {
    SpendRendering(budget, one, scratch);
    all.push_back(std::move(one));
  });
  try {
    for (const TrainJob& job : inputs.jobs) renderer.Render(inputs, job);
  } catch (const OutputLimitCrossed& crossed) {
    throw crossed.error;
  }
  renderer.Finish(inputs);
  return all;
}

class EachJobRenderer::Impl {
 public:
  Impl(const RenderOptions& options, std::vector<Diagnostic>* warnings)
      : budget_(options.max_output_bytes), renderer_(options, warnings, [this](RenderedJob& one) {
          SpendRendering(budget_, one, scratch_);
          rendered_ = std::move(one);
        }) {}

  std::optional<RenderedJob> Render(const Inputs& inputs, const TrainJob& job, std::vector<Diagnostic>& errors) {
    rendered_.reset();
    try {
      renderer_.Render(inputs, job);
    } catch (const OutputLimitCrossed& crossed) {
      throw crossed.error;
    }
    for (Diagnostic& e : renderer_.TakeErrors()) errors.push_back(std::move(e));
    return std::exchange(rendered_, std::nullopt);
  }

  void Finish(const Inputs& inputs) { renderer_.Finish(inputs); }

 private:
  OutputBudget budget_;
  std::string scratch_;
  std::optional<RenderedJob> rendered_;
  JobRenderer renderer_;
};

EachJobRenderer::EachJobRenderer(const RenderOptions& options, std::vector<Diagnostic>* warnings)
    : impl_(std::make_unique<Impl>(options, warnings)) {}

EachJobRenderer::~EachJobRenderer() = default;

std::optional<RenderedJob> EachJobRenderer::Render(const Inputs& inputs, const TrainJob& job,
                                                   std::vector<Diagnostic>& errors) {
  return impl_->Render(inputs, job, errors);
}

void EachJobRenderer::Finish(const Inputs& inputs) { impl_->Finish(inputs); }

TrainJob ProbeTrainJob(const Runtime& runtime) {
  const bool cluster = runtime.kind == kClusterTrainingRuntimeKind;
  Tree doc = Tree::Map();
  doc.Set("apiVersion", Tree::String(kTrainerApiVersion));
  doc.Set("kind", Tree::String(kTrainJobKind));
  Tree& meta = doc.Set("metadata", Tree::Map());
  meta.Set("name", Tree::String("probe"));
  meta.Set("namespace",
           Tree::String(cluster || runtime.metadata.namespace_.empty() ? "default" : runtime.metadata.namespace_));
  Tree& spec = doc.Set("spec", Tree::Map());
  Tree& ref = spec.Set("runtimeRef", Tree::Map());
  ref.Set("name", Tree::String(runtime.metadata.name));
  ref.Set("kind", Tree::String(runtime.kind));
  spec.Set("trainer", Tree::Map()).Set("image", Tree::String("trainer-probe:latest"));
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  return DecodeTrainJob(doc);
}

std::string UnmanagedNotice(const TrainJob& job) {
  std::string where =
      job.origin.HasPosition() ? fmt::format("{}:{}: ", Printable(*job.origin.file), job.origin.line) : "";
  return fmt::format("{}{} is managed by {}: the Trainer controller creates nothing for it", where, Subject(job),
                     Printable(job.spec.managed_by.value_or("")));
}

namespace {

// `kubectl get -o json`'s v1 List, written an item at a time: the keys in byte order put "items"
// between "apiVersion" and "kind".
constexpr std::string_view kJsonListHead = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [";
constexpr std::string_view kJsonListItemsEnd = "\n    ]";  // "]" alone without items
constexpr std::string_view kJsonListTail =
    ",\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
// Its values besides the items: the List, its four keys and their values, and resourceVersion's
// key and value.
constexpr std::size_t kJsonListValues = 1 + 4 * 2 + 2;

// Why an input that holds no TrainJob (with --probe: no runtime) is an error, as `diff --legacy`
// says of one: a wrong path or an empty file would otherwise pass unseen. Each names what the
// command needs, and --probe where runtimes alone are meant to render.
std::string NothingRendered(const Inputs& inputs, bool probe) {
  constexpr std::string_view kAllow = "--allow-empty lets an input without TrainJobs pass";
  if (probe) {
    return "no runtime to probe: give ClusterTrainingRuntime or TrainingRuntime files (--allow-empty lets an input "
           "without runtimes pass)";
  }
  if (!inputs.runtimes.empty()) {
    return fmt::format(
        "no TrainJob in the inputs, only runtimes: --probe renders each runtime with a probe TrainJob ({})", kAllow);
  }
  return fmt::format("no TrainJob in the inputs: nothing rendered (runtimes alone render with --probe; {})", kAllow);
}

}  // namespace

std::string* StringSink::OutputText() {
  if (!wants_output_) return nullptr;
  // A piece starts with room for a MiB, and the next one once less than 64 KiB of room is left:
  // only an object larger than that makes its piece grow.
  constexpr std::size_t kPieceBytes = std::size_t{1} << 20;
  constexpr std::size_t kRoomBytes = std::size_t{64} << 10;
  if (pieces_.empty() || pieces_.back().capacity() - pieces_.back().size() < kRoomBytes) {
    pieces_.emplace_back().reserve(kPieceBytes);
  }
  return &pieces_.back();
}

std::string StringSink::text() const {
  std::string all;
  for (const std::string& piece : pieces_) all += piece;
  return all;
}

RenderResult RenderTo(const RenderRequest& request, FileSystem& fs, RenderSink& sink) {
  const bool json = request.format == RenderRequest::Format::kJson;
  const bool names = request.format == RenderRequest::Format::kName;
  const bool output = sink.OutputText() != nullptr;
  const bool files = sink.WantsFiles();
  std::vector<bool> used(request.show_only.size(), false);
  std::size_t items = 0;
  OutputBudget budget(request.render.max_output_bytes, request.render.max_output_values);
  std::string scratch;  // the text of an object that goes to a file only, reused
  // Appends a piece to standard output (`to_output`) or to the scratch string with `write`, and
  // returns its text.
  auto piece = [&](bool to_output, const auto& write) {
    std::string* out = to_output ? sink.OutputText() : &scratch;
    if (!to_output) scratch.clear();
    const std::size_t start = out->size();
    write(*out);
    return std::string_view(*out).substr(start);
  };
  if (output && json) {
    *sink.OutputText() += kJsonListHead;
    budget.Reserve(kJsonListHead.size() + kJsonListItemsEnd.size() + kJsonListTail.size(), kJsonListValues);
  }
  auto write = [&](RenderedJob& r) {
    const Explain explain = request.explain ? OriginExplainer(*r.job, *r.runtime, r.snapshot) : Explain();
    const std::string comment = json || names ? std::string() : SourceComment(*r.job, *r.runtime, r.snapshot);
    auto emit = [&](const Tree& object) {
      if (!Selected(object, request.show_only, used)) return;
      if (files || output) budget.SpendValues(*r.job, object);
      const FileAccess access = files ? AccessOf(object) : FileAccess::kShared;
      if (names && output) {
        budget.Spend(*r.job, piece(true, [&](std::string& out) { AppendKubectlName(object, out); }).size());
      }
      if (!json && !names && (files || output)) {
        std::string_view text = piece(output, [&](std::string& out) {
          out += "---\n";
          out += comment;
          WriteYaml(object, out, request.explain ? &explain : nullptr);
        });
        budget.Spend(*r.job, text.size());
        if (files) sink.File(FileName(object, ".yaml"), text, access);
      }
      if (json && files) {  // one object per file, as `kubectl get -o json` prints one
        std::string_view text = piece(false, [&](std::string& out) {
          WriteJson(object, out, 0);
          out.push_back('\n');
        });
        budget.Spend(*r.job, text.size());
        sink.File(FileName(object, ".json"), text, access);
      }
      if (output && json) {
        std::string_view text = piece(true, [&](std::string& out) {
          out += items == 0 ? "\n        " : ",\n        ";
          WriteJson(object, out, 8);
        });
        budget.Spend(*r.job, text.size());
      }
      ++items;
    };
    // The snapshot the controller applies before it builds the objects, unless the input has it.
    if (request.snapshots && r.snapshot == nullptr) emit(NewRuntimeSnapshot(*r.job, *r.runtime));
    for (const Tree& object : r.objects) emit(object);
  };
  std::vector<Diagnostic> render_warnings;
  std::vector<std::string> unmanaged;
  JobRenderer renderer(request.render, &render_warnings, write,
                       [&](const TrainJob& job) { unmanaged.push_back(UnmanagedNotice(job)); });
  // Each TrainJob renders as it loads, once its runtime has been read, and its snapshot when it may
  // have one (Inputs::SnapshotSettled). One whose runtime or snapshot comes later waits for the
  // end of the input, and so do all after it, to keep the output in input order; with the
  // runtimes first (or given with -r) and the snapshots before their TrainJobs (as a dump's List
  // reads) none waits.
  std::vector<TrainJob> waiting;
  // The TrainJobs without a uid that rendered before any snapshot named after them was read: one
  // read later is refused all the same (CheckRuntimeSnapshot), by namespace/name, with their file.
  std::unordered_map<std::string, const std::string*> rendered_first;
  LoadOptions load = request.load;
  load.names_in_file_names = files;
  if (request.probe) {
    load.runtime_paths.insert(load.runtime_paths.begin(), load.paths.begin(), load.paths.end());
    load.paths.clear();
  }
  std::size_t rendered = 0;  // the TrainJobs (or probes) rendered or judged
  Inputs inputs;
  try {
    inputs = Load(load, fs, [&](const Inputs& so_far, TrainJob& job) {
      ++rendered;
      if (waiting.empty() && ReadyToRender(so_far, job)) {
        if (so_far.FindSnapshot(job) == nullptr) {
          rendered_first.emplace(job.metadata.namespace_ + "/" + job.metadata.name, job.origin.file);
        }
        renderer.Render(so_far, job);
      } else {
        waiting.push_back(std::move(job));
      }
    });
    for (const TrainJob& job : waiting) {
      if (inputs.malformed_files.count(job.origin.file) == 0) renderer.Render(inputs, job);
    }
    if (request.probe) {
      for (const Runtime& runtime : inputs.runtimes) {
        TrainJob probe = ProbeTrainJob(runtime);
        probe.origin = runtime.origin;  // named in # Source: comments and warnings by the runtime's file
        renderer.Render(inputs, probe);
        ++rendered;
      }
    }
  } catch (const OutputLimitCrossed& crossed) {
    throw crossed.error;
  }
  for (const auto& [key, file] : rendered_first) {
    auto it = inputs.snapshot_index.find(key);
    if (it == inputs.snapshot_index.end()) continue;
    renderer.RefuseSnapshot(inputs, file, *CheckRuntimeSnapshot(TrainJob{}, inputs.snapshots[it->second]));
  }
  // Every problem of every object: those of loading, then those of the TrainJobs that loaded.
  try {
    renderer.Finish(inputs);
  } catch (const Error& e) {
    inputs.errors.insert(inputs.errors.end(), e.diagnostics().begin(), e.diagnostics().end());
  }
  if (!inputs.errors.empty()) throw Error(std::move(inputs.errors));
  if (rendered == 0 && !request.allow_empty) throw Error(NothingRendered(inputs, request.probe));
  std::vector<Diagnostic> warnings = std::move(inputs.warnings);
  warnings.insert(warnings.end(), render_warnings.begin(), render_warnings.end());
  std::vector<Diagnostic> errors;
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i])
      errors.push_back(
          Diagnostic{.message = fmt::format("--show-only {}: no rendered object matches", request.show_only[i])});
  }
  if (!errors.empty()) throw Error(std::move(errors));
  if (output && json) {
    std::string& out = *sink.OutputText();
    out += items == 0 ? std::string_view("]") : kJsonListItemsEnd;
    out += kJsonListTail;
  }

  RenderResult summary;
  summary.notices = std::move(inputs.notices);
  summary.unmanaged = std::move(unmanaged);
  // Positions point into `inputs`, which goes away on return.
  for (Diagnostic& w : warnings) {
    if (w.location.empty()) w.location = w.where.Position();
    w.where = {};
  }
  summary.warnings = std::move(warnings);
  return summary;
}

}  // namespace trainer
