#include "runtime/snapshot.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "api/decode.h"
#include "api/defaults.h"
#include "tests/fixtures.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Text;

const std::string kFile = "snapshot.yaml";

// testingutil.MakeTrainJobWrapper(ns, name).UID(uid).RuntimeRef(kind, runtime), defaulted.
TrainJob Job(const char* ns, const char* name, const char* uid, const char* kind, const char* runtime) {
  Tree doc = ReadYamlStream(fmt::format(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {{name: {}, namespace: {}, uid: "{}"}}
spec:
  runtimeRef: {{apiGroup: trainer.kubeflow.org, kind: {}, name: {}}}
)",
                                        name, ns, uid, kind, runtime),
                            &kFile)
                 .at(0);
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  return DecodeTrainJob(doc);
}

// A ConfigMap document read as the loader reads it, with the input's lines at hand.
RuntimeSnapshot Read(const std::string& text) {
  const InputLines lines(text);
  std::size_t values_left = 1000;
  return ReadRuntimeSnapshot(ReadYamlStream(text, &kFile).at(0), "default", &lines, values_left);
}

// c.Get(ctx, {namespace, name + "-runtime-snapshot"}): the ConfigMap named after `job`, or none.
const RuntimeSnapshot* Get(const TrainJob& job, const std::vector<RuntimeSnapshot>& config_maps) {
  for (const RuntimeSnapshot& cm : config_maps) {
    if (cm.namespace_ == job.metadata.namespace_ && cm.name == RuntimeSnapshotName(job)) return &cm;
  }
  return nullptr;
}

// The torch runtime of upstream's success cases, as data.runtime holds it (indented for a block).
constexpr const char* kTorchRuntime = R"(      spec:
        mlPolicy:
          numNodes: 2
          torch: {}
        template:
          spec:
            replicatedJobs:
            - name: node
              template:
                metadata:
                  labels:
                    trainer.kubeflow.org/trainjob-ancestor-step: trainer
                spec:
                  template:
                    spec:
                      containers:
                      - name: node
                        image: pytorch/pytorch:tag
)";

// What the success cases decode to (with the CRD defaults, which upstream's cache has applied).
constexpr const char* kTorchSpec = R"(spec:
  mlPolicy:
    numNodes: 2
    torch: {}
  template:
    metadata: {}
    spec:
      replicatedJobs:
      - groupName: default
        name: node
        replicas: 1
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              metadata: {}
              spec:
                containers:
                - image: pytorch/pytorch:tag
                  name: node
                  resources: {}
)";

std::string ConfigMap(const char* ns, const char* owners, const std::string& data) {
  return fmt::format(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: test-job-runtime-snapshot
  namespace: {}
  ownerReferences: {}
data:
{})",
                     ns, owners, data);
}

constexpr const char* kOwned = "[{uid: uid-test-job-runtime-snapshot, controller: true}]";

struct GetCase {
  const char* name;
  TrainJob job;
  std::string config_map;    // "" for none
  std::string want_runtime;  // the decoded runtime, as data.runtime would hold it again
  std::string want_error;    // the whole diagnostic
  bool want_not_found = false;
};

}  // namespace

