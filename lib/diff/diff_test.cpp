#include "diff/diff.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

const std::string kFile = "diff.yaml";

// The one document of `yaml`.
Tree Yaml(std::string_view yaml) {
  std::vector<Tree> docs = ReadYamlStream(yaml, &kFile);
  REQUIRE(docs.size() == 1);
  return docs[0];
}

// A one-line rendering with keys sorted and strings quoted, so that "1" and 1 differ.
std::string Flow(const Tree& t) {
  switch (t.type()) {
    case Tree::Type::kNull: return "null";
    case Tree::Type::kBool:
    case Tree::Type::kInt:
    case Tree::Type::kFloat: return t.text();
    case Tree::Type::kString: return "\"" + t.text() + "\"";
    case Tree::Type::kList: {
      std::string out = "[";
      for (const Tree& item : t.items()) out += (out.size() > 1 ? ", " : "") + Flow(item);
      return out + "]";
    }
    case Tree::Type::kMap: {
      std::vector<std::size_t> order(t.size());
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t.KeyAt(a) < t.KeyAt(b); });
      std::string out = "{";
      for (std::size_t i : order) out += (out.size() > 1 ? ", " : "") + t.KeyAt(i) + ": " + Flow(t.items()[i]);
      return out + "}";
    }
  }
  return "?";
}

// "~ path: old -> new", "+ path: new", "- path: old", "<> path: [keys] -> [keys]".
std::string Show(const FieldChange& c) {
  std::string path = FormatPath(c.path);
  switch (c.kind) {
    case FieldChange::Kind::kAdded: return "+ " + path + ": " + Flow(*c.to);
    case FieldChange::Kind::kRemoved: return "- " + path + ": " + Flow(*c.from);
    case FieldChange::Kind::kModified: return "~ " + path + ": " + Flow(*c.from) + " -> " + Flow(*c.to);
    case FieldChange::Kind::kReordered: return "<> " + path + ": " + Flow(*c.from) + " -> " + Flow(*c.to);
  }
  return "?";
}

std::vector<std::string> Show(const std::vector<FieldChange>& changes) {
  std::vector<std::string> out;
  for (const FieldChange& c : changes) out.push_back(Show(c));
  return out;
}

std::vector<std::string> Diff(std::string_view from, std::string_view to) {
  return Show(DiffTrees(Yaml(from), Yaml(to)));
}

using Lines = std::vector<std::string>;

std::string ParseError(std::string_view pattern) {
  try {
    IgnoreRule::Parse(pattern);
  } catch (const trainer::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("DiffTrees: equal trees have no changes, whatever the order of map keys") {
  const char* from = R"(
spec:
  b: [1, "two", {x: 3.0}]
  a: {c: null, d: true}
)";
  const char* to = R"(
spec:
  a: {d: true, c: null}
  b: [1, "two", {x: 3.0}]
)";
  CHECK(Diff(from, to).empty());
  CHECK(Diff("[]", "[]").empty());
  CHECK(Diff("{}", "{}").empty());
}

TEST_CASE("DiffTrees: a changed scalar is one change at its path with both values") {
  CHECK(Diff("spec: {replicas: 1, image: a}", "spec: {replicas: 2, image: a}") == Lines{"~ spec.replicas: 1 -> 2"});
  CHECK(Diff("x: 1.0", "x: 1.00") == Lines{"~ x: 1.0 -> 1.00"});
  CHECK(Diff("7", "8") == Lines{"~ : 7 -> 8"});
}

TEST_CASE("DiffTrees: a value of another type is a change even when its text is the same") {
  CHECK(Diff("x: 1", "x: \"1\"") == Lines{"~ x: 1 -> \"1\""});
  CHECK(Diff("x: true", "x: \"true\"") == Lines{"~ x: true -> \"true\""});
  CHECK(Diff("x: null", "x: \"\"") == Lines{"~ x: null -> \"\""});
  CHECK(Diff("x: {a: 1}", "x: [1]") == Lines{"~ x: {a: 1} -> [1]"});
}

