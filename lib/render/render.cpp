#include "render/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <tuple>

#include "framework/framework.h"
#include "runtime/pipeline.h"
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

bool Selected(const Tree& object, const std::vector<std::string>& show_only, std::vector<bool>& used) {
  if (show_only.empty()) return true;
  bool any = false;
  for (std::size_t i = 0; i < show_only.size(); ++i) {
    const std::string& sel = show_only[i];
    auto slash = sel.find('/');
    std::string kind = Lower(sel.substr(0, slash));
    if (kind != Lower(Field(object, "kind"))) continue;
    if (slash != std::string::npos && sel.substr(slash + 1) != Field(object, "metadata", "name")) continue;
    used[i] = true;
    any = true;
  }
  return any;
}

std::string FileName(const Tree& object) {
  std::string api_version = Field(object, "apiVersion");
  auto slash = api_version.find('/');
  std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  std::string prefix = group.empty() ? version : group + "_" + version;
  return fmt::format("{}_{}_{}_{}.yaml", prefix, Field(object, "kind"), Field(object, "metadata", "namespace"),
                     Field(object, "metadata", "name"));
}

}  // namespace

std::string SourceComment(const TrainJob& job, const Runtime& runtime) {
  return fmt::format("# Source: {}: {} {}/{} -> {}/{}\n", job.origin.file ? *job.origin.file : "<unknown>", kTrainJobKind,
                     job.metadata.namespace_, job.metadata.name, runtime.kind, runtime.metadata.name);
}

Explain OriginExplainer(const Inputs& inputs) {
  // The objects of each file by the line their document starts on, and the field path of every
  // decoded TrainJob field by its position.
  struct Document {
    std::uint32_t line;
    std::string kind;
  };
  auto documents = std::make_shared<std::map<const std::string*, std::vector<Document>>>();
  auto fields = std::make_shared<std::map<std::tuple<const std::string*, std::uint32_t, std::uint32_t>, std::string>>();
  for (const TrainJob& job : inputs.jobs) {
    (*documents)[job.origin.file].push_back({job.origin.line, kTrainJobKind});
    job.positions.ForEach([&](const std::string& path, const Origin& o) {
      auto key = std::make_tuple(o.file, o.line, o.column);
      auto [it, added] = fields->emplace(key, path);
      if (!added && path.size() > it->second.size()) it->second = path;  // the deepest field at a key
    });
  }
  for (const Runtime& runtime : inputs.runtimes) (*documents)[runtime.origin.file].push_back({runtime.origin.line, runtime.kind});
  for (auto& [file, docs] : *documents) {
    std::sort(docs.begin(), docs.end(), [](const Document& a, const Document& b) { return a.line < b.line; });
  }
  return [documents, fields](const Origin& o) -> std::string {
    switch (o.kind) {
      case Origin::Kind::kNone: return "";
      case Origin::Kind::kDefault: return "CRD default";
      case Origin::Kind::kPlugin: return fmt::format("set by {}", o.by ? o.by : "?");
      case Origin::Kind::kInput: break;
    }
    std::string kind;
    if (auto it = documents->find(o.file); it != documents->end()) {
      for (const Document& d : it->second) {
        if (d.line <= o.line) kind = d.kind;
      }
    }
    std::string text = fmt::format("{}{}:{}", kind.empty() ? "" : kind + " ", o.file ? *o.file : "?", o.line);
    if (auto it = fields->find(std::make_tuple(o.file, o.line, o.column)); it != fields->end()) text += " " + it->second;
    if (o.by) text += fmt::format(", set by {}", o.by);
    return text;
  };
}

