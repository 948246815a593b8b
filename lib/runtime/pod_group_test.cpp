#include "runtime/pod_group.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/fixtures.h"
#include "tests/golden.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;

// Each resource of `list` as its printed text.
std::map<std::string, std::string> Texts(const ResourceList& list) {
  std::map<std::string, std::string> out;
  for (const auto& [name, q] : list) out.emplace(name, q.String());
  return out;
}

PodSet NewPodSet(std::int32_t count, const char* pod_spec) {
  PodSet ps;
  ps.count = count;
  ps.single_pod_requests = PodRequests(Yaml(pod_spec));
  return ps;
}

}  // namespace

// resourcehelpers.PodRequests (component-helpers v0.36.3 resource/helpers.go), the single-pod
// requests the PodGroup sums are made of.

TEST_CASE("PodRequests sums container requests and ignores limits") {
  CHECK(Texts(PodRequests(Yaml(R"(
containers:
- {name: a, resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: "8"}}}
- {name: b, resources: {requests: {cpu: 500m}}}
- {name: c, resources: {limits: {nvidia.com/gpu: "1"}}}
)"))) == std::map<std::string, std::string>{{"cpu", "1500m"}, {"memory", "1Gi"}});
}

TEST_CASE("PodRequests takes the larger of the containers' sum and any init container") {
  CHECK(Texts(PodRequests(Yaml(R"(
containers:
- {name: a, resources: {requests: {cpu: "1"}}}
- {name: b, resources: {requests: {cpu: "2"}}}
initContainers:
- {name: init, resources: {requests: {cpu: "4"}}}
)"))) == std::map<std::string, std::string>{{"cpu", "4"}});
}

TEST_CASE("PodRequests adds sidecars to the containers and to every later init container") {
  CHECK(Texts(PodRequests(Yaml(R"(
containers:
- {name: a, resources: {requests: {cpu: "2"}}}
initContainers:
- {name: sidecar, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
- {name: init, resources: {requests: {cpu: "2.5"}}}
)"))) == std::map<std::string, std::string>{{"cpu", "3500m"}});
  // memory: containers 1Gi + sidecars 100Mi + 50Mi = 1174Mi; the init container's phase needs
  // 2Gi + 100Mi = 2148Mi (only the sidecar started before it). cpu: 2 + 0.5 + 1 = 3.5.
  CHECK(Texts(PodRequests(Yaml(R"(
containers:
- {name: a, resources: {requests: {cpu: "2", memory: 1Gi}}}
initContainers:
- {name: s1, restartPolicy: Always, resources: {requests: {cpu: 500m, memory: 100Mi}}}
- {name: init, resources: {requests: {cpu: 500m, memory: 2Gi}}}
- {name: s2, restartPolicy: Always, resources: {requests: {cpu: "1", memory: 50Mi}}}
)"))) == std::map<std::string, std::string>{{"cpu", "3500m"}, {"memory", "2148Mi"}});
}

TEST_CASE("PodRequests lets pod-level cpu, memory and hugepages requests replace the containers' and adds overhead") {
  CHECK(Texts(PodRequests(Yaml(R"(
resources:
  requests: {cpu: "4", memory: 3Gi, hugepages-2Mi: 1Gi, nvidia.com/gpu: "2"}
containers:
- {name: a, resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1", ephemeral-storage: 1G}}}
overhead: {cpu: 250m, memory: 64Mi}
)"))) == std::map<std::string, std::string>{{"cpu", "4250m"},
                                            {"ephemeral-storage", "1G"},
                                            {"hugepages-2Mi", "1Gi"},
                                            {"memory", "3136Mi"},
                                            {"nvidia.com/gpu", "1"}});
}

TEST_CASE("PodRequests without pod-level requests of a supported name keeps the containers' figure") {
  CHECK(Texts(PodRequests(Yaml(R"(
resources:
  requests: {nvidia.com/gpu: "2"}
  limits: {cpu: "1"}
containers:
- {name: a, resources: {requests: {cpu: "2"}}}
)"))) == std::map<std::string, std::string>{{"cpu", "2"}});
}

TEST_CASE("SumPodSets counts members and multiplies each PodSet's requests by its count") {
  std::vector<PodSet> pod_sets = {
      NewPodSet(1, "containers: [{name: a, resources: {requests: {cpu: 300m, memory: 1Gi}}}]"),
      NewPodSet(4, "containers: [{name: a, resources: {requests: {cpu: 500m, memory: 0.5Gi}}}]"),
  };
  PodGroupTotals totals = SumPodSets(pod_sets);
  CHECK(totals.min_member == 5);
  CHECK(Texts(totals.min_resources) == std::map<std::string, std::string>{{"cpu", "2300m"}, {"memory", "3Gi"}});
}

TEST_CASE("SumPodSets: Mul keeps the format and Add takes the first non-zero addend's") {
  CHECK(Texts(SumPodSets({NewPodSet(3, "containers: [{name: a, resources: {requests: {cpu: 500m, memory: 1536Mi}}}]")})
                  .min_resources) == std::map<std::string, std::string>{{"cpu", "1500m"}, {"memory", "4608Mi"}});
  CHECK(Texts(SumPodSets({NewPodSet(1, "containers: [{name: a, resources: {requests: {memory: 512Mi}}}]"),
                          NewPodSet(1, "containers: [{name: a, resources: {requests: {memory: 512M}}}]")})
                  .min_resources) == std::map<std::string, std::string>{{"memory", "1024288Ki"}});
  CHECK(Texts(SumPodSets({NewPodSet(1, "containers: [{name: a, resources: {requests: {memory: 512M}}}]"),
                          NewPodSet(1, "containers: [{name: a, resources: {requests: {memory: 512Mi}}}]")})
                  .min_resources) == std::map<std::string, std::string>{{"memory", "1048870912"}});
  // A zero request does not fix the format: the next PodSet's does.
  CHECK(Texts(SumPodSets({NewPodSet(2, "containers: [{name: a, resources: {requests: {memory: \"0\"}}}]"),
                          NewPodSet(2, "containers: [{name: a, resources: {requests: {memory: 1.5Gi}}}]")})
                  .min_resources) == std::map<std::string, std::string>{{"memory", "3Gi"}});
}

TEST_CASE("SumPodSets wraps minMember like Go's int32") {
  std::vector<PodSet> pod_sets(2);
  pod_sets[0].count = 2147483647;
  pod_sets[1].count = 2;
  CHECK(SumPodSets(pod_sets).min_member == -2147483647);
}

namespace {

// The json names of the PodGroup apply configurations upstream sends: scheduler-plugins v0.35.4
// pkg/generated/applyconfiguration/scheduling/v1alpha1 and volcano.sh/apis (46d20c0)
// pkg/client/applyconfiguration/scheduling/v1beta1.
const std::map<std::string, std::set<std::string>> kSpecFields = {
    {"scheduling.x-k8s.io/v1alpha1", {"minMember", "minResources", "scheduleTimeoutSeconds"}},
    {"scheduling.volcano.sh/v1beta1",
     {"minMember", "minTaskMember", "queue", "priorityClassName", "minResources", "networkTopology"}},
};

std::set<std::string> Keys(const Tree& map) {
  std::vector<std::string> keys = map.keys();
  return {keys.begin(), keys.end()};
}

void CheckPodGroup(const Tree& pg, const std::string& where) {
  INFO(where);
  const std::string* api_version = pg.FindString("apiVersion");
  REQUIRE(api_version != nullptr);
  auto fields = kSpecFields.find(*api_version);
  REQUIRE(fields != kSpecFields.end());
  CHECK(Keys(pg) == std::set<std::string>{"apiVersion", "kind", "metadata", "spec"});
  CHECK(Keys(*pg.Find("metadata")) == std::set<std::string>{"name", "namespace", "ownerReferences"});
  const Tree& spec = *pg.Find("spec");
  for (const std::string& key : spec.keys()) CHECK_MESSAGE(fields->second.count(key) == 1, key);
  // minMember is an int32 with minimum 1 in the scheduler-plugins CRD.
  REQUIRE(spec.Find("minMember") != nullptr);
  CHECK(spec.Find("minMember")->IsInt());
  CHECK(spec.Find("minMember")->AsInt() >= 1);
  const Tree* resources = spec.Find("minResources");
  REQUIRE(resources != nullptr);
  CHECK(resources->IsMap());
  for (const Tree& q : resources->items()) {
    // A canonical quantity: it parses and prints back unchanged.
    REQUIRE(q.IsString());
    std::optional<Quantity> parsed = Quantity::Parse(q.text());
    REQUIRE(parsed.has_value());
    CHECK(parsed->CanonicalString() == q.text());
  }
  if (const Tree* timeout = spec.Find("scheduleTimeoutSeconds")) CHECK(timeout->IsInt());
  for (const char* key : {"queue", "priorityClassName"}) {
    if (const Tree* value = spec.Find(key)) CHECK(value->IsString());
  }
  if (const Tree* topology = spec.Find("networkTopology")) {
    CHECK(Keys(*topology) == std::set<std::string>{"highestTierAllowed", "mode"});
    CHECK(topology->Find("highestTierAllowed")->IsInt());
    CHECK((topology->FindString("mode") &&
           (*topology->FindString("mode") == "hard" || *topology->FindString("mode") == "soft")));
  }
}

}  // namespace

TEST_CASE("Every rendered PodGroup has the shape of upstream's PodGroup apply configurations") {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const fs::path& dir : testing::RenderCases(fs::path(TRAINER_SOURCE_DIR) / "tests" / "cases")) {
    for (const char* name : {"current.yaml", "legacy.yaml"}) {
      fs::path path = dir / name;
      if (!fs::exists(path)) continue;
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      const std::string file = path.string();
      for (const Tree& object : ReadYamlStream(text.str(), &file)) {
        const std::string* kind = object.IsMap() ? object.FindString("kind") : nullptr;
        if (kind == nullptr || *kind != "PodGroup") continue;
        CheckPodGroup(object, file);
        ++checked;
      }
    }
  }
  // legacy.yaml is kept only where it differs from current.yaml, so each PodGroup counts about once.
  CHECK(checked >= 20);
}

}  // namespace trainer
