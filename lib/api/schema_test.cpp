#include "api/schema.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "tests/fixtures.h"
#include "tests/shared.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;
using Row = std::tuple<std::string, std::string, std::string, std::string>;  // path, check, arg, message

const char* CheckName(SchemaRule::Check check) {
  switch (check) {
    case SchemaRule::Check::kRequired: return "required";
    case SchemaRule::Check::kMinimum: return "minimum";
    case SchemaRule::Check::kMaximum: return "maximum";
    case SchemaRule::Check::kMinLength: return "minLength";
    case SchemaRule::Check::kMaxLength: return "maxLength";
    case SchemaRule::Check::kMinItems: return "minItems";
    case SchemaRule::Check::kMaxItems: return "maxItems";
    case SchemaRule::Check::kMinProperties: return "minProperties";
    case SchemaRule::Check::kEnum: return "enum";
    case SchemaRule::Check::kPattern: return "pattern";
    case SchemaRule::Check::kFormat: return "format";
    case SchemaRule::Check::kListMap: return "listMap";
    case SchemaRule::Check::kListSet: return "listSet";
    case SchemaRule::Check::kRule: return "rule";
    case SchemaRule::Check::kUse: return "use";
  }
  return "?";
}

std::string Join(const Tree& list, const char* separator) {
  std::string out;
  for (const Tree& item : list.items()) out += (out.empty() ? "" : separator) + item.text();
  return out;
}

