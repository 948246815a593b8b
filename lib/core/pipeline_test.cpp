#include "core/pipeline.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "input/loader.h"
#include "tests/fake_fs.h"
#include "util/error.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

// Loads one runtime and one TrainJob from YAML.
struct Case {
  explicit Case(const std::string& yaml) {
    fs.files["in.yaml"] = yaml;
    LoadOptions options;
    options.paths = {"in.yaml"};
    // The fixtures are pipeline inputs, not all admissible runtimes (the quantity-format one has an
    // initializer Job without its container): the pipeline runs on what admission would refuse too.
    options.validate = ValidationMode::kIgnore;
    inputs = Load(options, fs);
    inputs.Checkpoint();
    REQUIRE(inputs.jobs.size() == 1);
    REQUIRE(inputs.runtimes.size() == 1);
  }
  Info NewInfo() { return NewRuntimeInfo(inputs.jobs[0], inputs.runtimes[0]); }

  testing::FakeFileSystem fs;
  Inputs inputs;
};

std::string RuntimeYaml(const std::string& ml_policy, const std::string& trainer_job_extra = "") {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt}\nspec:\n" + ml_policy +
         R"(  template:
    metadata: {labels: {from-runtime: "1", shared: runtime}}
    spec:
      replicatedJobs:
      - name: init
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}}
          spec:
            parallelism: 5
            template: {spec: {containers: [{name: dataset-initializer, image: i}]}}
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            parallelism: 7
            template:
              spec:
                initContainers:
                - {name: prep, resources: {requests: {cpu: "2"}}}
                - {name: side, restartPolicy: Always, resources: {requests: {cpu: 500m, memory: 1Gi}}}
                containers:
                - name: node
                  image: i
                  resources:
                    requests: {cpu: "1", memory: 2Gi}
                    claims: [{name: gpu}]
)" + trainer_job_extra;
}

const char* kJob = R"(---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job}
spec:
  runtimeRef: {name: rt}
  trainer:
    resourcesPerNode: {requests: {cpu: "4"}, limits: {memory: 8Gi}}
  runtimePatches:
  - manager: a.io/one
    trainingRuntimeSpec: {template: {metadata: {labels: {shared: first, p1: x}}}}
  - manager: b.io/two
    trainingRuntimeSpec: {template: {metadata: {labels: {shared: second}, annotations: {note: "y"}}}}
)";

const Tree& NodeContainer(const Info& info) {
  return info.template_spec.obj_apply.Find("replicatedJobs")->items()[1].Find("template")->Find("spec")->Find("template")
      ->Find("spec")->Find("containers")->items()[0];
}

}  // namespace

TEST_CASE("PodSet counts come from numNodes for the trainer and from parallelism otherwise") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 3}\n") + kJob);
  Info info = c.NewInfo();
  REQUIRE(info.template_spec.pod_sets.size() == 2);
  CHECK(info.template_spec.pod_sets[0].count == 5);
  CHECK(info.template_spec.pod_sets[0].ancestor == "dataset-initializer");
  CHECK(info.template_spec.pod_sets[1].count == 3);
  CHECK(info.template_spec.pod_sets[1].ancestor == "trainer");
}

TEST_CASE("without an mlPolicy the trainer PodSet keeps its parallelism and resourcesPerNode is not merged") {
  Case c(RuntimeYaml("") + kJob);
  Info info = c.NewInfo();
  CHECK(info.template_spec.pod_sets[1].count == 7);
  const Tree& resources = *NodeContainer(info).Find("resources");
  CHECK(resources.Find("requests")->Find("cpu")->text() == "1");
  CHECK(resources.Find("claims") != nullptr);
}

TEST_CASE("an mlPolicy without numNodes gives the trainer one node") {
  Case c(RuntimeYaml("  mlPolicy: {}\n") + kJob);
  CHECK(c.NewInfo().template_spec.pod_sets[1].count == 1);
}

