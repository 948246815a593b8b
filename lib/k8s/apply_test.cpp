// Ports upstream pkg/apply/apply_test.go, keeping its case names where a test follows one.
#include "k8s/apply.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/reader.h"

namespace trainer {

namespace {

const std::string kFile = "job.yaml";

// The one document of `yaml`.
Tree Yaml(std::string_view yaml) {
  std::vector<Tree> docs = ReadYamlStream(yaml, &kFile);
  REQUIRE(docs.size() == 1);
  return docs[0];
}

// The items of a YAML list.
std::vector<Tree> Items(std::string_view yaml) {
  Tree list = Yaml(yaml);
  REQUIRE(list.IsList());
  return list.items();
}

// A one-line rendering with keys sorted and strings quoted, so that "1" and 1 differ.
std::string Flow(const Tree& t);

std::string Flow(const std::vector<Tree>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += Flow(items[i]);
  }
  return out + "]";
}

std::string Flow(const Tree& t) {
  switch (t.type()) {
    case Tree::Type::kNull: return "null";
    case Tree::Type::kBool:
    case Tree::Type::kInt:
    case Tree::Type::kFloat: return t.text();
    case Tree::Type::kString: return "\"" + t.text() + "\"";
    case Tree::Type::kList: return Flow(t.items());
    case Tree::Type::kMap: {
      std::vector<std::size_t> order(t.size());
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t.KeyAt(a) < t.KeyAt(b); });
      std::string out = "{";
      for (std::size_t i : order) {
        if (out.size() > 1) out += ", ";
        out += t.KeyAt(i) + ": " + Flow(t.items()[i]);
      }
      return out + "}";
    }
  }
  return "?";
}

std::string EnvApply(std::string_view env_var_yaml) { return Flow(EnvVarApply(Yaml(env_var_yaml))); }

}  // namespace

// ---- UpsertEnvVars -----------------------------------------------------------------------------

TEST_CASE("UpsertEnvVars: insert new env var to empty list") {
  std::vector<Tree> env;
  UpsertEnvVars(env, Items("[{name: NEW, value: value}]"));
  CHECK(Flow(env) == R"([{name: "NEW", value: "value"}])");
}

TEST_CASE("UpsertEnvVars: update existing env var") {
  std::vector<Tree> env = Items("[{name: TEST, value: old}]");
  UpsertEnvVars(env, Items("[{name: TEST, value: new}]"));
  CHECK(Flow(env) == R"([{name: "TEST", value: "new"}])");
}

TEST_CASE("UpsertEnvVars: insert multiple env vars after the existing ones, in order") {
  std::vector<Tree> env = Items("[{name: EXISTING, value: value}]");
  UpsertEnvVars(env, Items("[{name: NEW1, value: value1}, {name: NEW2, value: value2}]"));
  CHECK(Flow(env) ==
        R"([{name: "EXISTING", value: "value"}, {name: "NEW1", value: "value1"}, {name: "NEW2", value: "value2"}])");
}

TEST_CASE("UpsertEnvVars replaces a matching env var in place and keeps the others' order") {
  std::vector<Tree> env = Items("[{name: A, value: '1'}, {name: B, value: '2'}, {name: C, value: '3'}]");
  UpsertEnvVars(env, Items("[{name: B, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, {name: D, value: '4'}]"));
  CHECK(Flow(env) == R"([{name: "A", value: "1"}, {name: "B", valueFrom: {fieldRef: {fieldPath: "metadata.name"}}}, )"
                     R"({name: "C", value: "3"}, {name: "D", value: "4"}])");
}

TEST_CASE("UpsertEnvVars replaces only the first of two env vars with the same name") {
  std::vector<Tree> env = Items("[{name: A, value: '1'}, {name: A, value: '2'}]");
  UpsertEnvVars(env, Items("[{name: A, value: '3'}]"));
  CHECK(Flow(env) == R"([{name: "A", value: "3"}, {name: "A", value: "2"}])");
}

TEST_CASE("UpsertEnvVars applies updates one after another, so the last of one name wins") {
  std::vector<Tree> env;
  UpsertEnvVars(env, Items("[{name: A, value: '1'}, {name: B, value: '2'}, {name: A, value: '3'}]"));
  CHECK(Flow(env) == R"([{name: "A", value: "3"}, {name: "B", value: "2"}])");
}

// ---- UpsertPorts -------------------------------------------------------------------------------

TEST_CASE("UpsertPorts: match by port number") {
  std::vector<Tree> ports = Items("[{containerPort: 8080}]");
  UpsertPorts(ports, Items("[{containerPort: 8080, protocol: TCP}]"));
  CHECK(Flow(ports) == R"([{containerPort: 8080, protocol: "TCP"}])");
}