// TestGetRuntimeSnapshot (pkg/runtime/core/snapshot_test.go).
TEST_CASE("getRuntimeSnapshot reads the TrainJob's snapshot and refuses any other") {
  const std::vector<GetCase> cases = {
      {"successfully retrieves ClusterTrainingRuntime snapshot from ConfigMap",
       Job("test-namespace", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime"),
       ConfigMap("test-namespace", kOwned, std::string(R"(  runtime: |
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata:
      name: test-runtime
)") + std::string(kTorchRuntime).substr(2)),
       std::string("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: "
                   "test-runtime\n") +
           kTorchSpec,
       ""},
      {"successfully retrieves TrainingRuntime snapshot from ConfigMap",
       Job("test-namespace", "test-job", "uid-test-job-runtime-snapshot", "TrainingRuntime", "test-runtime"),
       ConfigMap("test-namespace", kOwned, std::string(R"(  runtime: |
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainingRuntime
    metadata:
      name: test-runtime
      namespace: test-namespace
)") + std::string(kTorchRuntime).substr(2)),
       std::string("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata:\n  name: "
                   "test-runtime\n  namespace: test-namespace\n") +
           kTorchSpec,
       ""},
      {"returns not found error when ConfigMap does not exist",
       Job("default", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime"), "", "",
       "", true},
      {"returns error when ConfigMap is not owned and controlled by the TrainJob",
       Job("test-namespace", "test-job", "uid-test-job-runtime-snapshot", "TrainingRuntime", "test-runtime"),
       ConfigMap("test-namespace", "null", "  runtime: |\n    kind: TrainingRuntime\n"), "",
       "snapshot.yaml:1:1: ConfigMap test-namespace/test-job-runtime-snapshot: metadata.ownerReferences: invalid "
       "runtime snapshot: a snapshot configmap exists but is owned by another object"},
      {"returns error when ConfigMap is missing runtime data key",
       Job("default", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime"),
       ConfigMap("default", kOwned, "  wrong-key: \"\"\n"), "",
       "snapshot.yaml:8:3: ConfigMap default/test-job-runtime-snapshot: data: invalid runtime snapshot: snapshot "
       "ConfigMap missing \"runtime\" data key"},
      {"returns error when ConfigMap contains invalid YAML",
       Job("test-namespace", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime"),
       ConfigMap("test-namespace", kOwned, "  runtime: \"invalid: yaml: content:\\n  - broken\"\n"), "",
       "snapshot.yaml:8:12: ConfigMap test-namespace/test-job-runtime-snapshot: data.runtime: invalid runtime "
       "snapshot: unable to unmarshal the snapshot: malformed YAML: a \":\" where no value can start: the line above "
       "may miss the \":\" after its key, this key may be indented deeper than the keys beside it, or a value "
       "holding \": \" needs quotes (line 1, column 14 of data.runtime)"},
      {"returns error when snapshot runtime name does not match RuntimeRef",
       Job("test-namespace", "test-job", "uid-test-job-runtime-snapshot", "TrainingRuntime", "test-runtime"),
       ConfigMap("test-namespace", kOwned, R"(  runtime: |
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainingRuntime
    metadata:
      name: other-runtime
      namespace: test-namespace
    spec:
      mlPolicy:
        numNodes: 1
      template:
        spec:
          replicatedJobs: []
)"),
       "",
       "snapshot.yaml:8:12: ConfigMap test-namespace/test-job-runtime-snapshot: data.runtime: invalid runtime "
       "snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, api group and kind of "
       "\"test-runtime\", \"trainer.kubeflow.org\", \"TrainingRuntime\" but found runtime with name, api group and "
       "kind of \"other-runtime\", \"trainer.kubeflow.org\", \"TrainingRuntime\""},
      {"returns error when snapshot runtime kind does not match RuntimeRef",
       Job("test-namespace", "test-job", "uid-test-job-runtime-snapshot", "TrainingRuntime", "test-runtime"),
       ConfigMap("test-namespace", kOwned, R"(  runtime: |
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata:
      name: test-runtime
    spec:
      mlPolicy:
        numNodes: 1
      template:
        spec:
          replicatedJobs: []
)"),
       "",
       "snapshot.yaml:8:12: ConfigMap test-namespace/test-job-runtime-snapshot: data.runtime: invalid runtime "
       "snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, api group and kind of "
       "\"test-runtime\", \"trainer.kubeflow.org\", \"TrainingRuntime\" but found runtime with name, api group and "
       "kind of \"test-runtime\", \"trainer.kubeflow.org\", \"ClusterTrainingRuntime\""},
  };
  for (const GetCase& c : cases) {
    CAPTURE(std::string(c.name));
    std::vector<RuntimeSnapshot> config_maps;
    if (!c.config_map.empty()) config_maps.push_back(Read(c.config_map));
    const RuntimeSnapshot* snapshot = Get(c.job, config_maps);
    CHECK((snapshot == nullptr) == c.want_not_found);
    if (snapshot == nullptr) continue;
    std::optional<Diagnostic> refusal = CheckRuntimeSnapshot(c.job, *snapshot);
    CHECK((refusal ? refusal->Format() : std::string()) == c.want_error);
    if (!c.want_runtime.empty()) {
      REQUIRE(snapshot->runtime);
      CHECK(Text(RuntimeSnapshotData(*snapshot->runtime)) == c.want_runtime);
    }
  }
}

TEST_CASE("a snapshot's problem inside a literal block is placed at its line and column in the input") {
  const TrainJob job =
      Job("default", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime");
  const RuntimeSnapshot snapshot = Read(ConfigMap("default", kOwned, R"(  runtime: |
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata:
      name: test-runtime
    spec:
      mlPolicy:
        numNodes: two
)"));
  std::optional<Diagnostic> refusal = CheckRuntimeSnapshot(job, snapshot);
  REQUIRE(refusal);
  CHECK(refusal->Format() ==
        "snapshot.yaml:15:19: ConfigMap default/test-job-runtime-snapshot: data.runtime: invalid runtime snapshot: "
        "unable to unmarshal the snapshot: spec.mlPolicy.numNodes: expected an integer, got a string");
}

TEST_CASE("a data.runtime that is not a string does not decode, as kubectl reads a ConfigMap's data") {
  const TrainJob job =
      Job("default", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime");
  const RuntimeSnapshot snapshot = Read(ConfigMap("default", kOwned, "  runtime: {kind: ClusterTrainingRuntime}\n"));
  std::optional<Diagnostic> refusal = CheckRuntimeSnapshot(job, snapshot);
  REQUIRE(refusal);
  CHECK(refusal->Format() ==
        "snapshot.yaml:8:12: ConfigMap default/test-job-runtime-snapshot: data.runtime: invalid runtime snapshot: "
        "unable to unmarshal the snapshot: expected a string, got an object");
}

TEST_CASE("a TrainJob without a uid has no snapshot yet: one named after it is another object's") {
  const TrainJob job = Job("default", "test-job", "", "ClusterTrainingRuntime", "test-runtime");
  const RuntimeSnapshot snapshot = Read(ConfigMap("default", "[{uid: \"\", controller: true}]", "  runtime: \"\"\n"));
  std::optional<Diagnostic> refusal = CheckRuntimeSnapshot(job, snapshot);
  REQUIRE(refusal);
  CHECK(refusal->message == "invalid runtime snapshot: a snapshot configmap exists but is owned by another object");
}

TEST_CASE("the controller owner is the first owner reference with controller: true") {
  const TrainJob job =
      Job("default", "test-job", "uid-test-job-runtime-snapshot", "ClusterTrainingRuntime", "test-runtime");
  const RuntimeSnapshot snapshot = Read(ConfigMap(
      "default", "[{uid: uid-test-job-runtime-snapshot}, {uid: other, controller: true}]", "  runtime: \"\"\n"));
  REQUIRE(snapshot.controller_uid);
  CHECK(*snapshot.controller_uid == "other");
  std::optional<Diagnostic> refusal = CheckRuntimeSnapshot(job, snapshot);
  REQUIRE(refusal);
  CHECK(refusal->field == "metadata.ownerReferences");
}

namespace {

// testingutil's runtime wrappers with one `node` container (constants.Node), as loaded.
Runtime LoadedRuntime(const char* kind, const char* name, const char* extra_spec, const char* resources) {
  Tree doc = ReadYamlStream(
                 fmt::format(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: {}
metadata: {{name: {}{}}}
spec:
{}  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: test:runtime
                  command: [runtime]
                  args: [runtime]
                  resources: {{requests: {}}}
)",
                             kind, name, std::string_view(kind) == kTrainingRuntimeKind ? ", namespace: default" : "",
                             extra_spec, resources),
                 &kFile)
                 .at(0);
  ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
  return DecodeRuntime(doc);
}

// The ConfigMap NewRuntimeSnapshot makes for `job`, read back as the controller reads it.
RuntimeSnapshot CreateAndGet(const TrainJob& job, const Runtime& runtime) {
  const Tree config_map = NewRuntimeSnapshot(job, runtime);
  std::size_t values_left = 100000;
  return ReadRuntimeSnapshot(config_map, "default", nullptr, values_left);
}

}  // namespace

// TestCreateRuntimeSnapshot (pkg/runtime/core/snapshot_test.go).
TEST_CASE("createRuntimeSnapshot makes a ConfigMap owned by the TrainJob holding the runtime") {
  struct CreateCase {
    const char* name;
    TrainJob job;
    Runtime runtime;
  };
  const std::vector<CreateCase> cases = {
      {"successfully creates snapshot ConfigMap for ClusterTrainingRuntime",
       Job("default", "test-job", "test-uid", "ClusterTrainingRuntime", "test-runtime"),
       LoadedRuntime("ClusterTrainingRuntime", "test-runtime", "", "{cpu: \"1\"}")},
      {"successfully creates snapshot ConfigMap for TrainingRuntime",
       Job("default", "test-job", "test-uid", "TrainingRuntime", "test-ns-runtime"),
       LoadedRuntime("TrainingRuntime", "test-ns-runtime", "", "{cpu: \"1\"}")},
      // Upstream applies over a ConfigMap of the same name; the ConfigMap made does not depend on one.
      {"idempotently updates existing snapshot ConfigMap",
       Job("default", "test-job", "test-uid", "ClusterTrainingRuntime", "test-runtime"),
       LoadedRuntime("ClusterTrainingRuntime", "test-runtime", "", "{cpu: \"1\"}")},
  };
  for (const CreateCase& c : cases) {
    CAPTURE(std::string(c.name));
    const Tree config_map = NewRuntimeSnapshot(c.job, c.runtime);
    const Tree* meta = config_map.Find("metadata");
    REQUIRE(meta);
    CHECK(*meta->FindString("name") == "test-job-runtime-snapshot");
    CHECK(Text(*meta->Find("ownerReferences")) == R"(- apiVersion: trainer.kubeflow.org/v1alpha1
  blockOwnerDeletion: true
  controller: true
  kind: TrainJob
  name: test-job
  uid: test-uid
)");
    const RuntimeSnapshot read = CreateAndGet(c.job, c.runtime);
    CHECK_FALSE(CheckRuntimeSnapshot(c.job, read));
    REQUIRE(read.runtime);
    CHECK(read.runtime->kind == c.runtime.kind);
    CHECK(read.runtime->metadata.name == c.runtime.metadata.name);
    CHECK(read.runtime->metadata.namespace_ == c.runtime.metadata.namespace_);
    CHECK(Text(RuntimeSnapshotData(*read.runtime)) == Text(RuntimeSnapshotData(c.runtime)));
  }
}

// TestRuntimeSnapshotRoundTrip (pkg/runtime/core/snapshot_test.go).
TEST_CASE("a runtime stored in a snapshot and read back keeps its spec and name") {
  const Runtime original = LoadedRuntime("ClusterTrainingRuntime", "complex-runtime", "  mlPolicy: {numNodes: 4}\n",
                                         "{cpu: \"2\", memory: 4Gi}");
  const TrainJob job = Job("default", "test-job", "test-uid-12345", "ClusterTrainingRuntime", "complex-runtime");
  const RuntimeSnapshot read = CreateAndGet(job, original);
  CHECK_FALSE(CheckRuntimeSnapshot(job, read));
  REQUIRE(read.runtime);
  CHECK(read.runtime->spec.ml_policy->num_nodes == 4);
  CHECK(read.runtime->spec.template_.spec == original.spec.template_.spec);
  CHECK(read.runtime->spec.template_.labels == original.spec.template_.labels);
  CHECK(read.runtime->metadata.name == original.metadata.name);
}

}  // namespace trainer