TEST_CASE("resourcesPerNode merges key by key into the trainer node container and drops claims") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + kJob);
  Info info = c.NewInfo();
  const Tree& resources = *NodeContainer(info).Find("resources");
  CHECK(resources.Find("requests")->Find("cpu")->text() == "4");
  CHECK(resources.Find("requests")->Find("memory")->text() == "2Gi");
  CHECK(resources.Find("limits")->Find("memory")->text() == "8Gi");
  CHECK(resources.Find("claims") == nullptr);
  CHECK(resources.Find("requests")->Find("cpu")->origin().Position() == "in.yaml:39:40");
}

TEST_CASE("labels propagate from the runtime template, then each runtime patch, later winning") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + kJob);
  Info info = c.NewInfo();
  CHECK(info.labels == StringMap{{"from-runtime", "1"}, {"p1", "x"}, {"shared", "second"}});
  CHECK(info.annotations == StringMap{{"note", "y"}});
}

TEST_CASE("single-pod requests count sidecars alongside and init containers by their maximum") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + kJob);
  Info info = c.NewInfo();
  const ResourceList& requests = info.template_spec.pod_sets[1].single_pod_requests;
  // containers: cpu 4 (merged) + sidecar 500m = 4500m; init phase: prep 2 + sidecar 0 -> max stays 4500m.
  CHECK(requests.at("cpu").String() == "4500m");
  CHECK(requests.at("memory").String() == "3Gi");
}

std::string Names(const Tree& list) {
  std::string out;
  for (const Tree& item : list.items()) out += *item.FindString("name") + " ";
  return out;
}

const Tree& ReplicatedJobs(const Info& info) { return *info.template_spec.obj_apply.Find("replicatedJobs"); }

const Tree& PodSpecOf(const Info& info, std::size_t job) {
  return *ReplicatedJobs(info).items()[job].Find("template")->Find("spec")->Find("template")->Find("spec");
}

std::string WithPatches(const std::string& patches) { return std::string(kJob) + patches; }

TEST_CASE("runtime patches merge in order, each on the result of the one before") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + WithPatches(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      serviceAccountName: first, nodeSelector: {a: "1"}, containers: [{name: node, env: [{name: X, value: "1"}]}]}}}}}]}}}
  - manager: d.io/four
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      serviceAccountName: second, nodeSelector: {b: "2"}, containers: [{name: node, env: [{name: "Y", value: "2"}, {name: X, value: "3"}]}]}}}}}]}}}
)"));
  Info info = c.NewInfo();
  const Tree& pod = PodSpecOf(info, 1);
  CHECK(*pod.FindString("serviceAccountName") == "second");
  CHECK(pod.Find("nodeSelector")->size() == 2);
  const Tree& env = *pod.Find("containers")->items()[0].Find("env");
  CHECK(Names(env) == "Y X ");  // X listed after Y in the second patch
  CHECK(*env.items()[1].FindString("value") == "3");
  CHECK(env.items()[1].Find("value")->origin().Position().starts_with("in.yaml:"));
}

TEST_CASE("a runtime patch naming a job the runtime lacks adds it, sorted as the runtime's first job") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + WithPatches(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node}, {name: extra}]}}}
)"));
  Info info = c.NewInfo();
  // SMP gives [init, node, extra]; extra ranks 0 like init, so the stable sort puts it after init
  // and before node.
  CHECK(Names(ReplicatedJobs(info)) == "init extra node ");
  REQUIRE(info.template_spec.pod_sets.size() == 3);
  CHECK(info.template_spec.pod_sets[1].name == "extra");
}

TEST_CASE("a runtime patch leading with an unknown job puts it first") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + WithPatches(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: extra}, {name: node}]}}}
)"));
  CHECK(Names(ReplicatedJobs(c.NewInfo())) == "extra init node ");
}

TEST_CASE("a runtime patch item without its merge key fails with upstream's message at the patch field") {
  // The first patch gives the pod an imagePullSecrets list; the second one's nameless item cannot
  // be matched against it.
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + WithPatches(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      imagePullSecrets: [{name: a}]}}}}}]}}}
  - manager: d.io/four
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: {
      imagePullSecrets: [{name: ""}]}}}}}]}}}
)"));
  try {
    c.NewInfo();
    FAIL("expected an error");
  } catch (const Error& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    CHECK(d.field == "spec.runtimePatches[3].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.imagePullSecrets[0]");
    CHECK(d.message == "cannot merge the runtime patch: map: map[] does not contain declared merge key: name");
    CHECK(d.where.line == 50);  // the nameless item
  }
}