TEST_CASE("UpsertPorts: match by name") {
  std::vector<Tree> ports = Items("[{name: http}]");
  UpsertPorts(ports, Items("[{name: http, containerPort: 8080}]"));
  CHECK(Flow(ports) == R"([{containerPort: 8080, name: "http"}])");
}

TEST_CASE("UpsertPorts matches a port with the same number but another name") {
  std::vector<Tree> ports = Items("[{name: http, containerPort: 8080}, {name: ssh, containerPort: 22}]");
  UpsertPorts(ports, Items("[{name: web, containerPort: 8080}]"));
  CHECK(Flow(ports) == R"([{containerPort: 8080, name: "web"}, {containerPort: 22, name: "ssh"}])");
}

TEST_CASE("UpsertPorts: two ports without a name match each other, as upstream's ptr.Equal does") {
  // Upstream's case "insert new port": 9090 replaces 8080 because both names are nil.
  std::vector<Tree> ports = Items("[{containerPort: 8080}]");
  UpsertPorts(ports, Items("[{containerPort: 9090}]"));
  CHECK(Flow(ports) == R"([{containerPort: 9090}])");
}

TEST_CASE("UpsertPorts: insert new port with different names") {
  std::vector<Tree> ports = Items("[{name: http, containerPort: 8080}]");
  UpsertPorts(ports, Items("[{name: metrics, containerPort: 9090}]"));
  CHECK(Flow(ports) == R"([{containerPort: 8080, name: "http"}, {containerPort: 9090, name: "metrics"}])");
}

TEST_CASE("UpsertPorts matches each update against the names and numbers that earlier updates left") {
  // Port 5 takes the name p7 from the first port that matches, by number; the next update named p7
  // matches port 5, the first port of that name now. Port 3 takes the name r3, so p3 is new.
  std::vector<Tree> ports = Items("[{containerPort: 3, name: p3}, {containerPort: 5, name: p5}, {containerPort: 7, name: p7}]");
  UpsertPorts(ports, Items("[{containerPort: 5, name: p7}, {containerPort: 99, name: p7}, {containerPort: 3, name: r3}, "
                           "{containerPort: 88, name: p3}]"));
  CHECK(Flow(ports) == R"([{containerPort: 3, name: "r3"}, {containerPort: 99, name: "p7"}, )"
                       R"({containerPort: 7, name: "p7"}, {containerPort: 88, name: "p3"}])");
}

TEST_CASE("UpsertPorts appends an unnamed port when the existing one has a name") {
  std::vector<Tree> ports = Items("[{name: http, containerPort: 8080}]");
  UpsertPorts(ports, Items("[{containerPort: 9090}]"));
  CHECK(Flow(ports) == R"([{containerPort: 8080, name: "http"}, {containerPort: 9090}])");
}

// ---- UpsertVolumes -----------------------------------------------------------------------------

TEST_CASE("UpsertVolumes: update existing volume") {
  std::vector<Tree> volumes = Items("[{name: data}]");
  UpsertVolumes(volumes, Items("[{name: data, emptyDir: {}}]"));
  CHECK(Flow(volumes) == R"([{emptyDir: {}, name: "data"}])");
}

TEST_CASE("UpsertVolumes: insert new volume") {
  std::vector<Tree> volumes = Items("[{name: existing}]");
  UpsertVolumes(volumes, Items("[{name: new, emptyDir: {}}]"));
  CHECK(Flow(volumes) == R"([{name: "existing"}, {emptyDir: {}, name: "new"}])");
}

TEST_CASE("UpsertVolumes: update multiple volumes") {
  std::vector<Tree> volumes = Items("[{name: vol1}, {name: vol2}]");
  UpsertVolumes(volumes, Items("[{name: vol1, emptyDir: {}}, {name: vol3, emptyDir: {}}]"));
  CHECK(Flow(volumes) == R"([{emptyDir: {}, name: "vol1"}, {name: "vol2"}, {emptyDir: {}, name: "vol3"}])");
}

TEST_CASE("UpsertVolumes: two volumes without a name match each other") {
  std::vector<Tree> volumes = Items("[{emptyDir: {}}]");
  UpsertVolumes(volumes, Items("[{hostPath: {path: /x}}]"));
  CHECK(Flow(volumes) == R"([{hostPath: {path: "/x"}}])");
}

// ---- UpsertVolumeMounts ------------------------------------------------------------------------

