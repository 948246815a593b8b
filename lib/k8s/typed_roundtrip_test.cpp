#include "k8s/typed_roundtrip.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace trainer {
namespace {

const std::string kFile = "runtime.yaml";

// A small JSON reader for test inputs; every key and value gets its line and column in kFile.
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  Tree Read() {
    Tree value = Value();
    Space();
    if (pos_ != text_.size()) Fail("trailing text");
    return value;
  }

 private:
  Tree Value() {
    Space();
    const Origin origin = Here();
    if (pos_ >= text_.size()) Fail("unexpected end");
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      Tree map = Tree::Map(origin);
      Space();
      if (Peek('}')) return map;
      do {
        Space();
        const Origin key_origin = Here();
        const std::string key = String();
        Space();
        Expect(':');
        map.Set(key, Value(), key_origin);
        Space();
      } while (Peek(','));
      Expect('}');
      return map;
    }
    if (c == '[') {
      ++pos_;
      Tree list = Tree::List(origin);
      Space();
      if (Peek(']')) return list;
      do {
        list.Append(Value());
        Space();
      } while (Peek(','));
      Expect(']');
      return list;
    }
    if (c == '"') return Tree::String(String(), origin);
    if (Word("true")) return Tree::Bool(true, origin);
    if (Word("false")) return Tree::Bool(false, origin);
    if (Word("null")) return Tree::Null(origin);
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           std::string_view("+-0123456789.eE").find(text_[pos_]) != std::string_view::npos) {
      ++pos_;
    }
    const std::string number(text_.substr(start, pos_ - start));
    if (number.empty()) Fail("unexpected character");
    if (number.find_first_of(".eE") != std::string::npos) return Tree::Float(number, origin);
    return Tree::Int(std::stoll(number), origin);
  }

  std::string String() {
    Expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') ++pos_;
      Advance(out);
    }
    Expect('"');
    return out;
  }

  void Advance(std::string& out) {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    out += text_[pos_++];
  }

  void Space() {
    std::string ignored;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) Advance(ignored);
  }

  bool Peek(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool Word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  void Expect(char c) {
    if (!Peek(c)) Fail(fmt::format("expected '{}'", c));
  }

  Origin Here() const {
    return Origin::Input(&kFile, line_, static_cast<std::uint32_t>(pos_ - line_start_ + 1));
  }

  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error(fmt::format("test JSON {}: {}", Here().Position(), what));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
};

Tree Json(std::string_view text) { return JsonReader(text).Read(); }

// Compact JSON with sorted keys, so that expected and actual trees compare as text.
std::string Print(const Tree& tree) {
  switch (tree.type()) {
    case Tree::Type::kNull: return "null";
    case Tree::Type::kBool:
    case Tree::Type::kInt:
    case Tree::Type::kFloat: return tree.text();
    case Tree::Type::kString: return fmt::format("\"{}\"", tree.text());
    case Tree::Type::kList: {
      std::vector<std::string> items;
      for (const Tree& item : tree.items()) items.push_back(Print(item));
      return fmt::format("[{}]", fmt::join(items, ","));
    }
    case Tree::Type::kMap: {
      std::vector<std::string> keys = tree.keys();
      std::sort(keys.begin(), keys.end());
      std::vector<std::string> items;
      for (const std::string& key : keys)
        items.push_back(fmt::format("\"{}\":{}", key, Print(*tree.Find(key))));
      return fmt::format("{{{}}}", fmt::join(items, ","));
    }
  }
  return "?";
}

struct Outcome {
  std::string json;    // the tree after the round trip, printed
  std::string issues;  // "path: message" lines
  std::vector<FieldIssue> raw_issues;
};

// Round-trips `input` as the Go type `type`, named `path` in messages.
Outcome RunAt(const std::string& path, std::string_view type, std::string_view input) {
  Tree tree = Json(input);
  Outcome outcome;
  RoundTrip(tree, type, path, outcome.raw_issues);
  outcome.json = Print(tree);
  for (const FieldIssue& issue : outcome.raw_issues) {
    outcome.issues += fmt::format("{}: {}\n", issue.path, issue.message);
  }
  return outcome;
}

Outcome Run(std::string_view type, std::string_view input) { return RunAt("spec", type, input); }

std::string Expected(std::string_view json) { return Print(Json(json)); }