// Collects every constraint of an openAPIV3Schema as the table spells it. Leaves out what the
// table leaves out: status, transition rules (oldSelf) and the int32/int64 formats.
void Collect(const Tree& schema, const std::string& path, std::set<Row>& out) {
  if (!schema.IsMap() || path == "status") return;
  if (const Tree* required = schema.Find("required")) {
    for (const Tree& field : required->items()) out.insert({path, "required", field.text(), ""});
  }
  for (const char* key : {"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties",
                          "maxProperties", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems"}) {
    if (const Tree* v = schema.Find(key)) out.insert({path, key, v->text(), ""});
  }
  if (const Tree* e = schema.Find("enum")) out.insert({path, "enum", Join(*e, "|"), ""});
  if (const Tree* p = schema.Find("pattern")) out.insert({path, "pattern", p->text(), ""});
  if (const std::string* f = schema.FindString("format"); f && *f != "int32" && *f != "int64") {
    out.insert({path, "format", *f, ""});
  }
  if (const Tree* rules = schema.Find("x-kubernetes-validations")) {
    for (const Tree& r : rules->items()) {
      const std::string* rule = r.FindString("rule");
      const std::string* message = r.FindString("message");
      REQUIRE(rule != nullptr);
      if (rule->find("oldSelf") != std::string::npos) continue;
      out.insert({path, "rule", *rule, message ? *message : ""});
    }
  }
  if (const std::string* type = schema.FindString("x-kubernetes-list-type")) {
    if (*type == "map") out.insert({path, "listMap", Join(*schema.Find("x-kubernetes-list-map-keys"), ","), ""});
    if (*type == "set") out.insert({path, "listSet", "", ""});
  }
  if (const Tree* props = schema.Find("properties"); props && props->IsMap()) {
    for (std::size_t i = 0; i < props->size(); ++i) {
      Collect(props->items()[i], path.empty() ? props->KeyAt(i) : path + "." + props->KeyAt(i), out);
    }
  }
  if (const Tree* items = schema.Find("items")) Collect(*items, path + "[*]", out);
  if (const Tree* more = schema.Find("additionalProperties"); more && more->IsMap()) Collect(*more, path + "[*]", out);
}

std::set<Row> CrdRows(const std::string& file) {
  std::set<Row> out;
  Collect(testing::CrdSchema(file), "", out);
  return out;
}

std::set<Row> TableRows(SchemaScope scope) {
  std::set<Row> out;
  for (const FlatSchemaRule& r : FlattenSchema(scope)) {
    out.insert({r.path, CheckName(r.check), std::string(r.arg), std::string(r.message)});
  }
  return out;
}

// "field: message" of every problem CheckSchema finds.
std::vector<std::string> Problems(const std::string& yaml, SchemaScope scope = SchemaScope::kTrainJob) {
  std::vector<std::string> out;
  for (const Diagnostic& d : CheckSchema(Yaml(yaml), scope, "TrainJob default/job")) {
    out.push_back(d.field + ": " + d.message);
  }
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("the schema table matches every constraint of the upstream CRDs" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  std::string crds = upstream + "/manifests/base/crds/";
  CHECK(CrdRows(crds + "trainer.kubeflow.org_trainjobs.yaml") == TableRows(SchemaScope::kTrainJob));
  CHECK(CrdRows(crds + "trainer.kubeflow.org_trainingruntimes.yaml") == TableRows(SchemaScope::kRuntime));
  CHECK(CrdRows(crds + "trainer.kubeflow.org_clustertrainingruntimes.yaml") == TableRows(SchemaScope::kRuntime));
}

TEST_CASE("every CEL rule of the schema table has an evaluator and every group is used") {
  std::set<std::string_view> used = {"TrainJob", "TrainingRuntime"};
  for (const SchemaRule& rule : SchemaRules()) {
    if (rule.check == SchemaRule::Check::kRule) CHECK_MESSAGE(HasCelEvaluator(rule.arg), rule.arg);
    if (rule.check == SchemaRule::Check::kUse) used.insert(rule.arg);
  }
  for (const SchemaRule& rule : SchemaRules()) CHECK_MESSAGE(used.count(rule.group) == 1, rule.group);
}

TEST_CASE("a missing required field is a Required value at its path") {
  CHECK(Problems(R"(
spec:
  runtimeRef: {name: torch}
  trainer:
    env:
    - value: "1"
    - name: B
      valueFrom: {configMapKeyRef: {name: cm}}
)") == Lines{"spec.trainer.env[0].name: Required value",
             "spec.trainer.env[1].valueFrom.configMapKeyRef.key: Required value"});
}

TEST_CASE("a null field counts as absent, as the API server prunes nulls") {
  CHECK(Problems("spec: {runtimeRef: {name: null}, trainer: {numNodes: null}}") ==
        Lines{"spec.runtimeRef.name: Required value"});
}

TEST_CASE("minimum, minLength and maxLength use the API server's messages") {
  CHECK(Problems(R"(
spec:
  runtimeRef: {name: ""}
  activeDeadlineSeconds: 0
  trainer: {numNodes: -1, image: ")" +
                 std::string(501, 'x') + R"("}
)") == Lines{
           R"(spec.runtimeRef.name: Invalid value: "": spec.runtimeRef.name in body should be at least 1 chars long)",
           "spec.activeDeadlineSeconds: Invalid value: 0: spec.activeDeadlineSeconds in body should be greater than or "
           "equal to 1",
           "spec.trainer.numNodes: Invalid value: -1: spec.trainer.numNodes in body should be greater than or equal to "
           "0",
           "spec.trainer.image: Too long: may not be more than 500 bytes",
       });
}

TEST_CASE("string lengths count characters, not bytes") {
  // 253 two-byte characters fit the manager's 253.
  std::string manager;
  for (int i = 0; i < 253; ++i) manager += "é";
  CHECK(Problems(("spec: {runtimeRef: {name: a}, runtimePatches: [{manager: \"" + manager + "\"}]}")).empty());
}

TEST_CASE("maxItems and minItems use the API server's messages") {
  std::string patches;
  for (int i = 0; i < 17; ++i) patches += "{manager: m" + std::to_string(i) + "/x},";
  CHECK(Problems(("spec: {runtimeRef: {name: a}, runtimePatches: [" + patches + "]}")) ==
        Lines{"spec.runtimePatches: Too many: 17: must have at most 16 items"});
  CHECK(Problems("spec: {mlPolicy: {torch: {envInjection: {targets: [{jobName: aux, containerNames: []}]}}}}",
                 SchemaScope::kRuntime) ==
        Lines{"spec.mlPolicy.torch.envInjection.targets[0].containerNames: Invalid value: 0: "
              "spec.mlPolicy.torch.envInjection.targets[0].containerNames in body should have at least 1 items"});
}

