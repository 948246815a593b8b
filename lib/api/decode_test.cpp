#include "api/decode.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "api/defaults.h"
#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

const std::string kFile = "job.yaml";

TrainJob DecodeJob(const char* yaml) {
  Tree doc = ReadYamlStream(yaml, &kFile).at(0);
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  return DecodeTrainJob(doc);
}

// Every diagnostic of decoding `yaml` as a TrainJob, formatted.
std::vector<std::string> JobErrors(const char* yaml) {
  std::vector<std::string> out;
  try {
    DecodeJob(yaml);
  } catch (const Error& e) {
    for (const auto& d : e.diagnostics()) out.push_back(d.Format());
  }
  return out;
}

Runtime DecodeRuntimeYaml(const char* yaml) {
  Tree doc = ReadYamlStream(yaml, &kFile).at(0);
  ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
  return DecodeRuntime(doc);
}

}  // namespace

TEST_CASE("a TrainJob decodes into the typed model with CRD defaults") {
  TrainJob job = DecodeJob(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: team, uid: u-1}
spec:
  runtimeRef: {name: rt}
  trainer:
    image: img
    command: [a, b]
    args: []
    numNodes: 4
    env: [{name: X, value: "1"}]
    resourcesPerNode: {limits: {cpu: 1000m}}
)");
  CHECK(job.metadata.name == "j");
  CHECK(job.metadata.namespace_ == "team");
  CHECK(job.metadata.uid == "u-1");
  CHECK(job.spec.runtime_ref.name == "rt");
  CHECK(job.spec.runtime_ref.kind == "ClusterTrainingRuntime");
  CHECK(job.spec.runtime_ref.api_group == "trainer.kubeflow.org");
  CHECK(job.spec.suspend == false);
  REQUIRE(job.spec.trainer);
  CHECK(job.spec.trainer->image == "img");
  CHECK(job.spec.trainer->command == std::vector<std::string>{"a", "b"});
  REQUIRE(job.spec.trainer->args.has_value());  // set but empty stays distinct from unset
  CHECK(job.spec.trainer->args->empty());
  CHECK(job.spec.trainer->num_nodes == 4);
  CHECK(job.spec.trainer->env.size() == 1);
  CHECK(job.spec.trainer->resources_per_node->Find("limits")->Find("cpu")->text() == "1");
  CHECK(job.positions.Find("spec.trainer.numNodes").Position() == "job.yaml:10:5");
}

TEST_CASE("an unknown field is an error naming its path and position") {
  CHECK(JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec:
  runtimeRef: {name: rt}
  trainer:
    numNode: 2
)") == std::vector<std::string>{"job.yaml:7:5: TrainJob j: spec.trainer: unknown field \"numNode\"; did you mean \"numNodes\"?"});
}

TEST_CASE("an unknown field names the nearest field the decoder accepts at its place, if one is close") {
  CHECK(JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, Namespace: ns, generatename: x, labelz: {}}
spec:
  runtimeref: {name: rt}
  trainer: {imgae: x, replicas: 2}
  runtimePatches: [{manager: m, trainingRuntimeSpec: {templates: {}}}]
)") == std::vector<std::string>{
             // case aside: the only difference
             "job.yaml:3:21: TrainJob j: metadata: unknown field \"Namespace\"; did you mean \"namespace\"?",
             "job.yaml:3:36: TrainJob j: metadata: unknown field \"generatename\"; did you mean \"generateName\"?",
             "job.yaml:3:53: TrainJob j: metadata: unknown field \"labelz\"; did you mean \"labels\"?",
             "job.yaml:5:3: TrainJob j: spec: unknown field \"runtimeref\"; did you mean \"runtimeRef\"?",
             "job.yaml:6:13: TrainJob j: spec.trainer: unknown field \"imgae\"; did you mean \"image\"?",
             // nothing within two edits
             "job.yaml:6:23: TrainJob j: spec.trainer: unknown field \"replicas\"",
             "job.yaml:7:55: TrainJob j: spec.runtimePatches[0].trainingRuntimeSpec: unknown field \"templates\"; did you "
             "mean \"template\"?",
             "job.yaml:5:3: TrainJob j: spec.runtimeRef: Required value"});
  // Embedded metadata takes fewer fields: generateName is not one of them.
  auto errors = JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec:
  runtimeRef: {name: rt}
  runtimePatches: [{manager: m, trainingRuntimeSpec: {template: {metadata: {generateNam: x}}}}]
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "job.yaml:6:77: TrainJob j: spec.runtimePatches[0].trainingRuntimeSpec.template.metadata: unknown "
                     "field \"generateNam\"");
}

