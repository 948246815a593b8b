#include "api/defaults.h"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include "tests/shared.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

using Row = std::tuple<std::string, Tree::Type, std::string>;

// Collects (path, type, value) of every `default:` in an openAPIV3Schema.
void CollectDefaults(const Tree& schema, const std::string& path, std::set<Row>& out) {
  if (!schema.IsMap()) return;
  if (const Tree* d = schema.Find("default")) out.insert({path, d->type(), d->text()});
  if (const Tree* props = schema.Find("properties"); props && props->IsMap()) {
    for (std::size_t i = 0; i < props->size(); ++i) {
      CollectDefaults(props->items()[i], path.empty() ? props->KeyAt(i) : path + "." + props->KeyAt(i), out);
    }
  }
  if (const Tree* items = schema.Find("items")) CollectDefaults(*items, path + "[*]", out);
}

std::set<Row> CrdDefaults(const std::string& file) {
  std::set<Row> out;
  CollectDefaults(testing::CrdSchema(file), "", out);
  return out;
}

std::set<Row> TableDefaults(DefaultRule::Scope scope) {
  std::set<Row> out;
  for (const DefaultRule& rule : DefaultRules()) {
    if (rule.scope == scope) out.insert({std::string(rule.path), rule.type, std::string(rule.value)});
  }
  return out;
}

Tree Parse(const char* yaml) {
  static const std::string kFile = "test.yaml";
  return ReadYamlStream(yaml, &kFile).at(0);
}

}  // namespace

TEST_CASE("the defaults table matches every default of the upstream CRDs" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  std::string crds = upstream + "/manifests/base/crds/";
  CHECK(CrdDefaults(crds + "trainer.kubeflow.org_trainjobs.yaml") == TableDefaults(DefaultRule::Scope::kTrainJob));
  CHECK(CrdDefaults(crds + "trainer.kubeflow.org_clustertrainingruntimes.yaml") == TableDefaults(DefaultRule::Scope::kRuntime));
  CHECK(CrdDefaults(crds + "trainer.kubeflow.org_trainingruntimes.yaml") == TableDefaults(DefaultRule::Scope::kRuntime));
}

TEST_CASE("the defaults table holds each scope's rules side by side") {
  // ApplyDefaults takes a scope's rules as one range of the table.
  const std::span<const DefaultRule> rules = DefaultRules();
  REQUIRE(!rules.empty());
  int changes = 0;
  for (std::size_t i = 1; i < rules.size(); ++i) changes += rules[i].scope != rules[i - 1].scope ? 1 : 0;
  CHECK(changes == 1);
}

TEST_CASE("defaults fill absent and null fields of existing parents only") {
  Tree job = Parse(R"(
spec:
  runtimeRef: {name: x, kind: null}
  trainer:
    env:
    - name: A
      valueFrom: {secretKeyRef: {key: k}}
    - name: B
)");
  ApplyDefaults(job, DefaultRule::Scope::kTrainJob);
  std::string out;
  WriteYaml(job, out);
  CHECK(out == R"(spec:
  managedBy: trainer.kubeflow.org/trainjob-controller
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: ClusterTrainingRuntime
    name: x
  suspend: false
  trainer:
    env:
    - name: A
      valueFrom:
        secretKeyRef:
          key: k
          name: ""
    - name: B
)");
  CHECK(job.Find("spec")->Find("suspend")->origin().kind == Origin::Kind::kDefault);
}

TEST_CASE("defaults keep values that are set") {
  Tree runtime = Parse(R"(
spec:
  mlPolicy: {mpi: {numProcPerNode: 4, runLauncherAsNode: true}}
  template: {spec: {replicatedJobs: [{name: a, replicas: 2}]}}
)");
  ApplyDefaults(runtime, DefaultRule::Scope::kRuntime);
  const Tree& mpi = *runtime.Find("spec")->Find("mlPolicy")->Find("mpi");
  CHECK(mpi.Find("numProcPerNode")->AsInt() == 4);
  CHECK(mpi.Find("runLauncherAsNode")->AsBool() == true);
  CHECK(*mpi.FindString("mpiImplementation") == "OpenMPI");
  CHECK(*mpi.FindString("sshAuthMountPath") == "/root/.ssh");
  const Tree& rjob = runtime.Find("spec")->Find("template")->Find("spec")->Find("replicatedJobs")->items()[0];
  CHECK(rjob.Find("replicas")->AsInt() == 2);
  CHECK(*rjob.FindString("groupName") == "default");
  CHECK(runtime.Find("spec")->Find("podGroupPolicy") == nullptr);
}

}  // namespace trainer