TEST_CASE("the runtime patch limit is the CRD's maxItems of spec.runtimePatches, with the API server's message") {
  const auto rules = SchemaRules();
  const auto row = std::find_if(rules.begin(), rules.end(), [](const SchemaRule& r) {
    return r.group == "TrainJob" && r.path == "spec.runtimePatches" && r.check == SchemaRule::Check::kMaxItems;
  });
  REQUIRE(row != rules.end());
  CHECK(row->arg == std::to_string(kMaxRuntimePatches));
  std::string patches;
  for (std::size_t i = 0; i <= kMaxRuntimePatches; ++i) patches += "  - {manager: m" + std::to_string(i) + "/x}\n";
  const std::optional<Diagnostic> d =
      CheckRuntimePatchLimit(Yaml("spec:\n  runtimePatches:\n" + patches), "TrainJob j");
  REQUIRE(d.has_value());
  CHECK(d->Format() ==
        "test.yaml:2:3: TrainJob j: spec.runtimePatches: Too many: 17: must have at most 16 items (runtime patch "
        "limit)");
  patches.erase(patches.rfind("  - "));
  CHECK(!CheckRuntimePatchLimit(Yaml("spec:\n  runtimePatches:\n" + patches), "TrainJob j").has_value());
}

TEST_CASE("minProperties refuses an empty runtime spec and template") {
  CHECK(Problems("spec: {}", SchemaScope::kRuntime) ==
        Lines{"spec: Invalid value: 0: spec in body should have at least 1 properties"});
  CHECK(Problems("spec: {template: {}}", SchemaScope::kRuntime) ==
        Lines{"spec.template: Invalid value: 0: spec.template in body should have at least 1 properties"});
}

TEST_CASE("an enum lists the supported values, the empty one included") {
  CHECK(Problems("spec: {mlPolicy: {mpi: {mpiImplementation: Intel}}}", SchemaScope::kRuntime) ==
        Lines{R"(spec.mlPolicy.mpi.mpiImplementation: Unsupported value: "Intel": supported values: "OpenMPI", "")"});
}

TEST_CASE("quantities must match the quantity pattern, map values named with a dot") {
  CHECK(
      Problems(
          "spec: {runtimeRef: {name: a}, trainer: {resourcesPerNode: {limits: {nvidia.com/gpu: lots, cpu: 2}}}}") ==
      Lines{
          R"(spec.trainer.resourcesPerNode.limits.nvidia.com/gpu: Invalid value: "lots": )"
          R"(spec.trainer.resourcesPerNode.limits.nvidia.com/gpu in body should match )"
          R"('^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')"
          R"(; "lots" is not a quantity: write a number with an optional suffix. )"
          R"(Suffixes: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3)"});
  // The API server's words stay; what was likely meant follows them.
  const Lines gb = Problems("spec: {runtimeRef: {name: a}, trainer: {resourcesPerNode: {requests: {memory: 16GB}}}}");
  REQUIRE(gb.size() == 1);
  CHECK(gb[0].ends_with(R"(?$'; "16GB" is not a quantity: did you mean "16G" (10^9) or "16Gi" (2^30)? )"
                        R"(Suffixes: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3)"));
}