TEST_CASE("a runtime patch's pointer fields apply even when they hold a zero value") {
  Case c(RuntimeYaml("  mlPolicy: {numNodes: 1}\n") + WithPatches(R"(  - manager: c.io/three
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: init, template: {spec: {template: {spec: {
      serviceAccountName: "", terminationGracePeriodSeconds: 0, nodeSelector: {}, tolerations: []}}}}}]}}}
)"));
  Info info = c.NewInfo();
  const Tree& pod = PodSpecOf(info, 0);
  CHECK(pod.Find("serviceAccountName") == nullptr);  // "" patched in, then dropped by omitempty
  REQUIRE(pod.Find("terminationGracePeriodSeconds") != nullptr);
  CHECK(pod.Find("terminationGracePeriodSeconds")->AsInt() == 0);
  CHECK(pod.Find("nodeSelector") == nullptr);
  CHECK(pod.Find("tolerations") == nullptr);
}

TEST_CASE("pod requests keep the runtime's quantity formats unless a runtime patch re-encoded the spec") {
  // 1.5Ki is BinarySI as written; its canonical text "1536" reads back as DecimalSI.
  std::string runtime = RuntimeYaml("  mlPolicy: {numNodes: 1}\n");
  const std::string init = "[{name: dataset-initializer, image: i}]";
  runtime.replace(runtime.find(init), init.size(),
                  "[{name: a, image: i, resources: {requests: {memory: 1.5Ki}}}, {name: b, resources: {requests: {memory: 1.5Ki}}}]");
  SUBCASE("as written") {
    Case c(runtime + kJob);
    ResourceList requests = c.NewInfo().template_spec.pod_sets[0].single_pod_requests;
    CHECK(requests.at("memory").String() == "3Ki");
  }
  SUBCASE("after a runtime patch") {
    Case c(runtime + WithPatches("  - manager: c.io/three\n    trainingRuntimeSpec: {template: {spec: {}}}\n"));
    ResourceList requests = c.NewInfo().template_spec.pod_sets[0].single_pod_requests;
    CHECK(requests.at("memory").String() == "3072");
  }
}

}  // namespace trainer

namespace trainer {

// Growth: 4000 runtime patches that each add a volume to the same Job merge in linear time, all at
// once (the merge looked positions up by scanning inside its sort: cubic in all, about a minute
// for 1200 here; then step by step, each patch re-merging and re-decoding the Job: quadratic,
// 6.4 s for 4000 in an ordinary build).
TEST_CASE("4000 runtime patches that each add a volume merge in linear time" * doctest::test_suite("growth")) {
  constexpr int kPatches = 4000;
  std::string job =
      "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\n"
      "spec:\n  runtimeRef: {name: rt}\n  runtimePatches:\n";
  for (int i = 0; i < kPatches; ++i) {
    job += "  - manager: m" + std::to_string(i) +
           ".io/x\n    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: "
           "{template: {spec: {volumes: [{name: v" +
           std::to_string(i) + ", emptyDir: {}}]}}}}}]}}}\n";
  }
  Case c(RuntimeYaml("") + job);
  Tree spec = c.inputs.runtimes[0].spec.template_.spec;
  CHECK(MergeRuntimePatches(c.inputs.jobs[0], spec, PatchMerge::kAtOnceOnly) == std::optional<bool>(true));
  Info info = c.NewInfo();
  const Tree& volumes = *info.template_spec.obj_apply.Find("replicatedJobs")
                             ->items()[1]
                             .Find("template")
                             ->Find("spec")
                             ->Find("template")
                             ->Find("spec")
                             ->Find("volumes");
  REQUIRE(volumes.items().size() == kPatches);
  // A volume the list lacks goes first, as kubectl puts it.
  for (int i = 0; i < kPatches; ++i) {
    if (*volumes.items()[i].FindString("name") != "v" + std::to_string(kPatches - 1 - i)) FAIL("volume " << i);
  }
}

}  // namespace trainer