TEST_CASE("DiffTrees: added and removed map keys are changes with an empty side") {
  std::vector<FieldChange> changes =
      DiffTrees(Yaml("metadata: {name: a, labels: {x: '1'}}"), Yaml("metadata: {name: a, annotations: {'y': '2'}}"));
  CHECK(Show(changes) == Lines{"+ metadata.annotations: {y: \"2\"}", "- metadata.labels: {x: \"1\"}"});
  REQUIRE(changes.size() == 2);
  CHECK(changes[0].kind == FieldChange::Kind::kAdded);
  CHECK(!changes[0].from.has_value());
  CHECK(changes[1].kind == FieldChange::Kind::kRemoved);
  CHECK(!changes[1].to.has_value());
  // A key holding null is not an absent key.
  CHECK(Diff("a: null", "{}") == Lines{"- a: null"});
}

TEST_CASE("DiffTrees: changes come in the order of the printed YAML") {
  CHECK(Diff("{zeta: 1, alpha: 1, item10: 1, item9: 1}", "{zeta: 2, alpha: 2, item9: 2, item10: 2, beta: 2}") ==
        Lines{"~ alpha: 1 -> 2", "+ beta: 2", "~ item9: 1 -> 2", "~ item10: 1 -> 2", "~ zeta: 1 -> 2"});
}

TEST_CASE("DiffTrees: containers are matched by name, and a new order is one reordering change") {
  const char* from = R"(
containers:
- {name: a, image: x}
- {name: b, image: "y"}
- {name: c, image: z}
)";
  SUBCASE("the same containers in another order") {
    const char* to = R"(
containers:
- {name: c, image: z}
- {name: a, image: x}
- {name: b, image: "y"}
)";
    std::vector<FieldChange> changes = DiffTrees(Yaml(from), Yaml(to));
    CHECK(Show(changes) == Lines{R"(<> containers: ["a", "b", "c"] -> ["c", "a", "b"])"});
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].kind == FieldChange::Kind::kReordered);
    CHECK(changes[0].Pointer() == "/containers");
  }
  SUBCASE("reordered, changed, added and removed") {
    const char* to = R"(
containers:
- {name: d, image: w}
- {name: b, image: y2}
- {name: a, image: x}
)";
    CHECK(Diff(from, to) == Lines{R"(<> containers: ["a", "b"] -> ["b", "a"])",
                                  R"(~ containers[name=b].image: "y" -> "y2")",
                                  R"(- containers[name=c]: {image: "z", name: "c"})",
                                  R"(+ containers[name=d]: {image: "w", name: "d"})"});
  }
  SUBCASE("additions and removals alone keep the order") {
    CHECK(Diff(from, "containers: [{name: a, image: x}, {name: new, image: 'n'}, {name: c, image: z}]") ==
          Lines{R"(- containers[name=b]: {image: "y", name: "b"})",
                R"(+ containers[name=new]: {image: "n", name: "new"})"});
  }
}

TEST_CASE("DiffTrees: an env value change is reported at env[name=X].value") {
  const char* from = "env: [{name: A, value: '1'}, {name: B, value: '2'}]";
  const char* to = "env: [{name: A, value: '1'}, {name: B, value: '3'}, {name: C, value: '4'}]";
  CHECK(Diff(from, to) == Lines{R"(~ env[name=B].value: "2" -> "3")", R"(+ env[name=C]: {name: "C", value: "4"})"});
}

TEST_CASE("DiffTrees: a JobSet image change names the replicatedJob and the container") {
  const char* from = R"(
spec:
  replicatedJobs:
  - name: launcher
    template: {spec: {template: {spec: {containers: [{name: node, image: app:1}]}}}}
  - name: node
    template: {spec: {template: {spec: {containers: [{name: node, image: mpi:1}]}}}}
)";
  const char* to = R"(
spec:
  replicatedJobs:
  - name: launcher
    template: {spec: {template: {spec: {containers: [{name: node, image: app:1}]}}}}
  - name: node
    template: {spec: {template: {spec: {containers: [{name: node, image: app:1}]}}}}
)";
  std::vector<FieldChange> changes = DiffTrees(Yaml(from), Yaml(to));
  CHECK(Show(changes) == Lines{"~ spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node]"
                               ".image: \"mpi:1\" -> \"app:1\""});
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].Pointer() == "/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image");
  CHECK(changes[0].to->origin().line == 7);
}