TEST_CASE("a value of the wrong type is an error naming the field") {
  CHECK(JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: ns}
spec:
  runtimeRef: {name: rt}
  trainer:
    numNodes: "2"
    image: 3
)") == std::vector<std::string>{
             "job.yaml:7:15: TrainJob ns/j: spec.trainer.numNodes: expected an integer, got a string",
             "job.yaml:8:12: TrainJob ns/j: spec.trainer.image: expected a string, got an integer (quote it: \"3\")"});
}

TEST_CASE("a boolean or number where a string goes says to quote it, as it was written") {
  CHECK(JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: j
  labels: {gpu: yes, fast: On, tier: 2, ratio: 0.5, hex: 0x1F}
spec:
  runtimeRef: {name: rt}
  trainer:
    env: [{name: RETRIES, value: 3}, {name: DEBUG, value: off}]
)") == std::vector<std::string>{
             "job.yaml:5:17: TrainJob j: metadata.labels[gpu]: expected a string, got a boolean (quote it: \"yes\")",
             "job.yaml:5:28: TrainJob j: metadata.labels[fast]: expected a string, got a boolean (quote it: \"On\")",
             "job.yaml:5:38: TrainJob j: metadata.labels[tier]: expected a string, got an integer (quote it: \"2\")",
             "job.yaml:5:48: TrainJob j: metadata.labels[ratio]: expected a string, got a number (quote it: \"0.5\")",
             // written otherwise than its value: no text to offer
             "job.yaml:5:58: TrainJob j: metadata.labels[hex]: expected a string, got an integer (quote it)",
             "job.yaml:9:34: TrainJob j: spec.trainer.env[0].value: expected a string, got an integer (quote it: \"3\")",
             "job.yaml:9:59: TrainJob j: spec.trainer.env[1].value: expected a string, got a boolean (quote it: \"off\")"});
}

TEST_CASE("a number too large for int32 is rejected") {
  auto errors = JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec: {runtimeRef: {name: rt}, trainer: {numNodes: 3000000000}}
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "job.yaml:4:52: TrainJob j: spec.trainer.numNodes: 3000000000 does not fit a 32-bit integer");
}

TEST_CASE("a TrainJob without runtimeRef or name is rejected") {
  CHECK(JobErrors("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\nspec: {}\n") ==
        std::vector<std::string>{"job.yaml:4:7: TrainJob j: spec.runtimeRef: Required value"});
  CHECK(JobErrors("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nspec: {runtimeRef: {name: r}}\n") ==
        std::vector<std::string>{"job.yaml:1:1: TrainJob: metadata.name: Required value"});
}

TEST_CASE("generateName without a name says that rendering offline needs a name") {
  CHECK(JobErrors("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  generateName: run-\n"
                  "spec: {runtimeRef: {name: r}}\n") ==
        std::vector<std::string>{
            "job.yaml:4:3: TrainJob: metadata.name: Required value: the controller needs a name, and generateName is "
            "only turned into one by the API server on create (kubectl create); to render the file offline, give it a "
            "metadata.name"});
  // An empty generateName is no hint.
  CHECK(JobErrors("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {generateName: \"\"}\n"
                  "spec: {runtimeRef: {name: r}}\n") ==
        std::vector<std::string>{"job.yaml:1:1: TrainJob: metadata.name: Required value"});
}

TEST_CASE("errors in embedded core types come from their tables") {
  auto errors = JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec:
  runtimeRef: {name: rt}
  trainer:
    env: [{name: A, valu: x}]
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("spec.trainer.env[0]") != std::string::npos);
  CHECK(errors[0].find("unknown field \"valu\"; did you mean \"value\"?") != std::string::npos);
}