TEST_CASE("UpsertVolumeMounts: update existing volume mount") {
  std::vector<Tree> mounts = Items("[{name: data, mountPath: /old-data}]");
  UpsertVolumeMounts(mounts, Items("[{name: data, mountPath: /old-data, readOnly: true}]"));
  CHECK(Flow(mounts) == R"([{mountPath: "/old-data", name: "data", readOnly: true}])");
}

TEST_CASE("UpsertVolumeMounts: insert new volume mount") {
  std::vector<Tree> mounts = Items("[{name: existing, mountPath: /existing}]");
  UpsertVolumeMounts(mounts, Items("[{name: new, mountPath: /new}]"));
  CHECK(Flow(mounts) == R"([{mountPath: "/existing", name: "existing"}, {mountPath: "/new", name: "new"}])");
}

TEST_CASE("UpsertVolumeMounts: update based on mount path") {
  std::vector<Tree> mounts = Items("[{name: vol1, mountPath: /data}, {name: vol2, mountPath: /config}]");
  UpsertVolumeMounts(mounts, Items("[{name: vol3, mountPath: /data, readOnly: true}]"));
  CHECK(Flow(mounts) ==
        R"([{mountPath: "/data", name: "vol3", readOnly: true}, {mountPath: "/config", name: "vol2"}])");
}

TEST_CASE("UpsertVolumeMounts appends a mount with the same name at another path") {
  std::vector<Tree> mounts = Items("[{name: data, mountPath: /a}]");
  UpsertVolumeMounts(mounts, Items("[{name: data, mountPath: /b}]"));
  CHECK(Flow(mounts) == R"([{mountPath: "/a", name: "data"}, {mountPath: "/b", name: "data"}])");
}

// ---- EnvVarApply -------------------------------------------------------------------------------

TEST_CASE("EnvVarApply: simple value") {
  CHECK(EnvApply("{name: SIMPLE, value: value}") == R"({name: "SIMPLE", value: "value"})");
}

TEST_CASE("EnvVarApply sets value to the empty string when there is neither value nor valueFrom") {
  CHECK(EnvApply("{name: EMPTY}") == R"({name: "EMPTY", value: ""})");
  CHECK(EnvApply("{name: NULL_FROM, valueFrom: null}") == R"({name: "NULL_FROM", value: ""})");
  CHECK(EnvApply("{name: KEPT, value: x, valueFrom: ~}") == R"({name: "KEPT", value: "x"})");
}

TEST_CASE("EnvVarApply gives the empty value the env var's position") {
  Tree env = EnvVarApply(Yaml("- name: EMPTY\n").items()[0]);
  CHECK(env.Find("value")->origin().Position() == "job.yaml:1:3");
}

TEST_CASE("EnvVarApply drops value when valueFrom is set") {
  CHECK(EnvApply("{name: X, value: ignored, valueFrom: {fieldRef: {fieldPath: metadata.name}}}") ==
        R"({name: "X", valueFrom: {fieldRef: {fieldPath: "metadata.name"}}})");
}

TEST_CASE("EnvVarApply: field ref keeps only fieldPath") {
  CHECK(EnvApply("{name: POD_NAME, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}}") ==
        R"({name: "POD_NAME", valueFrom: {fieldRef: {fieldPath: "metadata.name"}}})");
  CHECK(EnvApply("{name: NO_PATH, valueFrom: {fieldRef: {apiVersion: v1}}}") ==
        R"({name: "NO_PATH", valueFrom: {fieldRef: {fieldPath: ""}}})");
}

TEST_CASE("EnvVarApply: resource field ref") {
  CHECK(EnvApply("{name: CPU_REQUEST, valueFrom: {resourceFieldRef: "
                 "{containerName: container, resource: requests.cpu, divisor: 1m}}}") ==
        R"({name: "CPU_REQUEST", valueFrom: {resourceFieldRef: )"
        R"({containerName: "container", divisor: "1m", resource: "requests.cpu"}}})");
}

TEST_CASE("EnvVarApply gives a resource field ref divisor \"0\" and empty names when unset") {
  CHECK(
      EnvApply("{name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory}}}") ==
      R"({name: "MEM", valueFrom: {resourceFieldRef: {containerName: "", divisor: "0", resource: "limits.memory"}}})");
}

TEST_CASE("EnvVarApply: configmap ref") {
  CHECK(EnvApply("{name: FROM_CONFIG, valueFrom: {configMapKeyRef: {name: config, key: key, optional: true}}}") ==
        R"({name: "FROM_CONFIG", valueFrom: {configMapKeyRef: {key: "key", name: "config", optional: true}}})");
}