void ForEachRenderedJob(const Inputs& inputs, const RenderOptions& options, std::vector<Diagnostic>* warnings,
                        const std::function<void(RenderedJob&)>& rendered) {
  Framework framework(options);
  std::vector<Diagnostic> errors;
  for (const TrainJob& job : inputs.jobs) {
    if (inputs.RefersToRefusedRuntime(job)) continue;  // the runtime's problems are reported
    try {
      const Runtime& runtime = inputs.Resolve(job);
      // The webhook judges the TrainJob before the controller ever sees it.
      Findings admission(options.validate);
      std::optional<Info> info;
      ValidateTrainJob(job, runtime, framework, admission, &info);
      if (warnings) warnings->insert(warnings->end(), admission.warnings().begin(), admission.warnings().end());
      if (!admission.errors().empty()) {
        errors.insert(errors.end(), admission.errors().begin(), admission.errors().end());
        continue;
      }
      RenderedJob one{&job, &runtime, RenderTrainJob(job, runtime, framework, std::move(info))};
      rendered(one);
    } catch (const Error& e) {
      errors.insert(errors.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!errors.empty()) throw Error(std::move(errors));
}

std::vector<RenderedJob> RenderJobs(const Inputs& inputs, const RenderOptions& options,
                                    std::vector<Diagnostic>* warnings) {
  std::vector<RenderedJob> all;
  ForEachRenderedJob(inputs, options, warnings, [&](RenderedJob& one) { all.push_back(std::move(one)); });
  return all;
}

namespace {

// `kubectl get -o json`'s v1 List, written an item at a time: the keys in byte order put "items"
// between "apiVersion" and "kind".
constexpr std::string_view kJsonListHead = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [";
constexpr std::string_view kJsonListTail =
    ",\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";

}  // namespace

RenderSummary RenderTo(const RenderRequest& request, FileSystem& fs, RenderSink& sink) {
  // Every problem of every object: those of loading, then those of the TrainJobs that loaded.
  Inputs inputs = LoadAll(request.load, fs);
  std::vector<Diagnostic> warnings = inputs.warnings;
  const Explain explain = request.explain ? OriginExplainer(inputs) : Explain();
  const bool json = request.format == RenderRequest::Format::kJson;
  const bool output = sink.WantsOutput();
  const bool files = sink.WantsFiles();
  std::vector<bool> used(request.show_only.size(), false);
  std::size_t items = 0;
  std::string text;  // one object's text, reused
  if (output && json) sink.Output(kJsonListHead);
  try {
    ForEachRenderedJob(inputs, request.render, &warnings, [&](RenderedJob& r) {
      if (!inputs.errors.empty()) return;  // nothing will be printed
      for (const Tree& object : r.objects) {
        if (!Selected(object, request.show_only, used)) continue;
        if (files || (output && !json)) {
          text = "---\n" + SourceComment(*r.job, *r.runtime);
          WriteYaml(object, text, request.explain ? &explain : nullptr);
          if (output && !json) sink.Output(text);
          if (files) sink.File(FileName(object), text);
        }
        if (output && json) {
          text.assign(items == 0 ? "\n        " : ",\n        ");
          WriteJson(object, text, 8);
          sink.Output(text);
        }
        ++items;
      }
    });
  } catch (const Error& e) {
    inputs.errors.insert(inputs.errors.end(), e.diagnostics().begin(), e.diagnostics().end());
  }
  if (!inputs.errors.empty()) throw Error(std::move(inputs.errors));
  std::vector<Diagnostic> errors;
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) errors.push_back(Diagnostic{{}, "", "", fmt::format("--show-only {}: no rendered object matches", request.show_only[i])});
  }
  if (!errors.empty()) throw Error(std::move(errors));
  if (output && json) {
    sink.Output(items == 0 ? "]" : "\n    ]");
    sink.Output(kJsonListTail);
  }

  RenderSummary summary;
  summary.notices = std::move(inputs.notices);
  // Positions point into `inputs`, which goes away on return.
  for (Diagnostic& w : warnings) {
    if (w.location.empty()) w.location = w.where.Position();
    w.where = {};
  }
  summary.warnings = std::move(warnings);
  return summary;
}

RenderResult Render(const RenderRequest& request, FileSystem& fs) {
  struct StringSink : RenderSink {
    std::string text;
    void Output(std::string_view piece) override { text += piece; }
  } sink;
  RenderSummary summary = RenderTo(request, fs, sink);
  return RenderResult{std::move(sink.text), std::move(summary.notices), std::move(summary.warnings)};
}

}  // namespace trainer