TEST_CASE("DiffTrees: volumeMounts are keyed by mountPath even when their items have names") {
  SUBCASE("one volume mounted twice") {
    const char* from = "volumeMounts: [{name: v, mountPath: /a, subPath: x}, {name: v, mountPath: /b, subPath: 'y'}]";
    const char* to = "volumeMounts: [{name: v, mountPath: /b, subPath: z}, {name: v, mountPath: /a, subPath: x}]";
    CHECK(Diff(from, to) == Lines{R"(<> volumeMounts: ["/a", "/b"] -> ["/b", "/a"])",
                                  R"(~ volumeMounts[mountPath=/b].subPath: "y" -> "z")"});
  }
  SUBCASE("unique names") {
    CHECK(Diff("volumeMounts: [{name: v, mountPath: /a}]", "volumeMounts: [{name: v, mountPath: /b}]") ==
          Lines{R"(- volumeMounts[mountPath=/a]: {mountPath: "/a", name: "v"})",
                R"(+ volumeMounts[mountPath=/b]: {mountPath: "/b", name: "v"})"});
  }
  SUBCASE("volumeDevices by devicePath") {
    CHECK(Diff("volumeDevices: [{name: v, devicePath: /dev/a}]", "volumeDevices: [{name: w, devicePath: /dev/a}]") ==
          Lines{R"(~ volumeDevices[devicePath=/dev/a].name: "v" -> "w")"});
  }
}

TEST_CASE("DiffTrees: ports are keyed by containerPort") {
  CHECK(Diff("ports: [{containerPort: 8080, protocol: TCP}, {containerPort: 22}]",
             "ports: [{containerPort: 22}, {containerPort: 8080, protocol: UDP}]") ==
        Lines{"<> ports: [8080, 22] -> [22, 8080]", R"(~ ports[containerPort=8080].protocol: "TCP" -> "UDP")"});
  // Named ports are still keyed by port, as Kubernetes merges them.
  CHECK(Diff("ports: [{name: http, containerPort: 80}]", "ports: [{name: web, containerPort: 80}]") ==
        Lines{R"(~ ports[containerPort=80].name: "http" -> "web")"});
  // Two protocols on one port: not unique, so by name.
  CHECK(Diff("ports: [{name: t, containerPort: 53}, {name: u, containerPort: 53, protocol: UDP}]",
             "ports: [{name: u, containerPort: 53, protocol: UDP}, {name: t, containerPort: 54}]") ==
        Lines{R"(<> ports: ["t", "u"] -> ["u", "t"])", "~ ports[name=t].containerPort: 53 -> 54"});
}

TEST_CASE("DiffTrees: lists without a unique key on both sides are compared by index") {
  CHECK(Diff("args: [a, b, c]", "args: [a, c]") == Lines{R"(~ args[1]: "b" -> "c")", R"(- args[2]: "c")"});
  CHECK(Diff("args: [a]", "args: [a, b]") == Lines{R"(+ args[1]: "b")"});
  CHECK(Diff("args: [a, b]", "args: [b, a]") == Lines{R"(~ args[0]: "a" -> "b")", R"(~ args[1]: "b" -> "a")"});
  // Duplicate names.
  CHECK(Diff("env: [{name: A, value: '1'}, {name: A, value: '2'}]", "env: [{name: A, value: '2'}, {name: A}]") ==
        Lines{R"(~ env[0].value: "1" -> "2")", R"(- env[1].value: "2")"});
  // An item without the key, on one side only.
  CHECK(Diff("tolerations: [{name: a}]", "tolerations: [{key: a}]") ==
        Lines{R"(+ tolerations[0].key: "a")", R"(- tolerations[0].name: "a")"});
  // Keys of different types are different keys.
  CHECK(Diff("ports: [{containerPort: 80}]", "ports: [{containerPort: '80'}]") ==
        Lines{"- ports[containerPort=80]: {containerPort: 80}", R"(+ ports[containerPort=80]: {containerPort: "80"})"});
}

