#include "suite/suite.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/commands.h"
#include "diff/report.h"
#include "diff/stream.h"
#include "tests/fake_file_writer.h"
#include "tests/fake_fs.h"
#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

namespace stdfs = std::filesystem;
using Lines = std::vector<std::string>;

constexpr const char* kInput = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: plain}
spec:
  template:
    spec:
      replicatedJobs: [{name: node, template: {spec: {template: {spec: {containers: [{name: node, image: a}]}}}}}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job}
spec: {runtimeRef: {name: plain}}
)";

// What kInput renders to, written by hand: map order, flow style, quoting and comments differ
// from the renderer's output.
constexpr const char* kExpected = R"(# written by hand
kind: JobSet
apiVersion: "jobset.x-k8s.io/v1alpha2"
metadata:
  namespace: default
  name: job
  ownerReferences: [{kind: TrainJob, name: job, uid: '', apiVersion: trainer.kubeflow.org/v1alpha1, controller: true, blockOwnerDeletion: true}]
spec:
  suspend: false
  replicatedJobs:
  - {name: node, groupName: default, replicas: 1, template: {metadata: {}, spec: {parallelism: 1, completions: 1, template: {metadata: {}, spec: {containers: [{name: node, image: a, resources: {}}]}}}}}
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<Tree> Read(const std::string& text) {
  static const std::string kName = "test.yaml";
  return ExpectedObjects(ReadYamlStream(text, &kName));
}

// A suite folder "s" with one case "s/c" holding kInput and the given expected files.
testing::FakeFileSystem CaseFiles(const std::map<std::string, std::string>& expected) {
  testing::FakeFileSystem fs;
  fs.files["s/c/input.yaml"] = kInput;
  for (const auto& [name, content] : expected) fs.files["s/c/" + name] = content;
  return fs;
}

std::vector<std::string> ChangedPaths(const CaseResult& result) {
  std::vector<std::string> out;
  for (const auto& c : result.changes) out.push_back((c.content ? "write " : "remove ") + c.path);
  return out;
}

using testing::FakeFileWriter;

// A scratch folder, removed at the end of the test.
struct TempDir {
  stdfs::path path;
  TempDir() {
    static int counter = 0;
    path = stdfs::temp_directory_path() /
           ("trainer-suite-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    stdfs::remove_all(path);
    stdfs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    stdfs::remove_all(path, ec);
  }
  std::string Put(const std::string& name, const std::string& content) const {
    stdfs::path file = path / name;
    stdfs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }
};

std::string Slurp(const stdfs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("trainer test prints a one-line value as trainer diff prints it") {
  const std::string from_file = "expected.yaml";
  const std::string to_file = "rendered.yaml";
  std::string from_yaml = R"({kind: JobSet, metadata: {name: j}, spec: {x: [a, 'say "hi"', "tab\there", '1']}})";
  std::string to_yaml = R"({kind: JobSet, metadata: {name: j}, spec: {x: "line\u2028sep\x85"}})";
  std::vector<Tree> from = ReadObjectStream(from_yaml, &from_file);
  std::vector<Tree> to = ReadObjectStream(to_yaml, &to_file);
  const std::string change = R"([a, "say \"hi\"", "tab\there", "1"] → "line\u2028sep\u0085")";
  CHECK(CompareObjects("current.yaml", from, to) == Lines{"current.yaml: JobSet j:", "  spec.x: " + change});
  CHECK(FormatReport(CompareStreams(from, to, {}), {}).find("\n    " + change + "\n") != std::string::npos);
}

TEST_CASE("CompareObjects ignores map order, quoting and comments, but not list order") {
  std::vector<Tree> expected = Read(
      "# a comment\nkind: JobSet\napiVersion: v1\nmetadata: {name: j, namespace: d}\n"
      "spec: {args: [a, b], image: 'x'}\n");
  std::vector<Tree> same = Read(
      "apiVersion: v1\nkind: JobSet\nmetadata:\n  namespace: d\n  name: j\nspec:\n  image: x\n"
      "  args:\n  - a\n  - b\n");
  CHECK(CompareObjects("current.yaml", expected, same).empty());
  std::vector<Tree> swapped = Read(
      "{apiVersion: v1, kind: JobSet, metadata: {name: j, namespace: d}, "
      "spec: {args: [b, a], image: x}}");
  CHECK(CompareObjects("current.yaml", expected, swapped) ==
        Lines{"current.yaml: JobSet d/j:", "  spec.args[0]: a → b", "  spec.args[1]: b → a"});
}

