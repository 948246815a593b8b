#include "webhooks/trainjob.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <regex>

#include "api/decode.h"
#include "api/defaults.h"
#include "plugins/registry.h"
#include "tests/fixtures.h"

namespace trainer {

namespace {

using Lines = std::vector<std::string>;

TrainJob MakeJob(const std::string& yaml) {
  Tree doc = testing::Yaml(yaml);
  ApplyDefaults(doc, DefaultRule::Scope::kTrainJob);
  return DecodeTrainJob(doc);
}

Runtime MakeRuntime(const std::string& yaml) {
  Tree doc = testing::Yaml(yaml);
  ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
  return DecodeRuntime(doc);
}

// A JobSet spec with one replicatedJob `node` holding the init container custom-init and the
// container node, as upstream's jobset_test.go Validate cases.
const char* kNodeSpec = R"(
replicatedJobs:
- name: node
  template:
    spec:
      template:
        spec:
          initContainers: [{name: custom-init}]
          containers: [{name: node}]
)";

// A TrainJob whose one runtime patch (manager test.io/manager) patches replicatedJob `rjob` with
// `pod_spec`, a flow mapping.
std::string PatchedJob(const std::string& rjob, const std::string& pod_spec) {
  std::string patch = "{name: " + rjob + "}";
  if (!pod_spec.empty()) patch = "{name: " + rjob + ", template: {spec: {template: {spec: " + pod_spec + "}}}}";
  return "metadata: {name: test, namespace: default}\n"
         "spec:\n"
         "  runtimeRef: {name: rt}\n"
         "  runtimePatches:\n"
         "  - manager: test.io/manager\n"
         "    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [" +
         patch + "]}}}\n";
}

Lines PatchProblems(const std::string& job_yaml, const char* runtime_spec = kNodeSpec) {
  TrainJob job = MakeJob(job_yaml);
  Diagnostics errors;
  ValidateRuntimePatches(job, testing::Yaml(runtime_spec), errors);
  Lines out;
  for (const Diagnostic& d : errors.items()) out.push_back(d.Format());
  return out;
}

}  // namespace

TEST_CASE("runtimePatches contain invalid replicated job") {
  CHECK(PatchProblems(PatchedJob("invalid", "")) ==
        Lines{"test.yaml:6:63: spec.runtimePatches: must not have replicated job that doesn't exist in the runtime job "
              "template"});
}

TEST_CASE("runtimePatches contain invalid initContainer") {
  CHECK(PatchProblems(PatchedJob("node", "{initContainers: [{name: invalid}]}")) ==
        Lines{"test.yaml:6:129: spec.runtimePatches: must not have initContainer that doesn't exist in the runtime job "
              "node"});
}

TEST_CASE("runtimePatches contain invalid container") {
  CHECK(
      PatchProblems(PatchedJob("node", "{containers: [{name: invalid}]}")) ==
      Lines{
          "test.yaml:6:125: spec.runtimePatches: must not have container that doesn't exist in the runtime job node"});
}

TEST_CASE("runtimePatches contain envs for reserved container") {
  CHECK(PatchProblems(PatchedJob("node", "{containers: [{name: node, env: [{name: ENV_NAME, value: OVERRIDE}]}]}")) ==
        Lines{"test.yaml:6:137: spec.runtimePatches: must not have envs for the dataset-initializer, "
              "model-initializer, node containers"});
}

TEST_CASE("allow runtimePatches when creating a new trainJob") {
  CHECK(PatchProblems(PatchedJob("node", "{serviceAccountName: service-account}")).empty());
}

TEST_CASE("runtime patches may set env on other containers and name init containers by a container's name") {
  // Upstream's name set is the union of init and regular containers.
  CHECK(PatchProblems(PatchedJob("node", "{initContainers: [{name: node}], containers: [{name: node}]}")).empty());
  const char* sidecar = R"(
replicatedJobs:
- name: node
  template: {spec: {template: {spec: {containers: [{name: node}, {name: sidecar}]}}}}
)";
  CHECK(PatchProblems(PatchedJob("node", "{containers: [{name: sidecar, env: [{name: A, value: b}]}]}"), sidecar)
            .empty());
}

TEST_CASE("names in runtime patches are checked against the runtime before any patch") {
  // Upstream's webhook sees the runtime with the patches merged, where a job the first patch adds
  // exists; here the second patch's reference to it is refused.
  std::string job = PatchedJob("extra", "{containers: [{name: extra}]}") +
                    "  - manager: other.io/manager\n"
                    "    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: extra}]}}}\n";
  CHECK(PatchProblems(job).size() == 2);
}

TEST_CASE("runtime patch managers must be domain-prefixed paths") {
  std::string job =
      "metadata: {name: test, namespace: default}\nspec:\n  runtimeRef: {name: rt}\n  runtimePatches:\n"
      "  - {manager: trainer.kubeflow.org/trainjob-controller}\n"
      "  - {manager: kueue.k8s.io/}\n";
  CHECK(PatchProblems(job) == Lines{"test.yaml:6:6: spec.runtimePatches.manager: must be a domain-prefixed path "
                                    "(such as \"acme.io/foo\")"});
}