TEST_CASE("DiffObjects: objects pair by identity whatever their position") {
  std::vector<Tree> from = {
      Yaml("{apiVersion: v1, kind: ConfigMap, metadata: {namespace: ns, name: a}, data: {x: '1'}}"),
      Yaml("{apiVersion: v1, kind: Secret, metadata: {namespace: ns, name: b}}"),
      Yaml("{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, metadata: {namespace: ns, name: c}, spec: {x: 1}}"),
      Yaml("{apiVersion: v1, kind: ConfigMap, metadata: {namespace: other, name: a}}"),
  };
  std::vector<Tree> to = {
      Yaml("{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, metadata: {namespace: ns, name: c}, spec: {x: 2}}"),
      Yaml("{apiVersion: v1, kind: ConfigMap, metadata: {namespace: ns, name: d}}"),
      Yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ns}, data: {x: '1'}}"),
      Yaml("{apiVersion: v2, kind: ConfigMap, metadata: {namespace: other, name: a}}"),
  };
  std::vector<ObjectDiff> diffs = DiffObjects(from, to);
  std::vector<std::string> shown;
  for (const ObjectDiff& d : diffs) shown.push_back(std::string(ChangeTypeName(d.type)) + " " + d.id.Label());
  CHECK(shown == Lines{"UNCHANGED ConfigMap ns/a", "REMOVE Secret ns/b", "MODIFY JobSet ns/c",
                       "REMOVE ConfigMap other/a", "ADD ConfigMap ns/d", "ADD ConfigMap other/a"});
  REQUIRE(diffs.size() == 6);
  CHECK(diffs[0].from == &from[0]);
  CHECK(diffs[0].to == &to[2]);
  CHECK(diffs[1].to == nullptr);
  CHECK(Show(diffs[2].changes) == Lines{"~ spec.x: 1 -> 2"});
  CHECK(diffs[4].from == nullptr);
  CHECK(diffs[4].to == &to[1]);
  CHECK(diffs[5].id.api_version == "v2");
}

TEST_CASE("DiffObjects: objects sharing one identity pair in order of occurrence") {
  std::vector<Tree> from = {Yaml("{kind: Pod, metadata: {name: p}, n: 1}"),
                            Yaml("{kind: Pod, metadata: {name: p}, n: 2}")};
  std::vector<Tree> to = {Yaml("{kind: Pod, metadata: {name: p}, n: 1}")};
  std::vector<ObjectDiff> diffs = DiffObjects(from, to);
  REQUIRE(diffs.size() == 2);
  CHECK(diffs[0].type == ChangeType::kUnchanged);
  CHECK(diffs[1].type == ChangeType::kRemove);
  CHECK(diffs[1].id.Label() == "Pod p");
}

TEST_CASE("ObjectId labels hold a name with a break or a control Printable, as a whole") {
  CHECK(ObjectId::Of(Yaml("{kind: JobSet, metadata: {namespace: ml-team, name: quickstart}}")).Label() ==
        "JobSet ml-team/quickstart");
  CHECK(ObjectId::Of(Yaml(R"({kind: JobSet, metadata: {namespace: "ml\u2028", name: "j\n::error ::x\e[2J\a"}})"))
            .Label() == R"(JobSet ml\u2028/j\n::error ::x\x1b[2J\a)");
  CHECK(ObjectId::Of(Yaml(R"({kind: "Conf\rigMap", metadata: {name: "a\\b"}})")).Label() == R"(Conf\rigMap a\\b)");
  CHECK(ObjectId{"v1", "", "", "a\xff"}.Label() == R"(object a\xff)");
}

TEST_CASE("diff paths: the report form quotes keys and values that are not plain") {
  Path path = {PathSegment::Key("metadata"), PathSegment::Key("labels"), PathSegment::Key("app.kubernetes.io/name")};
  CHECK(FormatPath(path) == R"(metadata.labels["app.kubernetes.io/name"])");
  CHECK(FormatPath({PathSegment::Key("a b"), PathSegment::Key("c_d-1")}) == R"(["a b"].c_d-1)");
  CHECK(FormatPath({PathSegment::Key("say \"hi\"\\\n")}) == R"(["say \"hi\"\\\n"])");
  CHECK(FormatPath({PathSegment::Key(""), PathSegment::Key("\x01")}) == R"([""]["\x01"])");
  CHECK(FormatPath({PathSegment::Key("args"), PathSegment::Index(2)}) == "args[2]");
  CHECK(FormatPath({PathSegment::Key("volumeMounts"), PathSegment::Item("mountPath", "/data/x.y:z@1+2", 0, 0)}) ==
        "volumeMounts[mountPath=/data/x.y:z@1+2]");
  CHECK(FormatPath({PathSegment::Key("env"), PathSegment::Item("name", "a b]", 0, 0)}) == R"(env[name="a b]"])");
  CHECK(FormatPath({PathSegment::Key("env"), PathSegment::Item("name", "", 0, 0)}) == R"(env[name=""])");
  CHECK(FormatPath({PathSegment::Index(0), PathSegment::Key("x")}) == "[0].x");
  CHECK(FormatPath({}).empty());
}