TEST_CASE("CompareObjects names changed values, type changes, added and removed fields by their paths") {
  std::vector<Tree> expected =
      Read("{kind: JobSet, metadata: {name: j}, spec: {containers: [{name: node, image: old, port: 1}], x: 1}}");
  std::vector<Tree> rendered = Read(
      "{kind: JobSet, metadata: {name: j}, spec: {containers: [{name: node, image: new, env: [{name: A}]}], "
      "x: '1'}}");
  CHECK(CompareObjects("legacy.yaml", expected, rendered) ==
        Lines{"legacy.yaml: JobSet j:", "  spec.containers[name=node].env: (absent) → [{name: A}]",
              "  spec.containers[name=node].image: old → new", "  spec.containers[name=node].port: 1 → (absent)",
              "  spec.x: 1 → \"1\""});
}

TEST_CASE("CompareObjects reports objects missing on either side and objects in another order") {
  std::vector<Tree> a = Read("{kind: JobSet, metadata: {name: j}}\n---\n{kind: Secret, metadata: {name: s}}\n");
  std::vector<Tree> b = Read("{kind: Secret, metadata: {name: s}}\n---\n{kind: JobSet, metadata: {name: j}}\n");
  CHECK(CompareObjects("current.yaml", a, b) ==
        Lines{"current.yaml: the objects are rendered in another order:", "  expected: JobSet j, Secret s",
              "  rendered: Secret s, JobSet j"});
  std::vector<Tree> c = Read("{kind: JobSet, metadata: {name: j}}\n---\n{kind: ConfigMap, metadata: {name: m}}\n");
  CHECK(CompareObjects("current.yaml", a, c) ==
        Lines{"current.yaml: Secret s: expected, not rendered", "current.yaml: ConfigMap m: rendered, not expected"});
}

TEST_CASE("a v1 List in JSON holds the same objects as a YAML stream") {
  std::vector<Tree> json = Read(R"({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
    "items": [{"kind": "JobSet", "metadata": {"name": "j"}, "spec": {"count": 1}}]})");
  REQUIRE(json.size() == 1);
  CHECK(CompareObjects("current.yaml", json, Read("kind: JobSet\nmetadata: {name: j}\nspec: {count: 1}\n")).empty());
}

TEST_CASE("a case whose expected files match its rendering passes") {
  auto fs = CaseFiles({{"current.yaml", kExpected}});
  for (SuiteMode mode : {SuiteMode::kRecord, SuiteMode::kCheck, SuiteMode::kUpdate}) {
    CaseResult result = RunCase("s/c", mode, fs);
    CHECK(result.status == CaseResult::Status::kPassed);
    CHECK(result.report.empty());
    CHECK(result.changes.empty());
  }
}

TEST_CASE("a wrong value fails once where legacy.yaml is absent, and --update rewrites current.yaml only") {
  auto fs = CaseFiles({{"current.yaml", Replace(kExpected, "image: a", "image: z")}});
  CaseResult result = RunCase("s/c", SuiteMode::kRecord, fs);
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report ==
        Lines{"current.yaml: JobSet default/job:",
              "  spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image: z → a"});
  CHECK(result.changes.empty());
  CHECK(RunCase("s/c", SuiteMode::kCheck, fs).status == CaseResult::Status::kFailed);

  // The two renderings agree, so no legacy.yaml is written.
  CaseResult updated = RunCase("s/c", SuiteMode::kUpdate, fs);
  CHECK(updated.status == CaseResult::Status::kPassed);
  CHECK(updated.action == "wrote current.yaml");
  CHECK(ChangedPaths(updated) == Lines{"write s/c/current.yaml"});
  CHECK(updated.changes[0].content->find("# Source: s/c/input.yaml: TrainJob default/job") != std::string::npos);
}

TEST_CASE("an expected file of more values than one input may hold is read, as --update may write one") {
  // A rendering may hold more values than the reader admits in one input (env copied into every
  // trainer container, patches into every job): what --update writes must read back.
  std::string big = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: default}\ndata: [0";
  for (int i = 0; i < 1'000'000; ++i) big += ",0";
  big += "]\n";
  auto fs = CaseFiles({{"current.yaml", kExpected + big}});
  CaseResult result = RunCase("s/c", SuiteMode::kCheck, fs);
  CHECK(result.report == Lines{"current.yaml: ConfigMap default/big: expected, not rendered"});
}