// The expected issues, one "path: message" line each.
std::string Issues(std::initializer_list<std::string_view> lines) {
  std::string text;
  for (std::string_view line : lines) text += fmt::format("{}\n", line);
  return text;
}

TEST_CASE("stdin false is dropped as Go's omitempty does") {
  const Outcome out = Run("Container", R"({
    "name": "node", "image": "img", "stdin": false, "stdinOnce": false, "tty": true,
    "workingDir": ""
  })");
  CHECK(out.json == Expected(R"({"name": "node", "image": "img", "tty": true, "resources": {}})"));
  CHECK(out.issues.empty());
}

TEST_CASE("pointer fields keep their zero values") {
  const Outcome out = Run("JobSpec", R"({
    "backoffLimit": 0, "suspend": false,
    "template": {"spec": {
      "terminationGracePeriodSeconds": 0,
      "containers": [{
        "name": "c", "securityContext": {"privileged": false, "runAsUser": 0},
        "envFrom": [{"configMapRef": {"name": "cm", "optional": false}}]}]}}
  })");
  CHECK(out.json == Expected(R"({
    "backoffLimit": 0, "suspend": false,
    "template": {"metadata": {}, "spec": {
      "terminationGracePeriodSeconds": 0,
      "containers": [{
        "name": "c", "resources": {}, "securityContext": {"privileged": false, "runAsUser": 0},
        "envFrom": [{"configMapRef": {"name": "cm", "optional": false}}]}]}}
  })"));
  CHECK(out.issues.empty());
}

TEST_CASE("empty strings, zeros and false in omitempty fields are dropped") {
  const Outcome out = Run("PodSpec", R"({
    "restartPolicy": "", "hostNetwork": false, "imagePullSecrets": [{"name": ""}],
    "containers": [{
      "name": "c", "env": [{"name": "A", "value": ""}],
      "ports": [{"containerPort": 29500, "hostPort": 0, "name": ""}],
      "volumeMounts": [{"name": "v", "mountPath": "/v", "readOnly": false, "subPath": ""}]}]
  })");
  CHECK(out.json == Expected(R"({
    "imagePullSecrets": [{}],
    "containers": [{
      "name": "c", "resources": {}, "env": [{"name": "A"}], "ports": [{"containerPort": 29500}],
      "volumeMounts": [{"name": "v", "mountPath": "/v"}]}]
  })"));
}

TEST_CASE("empty lists and maps are dropped") {
  const Outcome out = Run("PodTemplateSpec", R"({
    "metadata": {"labels": {}, "annotations": {}},
    "spec": {
      "containers": [], "volumes": [], "nodeSelector": {},
      "initContainers": [{
        "name": "i", "command": [], "env": [],
        "resources": {"limits": {}, "requests": {}, "claims": []}}]}
  })");
  CHECK(out.json == Expected(R"({
    "metadata": {}, "spec": {"initContainers": [{"name": "i", "resources": {}}]}
  })"));
}

TEST_CASE("null drops pointers, lists and maps and zeroes structs") {
  const Outcome out = Run("Container", R"({
    "name": "c", "image": null, "securityContext": null, "env": null, "resources": null,
    "livenessProbe": null, "tty": null
  })");
  CHECK(out.json == Expected(R"({"name": "c", "resources": {}})"));
  CHECK(out.issues.empty());
}

TEST_CASE("null list items become zero values") {
  const Outcome out = Run("PodSpec", R"({
    "containers": [null, {"name": "c", "args": ["a", null]}]
  })");
  CHECK(out.json == Expected(R"({
    "containers": [{"name": "", "resources": {}}, {"name": "c", "args": ["a", ""], "resources": {}}]
  })"));
}

TEST_CASE("container resources print as {} in every kind of container") {
  const Outcome out = Run("PodSpec", R"({
    "initContainers": [{"name": "i"}], "containers": [{"name": "c"}],
    "ephemeralContainers": [{"name": "e", "targetContainerName": "c"}]
  })");
  CHECK(out.json == Expected(R"({
    "initContainers": [{"name": "i", "resources": {}}],
    "containers": [{"name": "c", "resources": {}}],
    "ephemeralContainers": [{"name": "e", "targetContainerName": "c", "resources": {}}]
  })"));
}

