#include "input/loader.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/fake_fs.h"
#include "util/error.h"
#include "util/quote.h"

namespace trainer {

namespace {

constexpr const char* kRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: plain}
spec:
  template:
    spec:
      replicatedJobs: [{name: node, template: {spec: {template: {spec: {containers: [{name: node, image: a}]}}}}}]
)";

constexpr const char* kJob = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job}
spec: {runtimeRef: {name: plain}}
)";

std::string Errors(const LoadOptions& options, testing::FakeFileSystem& fs) {
  try {
    Load(options, fs).Checkpoint();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("directories are read recursively, their input files only, in sorted order") {
  testing::FakeFileSystem fs;
  fs.files["d/b/2.yml"] = std::string(kJob) + "---\n" + "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: second}\nspec: {runtimeRef: {name: plain}}\n";
  fs.files["d/a.yaml"] = kRuntime;
  fs.files["d/notes.txt"] = "not yaml: [";
  LoadOptions options;
  options.paths = {"d"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 2);
  CHECK(inputs.jobs[0].metadata.name == "job");
  CHECK(inputs.jobs[1].metadata.name == "second");
  CHECK(inputs.jobs[0].metadata.namespace_ == "default");
  CHECK(inputs.runtimes.size() == 1);
  CHECK(*inputs.jobs[0].origin.file == "d/b/2.yml");
}

TEST_CASE("other kinds are skipped, summed up in one notice, and List wrappers are unwrapped") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = std::string("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\n") +
                        "apiVersion: v1\nkind: List\nitems:\n- " + "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: j}, spec: {runtimeRef: {name: plain}}}\n";
  LoadOptions options;
  options.paths = {"in.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.jobs.size() == 1);
  CHECK(inputs.skipped == std::vector<std::string>{"ConfigMap"});
  CHECK(inputs.notices == std::vector<std::string>{"skipped 1 object that is not a Trainer object: 1 ConfigMap"});
}

TEST_CASE("the same runtime reached twice counts once") {
  testing::FakeFileSystem fs;
  fs.files["a.yaml"] = kRuntime;
  fs.files["copy/a.yaml"] = kRuntime;
  LoadOptions options;
  options.paths = {"a.yaml"};
  options.runtime_paths = {"copy", "a.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.runtimes.size() == 1);
}

TEST_CASE("two different definitions of one runtime are an error naming both") {
  testing::FakeFileSystem fs;
  fs.files["a.yaml"] = kRuntime;
  std::string changed = kRuntime;
  changed.replace(changed.find("image: a"), 8, "image: b");
  fs.files["b.yaml"] = changed;
  LoadOptions options;
  options.paths = {"a.yaml", "b.yaml"};
  CHECK(Errors(options, fs) == "b.yaml:1:1: ClusterTrainingRuntime plain: defined twice with different content (first at a.yaml:1:1)");
}

TEST_CASE("problems in several files are all reported") {
  testing::FakeFileSystem fs;
  fs.files["bad1.yaml"] = "a: [\n";
  fs.files["bad2.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\nspec: {runtimeRef: {name: x}, extra: 1}\n";
  LoadOptions options;
  options.paths = {"bad1.yaml", "missing.yaml", "bad2.yaml"};
  std::string errors = Errors(options, fs);
  CHECK(errors.find("bad1.yaml:2:1: malformed YAML") != std::string::npos);
  CHECK(errors.find("missing.yaml: no such file or directory") != std::string::npos);
  CHECK(errors.find("bad2.yaml:4:31: TrainJob default/j: spec: unknown field \"extra\"") != std::string::npos);
}

TEST_CASE("a file holding \"{{\" that fails gets one hint to render it with helm template first") {
  testing::FakeFileSystem fs;
  // Fails to parse: the hint follows the stream's error.
  fs.files["job.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {{ .Values.name }}\n";
  // Parses, and fails twice: one hint, after the first problem.
  fs.files["values.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
                            "spec:\n  runtimeRef: {name: x}\n  trainer: {numNodes: \"{{ .Values.nodes }}\", image: 3}\n";
  // A runtime of the Helm chart, read with -r.
  fs.files["chart/templates/runtime.yaml"] = "{{- if .Values.runtimes.enabled }}\napiVersion: trainer.kubeflow.org/v1alpha1\n"
                                             "kind: ClusterTrainingRuntime\n";
  // Holds "{{" and loads: no hint.
  fs.files["fine.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: ok}\n"
                          "spec: {runtimeRef: {name: x}, trainer: {args: [\"{{not helm}}\"]}}\n";
  LoadOptions options;
  options.paths = {"job.yaml", "values.yaml", "fine.yaml"};
  options.runtime_paths = {"chart/templates"};
  std::vector<std::string> lines;
  std::istringstream in(Errors(options, fs));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  CHECK(lines == std::vector<std::string>{
                     "chart/templates/runtime.yaml:1:3: malformed YAML: a list item (\"- \") cannot start here: put it "
                     "on a line of its own, under its key, or quote a value that starts with \"- \"; this file is a "
                     "template of a Helm chart (\"{{\" at line 1): render the chart with \"helm template\" and give "
                     "trainer its output",
                     "job.yaml:4:10: mapping keys must be scalars; this looks like a Helm template (\"{{\" at line 4): "
                     "render it with \"helm template\" first",
                     "values.yaml:6:23: TrainJob default/j: spec.trainer.numNodes: expected an integer, got a string; this "
                     "looks like a Helm template (\"{{\" at line 6): render it with \"helm template\" first",
                     "values.yaml:6:53: TrainJob default/j: spec.trainer.image: expected a string, got an integer (quote it: "
                     "\"3\")"});
}

TEST_CASE("runtime resolution follows the runtimeRef kind and the TrainJob namespace") {
  testing::FakeFileSystem fs;
  fs.files["rt.yaml"] = std::string(kRuntime) +
                        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata: {name: plain, namespace: team}\n"
                        "spec: {template: {spec: {replicatedJobs: []}}}\n";
  fs.files["jobs.yaml"] = std::string(kJob) +
                          "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j2, namespace: team}\n"
                          "spec: {runtimeRef: {name: plain, kind: TrainingRuntime}}\n"
                          "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j3}\n"
                          "spec: {runtimeRef: {name: plain, kind: TrainingRuntime}}\n"
                          "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j4}\n"
                          "spec: {runtimeRef: {name: plain, kind: Deployment, apiGroup: apps}}\n";
  LoadOptions options;
  options.paths = {"rt.yaml", "jobs.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 4);
  CHECK(inputs.Resolve(inputs.jobs[0]).kind == "ClusterTrainingRuntime");
  CHECK(inputs.Resolve(inputs.jobs[1]).kind == "TrainingRuntime");
  CHECK_THROWS_WITH(
      inputs.Resolve(inputs.jobs[2]),
      "jobs.yaml:14:8: TrainJob default/j3: spec.runtimeRef: TrainingRuntime \"plain\" in namespace \"default\" "
      "not found; loaded runtimes: ClusterTrainingRuntime plain, TrainingRuntime team/plain; did you "
      "mean \"kind: ClusterTrainingRuntime\"?");
  CHECK_THROWS_WITH(inputs.Resolve(inputs.jobs[3]),
                    "jobs.yaml:19:8: TrainJob default/j4: spec.runtimeRef: unsupported runtime: Deployment.apps");
}

TEST_CASE("a ClusterTrainingRuntime not found whose name a TrainingRuntime of the namespace has suggests its kind") {
  testing::FakeFileSystem fs;
  fs.files["rt.yaml"] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata: {name: plain}\n"
      "spec: {template: {spec: {replicatedJobs: []}}}\n";
  fs.files["job.yaml"] = std::string(kJob);
  LoadOptions options;
  options.paths = {"rt.yaml", "job.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 1);
  CHECK_THROWS_WITH(inputs.Resolve(inputs.jobs[0]),
                    "job.yaml:4:8: TrainJob default/job: spec.runtimeRef: ClusterTrainingRuntime \"plain\" not found; "
                    "loaded runtimes: TrainingRuntime default/plain; did you mean \"kind: TrainingRuntime\"?");
}

TEST_CASE("a runtime not found among no runtimes at all says how to get the cluster's") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] =
      std::string(kJob) +
      "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j2, namespace: "
      "team}\nspec: {runtimeRef: {name: plain, kind: TrainingRuntime}}\n";
  LoadOptions options;
  options.paths = {"job.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 2);
  CHECK_THROWS_WITH(
      inputs.Resolve(inputs.jobs[0]),
      "job.yaml:4:8: TrainJob default/job: spec.runtimeRef: ClusterTrainingRuntime \"plain\" not found; "
      "loaded runtimes: none (save the cluster's runtimes with `kubectl get clustertrainingruntimes -o yaml > "
      "runtimes.yaml` and add `-r runtimes.yaml`)");
  CHECK_THROWS_WITH(
      inputs.Resolve(inputs.jobs[1]),
      "job.yaml:9:8: TrainJob team/j2: spec.runtimeRef: TrainingRuntime \"plain\" in namespace \"team\" "
      "not found; loaded runtimes: none (save the cluster's runtimes with `kubectl get trainingruntimes -n team -o "
      "yaml > runtimes.yaml` and add `-r runtimes.yaml`)");
}

TEST_CASE("without hint_runtimes a runtime not found among none is said short, and its kind is kept for one hint") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = std::string(kJob);
  LoadOptions options;
  options.paths = {"job.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  inputs.hint_runtimes = false;
  CHECK_THROWS_WITH(inputs.Resolve(inputs.jobs.at(0)),
                    "job.yaml:4:8: TrainJob default/job: spec.runtimeRef: ClusterTrainingRuntime \"plain\" not found; "
                    "loaded runtimes: none");
  CHECK(inputs.missed_runtimes.cluster);
  CHECK_FALSE(inputs.missed_runtimes.namespaced);
  CHECK(GetRuntimesHint(inputs.missed_runtimes) ==
        "save the cluster's runtimes with `kubectl get clustertrainingruntimes -o yaml > runtimes.yaml` and add `-r "
        "runtimes.yaml`");
  CHECK(GetRuntimesHint({true, true}) ==
        "save the cluster's runtimes with `kubectl get clustertrainingruntimes,trainingruntimes -A -o yaml > "
        "runtimes.yaml` and add `-r runtimes.yaml`");
}

TEST_CASE("a runtime not found lists the first five loaded runtimes in load order and counts the rest") {
  testing::FakeFileSystem fs;
  std::string runtimes;
  for (const char* name : {"r7", "r2", "r5", "r1", "r6", "r3", "r4"}) {
    runtimes +=
        std::string("---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: ") +
        name + "}\nspec: {template: {spec: {replicatedJobs: [{name: node}]}}}\n";
  }
  fs.files["rt.yaml"] = runtimes;
  fs.files["job.yaml"] = std::string(kJob);
  LoadOptions options;
  options.paths = {"rt.yaml", "job.yaml"};
  options.validate = ValidationMode::kIgnore;
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 1);
  CHECK_THROWS_WITH(inputs.Resolve(inputs.jobs[0]),
                    "job.yaml:4:8: TrainJob default/job: spec.runtimeRef: ClusterTrainingRuntime \"plain\" not found; "
                    "loaded runtimes: ClusterTrainingRuntime r7, ClusterTrainingRuntime r2, ClusterTrainingRuntime r5, "
                    "ClusterTrainingRuntime r1, ClusterTrainingRuntime r6 and 2 more");
}

TEST_CASE("stdin is read with -, and -r sources contribute runtimes only") {
  testing::FakeFileSystem fs;
  fs.stdin_content = kJob;
  fs.files["rt.yaml"] = std::string(kRuntime) + "---\n" + kJob;
  LoadOptions options;
  options.paths = {"-"};
  options.runtime_paths = {"rt.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.jobs.size() == 1);
  CHECK(*inputs.jobs[0].origin.file == "<stdin>");
  CHECK(inputs.runtimes.size() == 1);
}

// -r runtimes/ . names the runtimes' files twice; -r all.yaml all.yaml once rendered nothing.
TEST_CASE("a file named with -r and as PATH is read once, at its first place, with its TrainJobs") {
  testing::FakeFileSystem fs;
  fs.files["all.yaml"] = std::string(kRuntime) + "---\n" + kJob;
  fs.files["other.yaml"] = std::string(kJob).replace(std::string(kJob).find("name: job"), 9, "name: other");
  LoadOptions options;
  options.runtime_paths = {"all.yaml"};
  options.paths = {"other.yaml", "all.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 2);
  CHECK(inputs.jobs[0].metadata.name == "job");  // all.yaml, read where -r named it
  CHECK(inputs.jobs[1].metadata.name == "other");
  CHECK(inputs.runtimes.size() == 1);
  // Named with -r only, its TrainJob is not read.
  options.paths = {"other.yaml"};
  Inputs runtimes_only = Load(options, fs);
  runtimes_only.Checkpoint();
  REQUIRE(runtimes_only.jobs.size() == 1);
  CHECK(runtimes_only.jobs[0].metadata.name == "other");
}

// Read once, it was read as the first: -r - - read its TrainJobs as nothing, and rendered nothing.
TEST_CASE("stdin named twice is an error, as a -r source and a PATH or as two PATHs") {
  testing::FakeFileSystem fs;
  fs.stdin_content = std::string(kRuntime) + "---\n" + kJob;
  LoadOptions options;
  options.runtime_paths = {"-"};
  options.paths = {"-"};
  const std::string message = "standard input (-) can be only one of the inputs: give - once, as PATH, -f or -r";
  CHECK(Errors(options, fs) == message);
  options.runtime_paths = {};
  options.paths = {"-", "-"};
  CHECK(Errors(options, fs) == message);
}

}  // namespace trainer

namespace trainer {

namespace {

constexpr const char* kBadJob = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job}
spec:
  runtimeRef: {name: plain}
  trainer: {numNodes: -1, numProc: 2}
)";

}  // namespace

TEST_CASE("strict loading fails on unknown fields and CRD schema rules together") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = kBadJob;
  LoadOptions options;
  options.paths = {"job.yaml"};
  CHECK(Errors(options, fs) ==
        "job.yaml:6:13: TrainJob default/job: spec.trainer.numNodes: Invalid value: -1: spec.trainer.numNodes in body "
        "should be greater than or equal to 0\n"
        "job.yaml:6:27: TrainJob default/job: spec.trainer: unknown field \"numProc\"");
}

TEST_CASE("warn loading keeps the object, pruned, and turns those problems into warnings") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = kBadJob;
  LoadOptions options;
  options.paths = {"job.yaml"};
  options.validate = ValidationMode::kWarn;
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 1);
  CHECK(inputs.jobs[0].spec.trainer->num_nodes == -1);
  std::vector<std::string> warnings;
  for (const Diagnostic& w : inputs.warnings) warnings.push_back(FormatWarning(w));
  CHECK(warnings == std::vector<std::string>{
                        "job.yaml:6:13: warning: TrainJob default/job: spec.trainer.numNodes: Invalid value: -1: "
                        "spec.trainer.numNodes in body should be greater than or equal to 0",
                        "job.yaml:6:27: warning: TrainJob default/job: spec.trainer: unknown field \"numProc\"",
                    });
}

TEST_CASE("ignore loading checks neither unknown fields nor schema rules, but wrong types still fail") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = kBadJob;
  LoadOptions options;
  options.paths = {"job.yaml"};
  options.validate = ValidationMode::kIgnore;
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.jobs.size() == 1);
  CHECK(inputs.warnings.empty());
  fs.files["job.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
                         "spec: {runtimeRef: {name: x}, suspend: maybe}\n";
  CHECK(Errors(options, fs) == "job.yaml:4:40: TrainJob default/j: spec.suspend: expected a boolean, got a string");
}

TEST_CASE("a field decoding already refused draws no second message from the schema") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
                         "spec: {runtimeRef: {name: \"\"}}\n";
  LoadOptions options;
  options.paths = {"job.yaml"};
  CHECK(Errors(options, fs) == "job.yaml:4:8: TrainJob default/j: spec.runtimeRef.name: Required value");
}

TEST_CASE("more runtime patches than the CRD allows fail under every mode, with one message") {
  std::string patches;
  for (int i = 1; i <= 17; ++i) patches += "  - {manager: example.com/p" + std::to_string(i) + "}\n";
  const std::string job =
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\nspec:\n"
      "  runtimeRef: {name: plain}\n  runtimePatches:\n";
  testing::FakeFileSystem fs;
  LoadOptions options;
  options.paths = {"job.yaml"};
  for (ValidationMode mode : {ValidationMode::kStrict, ValidationMode::kWarn, ValidationMode::kIgnore}) {
    options.validate = mode;
    fs.files["job.yaml"] = job + patches;
    CHECK(Errors(options, fs) ==
          "job.yaml:6:3: TrainJob default/job: spec.runtimePatches: Too many: 17: must have at most 16 items (runtime "
          "patch limit)");
    fs.files["job.yaml"] = job + patches.substr(0, patches.rfind("  - "));
    Inputs inputs = Load(options, fs);
    inputs.Checkpoint();
    CHECK(inputs.jobs.size() == 1);
    CHECK(inputs.warnings.empty());
  }
}

TEST_CASE("runtimes are judged by the runtime webhook when loaded") {
  testing::FakeFileSystem fs;
  fs.files["rt.yaml"] = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: plain, labels: {trainer.kubeflow.org/support: deprecated}}
spec:
  template:
    spec:
      replicatedJobs:
      - name: node
        replicas: 2
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: a}]}}}
)";
  LoadOptions options;
  options.paths = {"rt.yaml"};
  CHECK(Errors(options, fs) ==
        "rt.yaml:9:9: ClusterTrainingRuntime plain: spec.template.spec.replicatedJobs[0].replicas: always must be 1");
  options.validate = ValidationMode::kWarn;
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.runtimes.size() == 1);
  CHECK(inputs.warnings.size() == 2);
}