// Runtime patches merged all at once against the step-by-step merge upstream runs: the same trees,
// origins and errors.
namespace trainer {

namespace {

const TrainJob& JobOf(const Case& c) { return c.inputs.jobs[0]; }
const Tree& SpecOf(const Case& c) { return c.inputs.runtimes[0].spec.template_.spec; }

const char* kRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: rt}
spec:
  template:
    spec:
      replicatedJobs:
      - name: launcher
        template:
          metadata: {labels: {l: "1"}, finalizers: [f0]}
          spec:
            template:
              metadata: {finalizers: [g0]}
              spec:
                containers: [{name: main, image: i, env: [{name: E0, value: a}], volumeMounts: [{name: v0, mountPath: /m0}]}]
                volumes: [{name: v0, emptyDir: {}}]
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            parallelism: 2
            template:
              spec:
                serviceAccountName: sa
                nodeSelector: {zone: a}
                tolerations: [{key: k0, operator: Exists}]
                containers:
                - {name: node, image: i, env: [{name: E0, value: a}, {name: E1, value: b}], volumeMounts: [{name: v0, mountPath: /m0}]}
                - {name: side, image: s}
                volumes: [{name: v0, emptyDir: {}}, {name: v1, emptyDir: {sizeLimit: 1Gi}}]
                imagePullSecrets: [{name: s0}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job}
spec:
  runtimeRef: {name: rt}
  runtimePatches:
)";

std::string Patch(std::size_t i, const std::string& jobs) {
  return "  - manager: m" + std::to_string(i) + ".io/x\n    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [" +
         jobs + "]}}}\n";
}

bool SameOrigin(const Origin& a, const Origin& b) {
  return a.kind == b.kind && a.line == b.line && a.column == b.column && a.file == b.file && a.by == b.by;
}

// Where two trees differ (values, types, key order, origins of values and keys), or "".
std::string Difference(const Tree& a, const Tree& b, const std::string& path = "") {
  if (a.type() != b.type()) return path + ": type";
  if (!SameOrigin(a.origin(), b.origin())) return path + ": origin " + a.origin().Source() + " vs " + b.origin().Source();
  if (a.IsScalar()) return a == b ? "" : path + ": value " + a.text() + " vs " + b.text();
  if (a.items().size() != b.items().size()) return path + ": size";
  for (std::size_t i = 0; i < a.items().size(); ++i) {
    std::string at = path + (a.IsMap() ? "." + a.KeyAt(i) : "[" + std::to_string(i) + "]");
    if (a.IsMap() && a.KeyAt(i) != b.KeyAt(i)) return at + ": key vs " + b.KeyAt(i);
    if (a.IsMap() && !SameOrigin(a.KeyOriginAt(i), b.KeyOriginAt(i))) return at + ": key origin";
    if (std::string d = Difference(a.items()[i], b.items()[i], at); !d.empty()) return d;
  }
  return "";
}

// The errors of a merge, one per line, or "" when it succeeds.
std::string Errors(const TrainJob& job, Tree& spec, PatchMerge how, std::optional<bool>* result = nullptr) {
  try {
    std::optional<bool> merged = MergeRuntimePatches(job, spec, how);
    if (result) *result = merged;
    return "";
  } catch (const Error& e) {
    std::string out;
    for (const Diagnostic& d : e.diagnostics()) {
      out += d.field + " | " + d.message + " | " + d.where.Position() + "\n";
    }
    return out.empty() ? "(no diagnostics)" : out;
  }
}

// Whether the fast path declines the runtime patches of `in` (without failing).
bool Declined(const Case& in) {
  Tree spec = SpecOf(in);
  std::optional<bool> merged;
  CHECK(Errors(JobOf(in), spec, PatchMerge::kAtOnceOnly, &merged).empty());
  return !merged.has_value();
}

struct Outcome {
  bool at_once = false;  // the fast path took it
};