TEST_CASE("IsDomainPrefixedPath") {
  CHECK(IsDomainPrefixedPath("acme.io/foo").empty());
  CHECK(IsDomainPrefixedPath("kueue.x-k8s.io/multikueue").empty());
  CHECK(IsDomainPrefixedPath("a.io/x/y_~%!$&'()*+,;=:-.").empty());
  CHECK(IsDomainPrefixedPath("") == Lines{"Required value"});
  for (const char* value : {"acme", "/foo", "acme.io/"}) {
    CHECK(IsDomainPrefixedPath(value) == Lines{"must be a domain-prefixed path (such as \"acme.io/foo\")"});
  }
  const std::string kSubdomain =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  CHECK(IsDomainPrefixedPath("Acme.io/foo") == Lines{kSubdomain});
  CHECK(IsDomainPrefixedPath(std::string(254, 'a') + "/foo") == Lines{"must be no more than 253 characters"});
  CHECK(IsDomainPrefixedPath("-a/foo bar") ==
        Lines{kSubdomain, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"});
}

TEST_CASE("IsDomainPrefixedPath judges hosts and paths as upstream's regular expressions do") {
  // The checks are hand-written; compare them with the expressions on seeded random values.
  const std::regex subdomain("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  const std::regex path("^[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+$");
  const std::string alphabet = "az09-.A_~%/ #?\"";
  std::uint32_t seed = 7;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int i = 0; i < 20000; ++i) {
    std::string host, rest;
    for (std::uint32_t n = 1 + next() % 6; n > 0; --n) host.push_back(alphabet[next() % alphabet.size()]);
    for (std::uint32_t n = 1 + next() % 4; n > 0; --n) rest.push_back(alphabet[next() % alphabet.size()]);
    host.erase(std::remove(host.begin(), host.end(), '/'), host.end());
    if (host.empty()) continue;
    CAPTURE(host);
    CAPTURE(rest);
    const Lines problems = IsDomainPrefixedPath(host + "/" + rest);
    const bool host_bad = std::any_of(problems.begin(), problems.end(),
                                      [](const std::string& p) { return p.find("RFC 1123") != std::string::npos; });
    const bool path_bad = std::any_of(problems.begin(), problems.end(),
                                      [](const std::string& p) { return p.find("Invalid path") != std::string::npos; });
    REQUIRE(host_bad == !std::regex_match(host, subdomain));
    REQUIRE(path_bad == !std::regex_match(rest, path));
  }
}

namespace {

const char* kClusterRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: test-runtime, labels: {trainer.kubeflow.org/support: deprecated}}
spec:
  mlPolicy: {torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: img}]}}}
)";

struct Judged {
  Lines errors;
  Lines warnings;
};

Judged Judge(const std::string& job_yaml, ValidationMode mode, const char* runtime_yaml = kClusterRuntime) {
  TrainJob job = MakeJob(job_yaml);
  Runtime runtime = MakeRuntime(runtime_yaml);
  Framework framework{PluginRegistry(), RenderOptions{}};
  Findings findings(mode);
  ValidateTrainJob(job, runtime, framework, findings);
  Judged out;
  for (const Diagnostic& d : findings.errors()) out.errors.push_back(d.Format());
  for (const Diagnostic& d : findings.warnings()) out.warnings.push_back(FormatWarning(d));
  return out;
}

const char* kJob = R"(metadata: {name: valid-job-name, namespace: default}
spec:
  runtimeRef: {name: test-runtime}
  trainer:
    env: [{name: PET_NNODES, value: "3"}]
)";

}  // namespace

TEST_CASE("deprecated runtime referenced") {
  Judged judged =
      Judge("metadata: {name: valid-job-name, namespace: default}\nspec: {runtimeRef: {name: test-runtime}}",
            ValidationMode::kStrict);
  CHECK(judged.errors.empty());
  CHECK(judged.warnings ==
        Lines{"test.yaml:2:21: warning: TrainJob default/valid-job-name: Referenced ClusterTrainingRuntime "
              "\"test-runtime\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime "
              "deprecation policy: https://trainer.kubeflow.org/en/latest/operator-guides/"
              "runtime.html#runtime-deprecation-policy"});
}

TEST_CASE("the TrainJob webhook reports the plugins' rejections with the TrainJob and its positions") {
  Judged judged = Judge(kJob, ValidationMode::kStrict);
  CHECK(judged.errors == Lines{"test.yaml:5:11: TrainJob default/valid-job-name: spec.trainer.env: must not have "
                               "reserved envs, invalid envs configured: [PET_NNODES]"});
  CHECK(judged.warnings.size() == 1);
}

TEST_CASE("warn turns the TrainJob webhook's rejections into warnings") {
  Judged judged = Judge(kJob, ValidationMode::kWarn);
  CHECK(judged.errors.empty());
  CHECK(judged.warnings.size() == 2);
  CHECK(judged.warnings.at(1) ==
        "test.yaml:5:11: warning: TrainJob default/valid-job-name: spec.trainer.env: must "
        "not have reserved envs, invalid envs configured: [PET_NNODES]");
}

TEST_CASE("ignore checks nothing, the deprecation warning included") {
  Judged judged = Judge(kJob, ValidationMode::kIgnore);
  CHECK(judged.errors.empty());
  CHECK(judged.warnings.empty());
}

}  // namespace trainer