TEST_CASE("with a job handler, each TrainJob is handed over as it loads, with the runtimes read before it") {
  testing::FakeFileSystem fs;
  fs.files["runtimes.yaml"] = kRuntime;
  fs.files["jobs.yaml"] = std::string(kJob) + "---\n" +
                          "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: second}\nspec: {runtimeRef: {name: plain}}\n";
  LoadOptions options;
  options.paths = {"jobs.yaml"};
  options.runtime_paths = {"runtimes.yaml"};  // read first, though named last
  std::vector<std::string> seen;
  Inputs inputs = Load(options, fs, [&](const Inputs& so_far, TrainJob& job) {
    CHECK(so_far.RuntimeSettled(job));
    CHECK(&so_far.Resolve(job) == &so_far.runtimes.at(0));
    seen.push_back(job.metadata.name);
  });
  CHECK(seen == std::vector<std::string>{"job", "second"});
  CHECK(inputs.jobs.empty());
  CHECK(inputs.errors.empty());
  CHECK(inputs.malformed_files.empty());
}

TEST_CASE("a TrainJob before its runtime is handed over with the runtime not yet settled") {
  testing::FakeFileSystem fs;
  fs.files["all.yaml"] = std::string(kJob) + "---\n" + kRuntime;
  LoadOptions options;
  options.paths = {"all.yaml"};
  int handed = 0;
  Inputs inputs = Load(options, fs, [&](const Inputs& so_far, TrainJob& job) {
    CHECK_FALSE(so_far.RuntimeSettled(job));
    ++handed;
  });
  CHECK(handed == 1);
  CHECK(inputs.runtimes.size() == 1);
}