TEST_CASE("job and pod template metadata print as {} and a null creationTimestamp goes") {
  const std::string expected = Expected(R"({
    "metadata": {}, "spec": {"template": {"metadata": {}, "spec": {}}}
  })");
  CHECK(Run("JobTemplateSpec", "{}").json == expected);
  CHECK(Run("JobTemplateSpec", R"({
    "metadata": {"creationTimestamp": null},
    "spec": {"template": {"metadata": {"creationTimestamp": null}}}
  })")
            .json == expected);
}

TEST_CASE("fields without omitempty get their zero value") {
  CHECK(Run("ReplicatedJob", "{}").json == Expected(R"({
    "name": "", "template": {"metadata": {}, "spec": {"template": {"metadata": {}, "spec": {}}}}
  })"));
  const Outcome out = Run("Container", R"({
    "ports": [{}], "readinessProbe": {"httpGet": {}},
    "env": [{"valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}]
  })");
  CHECK(out.json == Expected(R"({
    "name": "", "resources": {}, "ports": [{"containerPort": 0}],
    "readinessProbe": {"httpGet": {"port": 0}},
    "env": [{
      "name": "",
      "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "0"}}}]
  })"));
}

TEST_CASE("quantities are printed as Go's Quantity.String() prints them") {
  const Outcome out = Run("PodSpec", R"({
    "containers": [{"name": "c", "resources": {
      "limits": {"cpu": 2, "memory": "1024Mi", "nvidia.com/gpu": "1"},
      "requests": {"cpu": "1000m", "memory": "1.5Gi", "ephemeral-storage": " 500M ",
                   "example.com/x": 1.5}}}],
    "overhead": {"cpu": "0.5"},
    "resources": {"requests": {"memory": "2048Ki", "cpu": 1000}},
    "volumes": [
      {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "1024Mi"}},
      {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10240Mi"}}}}}},
      {"name": "info", "downwardAPI": {"items": [{
        "path": "mem", "resourceFieldRef": {"resource": "limits.memory", "divisor": "1048576"}}]}}]
  })");
  CHECK(out.json == Expected(R"({
    "containers": [{"name": "c", "resources": {
      "limits": {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": "1"},
      "requests": {"cpu": "1", "memory": "1536Mi", "ephemeral-storage": "500M",
                   "example.com/x": "1500m"}}}],
    "overhead": {"cpu": "500m"},
    "resources": {"requests": {"memory": "2Mi", "cpu": "1k"}},
    "volumes": [
      {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
      {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"metadata": {}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}}}},
      {"name": "info", "downwardAPI": {"items": [{
        "path": "mem", "resourceFieldRef": {"resource": "limits.memory", "divisor": "1048576"}}]}}]
  })"));
  CHECK(out.issues.empty());
}

TEST_CASE("an invalid quantity is reported with its path") {
  const Outcome out = RunAt("spec.containers[0]", "Container", R"({
    "name": "c",
    "resources": {"limits": {"cpu": "two", "memory": true}, "requests": {"memory": "1MG", "cpu": "4 cpu",
                  "ephemeral-storage": "16gi"}}
  })");
  // Go's regular expression gives way to what was likely meant; its other two messages stay.
  CHECK(out.issues ==
        Issues({"spec.containers[0].resources.limits[cpu]: \"two\" is not a quantity: write a number with an optional "
                "suffix. Suffixes: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3",
                "spec.containers[0].resources.limits[memory]: expected a quantity (string or "
                "number), got a boolean",
                "spec.containers[0].resources.requests[memory]: invalid quantity \"1MG\": unable "
                "to parse quantity's suffix",
                "spec.containers[0].resources.requests[cpu]: \"4 cpu\" is not a quantity: did you mean \"4\"? Suffixes: "
                "n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3",
                "spec.containers[0].resources.requests[ephemeral-storage]: \"16gi\" is not a quantity: did you mean "
                "\"16Gi\" (2^30)? Suffixes: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3"}));
}

TEST_CASE("an unknown field is reported with its path and position") {
  const Outcome out = RunAt("spec.template.spec", "JobSetSpec", R"({"replicatedJobs": [
    {"name": "a", "template": {}},
    {"name": "b", "template": {"spec": {"template": {"spec": {"containers": [
      {"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/v", "foo": 1}]}]}}}}}]
  })");
  REQUIRE(out.issues == Issues({"spec.template.spec.replicatedJobs[1].template.spec.template.spec"
                                ".containers[0].volumeMounts[0].foo: unknown field \"foo\""}));
  CHECK(out.raw_issues[0].origin.Position() == "runtime.yaml:4:71");
}