TEST_CASE("runtime patches decode with their metadata and pod spec patch") {
  TrainJob job = DecodeJob(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec:
  runtimeRef: {name: rt}
  runtimePatches:
  - manager: kueue.x-k8s.io/manager
    trainingRuntimeSpec:
      template:
        metadata: {labels: {a: b}}
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    nodeSelector: {zone: a}
                    containers: [{name: node, volumeMounts: [{name: v, mountPath: /v}]}]
)");
  REQUIRE(job.spec.runtime_patches.size() == 1);
  const RuntimePatch& patch = job.spec.runtime_patches[0];
  CHECK(patch.manager == "kueue.x-k8s.io/manager");
  REQUIRE(patch.template_);
  CHECK(patch.template_->metadata->labels->at("a") == "b");
  REQUIRE(patch.template_->replicated_jobs);
  const auto& pod = patch.template_->replicated_jobs->at(0).pod_template->spec;
  CHECK(pod->node_selector->at("zone") == "a");
  CHECK(pod->containers.at(0).volume_mounts.size() == 1);
}

TEST_CASE("a runtime keeps its JobSet template as a tree after the typed round trip") {
  Runtime rt = DecodeRuntimeYaml(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: rt}
spec:
  mlPolicy: {numNodes: 2, mpi: {}}
  template:
    metadata: {labels: {x: "y"}}
    spec:
      replicatedJobs:
      - name: node
        template:
          spec:
            template:
              spec:
                containers: [{name: node, image: i, tty: false}]
)");
  REQUIRE(rt.spec.ml_policy);
  CHECK(rt.spec.ml_policy->num_nodes == 2);
  CHECK(rt.spec.ml_policy->mpi->mpi_implementation == "OpenMPI");
  CHECK(rt.spec.template_.labels->at("x") == "y");
  const Tree& container = rt.spec.template_.spec.Find("replicatedJobs")->items()[0].Find("template")->Find("spec")
                              ->Find("template")->Find("spec")->Find("containers")->items()[0];
  CHECK(container.Find("tty") == nullptr);
  CHECK(container.Find("resources") != nullptr);
}

TEST_CASE("an unknown mlPolicy is rejected") {
  try {
    DecodeRuntimeYaml("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt}\n"
                      "spec: {mlPolicy: {pytorch: {}}}\n");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "job.yaml:4:19: ClusterTrainingRuntime rt: spec.mlPolicy: unknown field \"pytorch\"; did you mean \"torch\"?");
  }
}

}  // namespace trainer

namespace trainer {

TEST_CASE("pruned decoding removes unknown fields, as the API server prunes them, and reports them apart") {
  Tree doc = ReadYamlStream(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, colour: red}
spec:
  runtimeRef: {name: rt}
  trainer:
    numNode: 3
    env: [{name: X, value: "1", secret: true}]
  extra.dotted/key: 1
)",
                            &kFile)
                 .at(0);
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  std::vector<Diagnostic> unknown;
  TrainJob job = DecodeTrainJobPruned(doc, unknown);
  std::vector<std::string> messages;
  for (const Diagnostic& d : unknown) messages.push_back(d.Format());
  CHECK(messages == std::vector<std::string>{
                        "job.yaml:3:21: TrainJob j: metadata: unknown field \"colour\"",
                        "job.yaml:7:5: TrainJob j: spec.trainer: unknown field \"numNode\"; did you mean \"numNodes\"?",
                        "job.yaml:8:33: TrainJob j: spec.trainer.env[0].secret: unknown field \"secret\"",
                        "job.yaml:9:3: TrainJob j: spec: unknown field \"extra.dotted/key\"",
                    });
  CHECK(doc.Find("metadata")->Find("colour") == nullptr);
  CHECK(doc.Find("spec")->Find("extra.dotted/key") == nullptr);
  CHECK(doc.Find("spec")->Find("trainer")->Find("numNode") == nullptr);
  CHECK(doc.Find("spec")->Find("trainer")->Find("env")->items()[0].Find("secret") == nullptr);
  CHECK(job.spec.trainer->env.at(0).Find("secret") == nullptr);
  CHECK(!job.spec.trainer->num_nodes);
}

TEST_CASE("pruned decoding still fails on values of the wrong type") {
  Tree doc = ReadYamlStream("metadata: {name: j}\nspec: {runtimeRef: {name: rt}, trainer: {numNodes: many}, x: 1}\n", &kFile).at(0);
  std::vector<Diagnostic> unknown;
  CHECK_THROWS_WITH(DecodeTrainJobPruned(doc, unknown),
                    "job.yaml:2:52: TrainJob j: spec.trainer.numNodes: expected an integer, got a string");
  CHECK(unknown.size() == 1);
}