TEST_CASE("an error file passes when the message contains it, and fails showing both otherwise") {
  testing::FakeFileSystem fs;
  fs.files["s/e/input.yaml"] = Replace(kInput, "name: plain}}", "name: missing}}");
  fs.files["s/e/error"] = "spec.runtimeRef: ClusterTrainingRuntime \"missing\" not found\n";
  CHECK(RunCase("s/e", SuiteMode::kCheck, fs).status == CaseResult::Status::kPassed);
  fs.files["s/e/error"] = "something else\n";
  CaseResult result = RunCase("s/e", SuiteMode::kCheck, fs);
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report ==
        Lines{"error: the message does not contain the expected text", "  expected: something else",
              "  message:  s/e/input.yaml:12:8: TrainJob default/job: spec.runtimeRef: "
              "ClusterTrainingRuntime \"missing\" not found; loaded runtimes: ClusterTrainingRuntime plain"});
  CaseResult updated = RunCase("s/e", SuiteMode::kUpdate, fs);
  CHECK(updated.status == CaseResult::Status::kPassed);
  REQUIRE(ChangedPaths(updated) == Lines{"write s/e/error"});
  CHECK(*updated.changes[0].content ==
        "s/e/input.yaml:12:8: TrainJob default/job: spec.runtimeRef: ClusterTrainingRuntime \"missing\" not found; "
        "loaded runtimes: ClusterTrainingRuntime plain\n");
}

TEST_CASE("expected renderings of a case whose rendering now fails are obsolete") {
  auto fs = CaseFiles({{"current.yaml", kExpected}, {"legacy.yaml", kExpected}});
  fs.files["s/c/input.yaml"] = Replace(kInput, "name: plain}}", "name: missing}}");
  CaseResult result = RunCase("s/c", SuiteMode::kRecord, fs);
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report == Lines{"obsolete current.yaml, legacy.yaml: the rendering now fails:",
                               "  s/c/input.yaml:12:8: TrainJob default/job: spec.runtimeRef: ClusterTrainingRuntime "
                               "\"missing\" not found; loaded runtimes: ClusterTrainingRuntime plain"});
  CHECK(result.changes.empty());
  CaseResult updated = RunCase("s/c", SuiteMode::kUpdate, fs);
  CHECK(updated.status == CaseResult::Status::kPassed);
  CHECK(updated.action == "wrote error; removed current.yaml, legacy.yaml");
}

TEST_CASE("an error file of a case that now renders is obsolete") {
  auto fs = CaseFiles({{"error", "not found\n"}});
  CaseResult result = RunCase("s/c", SuiteMode::kRecord, fs);
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report == Lines{"obsolete error: the case now renders; the error it expects:", "  not found"});
  CHECK(result.changes.empty());
  CaseResult updated = RunCase("s/c", SuiteMode::kUpdate, fs);
  CHECK(updated.status == CaseResult::Status::kPassed);
  CHECK(updated.action == "wrote current.yaml; removed error");
}

TEST_CASE("expected files that no input produces are obsolete") {
  testing::FakeFileSystem fs;
  fs.files["s/gone/current.yaml"] = kExpected;
  fs.files["s/gone/legacy.yaml"] = kExpected;
  CaseResult result = RunCase("s/gone", SuiteMode::kCheck, fs);
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report == Lines{"obsolete current.yaml, legacy.yaml: no input.yaml or args produces them"});
  CHECK(ChangedPaths(RunCase("s/gone", SuiteMode::kUpdate, fs)) ==
        Lines{"remove s/gone/current.yaml", "remove s/gone/legacy.yaml"});
}

TEST_CASE("a new case is recorded by default, fails under --check, and a failing one is recorded by --update only") {
  auto fs = CaseFiles({});
  CaseResult recorded = RunCase("s/c", SuiteMode::kRecord, fs);
  CHECK(recorded.status == CaseResult::Status::kPassed);
  CHECK(recorded.recorded);
  CHECK(ChangedPaths(recorded) == Lines{"write s/c/current.yaml"});  // the rendering with --legacy is the same
  CHECK(CompareObjects("current.yaml", Read(kExpected), Read(*recorded.changes[0].content)).empty());

  CaseResult checked = RunCase("s/c", SuiteMode::kCheck, fs);
  CHECK(checked.status == CaseResult::Status::kFailed);
  CHECK(checked.report ==
        Lines{"no expected file: current.yaml, legacy.yaml or error (trainer test without --check writes them)"});
  CHECK(checked.changes.empty());

  fs.files["s/c/input.yaml"] = Replace(kInput, "name: plain}}", "name: missing}}");
  CaseResult failing = RunCase("s/c", SuiteMode::kRecord, fs);
  CHECK(failing.status == CaseResult::Status::kFailed);
  CHECK(failing.report.at(0) == "the rendering fails (trainer test --update records this message in error):");
  CHECK(failing.changes.empty());
  CHECK(ChangedPaths(RunCase("s/c", SuiteMode::kUpdate, fs)) == Lines{"write s/c/error"});
}

// A suite reading args as `trainer test` does, with render's option table.
SuiteOptions WithArgs() {
  SuiteOptions options;
  options.parse_args = app::ParseCaseArgs;
  return options;
}

