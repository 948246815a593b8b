#include "diff/next_apply.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "webhooks/jobset_webhook.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

const std::string kFile = "jobset.yaml";

// A JobSet of two replicatedJobs, launcher and node, as the controller applies it: `node_image` on
// the node container, `extra` appended to the spec (indented by two).
Tree Applied(std::string_view node_image, std::string_view extra = "", std::string_view pod_labels = "{}") {
  std::string yaml = std::string(R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: pi
  namespace: ml
spec:
  replicatedJobs:
  - name: launcher
    template:
      spec:
        template:
          spec:
            containers:
            - name: node
              image: app:2
  - name: node
    template:
      spec:
        template:
          metadata:
            labels: )") +
                     std::string(pod_labels) +
                     R"(
          spec:
            containers:
            - name: node
              image: )" +
                     std::string(node_image) + "\n" + std::string(extra);
  return ReadYamlStream(yaml, &kFile).at(0);
}

// The live JobSet the legacy controller left: the applied one as the webhooks defaulted it, with a
// status, suspended or not.
Tree Live(const Tree& applied, bool suspended) {
  Tree live = applied;
  ApplyJobSetSchemaDefaults(live);
  DefaultJobSet(live);
  live.Child("spec").Set("suspend", Tree::Bool(suspended));
  live.Child("status").Set("restarts", Tree::Int(0));
  return live;
}

}  // namespace

TEST_CASE("the controller's next apply on a live JobSet, as the JobSet webhook judges it") {
  const Tree legacy = Applied("rt:1");
  const Tree moved = Applied("app:2");  // the TrainJob image on the MPI nodes

  SUBCASE("a running JobSet: the suspend apply may not change an image, so the TrainJob's suspend is refused") {
    const Tree live = Live(legacy, false);
    NextApply next = PredictNextApply(LiveJobSet{&live, false}, legacy, moved);
    CHECK(next.refusals ==
          std::vector<std::string>{"spec.replicatedJobs: Invalid value: []v1alpha2.ReplicatedJob{...}: field is "
                                   "immutable"});
    CHECK(next.drift.empty());
    CHECK_FALSE(next.predicted_from_status);
  }
  SUBCASE("a suspended JobSet: its resume apply is refused alike") {
    const Tree live = Live(legacy, true);
    CHECK(PredictNextApply(LiveJobSet{&live, true}, legacy, moved).refusals.size() == 1);
  }
  SUBCASE("the same rendering both ways: the apply leaves the defaulted live JobSet as it is") {
    const Tree live = Live(legacy, false);
    NextApply next = PredictNextApply(LiveJobSet{&live, false}, legacy, legacy);
    CHECK(next.refusals.empty());
    CHECK(next.drift.empty());
    CHECK_FALSE(next.legacy_refused);
  }
  SUBCASE("pod-template labels may change while the JobSet is being suspended or is suspended") {
    const Tree labelled = Applied("rt:1", "", "{team: b}");
    const Tree running = Live(legacy, false);
    CHECK(PredictNextApply(LiveJobSet{&running, false}, legacy, labelled).refusals.empty());
    const Tree suspended = Live(legacy, true);
    CHECK(PredictNextApply(LiveJobSet{&suspended, true}, legacy, labelled).refusals.empty());
  }
  SUBCASE("the CRD's immutability rules: network may not change") {
    const Tree with_network = Applied("rt:1", "  network:\n    publishNotReadyAddresses: false\n");
    const Tree live = Live(legacy, true);
    NextApply next = PredictNextApply(LiveJobSet{&live, true}, legacy, with_network);
    REQUIRE(next.refusals.size() == 1);
    CHECK(next.refusals[0].starts_with("spec.network: Invalid value: "));
    CHECK(next.refusals[0].ends_with(": Value is immutable"));
  }
  SUBCASE("drift: the live JobSet was edited where the legacy apply sets a value") {
    Tree live = Live(Applied("rt:0"), true);  // the runtime's image was rt:0 when it was made
    NextApply next = PredictNextApply(LiveJobSet{&live, true}, legacy, moved);
    REQUIRE(next.drift.size() == 1);
    CHECK(FormatPath(next.drift[0].path) ==
          "spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image");
    CHECK(next.drift[0].from->text() == "rt:0");
    CHECK(next.drift[0].to->text() == "rt:1");
    CHECK(next.refusals.size() == 1);
    // The image drifted under spec.replicatedJobs: the legacy controller's resume is refused too.
    CHECK(next.legacy_refused);
  }
  SUBCASE("drift the webhook lets the legacy apply change: the upgrade alone blocks") {
    const Tree legacy_b = Applied("rt:1", "", "{team: b}");
    const Tree moved_b = Applied("app:2", "", "{team: b}");
    Tree live = Live(Applied("rt:1", "", "{team: a}"), true);  // suspended: pod-template labels may change
    NextApply next = PredictNextApply(LiveJobSet{&live, true}, legacy_b, moved_b);
    CHECK_FALSE(next.drift.empty());
    CHECK(next.refusals.size() == 1);
    CHECK_FALSE(next.legacy_refused);
  }
  SUBCASE("drift alone, without a change of the upgrade, blocks the TrainJob") {
    Tree live = Live(Applied("rt:0"), false);
    NextApply next = PredictNextApply(LiveJobSet{&live, false}, legacy, legacy);
    CHECK(next.refusals.size() == 1);
    CHECK(next.legacy_refused);
  }
  SUBCASE("predicted from status: the live JobSet is the legacy rendering as the webhooks defaulted it") {
    NextApply next = PredictNextApply(LiveJobSet{nullptr, false}, legacy, moved);
    CHECK(next.predicted_from_status);
    CHECK(next.refusals.size() == 1);
    CHECK(next.drift.empty());
    CHECK(PredictNextApply(LiveJobSet{nullptr, true}, legacy, legacy).refusals.empty());
  }
}

}  // namespace trainer