TEST_CASE("a refused runtime settles the TrainJobs that refer to it") {
  testing::FakeFileSystem fs;
  std::string broken = kRuntime;
  broken.replace(broken.find("image: a"), 8, "image: 7");
  fs.files["all.yaml"] = broken + "---\n" + kJob;
  LoadOptions options;
  options.paths = {"all.yaml"};
  bool settled = false;
  Inputs inputs = Load(options, fs, [&](const Inputs& so_far, TrainJob& job) {
    settled = so_far.RuntimeSettled(job) && so_far.RefersToRefusedRuntime(job);
  });
  CHECK(settled);
  CHECK_FALSE(inputs.errors.empty());
}

TEST_CASE("a stream that turns out malformed reports that problem alone, though its first documents loaded") {
  testing::FakeFileSystem fs;
  // The second document has an unknown field, the fourth is not YAML.
  fs.files["all.yaml"] = std::string(kRuntime) + "---\n" + kJob + "bogus: 1\n---\n" + kJob + "---\nkind: [\n";
  fs.files["other.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n";
  LoadOptions options;
  options.paths = {"all.yaml", "other.yaml"};
  std::vector<const std::string*> files;
  Inputs inputs = Load(options, fs, [&](const Inputs&, TrainJob& job) { files.push_back(job.origin.file); });
  REQUIRE(inputs.errors.size() == 1);
  CHECK(inputs.errors[0].location == "all.yaml:21:1");  // the end of the stream, inside the flow list
  CHECK(inputs.errors[0].message.find("malformed YAML") == 0);
  REQUIRE(files.size() == 1);  // the job that loaded before the problem was found
  CHECK(inputs.malformed_files.count(files[0]) == 1);
  CHECK(inputs.skipped == std::vector<std::string>{"ConfigMap"});  // other.yaml's, kept
}

TEST_CASE("without a job handler, a malformed stream leaves none of its TrainJobs in the inputs") {
  testing::FakeFileSystem fs;
  fs.files["all.yaml"] = std::string(kRuntime) + "---\n" + kJob + "---\nkind: [\n";
  LoadOptions options;
  options.paths = {"all.yaml"};
  Inputs inputs = Load(options, fs);
  CHECK(inputs.jobs.empty());
  CHECK(inputs.errors.size() == 1);
}

}  // namespace trainer