TEST_CASE("args are passed to the rendering, relative to the case folder, with -o json compared as a List") {
  testing::FakeFileSystem fs;
  fs.files["inputs/jobs.yaml"] = kInput;
  fs.files["s/j/args"] = "../../inputs/jobs.yaml -o json\n";
  fs.files["s/j/current.yaml"] = std::string(R"({"apiVersion": "v1", "kind": "List", "items": [)") +
                                 R"({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
      "metadata": {"name": "job", "namespace": "default"}}]})";
  CaseResult result = RunCase("s/j", SuiteMode::kCheck, fs, WithArgs());
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report.at(0) == "current.yaml: JobSet default/job:");
  CHECK(result.report.at(1).rfind("  metadata.ownerReferences: (absent) → [{apiVersion: trainer.kubeflow.org/v1alpha1",
                                  0) == 0);
  CaseResult updated = RunCase("s/j", SuiteMode::kUpdate, fs, WithArgs());
  REQUIRE(updated.changes.size() == 1);
  CHECK(updated.changes[0].content->rfind("{\n    \"apiVersion\": \"v1\",\n", 0) == 0);
}

TEST_CASE("a case with a bad args file fails and changes nothing") {
  auto fs = CaseFiles({});
  fs.files["s/c/args"] = "--legacy\n";
  CaseResult result = RunCase("s/c", SuiteMode::kUpdate, fs, WithArgs());
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report == Lines{"args: --legacy must not be in args: trainer test renders every case both ways, into "
                               "current.yaml and legacy.yaml"});
  CHECK(result.changes.empty());
}

TEST_CASE("a missing path in args fails the case, and --update does not replace its expected files by an error") {
  auto fs = CaseFiles({{"current.yaml", kExpected}, {"legacy.yaml", kExpected}});
  fs.files["s/c/args"] = "-r runtimes/elsewhere.yaml\n";
  CaseResult result = RunCase("s/c", SuiteMode::kUpdate, fs, WithArgs());
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report == Lines{"args: runtimes/elsewhere.yaml: no such file or folder (s/c/runtimes/elsewhere.yaml: "
                               "paths in args are relative to the case folder)"});
  CHECK(result.changes.empty());
}

TEST_CASE("a case naming an absent file in a folder shared above it is skipped; one inside the case fails") {
  auto fs = CaseFiles({});
  fs.files["s/c/args"] = "-r ../../../shared/upstream/runtimes/absent.yaml\n";
  CaseResult result = RunCase("s/c", SuiteMode::kCheck, fs, WithArgs());
  CHECK(result.status == CaseResult::Status::kSkipped);
  CHECK(result.report ==
        Lines{"../shared/upstream/runtimes/absent.yaml is absent (../shared is not beside this checkout)"});
  fs.files["s/c/args"] = "-r shared/upstream/runtimes/absent.yaml\n";
  CHECK(RunCase("s/c", SuiteMode::kCheck, fs, WithArgs()).status == CaseResult::Status::kFailed);
}

SuiteOptions ProjectOptions(const std::string& plugin_order = "") {
  SuiteOptions options = WithArgs();
  options.plugin_order = plugin_order;
  return options;
}

TEST_CASE("a legacy.yaml that repeats current.yaml passes with a note, and --update removes it, saying why") {
  auto fs = CaseFiles({{"current.yaml", kExpected}, {"legacy.yaml", kExpected}});
  for (SuiteMode mode : {SuiteMode::kCheck, SuiteMode::kRecord}) {
    SuiteResult result = RunSuite({"s/c"}, mode, fs, ProjectOptions());
    CHECK(result.passed == 1);
    CHECK(result.cases[0].report.empty());
    CHECK(result.cases[0].changes.empty());
    CHECK(Notices(result) == Lines{"1 case holds a legacy.yaml that repeats current.yaml (the rendering with "
                                   "--legacy is the same as without); trainer test --update removes it"});
    CHECK(FormatText(result) == "1 passed, 0 failed\n");
  }
  SuiteResult updated = RunSuite({"s/c"}, SuiteMode::kUpdate, fs, ProjectOptions());
  CHECK(ChangedPaths(updated.cases[0]) == Lines{"remove s/c/legacy.yaml"});
  CHECK(Notices(updated).empty());
  CHECK(FormatText(updated) ==
        "UPDATED s/c: removed legacy.yaml\n"
        "  redundant legacy.yaml: the rendering with --legacy is the same as without, which current.yaml holds\n"
        "1 passed, 0 failed\n");
}

TEST_CASE("the note counts the cases whose legacy.yaml repeats current.yaml") {
  auto fs = CaseFiles({{"current.yaml", kExpected}, {"legacy.yaml", kExpected}});
  fs.files["s/d/input.yaml"] = kInput;
  fs.files["s/d/current.yaml"] = kExpected;
  fs.files["s/d/legacy.yaml"] = kExpected;
  CHECK(Notices(RunSuite({"s/c", "s/d"}, SuiteMode::kCheck, fs, ProjectOptions())) ==
        Lines{"2 cases hold a legacy.yaml that repeats current.yaml (the rendering with --legacy is the same as "
              "without); trainer test --update removes them"});
}