// Merges the runtime patches of `yaml` in turn and all at once, and checks they agree.
Outcome Compare(const Case& in) {
  Tree in_turn = SpecOf(in);
  Tree automatic = SpecOf(in);
  Tree at_once = SpecOf(in);
  std::optional<bool> merged_in_turn, merged_auto, merged_at_once;
  std::string in_turn_errors = Errors(JobOf(in), in_turn, PatchMerge::kInTurn, &merged_in_turn);
  std::string auto_errors = Errors(JobOf(in), automatic, PatchMerge::kAuto, &merged_auto);
  std::string at_once_errors = Errors(JobOf(in), at_once, PatchMerge::kAtOnceOnly, &merged_at_once);
  CHECK(auto_errors == in_turn_errors);
  CHECK(at_once_errors.empty());  // it declines instead of failing
  Outcome outcome;
  if (!in_turn_errors.empty()) {
    CHECK(!merged_at_once.has_value());
    return outcome;
  }
  CHECK(merged_auto == merged_in_turn);
  CHECK(Difference(automatic, in_turn) == "");
  std::string a, b;
  WriteYaml(automatic, a);
  WriteYaml(in_turn, b);
  CHECK(a == b);
  if (merged_at_once) {
    outcome.at_once = true;
    CHECK(merged_at_once == merged_in_turn);
    CHECK(Difference(at_once, in_turn) == "");
  } else {
    CHECK(Difference(at_once, SpecOf(in)) == "");  // untouched when it declines
  }
  return outcome;
}

Outcome Compare(const std::string& yaml) {
  Case in(yaml);
  return Compare(in);
}

// The error of the step-by-step merge of `in`, which the fast path must decline and the automatic
// merge must repeat.
std::string DeclinedError(const Case& in) {
  CHECK(Declined(in));
  Compare(in);
  Tree spec = SpecOf(in);
  return Errors(JobOf(in), spec, PatchMerge::kAuto);
}

struct Random {
  std::uint64_t state;
  unsigned operator()(unsigned n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % n);
  }
  template <class T>
  const T& Pick(const std::vector<T>& from) { return from[(*this)(static_cast<unsigned>(from.size()))]; }
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Up to `most` items made by `make`, more often few.
// The items' merge keys are their first fields; one list in ten may hold one twice.
template <class Make>
std::string Items(Random& r, unsigned most, Make make) {
  std::vector<std::string> items;
  std::vector<std::string> keys;
  const bool twice = r(10) == 0;
  for (unsigned n = 1 + r(most); n > 0; --n) {
    std::string item = make();
    std::string key = item.substr(0, item.find_first_of(",}"));
    if (!twice && std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    items.push_back(item);
  }
  return "[" + Join(items) + "]";
}

std::string Meta(Random& r) {
  std::vector<std::string> fields;
  if (r(2)) fields.push_back("labels: {k" + std::to_string(r(3)) + ": v" + std::to_string(r(3)) + "}");
  if (r(3) == 0) fields.push_back("annotations: {a" + std::to_string(r(3)) + ": \"" + std::to_string(r(2)) + "\"}");
  if (r(3) == 0) fields.push_back("finalizers: " + Items(r, 2, [&] { return "f" + std::to_string(r(3)); }));
  return "{" + Join(fields) + "}";
}

std::string Container(Random& r) {
  std::vector<std::string> fields{"name: " + r.Pick(std::vector<std::string>{"node", "side", "main", "newc"})};
  if (r(3)) {
    fields.push_back("env: " + Items(r, 3, [&] {
      std::string name = "{name: E" + std::to_string(r(4));
      std::string value = ", value: x" + std::to_string(r(3)) + "}";
      return name + r.Pick(std::vector<std::string>{", valueFrom: {fieldRef: {fieldPath: metadata.name}}}", ", value: \"\"}", value, value});
    }));
  }
  if (r(3) == 0) {
    fields.push_back("volumeMounts: " + Items(r, 2, [&] {
      std::string k = std::to_string(r(3));
      return "{name: v" + k + ", mountPath: /m" + k + (r(4) == 0 ? ", readOnly: true" : "") + "}";
    }));
  }
  if (r(5) == 0) fields.push_back("securityContext: {runAsUser: " + std::to_string(r(3)) + "}");
  return "{" + Join(fields) + "}";
}

std::string PodSpec(Random& r) {
  std::vector<std::string> fields;
  if (r(4) == 0) fields.push_back("serviceAccountName: " + r.Pick(std::vector<std::string>{"sa", "sb", "\"\""}));
  if (r(2)) {
    fields.push_back("volumes: " + Items(r, 2, [&] {
      std::string name = "{name: v" + std::to_string(r(5));
      std::string config_map = ", configMap: {name: c" + std::to_string(r(2)) + "}}";
      return name + r.Pick(std::vector<std::string>{", emptyDir: {sizeLimit: 1000m}}", ", emptyDir: {sizeLimit: \"1\"}}",
                                                    config_map, ", emptyDir: {}}", ", emptyDir: {}}"});
    }));
  }
  if (r(3) == 0) fields.push_back("containers: " + Items(r, 2, [&] { return Container(r); }));
  if (r(6) == 0) fields.push_back("initContainers: " + Items(r, 1, [&] { return Container(r); }));
  if (r(5) == 0) fields.push_back("nodeSelector: {zone: " + r.Pick(std::vector<std::string>{"a", "b"}) + "}");
  if (r(5) == 0) fields.push_back("tolerations: " + Items(r, 2, [&] { return "{key: k" + std::to_string(r(3)) + ", operator: Exists}"; }));
  if (r(6) == 0) fields.push_back("schedulingGates: " + Items(r, 2, [&] { return "{name: g" + std::to_string(r(3)) + "}"; }));
  if (r(6) == 0) fields.push_back("imagePullSecrets: " + Items(r, 2, [&] { return "{name: s" + std::to_string(r(3)) + "}"; }));
  if (r(6) == 0) fields.push_back("terminationGracePeriodSeconds: " + std::to_string(r(3) * 10));
  if (r(6) == 0) fields.push_back("securityContext: {runAsUser: " + std::to_string(r(2)) + ", supplementalGroups: [" + std::to_string(r(3)) + ", 7]}");
  return "{" + Join(fields) + "}";
}

std::string Job(Random& r, const std::string& name) {
  if (r(8) == 0) return "{name: " + name + "}";
  std::vector<std::string> tmpl;
  if (r(3) == 0) tmpl.push_back("metadata: " + Meta(r));
  std::vector<std::string> pod;
  if (r(4) == 0) pod.push_back("metadata: " + Meta(r));
  pod.push_back("spec: " + PodSpec(r));
  tmpl.push_back("spec: {template: {" + Join(pod) + "}}");
  return "{name: " + name + ", template: {" + Join(tmpl) + "}}";
}

std::string Jobs(Random& r) {
  std::vector<std::string> names{"node", "node", "node", "launcher", "launcher", "extra"};
  std::vector<std::string> jobs{Job(r, r.Pick(names))};
  if (r(6) == 0) jobs.push_back(Job(r, r.Pick(names)));  // two Jobs, sometimes the same one twice
  return Join(jobs);
}

}  // namespace