TEST_CASE("pruned decoding of a runtime removes unknown fields inside its JobSet template") {
  Tree doc = ReadYamlStream(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: ns}
spec:
  template:
    spec:
      replicatedJobs: [{name: node, template: {spec: {template: {spec: {containers: [{name: node, image: a, gpus: 2}]}}}}}]
)",
                            &kFile)
                 .at(0);
  ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
  std::vector<Diagnostic> unknown;
  Runtime runtime = DecodeRuntimePruned(doc, unknown);
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].Format() ==
        "job.yaml:7:109: TrainingRuntime ns/rt: spec.template.spec.replicatedJobs[0].template.spec.template.spec."
        "containers[0].gpus: unknown field \"gpus\"");
  const Tree& container = runtime.spec.template_.spec.Find("replicatedJobs")->items()[0].Find("template")->Find("spec")
                              ->Find("template")->Find("spec")->Find("containers")->items()[0];
  CHECK(container.Find("gpus") == nullptr);
  CHECK(runtime.source == doc);
}

TEST_CASE("documents are named by kind, namespace and name") {
  CHECK(DocumentSubject(ReadYamlStream("metadata: {name: a, namespace: b}", &kFile).at(0), "TrainJob") == "TrainJob b/a");
  CHECK(DocumentSubject(ReadYamlStream("metadata: {name: a}", &kFile).at(0), "ClusterTrainingRuntime") ==
        "ClusterTrainingRuntime a");
  CHECK(DocumentSubject(ReadYamlStream("spec: {}", &kFile).at(0), "TrainJob") == "TrainJob");
}

TEST_CASE("a name or namespace that holds a break or a control is named Printable, as a whole") {
  CHECK(
      DocumentSubject(ReadYamlStream("metadata: {name: \"a\\n::error ::x\\e\", namespace: \"b\\u2028\"}", &kFile).at(0),
                      "TrainJob") == R"(TrainJob b\u2028/a\n::error ::x\x1b)");
  CHECK(DocumentSubject(ReadYamlStream("metadata: {name: \"a\\a\"}", &kFile).at(0), "Conf\nigMap") ==
        R"(Conf\nigMap a\a)");
  CHECK(DocumentSubject(ReadYamlStream("spec: {}", &kFile).at(0), "Conf\nigMap") == R"(Conf\nigMap)");
  TrainJob job;
  job.metadata.namespace_ = "ml\xff";
  job.metadata.name = "job\r\n::error ::x";
  CHECK(Subject(job) == R"(TrainJob ml\xff/job\r\n::error ::x)");
  job.metadata.namespace_ = "ml";
  job.metadata.name = R"(a\"b)";  // printable: as it is
  CHECK(Subject(job) == R"(TrainJob ml/a\"b)");
  Runtime runtime;
  runtime.kind = kClusterTrainingRuntimeKind;
  runtime.metadata.name = "rt\u0085";
  CHECK(Subject(runtime) == R"(ClusterTrainingRuntime rt\u0085)");
  runtime.kind = kTrainingRuntimeKind;
  runtime.metadata.namespace_ = "team\a";
  CHECK(Subject(runtime) == R"(TrainingRuntime team\a/rt\u0085)");
}

TEST_CASE("an unknown field that holds a break or a control is named Printable") {
  CHECK(JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec:
  runtimeRef: {name: rt}
  "x\n::error ::forged\e": 1
)") == std::vector<std::string>{R"(job.yaml:6:3: TrainJob j: spec: unknown field "x\n::error ::forged\x1b")"});
}