TEST_CASE("a legacy.yaml that differs from the rendering with --legacy, itself the same as without, is obsolete") {
  auto fs = CaseFiles({{"current.yaml", kExpected}, {"legacy.yaml", Replace(kExpected, "image: a", "image: z")}});
  CaseResult result = RunCase("s/c", SuiteMode::kCheck, fs, ProjectOptions());
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report ==
        Lines{"legacy.yaml: JobSet default/job:",
              "  spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image: z → a",
              "obsolete legacy.yaml: the rendering with --legacy is the same as without, which current.yaml holds"});
  CHECK(!result.redundant_legacy);
  CHECK(ChangedPaths(RunCase("s/c", SuiteMode::kUpdate, fs, ProjectOptions())) == Lines{"remove s/c/legacy.yaml"});
}

TEST_CASE("exact expected files fail on any byte that differs, with a unified diff") {
  auto fs = CaseFiles({{"current.yaml", kExpected}});
  SuiteOptions options = ProjectOptions();
  options.exact = true;
  CaseResult result = RunCase("s/c", SuiteMode::kCheck, fs, options);
  CHECK(result.status == CaseResult::Status::kFailed);
  REQUIRE(result.report.size() > 4);
  CHECK(result.report[0] == "--- s/c/current.yaml (expected)");
  CHECK(result.report[1] == "+++ trainer output (actual)");
  CHECK(result.report[2].rfind("@@ -1,", 0) == 0);
  // The rendering with --legacy is the same: current.yaml's diff is shown once.
  CHECK(std::count(result.report.begin(), result.report.end(), "-# written by hand") == 1);
  CHECK(std::find(result.report.begin(), result.report.end(), "+++ trainer --legacy output (actual)") ==
        result.report.end());
  CaseResult updated = RunCase("s/c", SuiteMode::kUpdate, fs, options);
  REQUIRE(ChangedPaths(updated) == Lines{"write s/c/current.yaml"});
  fs.files["s/c/current.yaml"] = *updated.changes[0].content;
  CHECK(RunCase("s/c", SuiteMode::kCheck, fs, options).status == CaseResult::Status::kPassed);
}

TEST_CASE("in another plugin order, a case saying it is order-dependent must render differently") {
  auto fs = CaseFiles({{"current.yaml", kExpected}});
  CHECK(RunCase("s/c", SuiteMode::kCheck, fs, ProjectOptions("reversed")).status == CaseResult::Status::kPassed);
  fs.files["s/c/order-dependent"] = "the image depends on which plugin runs last\n";
  CHECK(RunCase("s/c", SuiteMode::kCheck, fs, ProjectOptions()).status == CaseResult::Status::kPassed);
  CaseResult result = RunCase("s/c", SuiteMode::kCheck, fs, ProjectOptions("reversed"));
  CHECK(result.status == CaseResult::Status::kFailed);
  CHECK(result.report == Lines{"the case says it depends on the plugin order, but TRAINER_PLUGIN_ORDER=reversed "
                               "changes nothing: update or remove s/c/order-dependent"});
  fs.files["s/c/current.yaml"] = Replace(kExpected, "image: a", "image: z");
  CHECK(RunCase("s/c", SuiteMode::kCheck, fs, ProjectOptions("reversed")).status == CaseResult::Status::kPassed);
}

TEST_CASE("an update writes temporaries first, then renames them into place, then removes obsolete files") {
  FakeFileWriter writer;
  writer.files = {{"a/current.yaml", "old a"}, {"b/current.yaml", "old b"}, {"c/error", "old c"}};
  ApplyChanges({{"a/current.yaml", "new a"}, {"b/legacy.yaml", "new b"}, {"c/error", std::nullopt}}, writer);
  CHECK(writer.files == std::map<std::string, std::string>{
                            {"a/current.yaml", "new a"}, {"b/current.yaml", "old b"}, {"b/legacy.yaml", "new b"}});
}

TEST_CASE("an update interrupted by a failed write leaves every old file whole and no temporary behind") {
  FakeFileWriter writer;
  const std::map<std::string, std::string> before = {
      {"a/current.yaml", "old a"}, {"b/current.yaml", "old b"}, {"c/error", "old c"}};
  writer.files = before;
  writer.fail_write = 1;
  std::string message;
  try {
    ApplyChanges({{"a/current.yaml", "new a"}, {"b/current.yaml", "new b"}, {"c/error", std::nullopt}}, writer);
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message ==
        "cannot update the expected files: b/current.yaml: cannot write: No space left on device; no file was "
        "replaced");
  CHECK(writer.files == before);
}