TEST_CASE("diff paths: JSON pointers escape ~ and / and use the index on the side where the item exists") {
  Path path = {PathSegment::Key("metadata"), PathSegment::Key("annotations"), PathSegment::Key("a/b~c")};
  CHECK(FormatJsonPointer(path, Side::kTo) == "/metadata/annotations/a~1b~0c");
  CHECK(FormatJsonPointer({}, Side::kTo).empty());

  const char* from = "env: [{name: A, value: '1'}, {name: B, value: '2'}, {name: C, value: '3'}]";
  const char* to = "env: [{name: D, value: '4'}, {name: B, value: '5'}, {name: A, value: '1'}]";
  std::vector<FieldChange> changes = DiffTrees(Yaml(from), Yaml(to));
  std::vector<std::string> pointers;
  for (const FieldChange& c : changes) pointers.push_back(FormatPath(c.path) + " " + c.Pointer());
  CHECK(pointers == Lines{"env /env", "env[name=B].value /env/1/value", "env[name=C] /env/2", "env[name=D] /env/0"});
  REQUIRE(changes.size() == 4);
  CHECK(FormatJsonPointer(changes[2].path, Side::kTo) == "/env/2");  // absent in `to`: its `from` index
  CHECK(changes[1].path[1] == PathSegment::Item("name", "B", 1, 1));
  CHECK(changes[2].path[1] == PathSegment::Item("name", "C", 2, PathSegment::kNoIndex));
  CHECK(changes[3].path[1] == PathSegment::Item("name", "D", PathSegment::kNoIndex, 0));

  // A removal inside a moved item points into the old document.
  changes = DiffTrees(Yaml("env: [{name: A, value: '1'}, {name: B, value: '2'}]"),
                      Yaml("env: [{name: B}, {name: A, value: '1'}]"));
  REQUIRE(changes.size() == 2);
  CHECK(Show(changes[1]) == R"(- env[name=B].value: "2")");
  CHECK(changes[1].Pointer() == "/env/1/value");
}

TEST_CASE("diff ignore rules: [*] matches any list item, by index or by key") {
  IgnoreRule rule = IgnoreRule::Parse("spec.replicatedJobs[*].template.spec.template.spec.containers[*].image");
  CHECK(rule.kind.empty());
  CHECK(rule.path.size() == 10);
  Path keyed = {
      PathSegment::Key("spec"),     PathSegment::Key("replicatedJobs"), PathSegment::Item("name", "node", 1, 1),
      PathSegment::Key("template"), PathSegment::Key("spec"),           PathSegment::Key("template"),
      PathSegment::Key("spec"),     PathSegment::Key("containers"),     PathSegment::Item("name", "node", 0, 0),
      PathSegment::Key("image")};
  CHECK(Matches(rule, "JobSet", keyed));
  Path indexed = keyed;
  indexed[2] = PathSegment::Index(3);
  CHECK(Matches(rule, "JobSet", indexed));
  Path other = keyed;
  other.back() = PathSegment::Key("command");
  CHECK(!Matches(rule, "JobSet", other));

  IgnoreRule exact = IgnoreRule::Parse("spec.replicatedJobs[name=node].template.spec.template.spec.containers[0]");
  CHECK(!Matches(exact, "JobSet", keyed));  // an index matches only a list compared by index
  CHECK(Matches(IgnoreRule::Parse("spec.replicatedJobs[name=node]"), "JobSet", indexed) == false);
  CHECK(Matches(IgnoreRule::Parse("spec.replicatedJobs[3]"), "JobSet", indexed));
  CHECK(Matches(IgnoreRule::Parse("ports[containerPort=8080]"), "Pod",
                {PathSegment::Key("ports"), PathSegment::Item("containerPort", "8080", 0, 0)}));
}

