#include "k8s/server_side_apply.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../tests/fixtures.h"
#include "util/error.h"

namespace trainer {
namespace {

using testing::Text;
using testing::Yaml;

const std::vector<ApplyRule> kRules = {
    {"items", ApplyKind::kMapList, {{"name"}}},
    {"items[].env", ApplyKind::kMapList, {{"name"}}},
    {"ports", ApplyKind::kMapList, {{"containerPort"}, {"protocol", "TCP"}}},
    {"tags", ApplyKind::kSetList, {}},
    {"x.tags", ApplyKind::kSetList, {}},
    {"selector", ApplyKind::kAtomicMap, {}},
};

std::string Apply(const char* live, const char* applied) {
  static const ApplySchema schema(kRules);
  return Text(ApplyOnto(Yaml(live), Yaml(applied), schema));
}

std::string Names(const char* live, const char* applied) {
  const Tree out = ApplyOnto(Yaml(live), Yaml(applied), ApplySchema(kRules));
  std::string names;
  for (const Tree& item : out.Find("items")->items()) names += *item.FindString("name") + " ";
  return names;
}

std::string Refusal(const char* live, const char* applied) {
  try {
    ApplyOnto(Yaml(live), Yaml(applied), ApplySchema(kRules));
  } catch (const Error& e) {
    return e.diagnostics().at(0).Format();
  }
  return "no error";
}

}  // namespace

TEST_CASE("apply merges by the rules of the schema") {
  struct Case {
    const char* name;
    const char* live;
    const char* applied;
    const char* want;
  };
  const Case cases[] = {
      {"the applied scalars win, fields the apply does not carry stay", "{a: 1, b: x, c: true}", "{a: 2, d: z}",
       "a: 2\nb: x\nc: true\nd: z\n"},
      {"nested maps merge key by key", "{m: {a: 1, inner: {b: 2, c: 3}}}", "{m: {inner: {c: 4, d: 5}}}",
       "m:\n  a: 1\n  inner:\n    b: 2\n    c: 4\n    d: 5\n"},
      {"an atomic map is replaced whole", "{selector: {a: '1', b: '2'}}", "{selector: {c: '3'}}",
       "selector:\n  c: \"3\"\n"},
      {"a list without a list type is replaced whole", "{args: [a, b, c], items: []}", "{args: [d]}",
       "args:\n- d\nitems: []\n"},
      {"a map list merges item by item on its key, keeping live-only items and fields",
       "{items: [{name: a, image: old, port: 1}, {name: b, image: b}]}", "{items: [{name: a, image: new}]}",
       "items:\n- image: new\n  name: a\n  port: 1\n- image: b\n  name: b\n"},
      {"map lists nested in map-list items merge too",
       "{items: [{name: a, env: [{name: E1, value: '1'}, {name: E2, value: '2'}]}]}",
       "{items: [{name: a, env: [{name: E2, value: two}, {name: E3, value: '3'}]}]}",
       "items:\n- env:\n  - name: E1\n    value: \"1\"\n  - name: E2\n    value: two\n  - name: E3\n    value: \"3\"\n "
       " "
       "name: a\n"},
      {"a compound key matches with the CRD default for an omitted key; shared items take the applied order",
       "{ports: [{containerPort: 80, protocol: TCP, name: http}, {containerPort: 80, protocol: UDP, name: dns}]}",
       "{ports: [{containerPort: 80, protocol: UDP, hostPort: 53}, {containerPort: 80, name: web}, {containerPort: "
       "8080}]}",
       "ports:\n- containerPort: 80\n  hostPort: 53\n  name: dns\n  protocol: UDP\n- containerPort: 80\n  name: web\n  "
       "protocol: TCP\n- containerPort: 8080\n"},
      {"a set takes the union, in the merged order of a map list", "{tags: [1, 3, 5]}", "{tags: [2, 3]}",
       "tags:\n- 1\n- 2\n- 3\n- 5\n"},
      {"a key the live list holds twice leaves one item, the applied one",
       "{items: [{name: a, v: 1}, {name: b}, {name: a, v: 2}]}", "{items: [{name: a, w: 3}]}",
       "items:\n- name: a\n  w: 3\n- name: b\n"},
      {"a null is a leaf, unless a granular map or list holds something",
       "{a: 1, m: {k: v}, selector: {k: v}, items: [{name: a}], e: {}}",
       "{a: null, m: null, selector: null, items: null, e: null, f: null}",
       "a: null\ne: null\nf: null\nitems:\n- name: a\nm:\n  k: v\nselector: null\n"},
      {"where both sides are empty the applied empty map or list stays", "{m: null, items: null}", "{m: {}, items: []}",
       "items: []\nm: {}\n"},
      {"a map key with a dot does not reach another field's rule", "{x.tags: [1]}", "{x.tags: [2]}", "x.tags:\n- 2\n"},
      {"the rule of that field", "{x: {tags: [1]}}", "{x: {tags: [2]}}", "x:\n  tags:\n  - 1\n  - 2\n"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(Apply(c.live, c.applied) == c.want);
  }
}

TEST_CASE("apply orders a merged map list as structured-merge-diff does") {
  const char* live = "{items: [{name: a}, {name: b}, {name: c}]}";
  CHECK(Names(live, "{items: [{name: c}, {name: d}]}") == "a b c d ");
  CHECK(Names(live, "{items: [{name: x}, {name: a}]}") == "x a b c ");
  CHECK(Names(live, "{items: [{name: n1}, {name: b}, {name: n2}]}") == "a n1 b c n2 ");
  // Shared items in another order: the applied order wins, live-only items stay before them.
  CHECK(Names(live, "{items: [{name: c}, {name: a}]}") == "b c a ");
  CHECK(Names(live, "{items: [{name: c}, {name: new}, {name: b}]}") == "a c new b ");
  CHECK(Names("{}", "{items: [{name: b}, {name: a}]}") == "b a ");
  // A key held twice live: one item, in the applied order.
  CHECK(Names("{items: [{name: a}, {name: b}, {name: a}]}", "{items: [{name: a}, {name: new}, {name: b}]}") ==
        "a new b ");
}

TEST_CASE("apply refuses what the API server refuses, naming the field") {
  CHECK(Refusal("{}", "{items: [{name: a}, {name: a}]}") ==
        "test.yaml:1:21: items[1]: duplicate entries for key [name=\"a\"]");
  CHECK(Refusal("{}", "{tags: [a, a]}") == "test.yaml:1:12: tags[1]: duplicate entries for key [=\"a\"]");
  CHECK(Refusal("{items: [{image: x}]}", "{items: [{name: a}]}") ==
        "test.yaml:1:10: items[0]: associative list with keys has an element that omits all key fields [\"name\"] "
        "(and doesn't have default values for any key fields)");
  CHECK(Refusal("{}", "{tags: [{a: 1}]}") ==
        "test.yaml:1:9: tags[0]: associative list without keys has an element that's a map type");
}

TEST_CASE("apply of a JobSet with a new image keeps the live-only fields") {
  const char* live = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: job
  uid: 1234
  labels: {team: a}
spec:
  replicatedJobs:
  - name: node
    replicas: 1
    template:
      spec:
        template:
          spec:
            nodeSelector: {pool: old}
            containers:
            - name: node
              image: old
              ports: [{containerPort: 29500, protocol: TCP}]
            - name: sidecar
              image: side
status:
  conditions: [{type: Ready, status: 'True'}]
)";
  const char* applied = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: job
spec:
  replicatedJobs:
  - name: node
    template:
      spec:
        template:
          spec:
            nodeSelector: {pool: new}
            containers:
            - name: node
              image: new
              ports: [{containerPort: 29500, protocol: TCP}]
)";
  CHECK(Text(ApplyOnto(Yaml(live), Yaml(applied), JobSetApplySchema())) == R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  labels:
    team: a
  name: job
  uid: 1234
spec:
  replicatedJobs:
  - name: node
    replicas: 1
    template:
      spec:
        template:
          spec:
            containers:
            - image: new
              name: node
              ports:
              - containerPort: 29500
                protocol: TCP
            - image: side
              name: sidecar
            nodeSelector:
              pool: new
status:
  conditions:
  - status: "True"
    type: Ready
)");
}

}  // namespace trainer