TEST_CASE("an update interrupted by a failed rename leaves each file whole, old or new") {
  FakeFileWriter writer;
  writer.files = {{"a/current.yaml", "old a"}, {"b/current.yaml", "old b"}, {"c/error", "old c"}};
  writer.fail_rename = 1;
  std::string message;
  try {
    ApplyChanges({{"a/current.yaml", "new a"}, {"b/current.yaml", "new b"}, {"c/error", std::nullopt}}, writer);
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message ==
        "cannot update the expected files: b/current.yaml: cannot rename b/.current.yaml.trainer-000002 to it: "
        "Input/output error; 1 of 2 files were replaced (a/current.yaml), each file is whole (old or new)");
  CHECK(writer.files == std::map<std::string, std::string>{
                            {"a/current.yaml", "new a"}, {"b/current.yaml", "old b"}, {"c/error", "old c"}});
}

TEST_CASE("an update refuses expected files that are folders or symbolic links, all of them, before replacing any") {
  FakeFileWriter writer;
  writer.files = {{"a/current.yaml", "old a"}};
  writer.others = {{"b/current.yaml", FileWriter::Kind::kSymlink}, {"c/legacy.yaml", FileWriter::Kind::kDirectory}};
  std::string message;
  try {
    ApplyChanges({{"a/current.yaml", "new a"}, {"b/current.yaml", "new b"}, {"c/legacy.yaml", "new c"}}, writer);
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message ==
        "cannot update the expected files: b/current.yaml: is a symbolic link, which trainer does not replace; no "
        "file was replaced\n"
        "cannot update the expected files: c/legacy.yaml: is a folder; no file was replaced");
  CHECK(writer.files == std::map<std::string, std::string>{{"a/current.yaml", "old a"}});
}

TEST_CASE("an update never writes through a symbolic link planted in a case folder") {
  TempDir dir;
  std::string victim = dir.Put("victim", "precious\n");
  dir.Put("s/c/input.yaml", kInput);
  std::string current = (dir.path / "s/c/current.yaml").string();
  // A link at a fixed temporary name beside the file, as an attacker would guess it.
  stdfs::create_symlink(victim, current + ".trainer-tmp");
  ApplyChanges({{current, kExpected}}, *NewRealFileWriter());
  CHECK(Slurp(current) == kExpected);
  CHECK(Slurp(victim) == "precious\n");

  std::string legacy = (dir.path / "s/c/legacy.yaml").string();
  stdfs::create_symlink(victim, legacy);
  std::string message;
  try {
    ApplyChanges({{current, "new\n"}, {legacy, kExpected}}, *NewRealFileWriter());
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message == "cannot update the expected files: " + legacy +
                       ": is a symbolic link, which trainer does not replace; no file was replaced");
  CHECK(Slurp(current) == kExpected);
  CHECK(Slurp(victim) == "precious\n");
  CHECK(stdfs::is_symlink(legacy));
  for (const auto& entry : stdfs::directory_iterator(dir.path / "s/c")) {
    CHECK_MESSAGE(!IsTemporaryName(entry.path().filename().string()), entry.path());
  }
}

TEST_CASE("a temporary file left in a case folder by an interrupted run fails the case, naming it") {
  TempDir dir;
  dir.Put("s/c/input.yaml", kInput);
  dir.Put("s/c/current.yaml", kExpected);
  dir.Put("s/c/.current.yaml.trainer-Ab12cD", "half");
  dir.Put("s/c/.legacy.yaml.trainer-x0Y9zz", "half");
  dir.Put("s/c/notes.trainer-tmp.txt", "not one");
  auto fs = NewRealFileSystem();
  CaseResult result = RunCase((dir.path / "s/c").string(), SuiteMode::kCheck, *fs);
  CHECK(result.status == CaseResult::Status::kFailed);
  const std::string left = ": a temporary file left by an interrupted trainer run; remove it";
  CHECK(result.report == Lines{".current.yaml.trainer-Ab12cD" + left, ".legacy.yaml.trainer-x0Y9zz" + left});
}

TEST_CASE("FindCases finds cases below a folder in name order, without looking inside a case") {
  TempDir dir;
  dir.Put("suite/b/input.yaml", kInput);
  dir.Put("suite/a/args", "x.yaml\n");
  dir.Put("suite/a/templates/inner/input.yaml", kInput);  // inside a case: not a case of its own
  dir.Put("suite/group/c/error", "x\n");
  dir.Put("suite/.hidden/input.yaml", kInput);
  dir.Put("suite/notes/readme.md", "not a case\n");
  std::string suite = (dir.path / "suite").string();
  CHECK(FindCases({suite + "/"}) == Lines{suite + "/a", suite + "/b", suite + "/group/c"});
  CHECK(FindCases({suite + "/b", suite + "/./b"}) == Lines{suite + "/b"});
}