namespace trainer {

namespace {

// A FakeFileSystem with a file that cannot be read and a directory that cannot be listed.
class ThornyFileSystem : public testing::FakeFileSystem {
 public:
  std::string ReadFile(const std::string& path) override {
    if (path == "locked.yaml") throw Error(path + ": cannot open: Permission denied");
    return FakeFileSystem::ReadFile(path);
  }
  Kind Stat(const std::string& path) override {
    if (path == "locked.yaml") return Kind::kFile;
    if (path == "unlistable") return Kind::kDirectory;
    return FakeFileSystem::Stat(path);
  }
  std::vector<std::string> ListInputFiles(const std::string& dir) override {
    if (dir == "unlistable") throw Error(dir + ": cannot list: Permission denied");
    return FakeFileSystem::ListInputFiles(dir);
  }
};

// `count` TrainJobs named job-0...: every seventh with an unknown field, every eleventh preceded by
// a ConfigMap, every thirteenth in namespace "team".
std::string ManyJobs(int count, const std::string& prefix = "job") {
  std::string yaml;
  for (int i = 0; i < count; ++i) {
    if (i % 11 == 0) yaml += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-" + std::to_string(i) + "}\n";
    yaml += "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + prefix + "-" +
            std::to_string(i) + (i % 13 == 0 ? "\n  namespace: team" : "") +
            "\nspec:\n  runtimeRef: {name: plain}\n  trainer: {numNodes: " + std::to_string(1 + i % 4) + "}\n" +
            (i % 7 == 0 ? "  bogus: 1\n" : "");
  }
  return yaml;
}

// Everything Load reports and hands over, as text.
struct Loaded {
  std::vector<std::string> jobs;  // "ns/name file:line settled"
  std::vector<std::string> errors;
  std::vector<std::string> notices;
  std::size_t runtimes = 0;
  std::size_t malformed_files = 0;
  std::string thrown = "nothing thrown";
};

Loaded LoadEverything(const LoadOptions& options, FileSystem& fs, int throw_at_job = -1) {
  Loaded loaded;
  try {
    Inputs inputs = Load(options, fs, [&](const Inputs& so_far, TrainJob& job) {
      if (static_cast<int>(loaded.jobs.size()) == throw_at_job) throw std::runtime_error("handler gave up");
      loaded.jobs.push_back(job.metadata.namespace_ + "/" + job.metadata.name + " " + job.origin.Position() +
                            (so_far.RuntimeSettled(job) ? " settled" : " unsettled"));
    });
    for (const Diagnostic& d : inputs.errors) loaded.errors.push_back(d.location + ": " + d.message);
    loaded.notices = inputs.notices;
    loaded.runtimes = inputs.runtimes.size();
    loaded.malformed_files = inputs.malformed_files.size();
  } catch (const Error& e) {
    loaded.thrown = e.what();
  } catch (const std::runtime_error& e) {
    loaded.thrown = std::string("runtime_error: ") + e.what();
  }
  return loaded;
}

}  // namespace

TEST_CASE("loading hands over TrainJobs and reports problems in input order, whatever each input holds") {
  ThornyFileSystem fs;
  fs.files["runtimes/plain.yaml"] = kRuntime;
  fs.files["jobs.yaml"] = ManyJobs(300);
  fs.files["dir/a.yaml"] = ManyJobs(20, "a");
  fs.files["dir/b.yml"] = ManyJobs(3, "b") + "---\nkind: [\n";  // malformed after three jobs
  fs.files["dir/c.yaml"] = std::string(kRuntime) + "---\n" + ManyJobs(5, "c");
  fs.stdin_content = ManyJobs(4, "in");
  LoadOptions options;
  options.runtime_paths = {"runtimes"};
  options.paths = {"jobs.yaml", "missing.yaml", "dir", "locked.yaml", "-", "jobs.yaml"};
  Loaded loaded = LoadEverything(options, fs);
  CHECK(loaded.thrown == "nothing thrown");
  // Less the bogus ones; the malformed file's jobs before its problem were handed over.
  CHECK(loaded.jobs.size() == (300 - 43) + (20 - 3) + (3 - 1) + (5 - 1) + (4 - 1));
  CHECK(loaded.jobs[0] == "default/job-1 jobs.yaml:16:1 settled");
  CHECK(loaded.malformed_files == 1);
  // jobs.yaml's, missing.yaml, a.yaml's, b.yml's YAML problem alone, c.yaml's, locked.yaml, stdin's.
  REQUIRE(loaded.errors.size() == 43 + 1 + 3 + 1 + 1 + 1 + 1);
  CHECK(loaded.errors[43] == ": missing.yaml: no such file or directory");
  CHECK(loaded.errors[47].find("dir/b.yml:33:1: malformed YAML") == 0);
  CHECK(loaded.errors[49] == ": locked.yaml: cannot open: Permission denied");
  CHECK(loaded.errors[50].find("<stdin>:") == 0);
}

TEST_CASE("when the job handler throws, the load stops and the exception reaches the caller") {
  testing::FakeFileSystem fs;
  fs.files["all.yaml"] = std::string(kRuntime) + "---\n" + ManyJobs(1000);
  LoadOptions options;
  options.paths = {"all.yaml"};
  for (int at : {0, 10, 500}) {
    CAPTURE(at);
    Loaded loaded = LoadEverything(options, fs, at);
    CHECK(loaded.thrown == "runtime_error: handler gave up");
    CHECK(loaded.jobs.size() == static_cast<std::size_t>(at));
  }
}

TEST_CASE("long streams load one document at a time, however they end") {
  testing::FakeFileSystem fs;
  fs.files["rt.yaml"] = kRuntime;
  fs.files["long.yaml"] = ManyJobs(400, "l");
  fs.files["late-problem.yaml"] = ManyJobs(400, "m") + "---\nkind: [\n";
  fs.files["early-problem.yaml"] = "kind: [\n---\n" + ManyJobs(400, "e");
  fs.files["after.yaml"] = ManyJobs(3, "z");
  LoadOptions options;
  options.paths = {"rt.yaml", "long.yaml", "late-problem.yaml", "early-problem.yaml", "after.yaml"};
  Loaded loaded = LoadEverything(options, fs);
  CHECK(loaded.malformed_files == 2);
  CHECK(loaded.jobs.size() == (400 - 58) + (400 - 58) + (3 - 1));  // less the bogus ones
}