TEST_CASE("field positions keep a field's key origin, fall back to ancestors, and copy whole") {
  static const std::string kFile = "job.yaml";
  auto at = [](std::uint32_t line, std::uint32_t column) { return Origin::Input(&kFile, line, column); };
  FieldPositions positions;
  positions.Record("spec", at(5, 1));
  positions.Record("spec", at(6, 3));  // its value, just after: the key's origin stays
  positions.Record("spec.trainer", at(6, 3));
  for (std::uint32_t i = 0; i < 100; ++i) positions.Record(fmt::format("spec.trainer.env[{}]", i), at(10 + i, 7));
  CHECK(positions.Find("spec").Position() == "job.yaml:5:1");
  CHECK(positions.Find("spec.trainer.env[42]").Position() == "job.yaml:52:7");   // looked up by index
  CHECK(positions.Find("spec.trainer.env[42].value").Position() == "job.yaml:52:7");
  CHECK(positions.Find("spec.trainer.image").Position() == "job.yaml:6:3");
  CHECK_FALSE(positions.Find("metadata.name").HasPosition());

  FieldPositions copy = positions;
  copy.Record("spec.trainer.image", at(200, 5));
  CHECK(copy.Find("spec.trainer.image").Position() == "job.yaml:200:5");
  CHECK(copy.Find("spec.trainer.env[99]").Position() == "job.yaml:109:7");
  CHECK(positions.Find("spec.trainer.image").Position() == "job.yaml:6:3");  // the original is untouched
  std::size_t seen = 0;
  copy.ForEach([&](std::string_view, const Origin&) { ++seen; });
  CHECK(seen == 103);
}

}  // namespace trainer

namespace trainer {

TEST_CASE("a field or form of an earlier Trainer release names the release and what to write now") {
  const std::vector<std::string> errors = JobErrors(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j}
spec:
  runtimeRef: {name: rt}
  podTemplateOverrides: [{targetJobs: [{name: node}], spec: {serviceAccountName: sa}}]
  runtimePatch: []
  podTemplateOverride: []
  trainer: {numProcPerNode: "4"}
)");
  REQUIRE(errors.size() == 4);
  CHECK(
      errors[0].starts_with("job.yaml:6:3: TrainJob j: spec: unknown field \"podTemplateOverrides\" (Trainer v2.1); "
                            "since v2.2 use spec.runtimePatches: an override {targetJobs: [{name: JOB}], metadata: M, "
                            "spec: S} is now {manager: NAME, "));
  // ordinary typos, even of a removed field, keep the did-you-mean of the fields accepted there
  CHECK(errors[1] ==
        "job.yaml:7:3: TrainJob j: spec: unknown field \"runtimePatch\"; did you mean \"runtimePatches\"?");
  CHECK(errors[2] == "job.yaml:8:3: TrainJob j: spec: unknown field \"podTemplateOverride\"");
  CHECK(errors[3] ==
        "job.yaml:9:29: TrainJob j: spec.trainer.numProcPerNode: expected an integer, got a string "
        "(\"4\", accepted by Trainer v2.0 to v2.1); since v2.2 an integer: write the number without quotes");
}

TEST_CASE("a runtime's fields of earlier releases are named, strictly and pruned, and a TrainJob's are not") {
  const char* yaml = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: ml}
spec:
  labels: {a: b}
  mlPolicy: {torch: {numProcPerNode: auto}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  workloadRef: {name: w}
                  containers: [{name: node, image: i}]
)";
  const std::vector<std::string> expected = {
      // spec.labels is a TrainJob's field of v2.0 to v2.1, never a runtime's
      "job.yaml:5:3: TrainingRuntime ml/rt: spec: unknown field \"labels\"",
      "job.yaml:6:22: TrainingRuntime ml/rt: spec.mlPolicy.torch: unknown field \"numProcPerNode\" (Trainer v2.0 to "
      "v2.1); since v2.2 leave it out: a TrainJob sets spec.trainer.numProcPerNode (an integer), and Torch's auto is "
      "the default",
      "job.yaml:15:19: TrainingRuntime ml/rt: spec.template.spec.replicatedJobs[0].template.spec.template.spec."
      "workloadRef: unknown field \"workloadRef\" (Trainer v2.2.0); since v2.2.1 use schedulingGroup: {podGroupName: "
      "NAME} (the Kubernetes 1.36 Pod API)",
  };
  std::vector<std::string> strict;
  try {
    DecodeRuntimeYaml(yaml);
  } catch (const Error& e) {
    for (const auto& d : e.diagnostics()) strict.push_back(d.Format());
  }
  CHECK(strict == expected);
  Tree doc = ReadYamlStream(yaml, &kFile).at(0);
  std::vector<Diagnostic> unknown;
  DecodeRuntimePruned(doc, unknown);
  std::vector<std::string> pruned;
  for (const Diagnostic& d : unknown) pruned.push_back(d.Format());
  CHECK(pruned == expected);
}

}  // namespace trainer