TEST_CASE("an unknown field names the nearest field of its Go type, inline structs included") {
  const Outcome out = Run("Container", R"({"name": "a", "imagePullpolicy": "Always", "volumeMount": [],
    "comand": ["x"], "gpus": 1})");
  CHECK(out.issues == Issues({"spec.imagePullpolicy: unknown field \"imagePullpolicy\"; did you mean \"imagePullPolicy\"?",
                              "spec.volumeMount: unknown field \"volumeMount\"; did you mean \"volumeMounts\"?",
                              "spec.comand: unknown field \"comand\"; did you mean \"command\"?",
                              "spec.gpus: unknown field \"gpus\""}));
  // EnvVarSource's fields are those of its own type, not those of EnvVar.
  const Outcome env = Run("EnvVar", R"({"name": "A", "valueFrom": {"secretKeyref": {"name": "s", "key": "k"}}})");
  CHECK(env.issues == Issues({"spec.valueFrom.secretKeyref: unknown field \"secretKeyref\"; did you mean \"secretKeyRef\"?"}));
}

TEST_CASE("every problem is reported, not just the first") {
  const Outcome out = Run("PodSpec", R"({
    "nodeName": 1, "bogus": true,
    "containers": [{"name": "a", "imagePullPolicy": ["Always"]}, {"name": "b", "extra": {}}],
    "tolerations": [{"key": "k", "tolerationSeconds": "60"}]
  })");
  CHECK(out.issues ==
        Issues({"spec.bogus: unknown field \"bogus\"",
                "spec.containers[0].imagePullPolicy: expected a string, got an array",
                "spec.containers[1].extra: unknown field \"extra\"",
                "spec.nodeName: expected a string, got an integer (quote it: \"1\")",
                "spec.tolerations[0].tolerationSeconds: expected an integer, got a string"}));
}

TEST_CASE("a value of the wrong JSON type is reported") {
  const Outcome out = RunAt("c", "Container", R"({
    "name": 1, "command": "sleep", "ports": [{"containerPort": "80"}],
    "env": [{"name": "PORT", "value": 8080}], "tty": "yes", "securityContext": [],
    "livenessProbe": {"grpc": {"port": 3000000000}}
  })");
  CHECK(out.issues ==
        Issues({"c.name: expected a string, got an integer (quote it: \"1\")", "c.command: expected an array, got a string",
                "c.ports[0].containerPort: expected an integer, got a string",
                "c.env[0].value: expected a string, got an integer (quote it: \"8080\")",
                "c.livenessProbe.grpc.port: 3000000000 is out of range for int32",
                "c.securityContext: expected an object, got an array",
                "c.tty: expected a boolean, got a string"}));
  const Outcome labels = RunAt("metadata", "ObjectMeta", R"({"labels": {"tier": 1}})");
  CHECK(labels.issues == Issues({"metadata.labels[tier]: expected a string, got an integer (quote it: \"1\")"}));
}

TEST_CASE("an integral float is an integer, a fractional one is reported") {
  const Outcome whole = Run("ReplicatedJob", R"({
    "name": "node", "replicas": 2.0, "template": {"spec": {"parallelism": 1e1}}
  })");
  CHECK(whole.json == Expected(R"({
    "name": "node", "replicas": 2,
    "template": {"metadata": {}, "spec": {
      "parallelism": 10, "template": {"metadata": {}, "spec": {}}}}
  })"));
  CHECK(whole.issues.empty());
  const Outcome fraction = Run("JobSpec", R"({"parallelism": 1.5})");
  CHECK(fraction.issues == Issues({"spec.parallelism: expected an integer, got a number"}));
}

TEST_CASE("int-or-string ports keep their JSON type") {
  const Outcome out = Run("Probe", R"({
    "tcpSocket": {"port": "ssh"}, "httpGet": {"port": 8080, "path": "/"}
  })");
  CHECK(out.json == Expected(R"({
    "tcpSocket": {"port": "ssh"}, "httpGet": {"port": 8080, "path": "/"}
  })"));
  CHECK(Run("TCPSocketAction", R"({"port": true})").issues ==
        Issues({"spec.port: expected an integer or string, got a boolean"}));
}