TEST_CASE("runtime patches merged all at once give the step-by-step trees, origins and errors") {
  Random r{20261205};
  int at_once = 0;
  constexpr int kCases = 300;
  for (int c = 0; c < kCases; ++c) {
    std::string yaml = kRuntime;
    for (unsigned i = 0, n = 1 + r(8); i < n; ++i) yaml += Patch(i, Jobs(r));
    CAPTURE(yaml);
    if (Compare(yaml).at_once) ++at_once;
  }
  MESSAGE("all at once: ", at_once, " of ", kCases);
  CHECK(at_once > kCases / 3);  // the comparison has to exercise the fast path
}

TEST_CASE("runtime patches that reorder a list merge all at once in mergeSortedSlice's order") {
  // Patches of volume lists in any order, new and held items mixed; some sequences long enough
  // that the positions of the items added at one place run out of room and are spread again.
  Random r{7};
  for (int c = 0; c < 120; ++c) {
    std::string yaml = kRuntime;
    const unsigned names = c % 4 == 0 ? 400 : 8;
    for (unsigned i = 0, n = 1 + r(c % 4 == 0 ? 150 : 6); i < n; ++i) {
      std::vector<std::string> volumes;
      for (unsigned k = 1 + r(5); k > 0; --k) {
        std::string volume = "{name: v" + std::to_string(c % 4 == 0 && r(2) ? 1000 + i * 5 + k : r(names)) + ", emptyDir: {}}";
        if (std::find(volumes.begin(), volumes.end(), volume) == volumes.end()) volumes.push_back(volume);
      }
      yaml += Patch(i, "{name: " + std::string(r(4) ? "node" : "launcher") + ", template: {spec: {template: {spec: {volumes: [" +
                           Join(volumes) + "]}}}}}");
    }
    CAPTURE(yaml);
    CHECK(Compare(yaml).at_once);
  }
}

