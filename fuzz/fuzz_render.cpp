// libFuzzer target for the paths that read untrusted input: the loader (YAML reader, typed decode,
// CRD defaults), `trainer render` in both image modes and both output formats, --explain, the
// legacy/current comparison of `trainer diff --legacy`, and `trainer diff FROM TO` on the input
// and on the rendered output. Build and run: fuzz/README.md.
//
// trainer::Error is the expected way to reject an input. Anything else (a crash, a sanitizer
// report, another exception, a rendered output that does not read back as what was written) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diff/report.h"
#include "diff/stream.h"
#include "input/loader.h"
#include "render/render.h"
#include "util/error.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace {

using trainer::FileSystem;

// One in-memory file, "input.yaml", that the loader reads as a path argument.
class OneFileSystem : public FileSystem {
 public:
  explicit OneFileSystem(std::string content) : content_(std::move(content)) {}
  Kind Stat(const std::string& path) override { return path == kPath ? Kind::kFile : Kind::kMissing; }
  std::string ReadFile(const std::string&) override { return content_; }
  std::string ReadStdin() override { return ""; }
  std::vector<std::string> ListYamlFiles(const std::string&) override { return {}; }
  std::string Identity(const std::string& path) override { return path; }

  static constexpr const char* kPath = "input.yaml";

 private:
  std::string content_;
};

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_render: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The rendered YAML must read back as the objects that were written.
void CheckReadsBack(const std::vector<trainer::RenderedJob>& jobs) {
  static const std::string kName = "rendered.yaml";
  for (const auto& job : jobs) {
    for (const trainer::Tree& object : job.objects) {
      std::string yaml;
      trainer::WriteYaml(object, yaml);
      std::vector<trainer::Tree> back;
      try {
        back = trainer::ReadYamlStream(yaml, &kName);
      } catch (const trainer::Error& e) {
        Finding("rendered YAML does not read back", std::string(e.what()) + "\n" + yaml);
      }
      if (back.size() != 1 || back[0] != object) Finding("rendered YAML reads back as something else", yaml);
      std::string json;
      trainer::WriteJson(object, json);
      try {
        back = trainer::ReadYamlStream(json, &kName);
      } catch (const trainer::Error& e) {
        Finding("rendered JSON does not read back", std::string(e.what()) + "\n" + json);
      }
      if (back.size() != 1 || back[0] != object) Finding("rendered JSON reads back as something else", json);
    }
  }
}

// `trainer render`'s streaming path (each TrainJob rendered as it loads) must print what loading
// everything first and then rendering prints: `expected` is that text, or nothing when that failed.
void CheckStreamingRender(const std::string& content, const std::optional<std::string>& expected) {
  OneFileSystem fs(content);
  trainer::RenderRequest request;
  request.load.paths = {OneFileSystem::kPath};
  std::optional<std::string> streamed;
  try {
    trainer::StringSink sink;
    trainer::RenderTo(request, fs, sink);
    streamed = sink.text();
  } catch (const trainer::Error&) {
  }
  if (streamed.has_value() != expected.has_value()) {
    Finding(streamed ? "the streaming render succeeds where loading first fails"
                     : "the streaming render fails where loading first succeeds",
            streamed.value_or(expected.value_or("")));
  }
  if (streamed && *streamed != *expected) {
    Finding("the streaming render prints something else", *streamed + "\n----\n" + *expected);
  }
}

void FuzzRender(const std::string& content) {
  OneFileSystem fs(content);
  trainer::LoadOptions load;
  load.paths = {OneFileSystem::kPath};
  trainer::Inputs inputs;
  try {
    inputs = trainer::Load(load, fs);
    inputs.Checkpoint();
  } catch (const trainer::Error&) {
    CheckStreamingRender(content, std::nullopt);
    return;
  }
  trainer::RenderOptions current;
  trainer::RenderOptions legacy;
  legacy.legacy_image = true;
  std::vector<trainer::RenderedJob> current_jobs;
  std::vector<trainer::RenderedJob> legacy_jobs;
  try {
    current_jobs = trainer::RenderJobs(inputs, current);
  } catch (const trainer::Error&) {
    CheckStreamingRender(content, std::nullopt);
    return;
  }
  CheckReadsBack(current_jobs);
  std::string expected;
  for (const auto& job : current_jobs) {
    for (const trainer::Tree& object : job.objects) {
      expected += "---\n" + trainer::SourceComment(*job.job, *job.runtime);
      trainer::WriteYaml(object, expected);
    }
  }
  CheckStreamingRender(content, expected);
  try {
    legacy_jobs = trainer::RenderJobs(inputs, legacy);
  } catch (const trainer::Error&) {
    return;
  }

  for (const auto& job : current_jobs) {
    trainer::Explain explain = trainer::OriginExplainer(*job.job, *job.runtime);
    for (const trainer::Tree& object : job.objects) {
      std::string yaml = trainer::SourceComment(*job.job, *job.runtime);
      trainer::WriteYaml(object, yaml, &explain);
    }
  }

  trainer::Report report = trainer::CompareRenderings(legacy_jobs, current_jobs, {});
  for (trainer::ReportFormat format : {trainer::ReportFormat::kHuman, trainer::ReportFormat::kUnified,
                                       trainer::ReportFormat::kBrief, trainer::ReportFormat::kJson,
                                       trainer::ReportFormat::kGithub}) {
    trainer::ReportOptions options;
    options.format = format;
    (void)trainer::FormatReport(report, options);
  }
}

// `trainer diff FROM TO` with the input's objects as FROM and, as TO, the same objects with the
// first and the last swapped and the last dropped (so that objects are matched, added and removed).
void FuzzDiffStreams(const std::string& content) {
  static const std::string kName = "objects.yaml";
  std::vector<trainer::Tree> from;
  try {
    from = trainer::ReadObjectStream(content, &kName);
  } catch (const trainer::Error&) {
    return;
  }
  std::vector<trainer::Tree> to = from;
  if (!to.empty()) std::swap(to.front(), to.back());
  if (to.size() > 1) to.pop_back();
  trainer::Report report = trainer::CompareStreams(from, to, {});
  for (trainer::ReportFormat format : {trainer::ReportFormat::kHuman, trainer::ReportFormat::kUnified,
                                       trainer::ReportFormat::kJson, trainer::ReportFormat::kGithub}) {
    trainer::ReportOptions options;
    options.format = format;
    options.context = 1;
    (void)trainer::FormatReport(report, options);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string content(reinterpret_cast<const char*>(data), size);
  FuzzRender(content);
  FuzzDiffStreams(content);
  return 0;
}