TEST_CASE("diff ignore rules: a Kind: prefix limits a rule to one kind") {
  IgnoreRule rule =
      IgnoreRule::Parse("JobSet:spec.replicatedJobs[*].template.spec.template.spec.containers[name=node].image");
  CHECK(rule.kind == "JobSet");
  CHECK(rule.pattern == "JobSet:spec.replicatedJobs[*].template.spec.template.spec.containers[name=node].image");
  Path path = {
      PathSegment::Key("spec"),     PathSegment::Key("replicatedJobs"), PathSegment::Item("name", "launcher", 0, 0),
      PathSegment::Key("template"), PathSegment::Key("spec"),           PathSegment::Key("template"),
      PathSegment::Key("spec"),     PathSegment::Key("containers"),     PathSegment::Item("name", "node", 0, 0),
      PathSegment::Key("image")};
  CHECK(Matches(rule, "JobSet", path));
  CHECK(!Matches(rule, "TrainJob", path));
  CHECK(!Matches(rule, "jobset", path));
  // A colon inside a quoted key or a value is not a kind.
  CHECK(IgnoreRule::Parse(R"(metadata.annotations["a:b"])").kind.empty());
  CHECK(IgnoreRule::Parse("volumeMounts[mountPath=/a:b]").kind.empty());
}

TEST_CASE("diff ignore rules: a rule matches its path and below it, not above it") {
  IgnoreRule rule = IgnoreRule::Parse("spec.template.spec.containers[name=node]");
  Path container = {PathSegment::Key("spec"), PathSegment::Key("template"), PathSegment::Key("spec"),
                    PathSegment::Key("containers"), PathSegment::Item("name", "node", 0, 0)};
  Path image = container;
  image.push_back(PathSegment::Key("image"));
  Path env_value = container;
  env_value.insert(env_value.end(),
                   {PathSegment::Key("env"), PathSegment::Item("name", "A", 0, 0), PathSegment::Key("value")});
  Path list = {PathSegment::Key("spec"), PathSegment::Key("template"), PathSegment::Key("spec"),
               PathSegment::Key("containers")};
  CHECK(Matches(rule, "Pod", container));
  CHECK(Matches(rule, "Pod", image));
  CHECK(Matches(rule, "Pod", env_value));
  CHECK(!Matches(rule, "Pod", list));  // a reordering of the containers is still reported
  CHECK(!Matches(IgnoreRule::Parse("spec.template.spec.containers[name=node].image"), "Pod", container));
  CHECK(!Matches(IgnoreRule::Parse("spec.templates"), "Pod", image));  // segments, not text
}

TEST_CASE("diff ignore rules: every report path parses back as a rule that matches it") {
  const char* from = R"(
metadata: {labels: {"app.kubernetes.io/name": a, "x y": b, "q\"\\": c}}
spec:
  containers:
  - name: "a b]"
    args: [x, y]
    volumeMounts: [{name: v, mountPath: "/data/x y"}]
    ports: [{containerPort: 80}]
)";
  const char* to = R"(
metadata: {labels: {"app.kubernetes.io/name": b, "x y": c, "q\"\\": d}}
spec:
  containers:
  - name: "a b]"
    args: [x, z]
    volumeMounts: [{name: w, mountPath: "/data/x y"}]
    ports: [{containerPort: 80, protocol: UDP}]
)";
  std::vector<FieldChange> changes = DiffTrees(Yaml(from), Yaml(to));
  CHECK(changes.size() == 6);
  for (const FieldChange& c : changes) {
    std::string text = FormatPath(c.path);
    CAPTURE(text);
    IgnoreRule rule = IgnoreRule::Parse(text);
    CHECK(FormatPath(rule.path) == text);
    CHECK(Matches(rule, "Pod", c.path));
  }
}