TEST_CASE("an exception other than an input error, reading a file, reaches the caller") {
  // As the file system's ReadFile would throw std::bad_alloc: not a problem of the input.
  class ExplodingFileSystem : public testing::FakeFileSystem {
   public:
    std::string ReadFile(const std::string& path) override {
      if (path == "long.yaml") throw std::runtime_error("out of something");
      return FakeFileSystem::ReadFile(path);
    }
  } fs;
  fs.files["rt.yaml"] = kRuntime;
  fs.files["long.yaml"] = ManyJobs(400, "l");
  LoadOptions options;
  options.paths = {"rt.yaml", "long.yaml"};
  CHECK(LoadEverything(options, fs).thrown == "runtime_error: out of something");
}

TEST_CASE("a directory that cannot be listed ends the load at its turn") {
  ThornyFileSystem fs;
  fs.files["rt.yaml"] = kRuntime;
  fs.files["jobs.yaml"] = ManyJobs(100);
  LoadOptions options;
  options.paths = {"rt.yaml", "jobs.yaml", "unlistable", "missing.yaml"};
  Loaded loaded = LoadEverything(options, fs);
  CHECK(loaded.thrown == "unlistable: cannot list: Permission denied");
  CHECK(loaded.jobs.size() == 100 - 15);  // the jobs before it were handed over
}

}  // namespace trainer

namespace trainer {

namespace {

// The API server's messages (apimachinery v0.36.3), as it prints them.
constexpr const char* kLabelMessage =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kSubdomainMessage =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr const char* kKeyNameMessage =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// A TrainJob whose metadata block holds `meta` (indented by two), from line 4 on.
std::string JobWithMeta(const std::string& meta) {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n" + meta +
         "spec: {runtimeRef: {name: plain}}\n";
}

LoadOptions InYaml(ValidationMode mode, const std::string& default_namespace) {
  LoadOptions options;
  options.paths = {"in.yaml"};
  options.validate = mode;
  options.default_namespace = default_namespace;
  return options;
}

// The errors of loading `content` as in.yaml.
std::string Problems(const std::string& content, ValidationMode mode = ValidationMode::kStrict,
                     const std::string& default_namespace = "default") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = content;
  return Errors(InYaml(mode, default_namespace), fs);
}

// `content` loaded as in.yaml, which must load without errors.
Inputs Loaded(const std::string& content, ValidationMode mode, const std::string& default_namespace = "default") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = content;
  Inputs inputs = Load(InYaml(mode, default_namespace), fs);
  inputs.Checkpoint();
  return inputs;
}

std::vector<std::string> Warnings(const Inputs& inputs) {
  std::vector<std::string> out;
  for (const Diagnostic& w : inputs.warnings) out.push_back(FormatWarning(w));
  return out;
}

}  // namespace

TEST_CASE("a namespace that is no DNS-1123 label is refused with the API server's message") {
  CHECK(Problems(JobWithMeta("  name: job\n  namespace: Team_A\n")) ==
        std::string("in.yaml:5:3: TrainJob Team_A/job: metadata.namespace: Invalid value: \"Team_A\": ") + kLabelMessage);
  CHECK(Problems(JobWithMeta("  name: job\n  namespace: ml.team\n")) ==
        "in.yaml:5:3: TrainJob ml.team/job: metadata.namespace: Invalid value: \"ml.team\": must not contain dots");
  const std::string long_namespace(64, 'n');
  CHECK(Problems(JobWithMeta("  name: job\n  namespace: " + long_namespace + "\n")) ==
        "in.yaml:5:3: TrainJob " + long_namespace + "/job: metadata.namespace: Invalid value: \"" + long_namespace +
            "\": must be no more than 63 characters");
  // The forged stream of a namespace with line breaks is refused before anything renders.
  CHECK(Problems(JobWithMeta("  name: job\n  namespace: \"ml\\n---\\nkind: Secret\"\n")) ==
        std::string("in.yaml:5:3: TrainJob ml\\n---\\nkind: Secret/job: metadata.namespace: Invalid value: "
                    "\"ml\\n---\\nkind: Secret\": ") +
            kLabelMessage);
}

TEST_CASE("a runtime named Torch-Runtime is refused: every name is a DNS-1123 subdomain") {
  CHECK(Problems("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata:\n  name: Torch-Runtime\n"
                 "spec:\n  template:\n    spec:\n      replicatedJobs: [{name: node, template: {spec: {template: "
                 "{spec: {containers: [{name: node, image: a}]}}}}}]\n") ==
        std::string("in.yaml:4:3: TrainingRuntime default/Torch-Runtime: metadata.name: Invalid value: "
                    "\"Torch-Runtime\": ") +
            kSubdomainMessage);
  const std::string long_name = std::string(250, 'a') + ".bcd";
  CHECK(Problems(std::string(kRuntime).replace(std::string(kRuntime).find("plain"), 5, long_name)) ==
        "in.yaml:3:12: ClusterTrainingRuntime " + long_name + ": metadata.name: Invalid value: \"" + long_name +
            "\": must be no more than 253 characters");
}

TEST_CASE("a TrainJob's name draws the CRD's RFC 1035 rule first, then the API server's subdomain rule") {
  CHECK(Problems(JobWithMeta("  name: Torch-Job\n")) ==
        std::string("in.yaml:4:3: TrainJob default/Torch-Job: metadata.name: Invalid value: "
                    "metadata.name must match RFC 1035 DNS label format\n"
                    "in.yaml:4:3: TrainJob default/Torch-Job: metadata.name: Invalid value: \"Torch-Job\": ") +
            kSubdomainMessage);
  // A subdomain that is no RFC 1035 label: the CRD's rule alone.
  CHECK(Problems(JobWithMeta("  name: 1job\n")) ==
        "in.yaml:4:3: TrainJob default/1job: metadata.name: Invalid value: metadata.name must match RFC 1035 DNS label "
        "format");
}

TEST_CASE("a label value data science is refused: label values are qualified names or empty") {
  CHECK(Problems(JobWithMeta("  name: job\n  labels:\n    team: data science\n    empty: \"\"\n")) ==
        "in.yaml:6:11: TrainJob default/job: metadata.labels: Invalid value: \"data science\": a valid label must be an "
        "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  CHECK(Problems(JobWithMeta("  name: job\n  labels: {team: " + std::string(64, 'v') + "}\n")) ==
        "in.yaml:5:18: TrainJob default/job: metadata.labels: Invalid value: \"" + std::string(64, 'v') +
            "\": must be no more than 63 bytes");
}