TEST_CASE("FindCases rejects a missing DIR, a file and a folder without cases, all at once") {
  TempDir dir;
  std::string file = dir.Put("file.yaml", kInput);
  dir.Put("empty/readme.md", "nothing\n");
  std::string empty = (dir.path / "empty").string();
  std::string message;
  try {
    FindCases({"no/such/dir", file, empty});
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message == "no/such/dir: no such folder\n" + file + ": not a folder\n" + empty +
                       ": no test case in it (a folder holding input.yaml, args, current.yaml, legacy.yaml or error)");
}

TEST_CASE("FindCases refuses a case file that is a FIFO, a folder or a symbolic link to nothing, naming each") {
  TempDir dir;
  dir.Put("s/fifo/input.yaml", kInput);
  REQUIRE(mkfifo((dir.path / "s/fifo/args").c_str(), 0600) == 0);
  dir.Put("s/folder/input.yaml", kInput);
  dir.Put("s/folder/error/readme", "not the expected error\n");
  dir.Put("s/dangling/input.yaml", kInput);
  stdfs::create_symlink(dir.path / "nowhere", dir.path / "s/dangling/error");
  dir.Put("s/linked/input.yaml", kInput);
  stdfs::create_symlink(dir.path / "s/linked/input.yaml", dir.path / "s/linked/current.yaml");  // read: no problem
  const std::string s = (dir.path / "s").string();
  std::string message;
  try {
    FindCases({s});
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message == s + "/dangling/error: is a symbolic link to nothing; a test case's error must be a file\n" + s +
                       "/fifo/args: is a FIFO (named pipe); a test case's args must be a file\n" + s +
                       "/folder/error: is a folder; a test case's error must be a file");
}

TEST_CASE("after --update on a scratch suite with the real file system, the suite passes") {
  TempDir dir;
  dir.Put("s/ok/input.yaml", kInput);
  dir.Put("s/ok/current.yaml", kExpected);
  dir.Put("s/wrong/input.yaml", kInput);
  dir.Put("s/wrong/current.yaml", Replace(kExpected, "replicas: 1", "replicas: 3"));
  dir.Put("s/wrong/legacy.yaml", kExpected);  // redundant: the rendering with --legacy is current.yaml's
  dir.Put("s/new/input.yaml", kInput);
  auto fs = NewRealFileSystem();
  std::vector<std::string> cases = FindCases({(dir.path / "s").string()});

  SuiteResult before = RunSuite(cases, SuiteMode::kCheck, *fs);
  CHECK(before.passed == 1);
  CHECK(before.failed == 2);

  SuiteResult update = RunSuite(cases, SuiteMode::kUpdate, *fs);
  CHECK(update.failed == 0);
  std::vector<ExpectedFileChange> changes;
  for (const CaseResult& c : update.cases) changes.insert(changes.end(), c.changes.begin(), c.changes.end());
  CHECK(changes.size() == 3);  // s/wrong's current.yaml written and legacy.yaml removed, s/new's current.yaml
  ApplyChanges(changes, *NewRealFileWriter());

  SuiteResult after = RunSuite(cases, SuiteMode::kCheck, *fs);
  CHECK(after.passed == 3);
  CHECK(after.failed == 0);
  CHECK(Slurp(dir.path / "s/ok/current.yaml") == kExpected);  // matching files are left alone
  for (const auto& entry : stdfs::recursive_directory_iterator(dir.path)) {
    CHECK_MESSAGE(!IsTemporaryName(entry.path().filename().string()), entry.path());
  }
}

TEST_CASE("the text report lists failing, skipped, new and updated cases, then the counts") {
  SuiteResult result;
  result.cases.push_back({"s/ok", CaseResult::Status::kPassed, {}, "", false, {}});
  result.cases.push_back(
      {"s/bad", CaseResult::Status::kFailed, {"current.yaml: JobSet j:", "  spec.n: 1 → 2"}, "", false, {}});
  result.cases.push_back({"s/far", CaseResult::Status::kSkipped, {"../shared/x is absent"}, "", false, {}});
  result.cases.push_back({"s/new", CaseResult::Status::kPassed, {}, "wrote current.yaml, legacy.yaml", true, {}});
  result.passed = 2;
  result.failed = 1;
  result.skipped = 1;
  CHECK(FormatText(result) ==
        "FAIL s/bad\n  current.yaml: JobSet j:\n    spec.n: 1 → 2\nSKIP s/far: ../shared/x is absent\n"
        "NEW s/new: wrote current.yaml, legacy.yaml\n2 passed, 1 failed, 1 skipped\n");
  result.cases.resize(1);
  result.passed = 1;
  result.failed = result.skipped = 0;
  CHECK(FormatText(result) == "1 passed, 0 failed\n");
}