TEST_CASE("diff paths: a printed path reads back as the same path") {
  Path path = {PathSegment::Key("metadata"), PathSegment::Key("annotations"),
               PathSegment::Key(std::string("say \"hi\"\\\a\b\f\n\r\t\v\0\x1b\x7f", 19)),
               PathSegment::Key("caf\u00e9\u0085\u2028\U0001f680\xff"),
               PathSegment::Item("name", "a]\x01\u00a0", 0, 0)};
  std::string text = FormatPath(path);
  CHECK(text == R"(metadata.annotations["say \"hi\"\\\a\b\f\n\r\t\v\x00\x1b\x7f"])"
                "[\"caf\u00e9\\u0085\\u2028\U0001f680\\xff\"][name=\"a]\\x01\\u00a0\"]");
  Path read = IgnoreRule::Parse(text).path;
  for (PathSegment& s : path) s.from_index = s.to_index = PathSegment::kNoIndex;
  CHECK(read == path);
}

TEST_CASE("diff ignore rules: quoted keys take strconv.Unquote's escapes") {
  CHECK(IgnoreRule::Parse(R"(["\a\b\f\n\r\t\v\\\"\x41\xff\u00e9\U0001F680"])").path ==
        Path{PathSegment::Key("\a\b\f\n\r\t\v\\\"A\xff\u00e9\U0001f680")});
  CHECK(IgnoreRule::Parse(R"(["\u0041"])").path == Path{PathSegment::Key("A")});
  CHECK(ParseError(R"(["\ud800"])") ==
        R"(invalid ignore pattern "["\ud800"]": '\ud800' is not a Unicode character at column 3)");
  CHECK(ParseError(R"(["\U00110000"])") ==
        R"(invalid ignore pattern "["\U00110000"]": '\U00110000' is not a Unicode character at column 3)");
  CHECK(ParseError(R"(["\x4"])") ==
        R"(invalid ignore pattern "["\x4"]": expected two hex digits after \x at column 6)");
  CHECK(ParseError(R"(["\u12g4"])") ==
        R"(invalid ignore pattern "["\u12g4"]": expected four hex digits after \u at column 7)");
}

TEST_CASE("FlowValue prints scalars plain unless they would read back as another type or hide a character") {
  CHECK(FlowValue(Tree::String("busybox:1.36")) == "busybox:1.36");
  CHECK(FlowValue(Tree::String("-c")) == "-c");
  CHECK(FlowValue(Tree::String("echo ready")) == "echo ready");
  CHECK(FlowValue(Tree::String("caf\u00e9 \U0001f680")) == "caf\u00e9 \U0001f680");
  CHECK(FlowValue(Tree::String("1")) == "\"1\"");
  CHECK(FlowValue(Tree::String("true")) == "\"true\"");
  CHECK(FlowValue(Tree::String("")) == "\"\"");
  CHECK(FlowValue(Tree::String("a: b")) == "\"a: b\"");
  CHECK(FlowValue(Tree::String("two\nlines")) == "\"two\\nlines\"");
  CHECK(FlowValue(Tree::String("say \"hi\"")) == R"("say \"hi\"")");
  CHECK(FlowValue(Tree::String("a\u2028b\u0085\b")) == R"("a\u2028b\u0085\b")");
  CHECK(FlowValue(Tree::Int(3)) == "3");
  CHECK(FlowValue(Tree::Null()) == "null");
  CHECK(FlowValue(Yaml("{b: 1, a: [x, '2'], 'c d': {}}")) == "{a: [x, \"2\"], b: 1, c d: {}}");
}