TEST_CASE("label keys are qualified names, and so are annotation keys in any case") {
  CHECK(Problems(JobWithMeta("  name: job\n"
                             "  labels:\n"
                             "    a/b/c: x\n"
                             "    /x: x\n"
                             "    Example.com/x: x\n"
                             "    example.com/: x\n"
                             "    example.com/Team_A.b: x\n"
                             "  annotations:\n"
                             "    Example.com/Key: v\n"
                             "    bad key: v\n")) ==
        std::string("in.yaml:6:5: TrainJob default/job: metadata.labels: Invalid value: \"a/b/c\": a valid label key ") +
            kKeyNameMessage +
            " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')\n"
            "in.yaml:7:5: TrainJob default/job: metadata.labels: Invalid value: \"/x\": prefix part must be non-empty\n"
            "in.yaml:8:5: TrainJob default/job: metadata.labels: Invalid value: \"Example.com/x\": prefix part " +
            kSubdomainMessage +
            "\n"
            "in.yaml:9:5: TrainJob default/job: metadata.labels: Invalid value: \"example.com/\": name part must be "
            "non-empty\n"
            "in.yaml:9:5: TrainJob default/job: metadata.labels: Invalid value: \"example.com/\": name part " +
            kKeyNameMessage +
            "\n"
            "in.yaml:13:5: TrainJob default/job: metadata.annotations: Invalid value: \"bad key\": name part " +
            kKeyNameMessage);
}

TEST_CASE("annotations hold at most 256 KiB of keys and values together") {
  const std::string big(256 * 1024 - 1, 'v');
  CHECK(Problems(JobWithMeta("  name: job\n  annotations: {a: " + big + "}\n")).empty());
  CHECK(Problems(JobWithMeta("  name: job\n  annotations: {ab: " + big + "}\n")) ==
        "in.yaml:5:3: TrainJob default/job: metadata.annotations: Too long: may not be more than 262144 bytes");
}

TEST_CASE("a ClusterTrainingRuntime's namespace is dropped unchecked, as the API server drops it") {
  std::string runtime = kRuntime;
  runtime.replace(runtime.find("{name: plain}"), 13, "{name: plain, namespace: Not_A_Label}");
  CHECK(Problems(runtime).empty());
}

TEST_CASE("-n is checked as a namespace: an error when strict, a warning when warn, nothing when ignoring") {
  const std::string message = std::string("--namespace: Invalid value: \"Team_A\": ") + kLabelMessage;
  CHECK(Problems(kJob, ValidationMode::kStrict, "Team_A") == message);
  CHECK(Problems(kJob, ValidationMode::kStrict, "") == "--namespace: Required value");
  CHECK(Warnings(Loaded(kJob, ValidationMode::kWarn, "Team_A")) == std::vector<std::string>{"trainer: warning: " + message});
  CHECK(Loaded(kJob, ValidationMode::kIgnore, "Team_A").warnings.empty());
}

TEST_CASE("warn turns the metadata rejections into warnings and loads the object; ignore checks nothing") {
  const std::string job = JobWithMeta("  name: job\n  namespace: Team_A\n  labels: {team: data-science.}\n");
  Inputs warned = Loaded(job, ValidationMode::kWarn);
  CHECK(warned.jobs.size() == 1);
  CHECK(Warnings(warned) ==
        std::vector<std::string>{
            std::string("in.yaml:5:3: warning: TrainJob Team_A/job: metadata.namespace: Invalid value: \"Team_A\": ") +
                kLabelMessage,
            "in.yaml:6:18: warning: TrainJob Team_A/job: metadata.labels: Invalid value: \"data-science.\": a valid "
            "label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
            "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        });
  Inputs ignored = Loaded(job, ValidationMode::kIgnore);
  CHECK(ignored.jobs.size() == 1);
  CHECK(ignored.warnings.empty());
}

TEST_CASE("names and namespaces bound for file names fail under every mode; other metadata follows the mode") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = JobWithMeta("  name: job\n  namespace: ../../etc\n  labels: {team: data science}\n");
  LoadOptions options;
  options.paths = {"in.yaml"};
  options.names_in_file_names = true;
  for (ValidationMode mode : {ValidationMode::kIgnore, ValidationMode::kWarn}) {
    options.validate = mode;
    CHECK(Errors(options, fs) ==
          std::string("in.yaml:5:3: TrainJob ../../etc/job: metadata.namespace: Invalid value: \"../../etc\": ") +
              kLabelMessage);
  }
  options.validate = ValidationMode::kIgnore;
  options.default_namespace = "a/b";
  fs.files["in.yaml"] = kJob;
  CHECK(Errors(options, fs) == std::string("--namespace: Invalid value: \"a/b\": ") + kLabelMessage);
}

}  // namespace trainer

namespace trainer {

TEST_CASE("problems keep the input line they point at, as read, for a terminal to show") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = std::string(kRuntime) + "---\n" + kJob + "bogus: 1\r\n";
  LoadOptions options;
  options.paths = {"job.yaml"};
  Inputs inputs = Load(options, fs);
  REQUIRE(inputs.errors.size() == 1);
  CHECK(inputs.errors[0].source_line == "bogus: 1");
  CHECK(inputs.current_source == nullptr);  // the text is gone once the source is read
}

TEST_CASE("a kept source line is capped and shows control characters as '?'") {
  const std::string file = "job.yaml";
  const std::string text = "a: 1\nb: \x1b[31mred\x07\tx\n" + std::string(2 * kSourceLineBytes, 'c') + "\n";
  SourceText source(&file, text);
  Diagnostic second{Origin::Input(&file, 2, 1), "", "", "m"};
  Diagnostic long_line{Origin::Input(&file, 3, 1), "", "", "m"};
  Diagnostic past_end{Origin::Input(&file, 9, 1), "", "", "m"};
  Diagnostic elsewhere{Origin::Input(nullptr, 1, 1), "", "", "m"};
  for (Diagnostic* d : {&second, &long_line, &past_end, &elsewhere}) source.Attach(*d);
  CHECK(second.source_line == "b: ?[31mred?\tx");
  CHECK(long_line.source_line == std::string(kSourceLineBytes, 'c'));
  CHECK(past_end.source_line.empty());
  CHECK(elsewhere.source_line.empty());
}

namespace {

// `utf8`, characters of the Basic Multilingual Plane only, as UTF-16LE with its byte order mark.
std::string Utf16Le(std::string_view utf8) {
  std::string out = "\xFF\xFE";
  for (std::size_t i = 0; i < utf8.size();) {
    auto [rune, len] = DecodeRune(utf8, i);
    out += static_cast<char>(rune & 0xFF);
    out += static_cast<char>(rune >> 8);
    i += len;
  }
  return out;
}

}  // namespace

TEST_CASE("a UTF-16 file loads as its UTF-8 form, its problems shown on their lines in UTF-8") {
  testing::FakeFileSystem fs;
  fs.files["job.yaml"] = Utf16Le(std::string(kRuntime) + "---\n" + kJob + "bogus: caf\u00e9\n");
  LoadOptions options;
  options.paths = {"job.yaml"};
  Inputs inputs = Load(options, fs);
  CHECK(inputs.runtimes.size() == 1);
  REQUIRE(inputs.errors.size() == 1);
  CHECK(inputs.errors[0].Format() == "job.yaml:13:1: TrainJob default/job: unknown field \"bogus\"");
  CHECK(inputs.errors[0].source_line == "bogus: caf\u00e9");
  fs.files["job.yaml"] = Utf16Le("a: 1\n") + std::string("\0\xD8", 2);
  CHECK(Errors(options, fs) == "job.yaml:2:1: invalid UTF-16: surrogate 0xD800 without its pair");
}

}  // namespace trainer