TEST_CASE("the quantity pattern is matched as the regular expression matches it") {
  // The checker matches the pattern without a regex engine; compare it with one on edge cases.
  const std::regex pattern(
      R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)");
  const std::vector<std::string> values = {
      "1",   "+1",   "-1.",  ".5",   ".",    "+.",   "-",    "",     "1.5Ki", "1e3",  "1E",    "1e",
      "1Ei", "1E3",  "1.e-3", "1e+", "1e.5", "1e5.", "e3",   "Ki",   "1m",    "1mi",  "1Mi",   "1KI",
      "1ki", "1k",   "1K",   "1Ki ", " 1",  "1\n",  "1.2.3", "12e+3Ki", "0x10", "1_000", "∞", "1e-.5", "--1", "1Pi"};
  std::string yaml = "spec: {runtimeRef: {name: a}, trainer: {resourcesPerNode: {limits: {";
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::string quoted;
    for (char c : values[i]) quoted += c == '\n' ? std::string("\\n") : std::string(1, c);
    yaml += fmt::format("{}r{}: \"{}\"", i == 0 ? "" : ", ", i, quoted);
  }
  yaml += "}}}}";
  std::set<std::string> reported;
  for (const Diagnostic& d : CheckSchema(Yaml(yaml), SchemaScope::kTrainJob, "TrainJob default/job")) {
    reported.insert(d.field.substr(d.field.rfind('.') + 1));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    CAPTURE(values[i]);
    CHECK(reported.count(fmt::format("r{}", i)) == (std::regex_search(values[i], pattern) ? 0u : 1u));
  }
  CHECK(reported.size() > 10);
}

TEST_CASE("the name and URI rules match as their regular expressions") {
  auto name = [](const std::string& n) { return Problems("metadata: {name: \"" + n + "\"}\nspec: {runtimeRef: {name: a}}"); };
  const Lines bad_name{"metadata.name: Invalid value: metadata.name must match RFC 1035 DNS label format"};
  for (const char* good : {"a", "a1", "a-b", "abc-1-x"}) CHECK(name(good).empty());
  for (const char* bad : {"1a", "a-", "-a", "A", "a_b", "a.b", "a b"}) {
    CAPTURE(bad);
    CHECK(name(bad) == bad_name);
  }
  auto uri = [](const std::string& u) {
    return Problems("spec: {runtimeRef: {name: a}, initializer: {dataset: {storageUri: \"" + u + "\"}}}");
  };
  for (const char* good : {"", "s3://b", "hf://x/y", "h+f.x-y://a", "A9://z"}) CHECK(uri(good).empty());
  for (const char* bad : {"hf://", "3s://b", "hf:/x", "://x", "hf//x", "h f://x", "hf://a\\nb"}) {
    CAPTURE(bad);
    CHECK(uri(bad).size() == 1);
  }
}

TEST_CASE("a runtime patch time must be a date-time") {
  CHECK(
      Problems(R"(
spec:
  runtimeRef: {name: a}
  runtimePatches:
  - {manager: a.io/x, time: "2026-01-02T03:04:05Z"}
  - {manager: b.io/x, time: "2026-01-02t03:04:05.5+01:00"}
  - {manager: c.io/x, time: yesterday}
  - {manager: d.io/x, time: "2026-02-30T00:00:00Z"}
)") ==
      Lines{
          R"(spec.runtimePatches[2].time: Invalid value: "yesterday": spec.runtimePatches[2].time in body must be of type date-time: "yesterday")",
          R"(spec.runtimePatches[3].time: Invalid value: "2026-02-30T00:00:00Z": spec.runtimePatches[3].time in body must be of type date-time: "2026-02-30T00:00:00Z")",
      });
}

TEST_CASE("list-type maps refuse a second item with the same keys") {
  CHECK(Problems(R"(
spec:
  runtimeRef: {name: a}
  trainer:
    env: [{name: A, value: "1"}, {name: B}, {name: A, value: "2"}, {name: A}]
)") == Lines{R"(spec.trainer.env[2]: Duplicate value: {"name":"A"})"});
  CHECK(
      Problems(R"(
spec:
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          spec:
            template:
              spec:
                containers:
                - name: node
                  ports: [{containerPort: 80, protocol: TCP}, {containerPort: 80, protocol: UDP}, {containerPort: 80, protocol: TCP}]
)",
               SchemaScope::kRuntime) ==
      Lines{"spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].ports[2]: Duplicate value: "
            R"({"containerPort":80,"protocol":"TCP"})"});
}

TEST_CASE("list-type sets refuse a repeated value") {
  CHECK(Problems("spec: {mlPolicy: {torch: {envInjection: {targets: [{jobName: aux, containerNames: [a, b, a]}]}}}}",
                 SchemaScope::kRuntime) ==
        Lines{R"(spec.mlPolicy.torch.envInjection.targets[0].containerNames[2]: Duplicate value: "a")"});
}