TEST_CASE("inline structs flatten into their parent") {
  const Outcome volume = RunAt("v", "Volume", R"({
    "name": "cfg", "bogus": {},
    "configMap": {"name": "settings", "items": [{"key": "k", "path": "p"}], "optional": false}
  })");
  CHECK(volume.json == Expected(R"({
    "name": "cfg", "bogus": {},
    "configMap": {"name": "settings", "items": [{"key": "k", "path": "p"}], "optional": false}
  })"));
  CHECK(volume.issues == Issues({"v.bogus: unknown field \"bogus\""}));
  const Outcome probe = Run("Probe", R"({
    "exec": {"command": ["true"]}, "periodSeconds": 0, "failureThreshold": 3
  })");
  CHECK(probe.json == Expected(R"({"exec": {"command": ["true"]}, "failureThreshold": 3})"));
}

TEST_CASE("metadata fields the apply configuration lacks are checked, then dropped") {
  const Outcome out = RunAt("metadata", "ObjectMeta", R"({
    "name": "x", "selfLink": "/x", "generation": 0,
    "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}, "when": "now"}]
  })");
  CHECK(out.json == Expected(R"({"name": "x"})"));
  CHECK(out.issues == Issues({"metadata.managedFields[0].when: unknown field \"when\""}));
}

TEST_CASE("volume claim policy templates print as typed Go JSON") {
  const Outcome out = Run("JobSetSpec", R"({"volumeClaimPolicies": [{
    "templates": [{
      "metadata": {"name": "data", "selfLink": "/d"},
      "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1024Mi"}},
        "dataSource": {"kind": "PersistentVolumeClaim", "name": "seed"}}}],
    "retentionPolicy": {"whenDeleted": "Delete"}}]
  })");
  CHECK(out.json == Expected(R"({"volumeClaimPolicies": [{
    "templates": [{
      "metadata": {"name": "data", "selfLink": "/d"},
      "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
        "dataSource": {"apiGroup": null, "kind": "PersistentVolumeClaim", "name": "seed"}},
      "status": {}}],
    "retentionPolicy": {"whenDeleted": "Delete"}}]
  })"));
}

TEST_CASE("timestamps are printed in UTC, and the zero time goes") {
  CHECK(Run("ObjectMeta", R"({"creationTimestamp": "2024-05-01T01:30:00.25+02:00"})").json ==
        Expected(R"({"creationTimestamp": "2024-04-30T23:30:00Z"})"));
  CHECK(Run("ObjectMeta", R"({"creationTimestamp": "0001-01-01T00:00:00Z"})").json == "{}");
  CHECK(Run("ObjectMeta", R"({"deletionTimestamp": "2024-02-29T00:00:00Z"})").json ==
        Expected(R"({"deletionTimestamp": "2024-02-29T00:00:00Z"})"));
  CHECK(Run("ObjectMeta", R"({"creationTimestamp": "2023-02-29T00:00:00Z"})").issues ==
        Issues({"spec.creationTimestamp: invalid time \"2023-02-29T00:00:00Z\": expected RFC "
                "3339, e.g. 2006-01-02T15:04:05Z"}));
}

TEST_CASE("nested lists are walked item by item") {
  const Outcome out = RunAt("spec.affinity", "Affinity", R"({
    "nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
        "matchExpressions": [
          {"key": "a", "operator": "Exists", "values": []},
          {"key": "b", "operator": "In", "values": ["x", 7]}]}]},
      "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]},
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
      "labelSelector": {"matchLabels": {"app": "x"}, "matchExpressions": []},
      "topologyKey": "zone"}]}
  })");
  CHECK(out.issues ==
        Issues({"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                ".nodeSelectorTerms[0].matchExpressions[1].values[1]: expected a string, got an "
                "integer (quote it: \"7\")"}));
  CHECK(out.json == Expected(R"({
    "nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
        "matchExpressions": [
          {"key": "a", "operator": "Exists"},
          {"key": "b", "operator": "In", "values": ["x", 7]}]}]},
      "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {}}]},
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
      "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}]}
  })"));
}