namespace trainer {

TEST_CASE("a second TrainJob of the same namespace and name is refused with both locations") {
  testing::FakeFileSystem fs;
  fs.files["runtime.yaml"] = kRuntime;
  fs.files["a.yaml"] = kJob;
  fs.files["b.yaml"] = std::string("---\n") + kJob + "---\n" + kJob;
  LoadOptions options;
  options.paths = {"runtime.yaml", "a.yaml", "b.yaml"};
  CHECK(Errors(options, fs) ==
        "b.yaml:4:12: TrainJob default/job: metadata.name: already exists: the TrainJob at a.yaml:3:12 has this "
        "namespace and name (the API server refuses the second)\n"
        "b.yaml:9:12: TrainJob default/job: metadata.name: already exists: the TrainJob at a.yaml:3:12 has this "
        "namespace and name (the API server refuses the second)");
  options.paths = {"runtime.yaml", "a.yaml", "a.yaml"};  // one file, named twice: read once
  CHECK(Errors(options, fs).empty());
  fs.files["other.yaml"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job, namespace: "
                           "team}\nspec: {runtimeRef: {name: plain}}\n";
  options.paths = {"runtime.yaml", "a.yaml", "other.yaml"};  // another namespace
  CHECK(Errors(options, fs).empty());
}

}  // namespace trainer

namespace trainer {

TEST_CASE("running out of memory while reading a file is an error naming the file and the limits") {
  class HungryFileSystem : public testing::FakeFileSystem {
   public:
    std::string ReadFile(const std::string& path) override {
      if (path == "big.yaml") throw std::bad_alloc();
      return FakeFileSystem::ReadFile(path);
    }
  } fs;
  fs.files["rt.yaml"] = kRuntime;
  fs.files["big.yaml"] = kJob;
  LoadOptions options;
  options.paths = {"rt.yaml", "big.yaml"};
  CHECK(Errors(options, fs) ==
        "big.yaml: out of memory while reading it (one stream may hold 268435456 bytes and 1000000 values)");
}

}  // namespace trainer

namespace trainer {

namespace {

// A dump as `kubectl get trainjobs,jobsets,pods -n team -o json` writes it: a List of a TrainJob
// (with its status, finalizers, managed fields and last-applied annotation), its JobSet and a Pod.
// The TrainJob starts at line 4, column 9; its spec.trainer.numNodes value is at line 50, column 33.
std::string KubectlJsonDump() {
  std::ifstream in(TRAINER_SOURCE_DIR "/tests/cases/diff-dump-dir/dump/trainjobs.json");
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(!text.str().empty());
  return text.str();
}

constexpr const char* kSklearnRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: sklearn-distributed}
spec:
  template:
    spec:
      replicatedJobs: [{name: node, template: {spec: {template: {spec: {containers: [{name: node, image: a}]}}}}}]
)";

}  // namespace

TEST_CASE("directories give their .json files too, as kubectl apply -f reads them, and kubectl's JSON loads") {
  testing::FakeFileSystem fs;
  fs.files["dump/runtimes.yaml"] = kSklearnRuntime;
  fs.files["dump/trainjobs.json"] = KubectlJsonDump();
  fs.files["dump/notes.txt"] = "not an input: [";
  fs.files["dump/trainjobs.json.orig"] = "not an input either: [";
  LoadOptions options;
  options.paths = {"dump"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobs.size() == 1);
  CHECK(inputs.jobs[0].metadata.namespace_ == "team");
  CHECK(inputs.jobs[0].metadata.name == "fit-forest");
  CHECK(inputs.jobs[0].origin.Position() == "dump/trainjobs.json:4:9");
  CHECK(inputs.runtimes.size() == 1);
  CHECK(inputs.notices == std::vector<std::string>{"skipped 1 object that is not a Trainer object: 1 Pod"});
}

TEST_CASE("a problem in kubectl's pretty-printed JSON points at its line and column") {
  testing::FakeFileSystem fs;
  std::string dump = KubectlJsonDump();
  const std::string good = "\"numNodes\": 2";
  REQUIRE(dump.find(good) != std::string::npos);
  dump.replace(dump.find(good), good.size(), "\"numNodes\": \"two\"");
  fs.files["rt.yaml"] = kSklearnRuntime;
  fs.files["dump.json"] = dump;
  LoadOptions options;
  options.paths = {"rt.yaml", "dump.json"};
  std::string errors = Errors(options, fs);
  CHECK(errors.find("dump.json:50:33: TrainJob team/fit-forest: spec.trainer.numNodes: ") == 0);
}

TEST_CASE("an unknown kind of the trainer.kubeflow.org group is an error at its kind; other groups' are skipped") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = std::string(kRuntime) + "---\n" +
                        "apiVersion: trainer.kubeflow.org/v1alpha1\nmetadata: {name: typo}\nkind: Trainjob\n"
                        "spec: {runtimeRef: {name: plain}}\n"
                        "---\napiVersion: trainer.kubeflow.org/v2\nkind: TrainingJob\nmetadata: {name: other}\n"
                        "---\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: legacy}\n"
                        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJobList\nmetadata: {}\n---\n" + kJob;
  LoadOptions options;
  options.paths = {"in.yaml"};
  Inputs inputs = Load(options, fs);
  REQUIRE(inputs.errors.size() == 2);
  CHECK(inputs.errors[0].Format() ==
        "in.yaml:11:7: no matches for kind \"Trainjob\" in version \"trainer.kubeflow.org/v1alpha1\": the Trainer kinds "
        "are TrainJob, TrainingRuntime and ClusterTrainingRuntime");
  CHECK(inputs.errors[1].Format() ==
        "in.yaml:15:7: no matches for kind \"TrainingJob\" in version \"trainer.kubeflow.org/v2\": the Trainer kinds "
        "are TrainJob, TrainingRuntime and ClusterTrainingRuntime");
  CHECK(inputs.skipped == std::vector<std::string>{"PyTorchJob"});  // the empty TrainJobList holds nothing
  CHECK(inputs.jobs.size() == 1);
}

TEST_CASE("JobSets are read leniently as state, in Lists too, and never skipped") {
  testing::FakeFileSystem fs;
  fs.files["dump.yaml"] =
      "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: a, namespace: team}\n"
      "spec: {suspend: true, replicatedJobs: {not: a list}}\n"
      "---\napiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: jobset.x-k8s.io/v1, kind: JobSet, metadata: {name: b}, spec: {suspend: \"true\"}}\n"
      "- {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, metadata: {namespace: team}}\n"
      "- {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, metadata: {name: c}, spec: {suspend: false}}\n"
      "- {apiVersion: example.com/v1, kind: JobSet, metadata: {name: d}}\n";
  LoadOptions options;
  options.paths = {"dump.yaml"};
  options.default_namespace = "dflt";
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  REQUIRE(inputs.jobsets.size() == 3);
  CHECK(inputs.jobsets[0].namespace_ == "team");
  CHECK(inputs.jobsets[0].name == "a");
  CHECK(inputs.jobsets[0].suspended);
  CHECK(inputs.jobsets[0].origin.Position() == "dump.yaml:1:1");
  CHECK(inputs.jobsets[1].namespace_ == "dflt");
  CHECK(inputs.jobsets[1].name == "b");
  CHECK_FALSE(inputs.jobsets[1].suspended);  // a string, not the boolean true
  CHECK(inputs.jobsets[1].origin.Position() == "dump.yaml:9:3");
  CHECK(inputs.jobsets[2].name == "c");
  CHECK_FALSE(inputs.jobsets[2].suspended);
  CHECK(inputs.skipped == std::vector<std::string>{"JobSet"});  // example.com's
}