TEST_CASE("CEL rules of the TrainJob CRD") {
  CHECK(
      Problems(R"(
metadata: {name: Bad_Name}
spec:
  runtimeRef: {name: a}
  managedBy: someone/else
  initializer: {dataset: {storageUri: "hf:/x"}, model: {storageUri: ""}}
  trainer: {numProcPerNode: 0}
)") ==
      Lines{
          R"(metadata.name: Invalid value: metadata.name must match RFC 1035 DNS label format)",
          R"(spec.managedBy: Invalid value: "someone/else": ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set)",
          R"(spec.initializer.dataset.storageUri: Invalid value: "hf:/x": storageUri may be empty, or it must be a valid URI (scheme://...))",
          "spec.trainer.numProcPerNode: Invalid value: 0: numProcPerNode must be greater than or equal to 1",
      });
  CHECK(Problems(("metadata: {name: " + std::string(64, 'a') + "}\nspec: {runtimeRef: {name: a}}")) ==
        Lines{"metadata.name: Invalid value: metadata.name must be no more than 63 characters"});
}

TEST_CASE("CEL rules of the runtime CRDs") {
  CHECK(
      Problems(R"(
spec:
  mlPolicy:
    torch: {envInjection: {targets: [{jobName: aux, containerNames: [node]}]}}
    mpi: {numProcPerNode: 0}
    flux: {numProcPerNode: 0}
  template:
    spec:
      startupPolicy: {startupPolicyOrder: InOrder}
      replicatedJobs: [{name: a, template: {spec: {template: {spec: {containers: [{name: x}]}}}}},
                       {name: b, dependsOn: [{name: a, status: Complete}], template: {spec: {template: {spec: {containers: [{name: x}]}}}}}]
      volumeClaimPolicies: [{templates: [{metadata: {name: data, namespace: other}}]}]
)",
               SchemaScope::kRuntime) ==
      Lines{
          "spec.mlPolicy: Invalid value: Only one of the policy can be configured",
          "spec.mlPolicy.torch.envInjection.targets[0].containerNames: Invalid value: containerNames must not include "
          "the main node container because PET_* envs are always injected into it",
          "spec.mlPolicy.mpi.numProcPerNode: Invalid value: 0: NumProcPerNode in mpiPolicy must be >= 1",
          "spec.mlPolicy.flux.numProcPerNode: Invalid value: 0: NumProcPerNode in fluxPolicy must be >= 1",
          "spec.template.spec: Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive",
          "spec.template.spec.volumeClaimPolicies[0]: Invalid value: namespace cannot be set for VolumeClaimPolicies "
          "templates",
      });
}

TEST_CASE("values of another type are left to decoding") {
  CHECK(Problems("spec: {runtimeRef: {name: a}, trainer: {numNodes: many, image: [x], env: {A: b}}}").empty());
}

TEST_CASE("status is not checked: the API server drops it on create") {
  CHECK(Problems("spec: {runtimeRef: {name: a}}\nstatus: {conditions: [{type: x}]}").empty());
}

TEST_CASE("schema problems point at the field's key, the item, or the object missing a field") {
  std::vector<Diagnostic> found = CheckSchema(Yaml(R"(spec:
  runtimeRef: {}
  trainer:
    numNodes: -1
    env:
    - value: x
)"),
                                              SchemaScope::kTrainJob, "TrainJob default/job");
  REQUIRE(found.size() == 3);
  CHECK(found[0].Format() == "test.yaml:2:15: TrainJob default/job: spec.runtimeRef.name: Required value");
  CHECK(found[1].Format() ==
        "test.yaml:4:5: TrainJob default/job: spec.trainer.numNodes: Invalid value: -1: spec.trainer.numNodes in "
        "body should be greater than or equal to 0");
  CHECK(found[2].Format() == "test.yaml:6:7: TrainJob default/job: spec.trainer.env[0].name: Required value");
}

}  // namespace trainer