TEST_CASE("diff ignore rules: an invalid pattern is an error naming it") {
  CHECK(ParseError("") == R"(invalid ignore pattern "": the pattern is empty)");
  CHECK(
      ParseError("spec..image") ==
      R"(invalid ignore pattern "spec..image": expected a key instead of '.' (quote other keys: ["a.b"]) at column 6)");
  CHECK(ParseError("spec.") == R"(invalid ignore pattern "spec.": expected a key at column 6)");
  CHECK(
      ParseError("spec.containers[") ==
      R"(invalid ignore pattern "spec.containers[": expected "key", *, an index or field=value after '[' at column 17)");
  CHECK(ParseError("spec.containers[name=node") ==
        R"(invalid ignore pattern "spec.containers[name=node": expected ']' at column 26)");
  CHECK(
      ParseError("spec.containers[name=]") ==
      R"(invalid ignore pattern "spec.containers[name=]": expected a value after '=' (quote other values: [name="a b"]) at column 22)");
  CHECK(ParseError("spec.containers[name]") ==
        R"(invalid ignore pattern "spec.containers[name]": expected '=' instead of ']' at column 21)");
  CHECK(ParseError("metadata.labels[\"a") ==
        R"(invalid ignore pattern "metadata.labels["a": unterminated string at column 17)");
  CHECK(ParseError("metadata.labels[\"\\q\"]") ==
        R"(invalid ignore pattern "metadata.labels["\q"]": unknown escape '\q' at column 18)");
  CHECK(ParseError("JobSet:") == R"(invalid ignore pattern "JobSet:": expected a path after the kind at column 8)");
  CHECK(ParseError(":spec") ==
        R"(invalid ignore pattern ":spec": expected a kind such as JobSet before ':' at column 1)");
  CHECK(ParseError("Job-Set:spec") ==
        R"(invalid ignore pattern "Job-Set:spec": expected a kind such as JobSet before ':' at column 1)");
  CHECK(ParseError("spec.image x") ==
        R"(invalid ignore pattern "spec.image x": expected '.' or '[' instead of ' ' at column 11)");
  CHECK(ParseError("args[99999999999999999999999]") ==
        R"(invalid ignore pattern "args[99999999999999999999999]": list index too large at column 6)");
}

TEST_CASE("diff ignore rules: applying them drops matched changes and counts them") {
  std::vector<Tree> from = {
      Yaml("{kind: JobSet, metadata: {name: j}, spec: {image: a, replicas: 1}}"),
      Yaml("{kind: Pod, metadata: {name: p}, spec: {image: a}}"),
      Yaml("{kind: ConfigMap, metadata: {name: gone}}"),
  };
  std::vector<Tree> to = {
      Yaml("{kind: JobSet, metadata: {name: j}, spec: {image: b, replicas: 1}}"),
      Yaml("{kind: Pod, metadata: {name: p}, spec: {image: b}}"),
  };
  std::vector<ObjectDiff> diffs = DiffObjects(from, to);
  ApplyIgnoreRules({IgnoreRule::Parse("JobSet:spec.image"), IgnoreRule::Parse("metadata")}, diffs);
  REQUIRE(diffs.size() == 3);
  CHECK(diffs[0].type == ChangeType::kUnchanged);
  CHECK(diffs[0].ignored == 1);
  CHECK(diffs[1].type == ChangeType::kModify);
  CHECK(diffs[1].ignored == 0);
  CHECK(diffs[2].type == ChangeType::kRemove);  // whole objects are never ignored
}

TEST_CASE("DiffTrees: equal lists and maps in any key order are equal; a reversed keyed list is one reorder") {
  constexpr int kItems = 10;
  Tree keyed = Tree::List();
  Tree reversed = Tree::List();
  Tree scalars = Tree::List();
  Tree map = Tree::Map();
  for (int i = 0; i < kItems; ++i) {
    Tree item = Tree::Map();
    item.Set("name", Tree::String("var-" + std::to_string(i)));
    item.Set("value", Tree::String(std::to_string(i)));
    keyed.Append(item);
    scalars.Append(Tree::Int(i));
    map.Set("key-" + std::to_string(i), Tree::Int(i));
  }
  for (int i = kItems; i-- > 0;) reversed.Append(keyed.items()[static_cast<std::size_t>(i)]);
  Tree map_reversed = Tree::Map();
  for (std::size_t i = map.size(); i-- > 0;) map_reversed.Set(map.KeyAt(i), map.items()[i]);
  Tree changed_map = map;
  changed_map.Set("key-5", Tree::Int(-1));

  CHECK(DiffTrees(keyed, keyed).empty());
  CHECK(DiffTrees(scalars, scalars).empty());
  CHECK(DiffTrees(map, map_reversed).empty());
  std::vector<FieldChange> changes = DiffTrees(keyed, reversed);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].kind == FieldChange::Kind::kReordered);
  CHECK(changes[0].to->items().size() == kItems);
  CHECK(Show(DiffTrees(map, changed_map)) == Lines{"~ key-5: 5 -> -1"});
}

}  // namespace trainer