TEST_CASE("the skipped objects are summed up in one notice, kinds by count then by name") {
  testing::FakeFileSystem fs;
  std::string yaml;
  for (const char* kind : {"Service", "Pod", "Kustomization", "ConfigMap", "Pod", "Service", "Pod", "ConfigMap"}) {
    yaml += fmt::format("---\napiVersion: v1\nkind: {}\nmetadata: {{name: x}}\n", kind);
  }
  fs.files["a.yaml"] = yaml;
  fs.files["b.yaml"] = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\n";
  LoadOptions options;
  options.paths = {"a.yaml", "b.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.notices ==
        std::vector<std::string>{"skipped 8 objects that are not Trainer objects: 3 Pod, 2 ConfigMap, 2 Service, 1 Kustomization"});
  options.paths = {"b.yaml"};
  CHECK(Load(options, fs).notices.empty());
}

TEST_CASE("a stream that turns out malformed drops its JobSets and its skipped objects") {
  testing::FakeFileSystem fs;
  fs.files["bad.yaml"] = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\n---\n"
                         "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\nkind: [\n";
  fs.files["good.yaml"] = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: kept}\n---\n"
                          "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n";
  LoadOptions options;
  options.paths = {"bad.yaml", "good.yaml"};
  Inputs inputs = Load(options, fs);
  CHECK(inputs.errors.size() == 1);
  REQUIRE(inputs.jobsets.size() == 1);
  CHECK(inputs.jobsets[0].name == "kept");
  CHECK(inputs.notices == std::vector<std::string>{"skipped 1 object that is not a Trainer object: 1 Secret"});
}

namespace {

// A snapshot ConfigMap for the TrainJob `job` of namespace default, owned by uid `owner`.
std::string Snapshot(const char* job, const char* owner) {
  return fmt::format(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: {}-runtime-snapshot
  ownerReferences: [{{uid: {}, controller: true}}]
data:
  runtime: |
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {{name: plain}}
)",
                     job, owner);
}

constexpr const char* kJobWithUid = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job, uid: u1}
spec: {runtimeRef: {name: plain}}
)";

}  // namespace

TEST_CASE("a TrainJob's snapshot is found whether it comes before or after the TrainJob") {
  for (bool snapshot_first : {true, false}) {
    CAPTURE(snapshot_first);
    testing::FakeFileSystem fs;
    fs.files["in.yaml"] = snapshot_first ? Snapshot("job", "u1") + "---\n" + kJobWithUid
                                         : std::string(kJobWithUid) + "---\n" + Snapshot("job", "u1");
    LoadOptions options;
    options.paths = {"in.yaml"};
    Inputs inputs = Load(options, fs);
    inputs.Checkpoint();
    REQUIRE(inputs.jobs.size() == 1);
    const RuntimeSnapshot* snapshot = inputs.FindSnapshot(inputs.jobs[0]);
    REQUIRE(snapshot != nullptr);
    CHECK(snapshot->name == "job-runtime-snapshot");
    CHECK_FALSE(CheckRuntimeSnapshot(inputs.jobs[0], *snapshot));
    CHECK(inputs.skipped.empty());
  }
}

TEST_CASE("snapshots of TrainJobs not in the input, and other ConfigMaps, are skipped") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] =
      Snapshot("other", "u2") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\n" + kJobWithUid;
  LoadOptions options;
  options.paths = {"in.yaml"};
  Inputs inputs = Load(options, fs);
  inputs.Checkpoint();
  CHECK(inputs.snapshots.empty());
  CHECK(inputs.notices == std::vector<std::string>{"skipped 2 objects that are not Trainer objects: 2 ConfigMap"});
}

TEST_CASE("a List's snapshots load before its TrainJobs, which find them as they are handed over") {
  testing::FakeFileSystem fs;
  std::string list = "apiVersion: v1\nkind: List\nitems:\n- " +
                     std::string(
                         "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: job, "
                         "uid: u1}, spec: {runtimeRef: {name: plain}}}\n") +
                     "- {apiVersion: v1, kind: ConfigMap, metadata: {name: job-runtime-snapshot, ownerReferences: "
                     "[{uid: u1, controller: true}]}, data: {runtime: '{kind: ClusterTrainingRuntime}'}}\n";
  fs.files["dump.yaml"] = list;
  LoadOptions options;
  options.paths = {"dump.yaml"};
  std::vector<bool> settled;
  Inputs inputs =
      Load(options, fs, [&](const Inputs& so_far, TrainJob& job) { settled.push_back(so_far.SnapshotSettled(job)); });
  inputs.Checkpoint();
  CHECK(settled == std::vector<bool>{true});
  CHECK(inputs.snapshots.size() == 1);
}

TEST_CASE("a TrainJob with a uid waits for its snapshot, one without a uid does not") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = std::string(kJobWithUid) +
                        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: handmade}\n"
                        "spec: {runtimeRef: {name: plain}}\n";
  LoadOptions options;
  options.paths = {"in.yaml"};
  std::vector<bool> settled;
  Load(options, fs, [&](const Inputs& so_far, TrainJob& job) { settled.push_back(so_far.SnapshotSettled(job)); });
  CHECK(settled == std::vector<bool>{false, true});
}

TEST_CASE("two different snapshots of one TrainJob are an error; a stream that turns out malformed drops its own") {
  testing::FakeFileSystem fs;
  fs.files["a.yaml"] = Snapshot("job", "u1");
  fs.files["b.yaml"] = Snapshot("job", "u9");
  fs.files["bad.yaml"] = Snapshot("other", "u1") + "---\nkind: [\n";
  fs.files["jobs.yaml"] = std::string(kJobWithUid) +
                          "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: other}\n"
                          "spec: {runtimeRef: {name: plain}}\n";
  LoadOptions options;
  options.paths = {"a.yaml", "a.yaml", "b.yaml", "bad.yaml", "jobs.yaml"};
  Inputs inputs = Load(options, fs);
  REQUIRE(inputs.errors.size() == 2);
  CHECK(
      inputs.errors[0].Format() ==
      "b.yaml:1:1: ConfigMap default/job-runtime-snapshot: defined twice with different content (first at a.yaml:1:1)");
  CHECK(inputs.errors[1].location.rfind("bad.yaml:", 0) == 0);
  REQUIRE(inputs.snapshots.size() == 1);
  CHECK(*inputs.snapshots[0].controller_uid == "u1");
}

}  // namespace trainer
