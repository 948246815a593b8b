#include "k8s/strategic_merge.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../tests/fixtures.h"

namespace trainer {
namespace {

using testing::Yaml;

// A pod template patched as kubectl patch --type strategic would patch a Job's.
Tree PatchPod(const char* original, const char* patch) {
  Tree pod = Yaml(original);
  StrategicMerge(pod, Yaml(patch), PodTemplateSpecMergeLists());
  return pod;
}

std::string Names(const Tree& pod, const char* list = "containers") {
  std::string out;
  for (const Tree& c : pod.Find("spec")->Find(list)->items()) out += *c.FindString("name") + " ";
  return out;
}

constexpr const char* kThree = "spec: {containers: [{name: A, image: a}, {name: B, image: b}, {name: C, image: c}]}";

}  // namespace

TEST_CASE("strategic merge orders merged container lists as kubectl does") {
  struct Case {
    std::vector<const char*> patch;
    const char* names;
  };
  // ../shared/docs/runtime-patches-and-quantities.md A.2, each row observed with kubectl 1.32.
  const Case cases[] = {
      {{"D"}, "D A B C "},        {{"B"}, "A B C "},     {{"B", "D"}, "A B D C "},
      {{"A", "D"}, "A D B C "},   {{"C", "D"}, "A B C D "}, {{"D", "B"}, "D A B C "},
      {{"C", "A"}, "B C A "},     {{"N1", "B", "N2"}, "N1 A B N2 C "},
  };
  for (const Case& c : cases) {
    std::string patch = "spec: {containers: [";
    for (std::size_t i = 0; i < c.patch.size(); ++i) patch += (i ? ", {name: " : "{name: ") + std::string(c.patch[i]) + "}";
    patch += "]}";
    CAPTURE(patch);
    CHECK(Names(PatchPod(kThree, patch.c_str())) == c.names);
  }
}

TEST_CASE("strategic merge merges env by name in place and appends new names after their patch neighbours") {
  Tree pod = PatchPod("spec: {containers: [{name: c1, env: [{name: E1, value: '1'}, {name: E2, value: '2'}, {name: E3, value: '3'}]}]}",
                      "spec: {containers: [{name: c1, env: [{name: E2, value: two}, {name: E4, value: '4'}]}]}");
  const Tree& env = *pod.Find("spec")->Find("containers")->items()[0].Find("env");
  REQUIRE(env.items().size() == 4);
  CHECK(*env.items()[0].FindString("name") == "E1");
  CHECK(*env.items()[1].FindString("value") == "two");
  CHECK(*env.items()[2].FindString("name") == "E4");
  CHECK(*env.items()[3].FindString("name") == "E3");
}

TEST_CASE("strategic merge merges maps key by key and replaces lists without a merge strategy") {
  Tree pod = PatchPod(
      "spec: {nodeSelector: {zone: a, disk: ssd}, tolerations: [{key: k1}], securityContext: {runAsUser: 1, fsGroup: 2, "
      "supplementalGroups: [1, 2]}, containers: [{name: c, securityContext: {capabilities: {add: [NET_ADMIN], drop: [ALL]}}}]}",
      "spec: {nodeSelector: {gpu: a100}, tolerations: [{key: k2}], securityContext: {runAsUser: 0, supplementalGroups: [3]}, "
      "containers: [{name: c, securityContext: {capabilities: {add: [SYS_ADMIN]}}}]}");
  const Tree& spec = *pod.Find("spec");
  CHECK(spec.Find("nodeSelector")->size() == 3);
  CHECK(spec.Find("tolerations")->items().size() == 1);
  CHECK(*spec.Find("tolerations")->items()[0].FindString("key") == "k2");
  const Tree& sc = *spec.Find("securityContext");
  CHECK(sc.Find("runAsUser")->AsInt() == 0);
  CHECK(sc.Find("fsGroup")->AsInt() == 2);
  CHECK(sc.Find("supplementalGroups")->items().size() == 1);
  const Tree& caps = *spec.Find("containers")->items()[0].Find("securityContext")->Find("capabilities");
  CHECK(caps.Find("add")->items()[0].text() == "SYS_ADMIN");
  CHECK(caps.Find("drop")->items()[0].text() == "ALL");
}

TEST_CASE("strategic merge keys volume mounts on mountPath and deep-merges volumes by name") {
  Tree pod = PatchPod(
      "spec: {volumes: [{name: data, emptyDir: {}}], containers: [{name: c, volumeMounts: [{name: data, mountPath: /data}]}]}",
      "spec: {volumes: [{name: data, persistentVolumeClaim: {claimName: pvc}}], containers: [{name: c, volumeMounts: [{name: "
      "data, mountPath: /other}]}]}");
  const Tree& spec = *pod.Find("spec");
  const Tree& volume = spec.Find("volumes")->items()[0];
  CHECK(volume.Find("emptyDir") != nullptr);
  CHECK(volume.Find("persistentVolumeClaim") != nullptr);
  const Tree& mounts = *spec.Find("containers")->items()[0].Find("volumeMounts");
  REQUIRE(mounts.items().size() == 2);
  CHECK(*mounts.items()[0].FindString("mountPath") == "/other");
  CHECK(*mounts.items()[1].FindString("mountPath") == "/data");
}

TEST_CASE("strategic merge unions scalar merge lists such as finalizers") {
  Tree pod = PatchPod("metadata: {finalizers: [a, b]}", "metadata: {finalizers: [c, a]}");
  std::string got;
  for (const Tree& f : pod.Find("metadata")->Find("finalizers")->items()) got += f.text();
  CHECK(got == "cab");  // c is new and leads the patch list, so it goes first; a keeps the patch order
}

TEST_CASE("strategic merge deletes a key whose patch value is null") {
  Tree pod = PatchPod("metadata: {labels: {app: demo, tier: x}}", "metadata: {labels: {tier: null}}");
  CHECK(pod.Find("metadata")->Find("labels")->size() == 1);
}

TEST_CASE("strategic merge takes a map the original lacks whole, without its null values") {
  Tree pod = PatchPod("metadata: {labels: {a: x, b: x}}", "metadata: {labels: {a: null, added: {inner: null}}}");
  const Tree& labels = *pod.Find("metadata")->Find("labels");
  REQUIRE(labels.size() == 2);
  CHECK(labels.KeyAt(0) == "b");
  CHECK(labels.Find("added")->size() == 0);
}

TEST_CASE("strategic merge refuses a merge-list item without its merge key, with upstream's message") {
  Tree pod = Yaml("spec: {imagePullSecrets: [{name: a}]}");
  try {
    StrategicMerge(pod, Yaml("spec: {imagePullSecrets: [{}]}"), PodTemplateSpecMergeLists());
    FAIL("expected an error");
  } catch (const StrategicMergeError& e) {
    CHECK(std::string(e.what()) == "map: map[] does not contain declared merge key: name");
    CHECK(e.path() == "spec.imagePullSecrets[0]");
  }
}

TEST_CASE("strategic merge keeps the origin of values taken from the patch") {
  Tree pod = PatchPod(kThree, "spec: {containers: [{name: B, image: patched}]}");
  const Tree& b = pod.Find("spec")->Find("containers")->items()[1];
  CHECK(b.Find("image")->origin().line == 1);
  CHECK(b.Find("image")->text() == "patched");
}

TEST_CASE("GoValueString prints maps with sorted keys as Go's %v does") {
  CHECK(GoValueString(Yaml("{b: [x, 1], a: {c: true}}")) == "map[a:map[c:true] b:[x 1]]");
}

}  // namespace trainer