TEST_CASE("the JUnit report escapes XML and names each case by its folder") {
  SuiteResult result;
  result.cases.push_back({"s/ok", CaseResult::Status::kPassed, {}, "", false, {}});
  result.cases.push_back({"s/a&b",
                          CaseResult::Status::kFailed,
                          {"error: the message does not contain the expected text", "  expected: <\"x\">"},
                          "",
                          false,
                          {}});
  result.passed = 1;
  result.failed = 1;
  CHECK(FormatJUnit(result) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"trainer test\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
        "  <testsuite name=\"trainer test\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
        "    <testcase classname=\"s\" name=\"ok\"/>\n"
        "    <testcase classname=\"s\" name=\"a&amp;b\">\n"
        "      <failure message=\"error: the message does not contain the expected text\" type=\"mismatch\">"
        "error: the message does not contain the expected text\n  expected: &lt;&quot;x&quot;&gt;</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

namespace {

// A failed case of the folder `dir` with the report `lines`.
CaseResult Failed(std::string dir, Lines lines) {
  return {std::move(dir), CaseResult::Status::kFailed, std::move(lines), "", false, {}};
}

}  // namespace

TEST_CASE("the text report prints case folders and report lines Printable, each line its own") {
  SuiteResult result;
  result.cases.push_back(
      Failed("s/c\n::error ::forged\x1b[31m\a\u2028\xff",
             {"current.yaml: JobSet j\r:", "  script: the string changed:\n      -a\x1b[2J\n      +b"}));
  result.cases.push_back({"s/skip\x1b", CaseResult::Status::kSkipped, {"x\a is absent"}, "", false, {}});
  result.cases.push_back({"s/new\x9b", CaseResult::Status::kPassed, {}, "wrote current.yaml", true, {}});
  result.passed = 1;
  result.failed = 1;
  result.skipped = 1;
  CHECK(FormatText(result) ==
        "FAIL s/c\\n::error ::forged\\x1b[31m\\a\\u2028\\xff\n"
        "  current.yaml: JobSet j\\r:\n"
        "    script: the string changed:\n"
        "      -a\\x1b[2J\n"
        "      +b\n"
        "SKIP s/skip\\x1b: x\\a is absent\n"
        "NEW s/new\\x9b: wrote current.yaml\n"
        "1 passed, 1 failed, 1 skipped\n");
}

TEST_CASE("the JUnit report holds only characters XML 1.0 allows, whatever a case folder is named") {
  SuiteResult result;
  result.cases.push_back(Failed("s\x01/a\n::error ::x\x1b\xff\xef\xbf\xbe", {"first\x0b line", "  second\x1b line\r"}));
  result.cases.push_back({"s/skip", CaseResult::Status::kSkipped, {"a\nb"}, "", false, {}});
  result.failed = 1;
  result.skipped = 1;
  CHECK(FormatJUnit(result) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"trainer test\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
        "  <testsuite name=\"trainer test\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
        "    <testcase classname=\"s\\x01\" name=\"a\\n::error ::x\\x1b\\xff\\ufffe\">\n"
        "      <failure message=\"first\\v line\" type=\"mismatch\">first\\v line\n  second\\x1b line\\r</failure>\n"
        "    </testcase>\n"
        "    <testcase classname=\"s\" name=\"skip\">\n"
        "      <skipped message=\"a&#10;b\"/>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

TEST_CASE("a case in a folder whose name holds a line break reports the positions in it Printable") {
  testing::FakeFileSystem fs;
  const std::string dir = "s/c\n::error ::forged\x1b";
  fs.files[dir + "/input.yaml"] = Replace(kInput, "metadata: {name: job}", "metadata: {name: \"job\\a\"}");
  fs.files[dir + "/current.yaml"] = kExpected;
  CaseResult r = RunCase(dir, SuiteMode::kCheck, fs);
  CHECK(r.status == CaseResult::Status::kFailed);
  const std::string at =
      R"(  s/c\n::error ::forged\x1b/input.yaml:11:12: TrainJob default/job\a: metadata.name: Invalid value: )";
  CHECK(r.report ==
        Lines{"obsolete current.yaml: the rendering now fails:",
              at + "metadata.name must match RFC 1035 DNS label format",
              at + "\"job\\a\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                   "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                   "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});
}

TEST_CASE("CompareObjects names objects Printable") {
  const std::string file = "current.yaml";
  std::vector<Tree> expected = ReadYamlStream("{kind: ConfigMap, metadata: {name: \"a\\nb\\e\"}}", &file);
  CHECK(CompareObjects(file, expected, {}) == Lines{"current.yaml: ConfigMap a\\nb\\x1b: expected, not rendered"});
}

}  // namespace trainer