TEST_CASE("EnvVarApply: secret ref") {
  CHECK(EnvApply("{name: FROM_SECRET, valueFrom: {secretKeyRef: {name: secret, key: key, optional: false}}}") ==
        R"({name: "FROM_SECRET", valueFrom: {secretKeyRef: {key: "key", name: "secret", optional: false}}})");
}

TEST_CASE("EnvVarApply sets key and name of key refs always and optional only when set") {
  CHECK(EnvApply("{name: A, valueFrom: {configMapKeyRef: {name: config, key: key}}}") ==
        R"({name: "A", valueFrom: {configMapKeyRef: {key: "key", name: "config"}}})");
  CHECK(EnvApply("{name: B, valueFrom: {secretKeyRef: {key: key}}}") ==
        R"({name: "B", valueFrom: {secretKeyRef: {key: "key", name: ""}}})");
  CHECK(EnvApply("{name: C, valueFrom: {secretKeyRef: {}}}") ==
        R"({name: "C", valueFrom: {secretKeyRef: {key: "", name: ""}}})");
}

TEST_CASE("EnvVarApply: field ref and resource field ref combined") {
  CHECK(EnvApply("{name: COMBINED, valueFrom: {fieldRef: {fieldPath: metadata.name}, "
                 "resourceFieldRef: {containerName: container, resource: requests.cpu, divisor: 1m}}}") ==
        R"({name: "COMBINED", valueFrom: {fieldRef: {fieldPath: "metadata.name"}, resourceFieldRef: )"
        R"({containerName: "container", divisor: "1m", resource: "requests.cpu"}}})");
}

TEST_CASE("EnvVarApply drops fileKeyRef, as upstream does not carry it over") {
  CHECK(EnvApply("{name: FROM_FILE, valueFrom: {fileKeyRef: {volumeName: v, path: p, key: k}}}") ==
        R"({name: "FROM_FILE", valueFrom: {}})");
  CHECK(EnvApply("{name: MIXED, valueFrom: {fileKeyRef: {key: k}, secretKeyRef: {name: s, key: k}}}") ==
        R"({name: "MIXED", valueFrom: {secretKeyRef: {key: "k", name: "s"}}})");
}

TEST_CASE("EnvVarsApply: empty input") { CHECK(EnvVarsApply({}).empty()); }

TEST_CASE("EnvVarsApply: multiple env vars") {
  CHECK(Flow(EnvVarsApply(Items("[{name: VAR1, value: value1}, "
                                "{name: VAR2, valueFrom: {configMapKeyRef: {name: config, key: key, optional: true}}}, "
                                "{name: VAR3}]"))) ==
        R"([{name: "VAR1", value: "value1"}, )"
        R"({name: "VAR2", valueFrom: {configMapKeyRef: {key: "key", name: "config", optional: true}}}, )"
        R"({name: "VAR3", value: ""}])");
}

TEST_CASE("EnvVarValue builds a name and value pair with the given origin") {
  Tree env = EnvVarValue("PET_NNODES", "2", Origin::Plugin("Torch"));
  CHECK(Flow(env) == R"({name: "PET_NNODES", value: "2"})");
  CHECK(env.Find("value")->origin().Source() == "plugin Torch");
  CHECK(env.origin().Source() == "plugin Torch");
}

// ---- ListField ---------------------------------------------------------------------------------

TEST_CASE("ListField creates an empty list for an absent key, at the end of the map") {
  Tree container = Yaml("{name: trainer, image: x}");
  ListField(container, "env").push_back(EnvVarValue("A", "1", {}));
  CHECK(container.keys() == std::vector<std::string>{"name", "image", "env"});
  CHECK(Flow(container) == R"({env: [{name: "A", value: "1"}], image: "x", name: "trainer"})");
}

TEST_CASE("ListField replaces a null value with an empty list") {
  Tree container = Yaml("{name: trainer, env: null}");
  CHECK(ListField(container, "env").empty());
  CHECK(Flow(container) == R"({env: [], name: "trainer"})");
}

TEST_CASE("ListField returns the existing list for changes in place") {
  Tree container = Yaml("{ports: [{containerPort: 22}]}");
  std::vector<Tree>& ports = ListField(container, "ports");
  UpsertPorts(ports, Items("[{name: ssh, containerPort: 22}, {name: metrics, containerPort: 9090}]"));
  CHECK(Flow(container) == R"({ports: [{containerPort: 22, name: "ssh"}, {containerPort: 9090, name: "metrics"}]})");
}

TEST_CASE("ListField replaces a value that is not a list with an empty list") {
  Tree container = Yaml("{env: {name: A}}");
  CHECK(ListField(container, "env").empty());
  CHECK(Flow(container) == R"({env: []})");
}

}  // namespace trainer