TEST_CASE("runtime patches that only the step-by-step merge can be sure of give its results and errors") {
  auto job = [](const std::string& pod) { return "{name: node, template: {spec: {template: {spec: " + pod + "}}}}"; };
  auto declined = [](const std::string& yaml) {
    Case in(yaml);
    return Declined(in);
  };
  SUBCASE("a zero value the round trip drops is set and dropped") {
    std::string yaml = kRuntime + Patch(0, job("{serviceAccountName: sb}")) + Patch(1, job("{serviceAccountName: \"\"}")) +
                       Patch(2, job("{serviceAccountName: sa}"));
    CHECK(!declined(yaml));
    Compare(yaml);
    Compare(kRuntime + Patch(0, job("{serviceAccountName: \"\"}")));
  }
  SUBCASE("an empty list the round trip drops") {
    // An empty list merged into a longer one stays; the fast path does not replay that.
    // The loader drops it; a TrainJob built otherwise could hold it.
    Case in(kRuntime + Patch(0, job("{containers: [{name: node, securityContext: {capabilities: {add: [X]}}}]}")));
    Tree& context = *in.inputs.jobs[0].spec.runtime_patches[0].template_->replicated_jobs->at(0).pod_template->spec->containers.at(0).security_context;
    context.Find("capabilities")->Set("add", Tree::List());
    CHECK(Declined(in));
    Compare(in);
  }
  SUBCASE("a decode error that a later patch overwrites is still reported") {
    // The loader refuses such a value; a TrainJob built otherwise could hold it.
    std::string yaml = kRuntime + Patch(0, job("{containers: [{name: node, env: [{name: E0, value: bad}]}]}")) +
                       Patch(1, job("{containers: [{name: node, env: [{name: E0, value: ok}]}]}"));
    Case in(yaml);
    Tree& env = in.inputs.jobs[0].spec.runtime_patches[0].template_->replicated_jobs->at(0).pod_template->spec->containers.at(0).env.at(0);
    env.Set("value", Tree::Int(5, env.Find("value")->origin()));
    CHECK(DeclinedError(in) ==
          "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[1].template.spec.template.spec."
          "containers[0].env[0].value | the patched JobSet spec does not decode: expected a string, got an integer "
              "(quote it: \"5\") | "
          "in.yaml:40:161\n");
  }
  SUBCASE("an item without its merge key") {
    std::string yaml = kRuntime + Patch(0, job("{volumes: [{name: v7, emptyDir: {}}]}")) +
                       Patch(1, job("{imagePullSecrets: [{name: \"\"}]}"));
    Case in(yaml);
    CHECK(DeclinedError(in) ==
          "spec.runtimePatches[1].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec."
          "imagePullSecrets[0] | cannot merge the runtime patch: map: map[] does not contain declared merge key: name | "
          "in.yaml:42:130\n");
  }
  SUBCASE("a key twice in one patch list") {
    std::string yaml = kRuntime + Patch(0, job("{volumes: [{name: v7, emptyDir: {}}, {name: v7, configMap: {name: c}}]}"));
    CHECK(declined(yaml));
    Compare(yaml);
  }
  SUBCASE("a value changed and changed back keeps the last patch's origin") {
    std::string yaml = kRuntime + Patch(0, job("{serviceAccountName: sb}")) + Patch(1, job("{serviceAccountName: sa}"));
    CHECK(!declined(yaml));
    Case in(yaml);
    Tree spec = SpecOf(in);
    REQUIRE(MergeRuntimePatches(JobOf(in), spec, PatchMerge::kAtOnceOnly).has_value());
    const Tree& pod = *spec.Find("replicatedJobs")->items()[1].Find("template")->Find("spec")->Find("template")->Find("spec");
    CHECK(pod.Find("serviceAccountName")->origin().line > 30);  // the second patch's, not the runtime's
    Compare(yaml);
  }
}

}  // namespace trainer