TEST_CASE("a realistic runtime template round trips") {
  const Outcome out = RunAt("spec.template.spec", "JobSetSpec", R"({
    "network": {"enableDNSHostnames": true, "publishNotReadyAddresses": false},
    "successPolicy": {"operator": "All", "targetReplicatedJobs": ["node"]},
    "failurePolicy": {"maxRestarts": 0},
    "replicatedJobs": [
      {"name": "dataset-initializer", "replicas": 1,
       "template": {
         "metadata": {"labels": {
           "trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
         "spec": {"backoffLimit": 0, "template": {"spec": {
           "restartPolicy": "Never",
           "containers": [{
             "name": "dataset-initializer", "image": "ghcr.io/example/dataset-initializer",
             "env": [{"name": "STORAGE_URI", "value": ""}],
             "volumeMounts": [
               {"name": "initializer", "mountPath": "/workspace", "readOnly": false}]}],
           "volumes": [{
             "name": "initializer",
             "persistentVolumeClaim": {"claimName": "initializer", "readOnly": false}}]}}}}},
      {"name": "node", "dependsOn": [{"name": "dataset-initializer", "status": "Complete"}],
       "template": {
         "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
         "spec": {"template": {"metadata": {"creationTimestamp": null}, "spec": {
           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
           "containers": [{
             "name": "node", "image": "pytorch/pytorch:2.7.1", "command": ["torchrun", "train.py"],
             "ports": [{"containerPort": 29400, "protocol": "TCP"}],
             "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
             "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "16384Mi"},
                           "requests": {"cpu": 4}},
             "securityContext": {"allowPrivilegeEscalation": false,
                                 "capabilities": {"drop": ["ALL"]}},
             "stdin": false, "tty": false,
             "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
           "volumes": [
             {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "2048Mi"}}]}}}}}]
  })");
  CHECK(out.issues.empty());
  CHECK(out.json == Expected(R"({
    "network": {"enableDNSHostnames": true, "publishNotReadyAddresses": false},
    "successPolicy": {"operator": "All", "targetReplicatedJobs": ["node"]},
    "failurePolicy": {},
    "replicatedJobs": [
      {"name": "dataset-initializer", "replicas": 1,
       "template": {
         "metadata": {"labels": {
           "trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
         "spec": {"backoffLimit": 0, "template": {"metadata": {}, "spec": {
           "restartPolicy": "Never",
           "containers": [{
             "name": "dataset-initializer", "image": "ghcr.io/example/dataset-initializer",
             "resources": {}, "env": [{"name": "STORAGE_URI"}],
             "volumeMounts": [{"name": "initializer", "mountPath": "/workspace"}]}],
           "volumes": [{
             "name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}},
      {"name": "node", "dependsOn": [{"name": "dataset-initializer", "status": "Complete"}],
       "template": {
         "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
         "spec": {"template": {"metadata": {}, "spec": {
           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
           "containers": [{
             "name": "node", "image": "pytorch/pytorch:2.7.1", "command": ["torchrun", "train.py"],
             "ports": [{"containerPort": 29400, "protocol": "TCP"}],
             "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
             "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "16Gi"},
                           "requests": {"cpu": "4"}},
             "securityContext": {"allowPrivilegeEscalation": false,
                                 "capabilities": {"drop": ["ALL"]}},
             "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
           "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}}]}}}}}]
  })"));
}

TEST_CASE("the types named in the interface decode an empty object without issues") {
  for (const char* type :
       {"JobSetSpec", "PodSpec", "Container", "EnvVar", "Volume", "VolumeMount", "Toleration",
        "Affinity", "PodSecurityContext", "SecurityContext", "ResourceRequirements", "ObjectMeta",
        "EphemeralContainer", "PersistentVolumeClaim"}) {
    CAPTURE(type);
    CHECK(Run(type, "{}").issues.empty());
  }
}

TEST_CASE("a value that is not an object is reported, and null is the zero struct") {
  CHECK(RunAt("c", "Container", R"("node")").issues == Issues({"c: expected an object, got a string"}));
  CHECK(Run("Container", "null").json == Expected(R"({"name": "", "resources": {}})"));
}

TEST_CASE("an unknown type name is a programming error") {
  Tree tree = Tree::Map();
  std::vector<FieldIssue> issues;
  CHECK_THROWS_AS(RoundTrip(tree, "Pod", "spec", issues), std::logic_error);
}

}  // namespace
}  // namespace trainer
