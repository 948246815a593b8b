#include "diff/report.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diff/baseline.h"
#include "diff/reasons.h"
#include "diff/stream.h"
#include "diff/unified.h"
#include "util/error.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

const std::string kFrom = "from.yaml";
const std::string kTo = "to.yaml";
const std::string kInput = "input.yaml";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<Tree> Objects(std::string_view yaml, const std::string& file) { return ReadObjectStream(yaml, &file); }

Tree One(std::string_view yaml, const std::string& file = kInput) {
  std::vector<Tree> docs = ReadYamlStream(yaml, &file);
  REQUIRE(docs.size() == 1);
  return docs[0];
}

// A JobSet with the given replicatedJobs (name, trainer ancestor or not, image of container node).
struct JobSpec {
  std::string name;
  bool trainer;
  std::string image;
};

std::string JobSetSpecYaml(const std::vector<JobSpec>& jobs, int indent) {
  std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string out = pad + "replicatedJobs:\n";
  for (const JobSpec& j : jobs) {
    out += pad + "- name: " + j.name + "\n" + pad + "  template:\n";
    if (j.trainer) {
      out += pad + "    metadata:\n" + pad + "      labels:\n" + pad +
             "        trainer.kubeflow.org/trainjob-ancestor-step: trainer\n";
    }
    out += pad + "    spec:\n" + pad + "      template:\n" + pad + "        spec:\n" + pad + "          containers:\n" +
           pad + "          - name: node\n" + pad + "            image: " + j.image + "\n";
  }
  return out;
}

Tree JobSet(const std::vector<JobSpec>& jobs, const std::string& file = kInput) {
  return One("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: job\n  namespace: ns\nspec:\n" +
                 JobSetSpecYaml(jobs, 2),
             file);
}

Runtime MakeRuntime(const std::vector<JobSpec>& jobs, bool mpi) {
  Runtime runtime;
  runtime.kind = kClusterTrainingRuntimeKind;
  runtime.metadata.name = "rt";
  runtime.spec.ml_policy = MLPolicy{};
  if (mpi) runtime.spec.ml_policy->mpi = MPIPolicy{};
  runtime.spec.template_.spec = One(JobSetSpecYaml(jobs, 0));
  return runtime;
}

// The reasons of every change between two renderings of a JobSet, as "path: reason".
std::vector<std::string> ReasonsOf(const Runtime* runtime, const Tree& from, const Tree& to) {
  ObjectId id = ObjectId::Of(to);
  ReasonContext context{runtime, &id, &from, &to};
  std::vector<std::string> out;
  for (const FieldChange& change : DiffTrees(from, to)) {
    out.push_back(FormatPath(change.path) + ": " + ReasonFor(context, change));
  }
  return out;
}

const char* const kNodeImagePath =
    "spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image";

}  // namespace

TEST_CASE("the breaking changes are listed in the order they are tried") {
  std::vector<std::string> names;
  for (const BreakingChange& b : BreakingChanges()) names.push_back(b.name);
  CHECK(names == std::vector<std::string>{"mpi-node-image", "first-trainer-ancestor-image"});
}

TEST_CASE("an MPI runtime's node image changing is explained") {
  std::vector<JobSpec> runtime_jobs = {{"launcher", true, "rt/launcher:1"}, {"node", false, "rt/worker:1"}};
  Runtime mpi = MakeRuntime(runtime_jobs, true);
  Tree legacy = JobSet({{"launcher", true, "app:2"}, {"node", false, "rt/worker:1"}});
  Tree current = JobSet({{"launcher", true, "app:2"}, {"node", false, "app:2"}});
  CHECK(ReasonsOf(&mpi, legacy, current) ==
        std::vector<std::string>{std::string(kNodeImagePath) + ": MPI nodes now run the TrainJob image"});

  SUBCASE("not without an MPI policy") {
    Runtime plain = MakeRuntime(runtime_jobs, false);
    CHECK(ReasonsOf(&plain, legacy, current) == std::vector<std::string>{std::string(kNodeImagePath) + ": "});
  }
  SUBCASE("not without a runtime (two streams)") {
    CHECK(ReasonsOf(nullptr, legacy, current) == std::vector<std::string>{std::string(kNodeImagePath) + ": "});
  }
  SUBCASE("not on the launcher") {
    Tree other = JobSet({{"launcher", true, "app:3"}, {"node", false, "rt/worker:1"}});
    CHECK(ReasonsOf(&mpi, legacy, other) ==
          std::vector<std::string>{
              "spec.replicatedJobs[name=launcher].template.spec.template.spec.containers[name=node].image: "});
  }
  SUBCASE("not on another kind") {
    Tree from = legacy, to = current;
    from.Set("kind", Tree::String("Other"));
    to.Set("kind", Tree::String("Other"));
    CHECK(ReasonsOf(&mpi, from, to) == std::vector<std::string>{std::string(kNodeImagePath) + ": "});
  }
}

TEST_CASE("a second trainer-ancestor Job going back to the runtime's image is explained") {
  std::vector<JobSpec> runtime_jobs = {{"node", true, "rt/worker:1"}, {"evaluator", true, "rt/eval:1"}};
  Runtime runtime = MakeRuntime(runtime_jobs, false);
  Tree legacy = JobSet({{"node", true, "app:3"}, {"evaluator", true, "app:3"}});
  Tree current = JobSet({{"node", true, "app:3"}, {"evaluator", true, "rt/eval:1"}});
  CHECK(ReasonsOf(&runtime, legacy, current) ==
        std::vector<std::string>{"spec.replicatedJobs[name=evaluator].template.spec.template.spec.containers[name=node]"
                                 ".image: the TrainJob image now goes only to the first trainer-ancestor Job"});

  SUBCASE("not when the new image is not the runtime's") {
    Tree other = JobSet({{"node", true, "app:3"}, {"evaluator", true, "other:1"}});
    CHECK(ReasonsOf(&runtime, legacy, other) ==
          std::vector<std::string>{
              "spec.replicatedJobs[name=evaluator].template.spec.template.spec.containers[name=node].image: "});
  }
  SUBCASE("not on the first trainer-ancestor Job") {
    Tree other = JobSet({{"node", true, "rt/worker:1"}, {"evaluator", true, "app:3"}});
    CHECK(ReasonsOf(&runtime, legacy, other) == std::vector<std::string>{std::string(kNodeImagePath) + ": "});
  }
}

TEST_CASE("streams unwrap lists and reject documents that are not objects") {
  std::vector<Tree> objects = Objects(
      "apiVersion: v1\nkind: List\nitems:\n- {kind: A, metadata: {name: a}}\n- {kind: B, metadata: {name: b}}\n"
      "---\n{\"kind\": \"C\", \"metadata\": {\"name\": \"c\"}}\n",
      kFrom);
  REQUIRE(objects.size() == 3);
  CHECK(ObjectId::Of(objects[2]).Label() == "C c");
  CHECK(objects[2].origin().line == 7);
  CHECK_THROWS_WITH_AS(Objects("kind: A\n---\njust text\n", kFrom), "from.yaml:3:1: expected an object, got a string",
                       Error);
  CHECK_THROWS_WITH_AS(Objects("kind: List\nitems: 3\n", kFrom), "from.yaml:2:8: items: expected an array", Error);
}

namespace {

// An object "kind: A, metadata: {name: a}" whose data.script holds `lines` lines, line i reading
// <prefix><i>, and x holding `x`.
std::vector<Tree> ScriptObject(const std::string& file, int lines, const std::string& prefix, int x) {
  std::string script;
  for (int i = 0; i < lines; ++i) script += prefix + std::to_string(i) + "\n";
  Tree object = Tree::Map();
  object.Set("kind", Tree::String("A"));
  object.Child("metadata").Set("name", Tree::String("a"));
  object.Child("data").Set("script", Tree::String(script));
  object.Set("x", Tree::Int(x));
  std::string yaml;
  WriteYaml(object, yaml);
  return Objects(yaml, file);
}

}  // namespace

TEST_CASE("a unified diff shows a string of more than 10000 lines that changed as removed and added whole") {
  constexpr int kLines = 10001;
  std::vector<Tree> from = ScriptObject(kFrom, kLines, "l", 1);
  std::vector<Tree> to = ScriptObject(kTo, kLines, "l", 1);
  // One changed line in the middle, which a line diff would show alone.
  Tree& script = *to[0].Find("data")->Find("script");
  script = Tree::String(Replace(script.text(), "\nl5000\n", "\nchanged\n"));
  ReportOptions options;
  options.format = ReportFormat::kUnified;
  options.context = 1;
  std::string want =
      "# data.script: a value of more than 10000 lines, shown whole: removed, then added\n"
      "--- A a (from.yaml)\n+++ A a (to.yaml)\n@@ -1,10004 +1,10004 @@\n data:\n-  script: |\n";
  for (int i = 0; i < kLines; ++i) want += "-    l" + std::to_string(i) + "\n";
  want += "+  script: |\n";
  for (int i = 0; i < kLines; ++i) want += i == 5000 ? "+    changed\n" : "+    l" + std::to_string(i) + "\n";
  want += " kind: A\n";
  CHECK(FormatReport(CompareStreams(from, to, {}), options) == want);
}

TEST_CASE("a unified diff of a long string that did not change shows only the lines around the change") {
  std::vector<Tree> from = ScriptObject(kFrom, 10001, "l", 1);
  std::vector<Tree> to = ScriptObject(kTo, 10001, "l", 2);
  ReportOptions options;
  options.format = ReportFormat::kUnified;
  options.context = 1;
  CHECK(FormatReport(CompareStreams(from, to, {}), options) ==
        "--- A a (from.yaml)\n+++ A a (to.yaml)\n@@ -10006,2 +10006,2 @@\n   name: a\n-x: 1\n+x: 2\n");
}

TEST_CASE("unified hunks keep N lines of context and merge changes closer than 2N") {
  std::vector<std::string> from = {"a", "b", "c", "d", "e", "f", "g", "h"};
  std::vector<std::string> to = {"a", "B", "c", "d", "e", "f", "G", "h"};
  CHECK(UnifiedHunks(from, from, 3).empty());
  CHECK(UnifiedHunks(from, to, 1) == "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -6,3 +6,3 @@\n f\n-g\n+G\n h\n");
  CHECK(UnifiedHunks(from, to, 2) == "@@ -1,8 +1,8 @@\n a\n-b\n+B\n c\n d\n e\n f\n-g\n+G\n h\n");
  CHECK(UnifiedHunks(from, to, 0) == "@@ -2 +2 @@\n-b\n+B\n@@ -7 +7 @@\n-g\n+G\n");
  CHECK(UnifiedHunks({}, {"x", "y"}, 3) == "@@ -0,0 +1,2 @@\n+x\n+y\n");
  CHECK(UnifiedHunks({"a", "b"}, {"a"}, 0) == "@@ -2 +1,0 @@\n-b\n");
  CHECK(UnifiedHunks({"a"}, {"b"}, 3, DiffColors::On()) ==
        "\x1b[36m@@ -1 +1 @@\x1b[m\n\x1b[31m-a\x1b[m\n\x1b[32m+b\x1b[m\n");
}

TEST_CASE("undoing changes gives back the old values, items and order") {
  Tree from = One("a: 1\nlist:\n- {name: x, v: 1}\n- {name: y, v: 2}\n- {name: z, v: 3}\nold: gone\n");
  Tree to = One("a: 2\nlist:\n- {name: z, v: 3}\n- {name: x, v: 1}\n- {name: w, v: 4}\nnew: here\n");
  std::vector<FieldChange> changes = DiffTrees(from, to);
  CHECK(DiffTrees(from, UndoChanges(to, changes)).empty());
  // Only the list's changes: the rest stays as it is now.
  std::vector<FieldChange> list_only;
  for (const FieldChange& c : changes) {
    if (c.path.front().name == "list") list_only.push_back(c);
  }
  Tree partly = UndoChanges(to, list_only);
  CHECK(*partly.Find("list") == *from.Find("list"));
  CHECK(partly.Find("a")->AsInt() == 2);
}

TEST_CASE("two streams are reported in every format") {
  std::vector<Tree> from = Objects(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ns\ndata:\n  a: \"1\"\n  b: x\n"
      "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: old\n  namespace: ns\n",
      kFrom);
  std::vector<Tree> to = Objects(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ns\ndata:\n  a: \"2\"\n  b: x\n"
      "  c: \"true\"\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: new\n  namespace: ns\n",
      kTo);
  Report report = CompareStreams(from, to, {});
  ReportOptions options;

  SUBCASE("human") {
    CHECK(FormatReport(report, options) ==
          "to.yaml:1: ConfigMap ns/cfg\n"
          "  data.a\n"
          "    \"1\" → \"2\"\n"
          "  data.c\n"
          "    (none) → \"true\"\n"
          "\n"
          "from.yaml:10: Secret ns/old: removed\n"
          "\n"
          "to.yaml:11: Service ns/new: added\n"
          "\n"
          "3 objects compared: 1 changed (2 fields), 1 added, 1 removed, 0 unchanged\n");
  }
  SUBCASE("human in colour") {
    options.color = true;
    std::string out = FormatReport(report, options);
    CHECK(out.starts_with(
        "\x1b[1mto.yaml:1: ConfigMap ns/cfg\x1b[m\n  data.a\n    \x1b[31m\"1\"\x1b[m → \x1b[32m\"2\"\x1b[m\n"));
  }
  SUBCASE("brief") {
    options.format = ReportFormat::kBrief;
    CHECK(FormatReport(report, options) ==
          "to.yaml:1: ConfigMap ns/cfg changes 2 fields\n"
          "from.yaml:10: Secret ns/old removed\n"
          "to.yaml:11: Service ns/new added\n");
  }
  SUBCASE("github") {
    options.format = ReportFormat::kGithub;
    CHECK(FormatReport(report, options) ==
          "::warning file=to.yaml,line=1,title=trainer diff::ConfigMap ns/cfg changes 2 fields%0A"
          "data.a: \"1\" → \"2\"%0Adata.c: (none) → \"true\"\n"
          "::warning file=from.yaml,line=10,title=trainer diff::Secret ns/old removed\n"
          "::warning file=to.yaml,line=11,title=trainer diff::Service ns/new added\n");
  }
  SUBCASE("unified") {
    options.format = ReportFormat::kUnified;
    options.context = 1;
    CHECK(FormatReport(report, options) ==
          "--- ConfigMap ns/cfg (from.yaml)\n"
          "+++ ConfigMap ns/cfg (to.yaml)\n"
          "@@ -2,4 +2,5 @@\n"
          " data:\n"
          "-  a: \"1\"\n"
          "+  a: \"2\"\n"
          "   b: x\n"
          "+  c: \"true\"\n"
          " kind: ConfigMap\n"
          "--- Secret ns/old (from.yaml)\n"
          "+++ /dev/null\n"
          "@@ -1,5 +0,0 @@\n"
          "-apiVersion: v1\n"
          "-kind: Secret\n"
          "-metadata:\n"
          "-  name: old\n"
          "-  namespace: ns\n"
          "--- /dev/null\n"
          "+++ Service ns/new (to.yaml)\n"
          "@@ -0,0 +1,5 @@\n"
          "+apiVersion: v1\n"
          "+kind: Service\n"
          "+metadata:\n"
          "+  name: new\n"
          "+  namespace: ns\n");
  }
  SUBCASE("json") {
    options.format = ReportFormat::kJson;
    std::string out = FormatReport(report, options);
    CHECK(
        out.starts_with("{\n    \"objects\": [\n        {\n            \"apiVersion\": \"v1\",\n"
                        "            \"changeType\": \"MODIFY\",\n            \"changes\": [\n"
                        "                {\n                    \"changeType\": \"MODIFY\",\n"
                        "                    \"field\": \"data.a\",\n                    \"newValue\": \"2\",\n"
                        "                    \"oldValue\": \"1\",\n                    \"path\": \"/data/a\"\n"));
    CHECK(out.find(
              "\"summary\": {\n        \"addedObjects\": 1,\n        \"changedFields\": 2,\n"
              "        \"differences\": true,\n        \"ignoredFields\": 0,\n        \"modifiedObjects\": 1,\n"
              "        \"objects\": 3,\n        \"removedObjects\": 1,\n        \"unchangedObjects\": 0\n    }\n}\n") !=
          std::string::npos);
  }
  CHECK(Summarize(report).Differs());
}

TEST_CASE("ignored differences are counted, dropped from every format, and taken back in unified diffs") {
  std::vector<Tree> from = Objects("kind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: x, b: 'y'}\n", kFrom);
  std::vector<Tree> to = Objects("kind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: X, b: 'Y'}\n", kTo);
  Report report = CompareStreams(from, to, {IgnoreRule::Parse("ConfigMap:data.a")});
  ReportOptions options;
  CHECK(FormatReport(report, options) ==
        "to.yaml:1: ConfigMap cfg (1 ignored)\n"
        "  data.b\n"
        "    \"y\" → \"Y\"\n"
        "\n"
        "1 object compared: 1 changed (1 field), 0 unchanged; 1 ignored by --ignore\n");
  options.format = ReportFormat::kUnified;
  CHECK(FormatReport(report, options) ==
        "--- ConfigMap cfg (from.yaml)\n+++ ConfigMap cfg (to.yaml)\n@@ -1,6 +1,6 @@\n data:\n   a: x\n-  b: \"y\"\n+  "
        "b: \"Y\"\n"
        " kind: ConfigMap\n metadata:\n   name: cfg\n");

  Report all = CompareStreams(from, to, {IgnoreRule::Parse("data")});
  CHECK_FALSE(Summarize(all).Differs());
  CHECK(FormatReport(all, {}) == "1 object compared: 0 changed, 1 unchanged; 2 ignored by --ignore\n");
  options.format = ReportFormat::kBrief;
  CHECK(FormatReport(all, options).empty());
}

TEST_CASE("long and structured values are printed as YAML blocks") {
  std::vector<Tree> from = Objects("kind: A\nmetadata: {name: a}\nspec: {}\n", kFrom);
  std::vector<Tree> to = Objects(
      "kind: A\nmetadata: {name: a}\nspec:\n  containers:\n  - name: sidecar\n    image: registry.example.com/a/very/"
      "long/image/name:1.2.3\n    command: [/bin/sh, -c, 'sleep 1000; echo done']\n",
      kTo);
  CHECK(FormatReport(CompareStreams(from, to, {}), {}) ==
        "to.yaml:1: A a\n"
        "  spec.containers\n"
        "    old: (none)\n"
        "    new:\n"
        "      - command:\n"
        "        - /bin/sh\n"
        "        - -c\n"
        "        - sleep 1000; echo done\n"
        "        image: registry.example.com/a/very/long/image/name:1.2.3\n"
        "        name: sidecar\n"
        "\n"
        "1 object compared: 1 changed (1 field), 0 unchanged\n");
}

TEST_CASE("values are shown in YAML flow form, strings quoted only when they would read otherwise") {
  std::vector<Tree> from =
      Objects("kind: A\nmetadata: {name: a}\nv: [a, -De, \"true\", \"\", \"x: y\", 1, \"-\", {k: ~}]\n", kFrom);
  std::vector<Tree> to = Objects("kind: A\nmetadata: {name: a}\nv: \"no\"\n", kTo);
  std::string out = FormatReport(CompareStreams(from, to, {}), {});
  CHECK(out.find("\n  v\n    [a, -De, \"true\", \"\", \"x: y\", 1, \"-\", {k: null}] → \"no\"\n") != std::string::npos);
}

TEST_CASE("a reordered keyed list is reported once, with both orders") {
  std::vector<Tree> from = Objects("kind: A\nmetadata: {name: a}\nitems: [{name: x}, {name: 'y'}]\n", kFrom);
  std::vector<Tree> to = Objects("kind: A\nmetadata: {name: a}\nitems: [{name: 'y'}, {name: x}]\n", kTo);
  Report report = CompareStreams(from, to, {});
  CHECK(FormatReport(report, {}) ==
        "to.yaml:1: A a\n"
        "  items (order)\n"
        "    [x, \"y\"] → [\"y\", x]\n"
        "\n"
        "1 object compared: 1 changed (1 field), 0 unchanged\n");
  ReportOptions options;
  options.format = ReportFormat::kJson;
  CHECK(FormatReport(report, options)
            .find("\"changeType\": \"REORDER\",\n                    \"field\": \"items\",\n"
                  "                    \"newValue\": [\n                        \"y\",") != std::string::npos);
}

TEST_CASE("the legacy comparison groups by TrainJob and names the reasons") {
  std::string file = "jobs.yaml";
  TrainJob job;
  job.metadata.name = "pi";
  job.metadata.namespace_ = "hpc";
  job.origin = Origin::Input(&file, 12, 1);
  TrainJob same = job;
  same.metadata.name = "same";
  same.origin = Origin::Input(&file, 30, 1);
  Runtime runtime = MakeRuntime({{"launcher", true, "rt:1"}, {"node", false, "rt:1"}}, true);
  Tree legacy_jobset = JobSet({{"launcher", true, "app:2"}, {"node", false, "rt:1"}});
  Tree current_jobset = JobSet({{"launcher", true, "app:2"}, {"node", false, "app:2"}});
  std::vector<RenderedJob> legacy = {{&job, &runtime, {legacy_jobset}}, {&same, &runtime, {legacy_jobset}}};
  std::vector<RenderedJob> current = {{&job, &runtime, {current_jobset}}, {&same, &runtime, {legacy_jobset}}};
  Report report = CompareRenderings(legacy, current, {});
  ReportOptions options;

  CHECK(FormatReport(report, options) ==
        "jobs.yaml:12: TrainJob hpc/pi on rt (ClusterTrainingRuntime) changes now\n"
        "  JobSet ns/job\n"
        "    spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image\n"
        "      rt:1 → app:2\n"
        "      reason: MPI nodes now run the TrainJob image\n"
        "      asks: the runtime sets no command for the MPI nodes: they now start the TrainJob image's entrypoint, "
        "which must run the MPI node (its SSH server)\n"
        "      source: input.yaml:26:22\n"
        "\n"
        "2 TrainJobs checked: 1 changed (1 now), 1 unchanged\n");
  options.format = ReportFormat::kBrief;
  CHECK(FormatReport(report, options) ==
        "jobs.yaml:12: TrainJob hpc/pi changes now: 1 field in 1 object (MPI nodes now run the TrainJob image)\n");
  options.format = ReportFormat::kGithub;
  CHECK(FormatReport(report, options) ==
        "::warning file=jobs.yaml,line=12,title=trainer diff::TrainJob hpc/pi changes now with the current "
        "image behaviour: 1 field in 1 object%0AJobSet ns/job "
        "spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image: rt:1 → app:2 (MPI "
        "nodes now run the TrainJob image)%0A  asks: the runtime sets no command for the MPI nodes: they now start the "
        "TrainJob image's entrypoint, which must run the MPI node (its SSH server)\n");
  options.format = ReportFormat::kUnified;
  options.context = 0;
  CHECK(FormatReport(report, options) ==
        "# jobs.yaml:12: TrainJob hpc/pi changes now\n"
        "--- JobSet ns/job (legacy)\n"
        "+++ JobSet ns/job (current)\n"
        "@@ -25 +25 @@\n"
        "-            - image: rt:1\n"
        "+            - image: app:2\n");
  options.format = ReportFormat::kJson;
  std::string json = FormatReport(report, options);
  CHECK(json.find("\"reason\": \"MPI nodes now run the TrainJob image\"") != std::string::npos);
  CHECK(json.find("\"path\": \"/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image\"") !=
        std::string::npos);
  CHECK(json.find(
            "\"trainJob\": {\n                \"changes\": \"now\",\n                \"file\": \"jobs.yaml\",\n"
            "                \"line\": 12,\n                \"name\": \"pi\",\n                \"namespace\": \"hpc\"\n"
            "            }") != std::string::npos);
  CHECK(json.find("\"changedTrainJobs\": 1") != std::string::npos);
}

TEST_CASE("the legacy comparison prints the TrainJob, its runtime and its file Printable in every format") {
  std::string file = "jobs\x1b]0;x\a.yaml";
  TrainJob job;
  job.metadata.name = "pi\n::error ::forged";
  job.metadata.namespace_ = "hpc\xff";
  job.origin = Origin::Input(&file, 12, 1);
  Runtime runtime = MakeRuntime({{"launcher", true, "rt:1"}, {"node", false, "rt:1"}}, true);
  runtime.metadata.name = "rt\u2029x";
  Tree legacy_jobset = JobSet({{"launcher", true, "app:2"}, {"node", false, "rt:1"}});
  Tree current_jobset = JobSet({{"launcher", true, "app:2"}, {"node", false, "app:2"}});
  std::vector<RenderedJob> legacy = {{&job, &runtime, {legacy_jobset}}};
  std::vector<RenderedJob> current = {{&job, &runtime, {current_jobset}}};
  Report report = CompareRenderings(legacy, current, {});
  ReportOptions options;
  const std::string heading = R"(jobs\x1b]0;x\a.yaml:12: TrainJob hpc\xff/pi\n::error ::forged changes now)";

  CHECK(FormatReport(report, options)
            .starts_with(R"(jobs\x1b]0;x\a.yaml:12: TrainJob hpc\xff/pi\n::error ::forged on rt\u2029x )"
                         "(ClusterTrainingRuntime) changes now\n  JobSet ns/job\n"));
  options.summary_only = true;
  CHECK(FormatReport(report, options) ==
        "Changed TrainJobs by runtime:\n"
        "  rt\\u2029x (ClusterTrainingRuntime): 1 TrainJob — MPI nodes now run the TrainJob image (1 now)\n"
        "\n"
        "1 TrainJob checked: 1 changed (1 now), 0 unchanged\n");
  options.summary_only = false;
  options.format = ReportFormat::kBrief;
  CHECK(FormatReport(report, options) == heading + ": 1 field in 1 object (MPI nodes now run the TrainJob image)\n");
  options.format = ReportFormat::kUnified;
  CHECK(FormatReport(report, options).starts_with("# " + heading + "\n--- JobSet ns/job (legacy)\n"));
  options.format = ReportFormat::kGithub;
  CHECK(
      FormatReport(report, options)
          .starts_with(
              R"(::warning file=jobs\x1b]0;x\a.yaml,line=12,title=trainer diff::TrainJob hpc\xff/pi\n::error ::forged changes)"));

  report.groups[0].objects.clear();
  report.groups[0].errors.push_back(Diagnostic{.subject = Subject(job), .field = "spec", .message = "broken"});
  options.format = ReportFormat::kHuman;
  CHECK(FormatReport(report, options) ==
        R"(jobs\x1b]0;x\a.yaml:12: TrainJob hpc\xff/pi\n::error ::forged: could not be checked)"
        "\n"
        R"(  TrainJob hpc\xff/pi\n::error ::forged: spec: broken)"
        "\n\n0 TrainJobs checked: 0 changed, 0 unchanged; 1 could not be checked\n");
}

// A changed TrainJob of a migration report: each change explained by the MPI reason, asking `asks`.
ReportGroup ChangedGroup(const TrainJob& job, const Runtime& runtime, Reach reach, std::vector<ObjectDiff> diffs,
                         const std::string& asks) {
  ReportGroup g;
  g.job = &job;
  g.runtime = &runtime;
  g.reach = reach;
  for (ObjectDiff& d : diffs) {
    ReportObject o;
    o.diff = std::move(d);
    o.reasons.assign(o.diff.changes.size(), "MPI nodes now run the TrainJob image");
    o.asks.assign(o.diff.changes.size(), asks);
    g.objects.push_back(std::move(o));
  }
  return g;
}

TEST_CASE("the migration report counts each class, lists what could not be checked, and sums up by runtime") {
  std::string file = "dump.yaml";
  Runtime runtime = MakeRuntime({{"launcher", true, "rt:1"}, {"node", false, "rt:1"}}, true);
  Tree legacy_jobset = JobSet({{"launcher", true, "app:2"}, {"node", false, "rt:1"}});
  Tree current_jobset = JobSet({{"launcher", true, "app:2"}, {"node", false, "app:2"}});
  std::vector<TrainJob> jobs(10);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].metadata.namespace_ = "ml";
    jobs[i].metadata.name = "job-" + std::to_string(i);
    jobs[i].origin = Origin::Input(&file, static_cast<std::uint32_t>(10 * i + 1), 1);
  }
  std::vector<Tree> legacy_objects = {legacy_jobset};
  std::vector<Tree> current_objects = {current_jobset};
  Report report;
  report.by_trainjob = true;
  const Reach reaches[] = {Reach::kOnResume, Reach::kOnResume, Reach::kAfterSuspendAndResume,
                           Reach::kNow,      Reach::kNow,      Reach::kNow};
  for (std::size_t i = 0; i < 6; ++i) {  // six change
    report.groups.push_back(
        ChangedGroup(jobs[i], runtime, reaches[i], DiffObjects(legacy_objects, current_objects), ""));
  }
  ReportGroup unchanged;
  unchanged.job = &jobs[6];
  unchanged.runtime = &runtime;
  report.groups.push_back(unchanged);
  ReportGroup finished;
  finished.job = &jobs[7];
  finished.reach = Reach::kFinished;
  report.groups.push_back(finished);
  ReportGroup elsewhere;
  elsewhere.job = &jobs[8];
  elsewhere.reach = Reach::kManagedElsewhere;
  report.groups.push_back(elsewhere);
  ReportGroup broken;
  broken.job = &jobs[9];
  broken.errors.push_back(Diagnostic{.where = Origin::Input(&file, 95, 11),
                                     .subject = "TrainJob ml/job-9",
                                     .field = "spec.runtimeRef",
                                     .message = "ClusterTrainingRuntime \"gone\" not found"});
  report.groups.push_back(broken);

  ReportSummary s = Summarize(report);
  CHECK(s.trainjobs == 9);
  CHECK(s.changed_trainjobs == 6);
  CHECK(s.changed_now == 3);
  CHECK(s.changed_on_resume == 2);
  CHECK(s.changed_after_suspend == 1);
  CHECK(s.not_affected == 2);
  CHECK(s.not_checked == 1);

  ReportOptions options;
  std::string human = FormatReport(report, options);
  CHECK(human.starts_with(
      "Changed TrainJobs by runtime:\n"
      "  rt (ClusterTrainingRuntime): 6 TrainJobs — MPI nodes now run the TrainJob image (3 now, 2 on resume, 1 after "
      "suspend and resume)\n"
      "\n"
      "dump.yaml:1: TrainJob ml/job-0 on rt (ClusterTrainingRuntime) changes on resume\n"));
  CHECK(
      human.find("dump.yaml:21: TrainJob ml/job-2 on rt (ClusterTrainingRuntime) changes after suspend and resume\n") !=
      std::string::npos);
  CHECK(human.find(
            "dump.yaml:91: TrainJob ml/job-9: could not be checked\n"
            "  dump.yaml:95:11: TrainJob ml/job-9: spec.runtimeRef: ClusterTrainingRuntime \"gone\" not found\n") !=
        std::string::npos);
  CHECK(human.ends_with(
      "\n9 TrainJobs checked: 6 changed (3 now, 2 on resume, 1 after suspend and resume), 1 unchanged, 2 not affected; "
      "1 could not be checked\n"));
  CHECK(human.find("job-7") == std::string::npos);  // not affected: counted, not listed

  options.summary_only = true;
  CHECK(FormatReport(report, options) ==
        "Changed TrainJobs by runtime:\n"
        "  rt (ClusterTrainingRuntime): 6 TrainJobs — MPI nodes now run the TrainJob image (3 now, 2 on resume, 1 "
        "after suspend and resume)\n"
        "\n"
        "9 TrainJobs checked: 6 changed (3 now, 2 on resume, 1 after suspend and resume), 1 unchanged, 2 not "
        "affected; 1 could not be checked\n");

  options.format = ReportFormat::kJson;
  std::string json = FormatReport(report, options);
  CHECK(json.find("\"objects\": [") == std::string::npos);
  CHECK(json.find("\"byRuntime\": [\n            {\n                \"afterSuspendAndResume\": 1,\n"
                  "                \"kind\": \"ClusterTrainingRuntime\",\n                \"name\": \"rt\",\n"
                  "                \"now\": 3,\n                \"onResume\": 2,\n") != std::string::npos);
  options.summary_only = false;
  json = FormatReport(report, options);
  CHECK(json.find("\"notAffected\": [\n        {\n            \"file\": \"dump.yaml\",\n            \"line\": 71,\n"
                  "            \"name\": \"job-7\",\n            \"namespace\": \"ml\",\n            \"reason\": "
                  "\"finished\"") != std::string::npos);
  CHECK(json.find("\"errors\": [\n                \"dump.yaml:95:11: TrainJob ml/job-9: spec.runtimeRef:") !=
        std::string::npos);

  options.format = ReportFormat::kBrief;
  std::string brief = FormatReport(report, options);
  CHECK(brief.find("dump.yaml:21: TrainJob ml/job-2 changes after suspend and resume: 1 field in 1 object (MPI nodes "
                   "now run the TrainJob image)\n") != std::string::npos);
  CHECK(
      brief.ends_with("dump.yaml:91: TrainJob ml/job-9 could not be checked: dump.yaml:95:11: TrainJob ml/job-9: "
                      "spec.runtimeRef: ClusterTrainingRuntime \"gone\" not found\n"));
  options.format = ReportFormat::kGithub;
  CHECK(FormatReport(report, options)
            .ends_with("::error file=dump.yaml,line=91,title=trainer diff::TrainJob ml/job-9 could not be "
                       "checked%0Adump.yaml:95:11: TrainJob ml/job-9: spec.runtimeRef: ClusterTrainingRuntime \"gone\" "
                       "not found\n"));

  // Five changed TrainJobs or fewer: no summary by runtime unless asked for.
  report.groups.erase(report.groups.begin());
  options.format = ReportFormat::kHuman;
  CHECK(FormatReport(report, options)
            .starts_with("dump.yaml:11: TrainJob ml/job-1 on rt (ClusterTrainingRuntime) changes on resume\n"));
}

TEST_CASE("a changed multi-line string is shown as a line diff; a long one whole, with a note") {
  auto change = [](std::string from, std::string to) {
    return FieldChange{FieldChange::Kind::kModified,
                       {PathSegment::Key("script")},
                       Tree::String(std::move(from)),
                       Tree::String(std::move(to))};
  };
  CHECK(StringLineDiff(change("a\nb\nc\n", "a\nB\nc\n"), 1) ==
        std::vector<std::string>{"@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"});
  CHECK(StringLineDiff(change("one line", "another"), 3).empty());  // single lines read fine inline
  CHECK(StringLineDiff(change("a\nb", "a\nb\n"), 3).empty());       // only the final newline differs
  FieldChange number{FieldChange::Kind::kModified, {}, Tree::Int(1), Tree::Int(2)};
  CHECK(StringLineDiff(number, 3).empty());
  std::string long_text;
  for (std::size_t i = 0; i <= kWholeValueLines; ++i) long_text += "line " + std::to_string(i) + "\n";
  CHECK(StringLineDiff(change(long_text, long_text + "more\n"), 3).empty());

  std::vector<Tree> from = Objects("kind: A\nmetadata: {name: a}\nscript: \"x\\ny\\n\"\n", kFrom);
  std::vector<Tree> to = Objects("kind: A\nmetadata: {name: a}\nscript: \"x\\nz\\n\"\n", kTo);
  CHECK(FormatReport(CompareStreams(from, to, {}), {}) ==
        "to.yaml:1: A a\n"
        "  script\n"
        "    @@ -1,2 +1,2 @@\n"
        "     x\n"
        "    -y\n"
        "    +z\n"
        "\n"
        "1 object compared: 1 changed (1 field), 0 unchanged\n");
  Tree long_from = Tree::Map();
  long_from.Set("kind", Tree::String("A"));
  long_from.Set("script", Tree::String(long_text));
  Tree long_to = long_from;
  long_to.Set("script", Tree::String(long_text + "more\n"));
  std::string human = FormatReport(CompareStreams({long_from}, {long_to}, {}), {});
  CHECK(human.find("  script\n    (a string of more than 10000 lines, shown whole)\n    old: |\n") !=
        std::string::npos);
}

TEST_CASE("GitHub workflow commands escape their data and properties") {
  std::string file = "a,b:c%.yaml";
  std::vector<Tree> from = ReadObjectStream("kind: A\nmetadata: {name: a}\nv: \"50%\"\n", &file);
  std::vector<Tree> to = ReadObjectStream("kind: A\nmetadata: {name: a}\nv: \"line\\nbreak\"\n", &file);
  ReportOptions options;
  options.format = ReportFormat::kGithub;
  CHECK(FormatReport(CompareStreams(from, to, {}), options) ==
        "::warning file=a%2Cb%3Ac%25.yaml,line=1,title=trainer diff::A a changes 1 field%0Av: 50%25 → "
        "\"line\\nbreak\"\n");
}

TEST_CASE("report formats are parsed by name") {
  CHECK(ParseReportFormat("unified") == ReportFormat::kUnified);
  CHECK(ParseReportFormat("github") == ReportFormat::kGithub);
  CHECK_FALSE(ParseReportFormat("yaml").has_value());
}

TEST_CASE("names, file names and the lines of values are printed Printable in every format") {
  const std::string file = "in\n::error ::x\xff.yaml";
  const std::string meta =
      "kind: ConfigMap\nmetadata: {name: \"cm\\n::error ::forged\\e[31m\\a\", namespace: \"ml\\u2028\"}\n";
  std::vector<Tree> from = ReadObjectStream(meta + "script: \"a\\nb\\e[2J\\nc\\u2028d\\n\"\n", &file);
  std::vector<Tree> to = ReadObjectStream(
      meta + "script: \"a\\nB\\e[2J\\nc\\u2028d\\n\"\nnotes: \"first\\u202eline\\nsecond \\u00ad x\\n\"\n", &file);
  Report report = CompareStreams(from, to, {});
  ReportOptions options;
  const std::string label = R"(ConfigMap ml\u2028/cm\n::error ::forged\x1b[31m\a)";
  const std::string where = R"(in\n::error ::x\xff.yaml:1)";

  SUBCASE("human: the heading, each line of a line diff, each line of a YAML block") {
    CHECK(FormatReport(report, options) == where + ": " + label +
                                               "\n"
                                               "  notes\n"
                                               "    old: (none)\n"
                                               "    new: |\n"
                                               "      first\\u202eline\n"
                                               "      second \\u00ad x\n"
                                               "  script\n"
                                               "    @@ -1,3 +1,3 @@\n"
                                               "     a\n"
                                               "    -b\\x1b[2J\n"
                                               "    +B\\x1b[2J\n"
                                               "     c\\u2028d\n"
                                               "\n"
                                               "1 object compared: 1 changed (2 fields), 0 unchanged\n");
  }
  SUBCASE("brief") {
    options.format = ReportFormat::kBrief;
    CHECK(FormatReport(report, options) == where + ": " + label + " changes 2 fields\n");
  }
  SUBCASE("github: Printable, then the workflow command's own escapes") {
    options.format = ReportFormat::kGithub;
    CHECK(FormatReport(report, options) ==
          "::warning file=in\\n%3A%3Aerror %3A%3Ax\\xff.yaml,line=1,title=trainer diff::" + label +
              " changes 2 fields%0Anotes: (none) → \"first\\u202eline\\nsecond \\u00ad x\\n\"%0A"
              "script: \"a\\nb\\x1b[2J\\nc\\u2028d\\n\" → \"a\\nB\\x1b[2J\\nc\\u2028d\\n\"\n");
  }
  SUBCASE("unified: the headers and each line") {
    options.format = ReportFormat::kUnified;
    options.context = 0;
    std::string out = FormatReport(report, options);
    CHECK(out.starts_with("--- " + label + " (" + R"(in\n::error ::x\xff.yaml)" + ")\n+++ " + label + " (" +
                          R"(in\n::error ::x\xff.yaml)" + ")\n"));
    CHECK(out.find("\n+notes: |\n+  first\\u202eline\n+  second \\u00ad x\n") != std::string::npos);
    CHECK(std::none_of(out.begin(), out.end(), [](char c) { return c == '\x1b' || c == '\a' || c == '\r'; }));
    CHECK(out.find("\u2028") == std::string::npos);
  }
}

TEST_CASE("a blocked TrainJob's report gives the refusal and the fix; drift is listed apart") {
  std::string file = "dump.yaml";
  Runtime runtime = MakeRuntime({{"launcher", true, "rt:1"}, {"node", false, "rt:1"}}, true);
  std::vector<Tree> legacy_objects = {JobSet({{"launcher", true, "app:2"}, {"node", false, "rt:1"}})};
  std::vector<Tree> current_objects = {JobSet({{"launcher", true, "app:2"}, {"node", false, "app:2"}})};
  std::vector<TrainJob> jobs(3);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].metadata.namespace_ = "ml";
    jobs[i].metadata.name = "job-" + std::to_string(i);
    jobs[i].origin = Origin::Input(&file, static_cast<std::uint32_t>(10 * i + 1), 1);
  }
  Report report;
  report.by_trainjob = true;
  const std::string refusal = "spec.replicatedJobs: Invalid value: \"...\": field is immutable";
  for (std::size_t i = 0; i < 2; ++i) {
    ReportGroup g = ChangedGroup(jobs[i], runtime, i == 0 ? Reach::kSuspendBlocked : Reach::kResumeBlocked,
                                 DiffObjects(legacy_objects, current_objects), "ship sshd");
    g.next_apply = NextApply{i == 1, {refusal}, {}};
    report.groups.push_back(std::move(g));
  }
  // Unchanged by the upgrade, but its live JobSet was edited.
  ReportGroup drifted;
  drifted.job = &jobs[2];
  drifted.runtime = &runtime;
  drifted.reach = Reach::kAfterSuspendAndResume;
  drifted.next_apply = NextApply{false, {}, DiffTrees(One("a: 1\n"), One("a: 2\n"))};
  report.groups.push_back(std::move(drifted));

  ReportSummary s = Summarize(report);
  CHECK(s.changed_trainjobs == 2);
  CHECK(s.suspend_blocked == 1);
  CHECK(s.resume_blocked == 1);
  CHECK(s.drifted == 1);
  CHECK(s.predicted_from_status == 1);

  ReportOptions options;
  const std::string human = FormatReport(report, options);
  CHECK(
      human.starts_with("dump.yaml:1: TrainJob ml/job-0 on rt (ClusterTrainingRuntime): suspend blocked (the JobSet "
                        "webhook would refuse the controller's suspend "
                        "apply: a suspend leaves the pods running)\n"
                        "  JobSet ns/job\n"
                        "    spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image\n"
                        "      rt:1 → app:2\n"
                        "      reason: MPI nodes now run the TrainJob image\n"
                        "      asks: ship sshd\n"));
  CHECK(human.find("  refused: spec.replicatedJobs: Invalid value: \"...\": field is immutable\n"
                   "  fix: delete JobSet ml/job-0 (the controller recreates it with the current behaviour; its pods "
                   "restart), or hold the upgrade for this TrainJob\n\n") != std::string::npos);
  CHECK(human.find("dump.yaml:11: TrainJob ml/job-1 on rt (ClusterTrainingRuntime): resume blocked (the JobSet webhook "
                   "would refuse the "
                   "controller's resume apply: the TrainJob does not resume)\n") != std::string::npos);
  CHECK(human.find("  predicted from status: the inputs hold no JobSets (dump jobsets to confirm)\n") !=
        std::string::npos);
  CHECK(human.find("dump.yaml:21: TrainJob ml/job-2 on rt (ClusterTrainingRuntime) is unchanged\n"
                   "  drift: the live JobSet differs from what the legacy controller applies in 1 field (edited by "
                   "hand, or its runtime edited since it was made), apart from the change of the upgrade:\n"
                   "    a: 1 (live) → 2 (legacy apply)\n") != std::string::npos);
  CHECK(
      human.ends_with("3 TrainJobs checked: 2 changed (1 suspend blocked, 1 resume blocked), 1 unchanged; 1 with "
                      "drift; 1 predicted from status\n"));

  options.format = ReportFormat::kBrief;
  CHECK(FormatReport(report, options) ==
        "dump.yaml:1: TrainJob ml/job-0: suspend blocked (the JobSet webhook would refuse the controller's suspend "
        "apply: a suspend leaves the pods running): 1 field in 1 object (MPI nodes now run the TrainJob image)\n"
        "dump.yaml:11: TrainJob ml/job-1: resume blocked (the JobSet webhook would refuse the controller's resume "
        "apply: the TrainJob does not resume): 1 field in 1 object (MPI nodes now run the TrainJob image); predicted "
        "from status\n"
        "dump.yaml:21: TrainJob ml/job-2 is unchanged; its live JobSet drifted in 1 field\n");

  options.format = ReportFormat::kGithub;
  const std::string github = FormatReport(report, options);
  CHECK(github.starts_with("::error file=dump.yaml,line=1,title=trainer diff::TrainJob ml/job-0: suspend blocked"));
  CHECK(github.find("%0Arefused: spec.replicatedJobs: Invalid value: \"...\": field is immutable%0Afix: delete JobSet "
                    "ml/job-0") != std::string::npos);
  CHECK(github.find("::warning file=dump.yaml,line=21,title=trainer diff::") != std::string::npos);

  options.format = ReportFormat::kJson;
  const std::string json = FormatReport(report, options);
  CHECK(json.find("\"resumeBlocked\": 1,\n") != std::string::npos);
  CHECK(json.find("\"suspendBlocked\": 1\n") != std::string::npos);
  CHECK(json.find("\"changes\": \"suspendBlocked\",\n") != std::string::npos);
  CHECK(json.find("\"fix\": \"delete JobSet ml/job-0 (the controller") != std::string::npos);
  CHECK(json.find("\"drift\": [\n                {\n                    \"field\": \"a\",\n"
                  "                    \"legacyValue\": 2,\n                    \"liveValue\": 1\n") !=
        std::string::npos);
  CHECK(json.find("\"asks\": \"ship sshd\"") != std::string::npos);
}

}  // namespace trainer

namespace trainer {

namespace {

// The diagnostics of parsing `text` as a baseline, one a line.
std::string BaselineErrors(const std::string& text) {
  static const std::string file = "b.yaml";
  try {
    Baseline::Parse(text, &file);
  } catch (const Error& e) {
    std::string out;
    for (const Diagnostic& d : e.diagnostics()) out += d.Format() + "\n";
    return out;
  }
  return "";
}

// job-0 blocked, job-1 and job-2 changing now, each its MPI nodes' image.
struct BaselineFixture {
  std::string file = "dump.yaml";
  Runtime runtime = MakeRuntime({{"launcher", true, "rt:1"}, {"node", false, "rt:1"}}, true);
  std::vector<Tree> legacy_objects = {JobSet({{"launcher", true, "app:2"}, {"node", false, "rt:1"}})};
  std::vector<Tree> current_objects = {JobSet({{"launcher", true, "app:2"}, {"node", false, "app:2"}})};
  std::vector<TrainJob> jobs = std::vector<TrainJob>(3);

  Report MakeReport() {
    Report report;
    report.by_trainjob = true;
    // In reverse order of names, which the baseline sorts.
    for (std::size_t i = jobs.size(); i-- > 0;) {
      jobs[i].metadata.namespace_ = "ml";
      jobs[i].metadata.name = "job-" + std::to_string(i);
      jobs[i].origin = Origin::Input(&file, static_cast<std::uint32_t>(10 * i + 1), 1);
      report.groups.push_back(ChangedGroup(jobs[i], runtime, i == 0 ? Reach::kSuspendBlocked : Reach::kNow,
                                           DiffObjects(legacy_objects, current_objects), ""));
    }
    return report;
  }
};

constexpr const char* kBaselineHeader =
    "# trainer diff --legacy --baseline: the changes of the upgrade reviewed and acknowledged.\n"
    "# Written by --update-baseline; sorted.\n"
    "version: 1\n";

std::string Entry(const std::string& job, const std::string& value) {
  return fmt::format(
      "- trainJob: ml/{}\n"
      "  object: JobSet/ns/job\n"
      "  path: spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image\n"
      "  newValue: {}\n",
      job, value);
}

}  // namespace

TEST_CASE("a baseline records every change of a report, blocked ones too, sorted, and reads back byte for byte") {
  BaselineFixture f;
  const Report report = f.MakeReport();
  const std::string want = std::string(kBaselineHeader) + "changes:\n" + Entry("job-0", "app:2") +
                           Entry("job-1", "app:2") + Entry("job-2", "app:2");
  CHECK(Baseline::Of(report).Format() == want);
  const std::string file = "b.yaml";
  CHECK(Baseline::Parse(want, &file).Format() == want);
  CHECK(Baseline::Of(Report{}).Format() == std::string(kBaselineHeader) + "changes: []\n");
}

TEST_CASE("a rewrite keeps the old entries of a TrainJob that could not be checked, and only of it") {
  BaselineFixture f;
  Report report = f.MakeReport();
  // job-1 could not be checked this time: no objects, an error.
  ReportGroup& unchecked = report.groups[1];
  REQUIRE(unchecked.job->metadata.name == "job-1");
  unchecked.objects.clear();
  unchecked.errors.push_back(Diagnostic{.message = "runtime not found"});
  const std::string file = "b.yaml";
  const Baseline old = Baseline::Parse(std::string(kBaselineHeader) + "changes:\n" + Entry("job-0", "old:1") +
                                           Entry("job-1", "old:1") + Entry("job-9", "old:1"),
                                       &file);
  // job-0's and job-2's entries are this run's; job-1's the old one; job-9 (not in the run) is gone.
  CHECK(Baseline::Of(report, &old).Format() == std::string(kBaselineHeader) + "changes:\n" + Entry("job-0", "app:2") +
                                                   Entry("job-1", "old:1") + Entry("job-2", "app:2"));
  // Without the old baseline, the unchecked TrainJob has no entries.
  CHECK(Baseline::Of(report).Format() ==
        std::string(kBaselineHeader) + "changes:\n" + Entry("job-0", "app:2") + Entry("job-2", "app:2"));
}

TEST_CASE("a change the baseline records is acknowledged, unless its new value differs or its TrainJob is blocked") {
  BaselineFixture f;
  Report report = f.MakeReport();
  const std::string file = "b.yaml";
  const Baseline baseline = Baseline::Parse(std::string(kBaselineHeader) + "changes:\n" + Entry("job-0", "app:2") +
                                                Entry("job-1", "app:2") + Entry("job-2", "app:1"),
                                            &file);
  Acknowledge(report, baseline);
  // The groups are job-2, job-1, job-0.
  CHECK_FALSE(report.groups[0].Acknowledged());
  CHECK(report.groups[1].Acknowledged());
  CHECK_FALSE(report.groups[2].Acknowledged());
  CHECK(report.groups[2].objects[0].acknowledged.empty());
  ReportSummary s = Summarize(report);
  CHECK(s.acknowledged == 1);
  CHECK(s.Differs());

  const std::string human = FormatReport(report, ReportOptions{});
  CHECK(human.find("dump.yaml:11: TrainJob ml/job-1 on rt (ClusterTrainingRuntime) changes now: acknowledged\n"
                   "  JobSet ns/job\n"
                   "    spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image\n"
                   "      rt:1 → app:2\n"
                   "      reason: MPI nodes now run the TrainJob image\n"
                   "      source: input.yaml:26:22\n"
                   "      acknowledged: in the baseline\n") != std::string::npos);
  CHECK(human.find("dump.yaml:21: TrainJob ml/job-2 on rt (ClusterTrainingRuntime) changes now\n") !=
        std::string::npos);
  CHECK(human.ends_with(
      "3 TrainJobs checked: 3 changed (1 suspend blocked, 2 now), 0 unchanged; 1 acknowledged by the baseline\n"));

  ReportOptions brief;
  brief.format = ReportFormat::kBrief;
  CHECK(FormatReport(report, brief)
            .find("dump.yaml:11: TrainJob ml/job-1 changes now: 1 field in 1 object (MPI nodes "
                  "now run the TrainJob image); acknowledged\n") != std::string::npos);

  // With job-2's value recorded too, only the blocked TrainJob is left: still a difference.
  Acknowledge(report, Baseline::Of(report));
  CHECK(Summarize(report).acknowledged == 2);
  CHECK(Summarize(report).Differs());
  report.groups.pop_back();
  CHECK_FALSE(Summarize(report).Differs());
}

TEST_CASE("a TrainJob blocked by its live JobSet's drift alone, without changes, is a difference") {
  TrainJob job;
  Report report;
  report.by_trainjob = true;
  ReportGroup group;
  group.job = &job;
  group.reach = Reach::kSuspendBlocked;
  report.groups.push_back(std::move(group));
  const ReportSummary s = Summarize(report);
  CHECK(s.modified + s.added + s.removed == 0);
  CHECK(s.suspend_blocked == 1);
  CHECK(s.Differs());
}

TEST_CASE("a TrainJob with some of its changes in the baseline says how many, and still differs") {
  BaselineFixture f;
  f.legacy_objects = {JobSet({{"launcher", true, "rt:1"}, {"node", false, "rt:1"}})};
  Report report = f.MakeReport();
  const std::string file = "b.yaml";
  Acknowledge(report, Baseline::Parse(std::string(kBaselineHeader) + "changes:\n" + Entry("job-1", "app:2"), &file));
  CHECK(report.groups[1].objects[0].acknowledged == std::vector<bool>{false, true});
  CHECK_FALSE(report.groups[1].Acknowledged());
  CHECK(Summarize(report).acknowledged == 0);
  CHECK(Summarize(report).Differs());
  CHECK(FormatReport(report, ReportOptions{})
            .find("dump.yaml:11: TrainJob ml/job-1 on rt (ClusterTrainingRuntime) changes now (1 of 2 changes "
                  "acknowledged)\n") != std::string::npos);
  ReportOptions brief;
  brief.format = ReportFormat::kBrief;
  CHECK(FormatReport(report, brief)
            .find("dump.yaml:11: TrainJob ml/job-1 changes now: 2 fields in 1 object (MPI "
                  "nodes now run the TrainJob image); 1 of 2 changes acknowledged\n") != std::string::npos);
}

TEST_CASE("a malformed baseline is an error at its file, line and column") {
  CHECK(BaselineErrors("") ==
        "b.yaml:1:1: an empty baseline: expected \"version: 1\" and \"changes\" (--update-baseline writes one)\n");
  CHECK(BaselineErrors("- a\n") == "b.yaml:1:1: expected a map with \"version\" and \"changes\", got array\n");
  CHECK(BaselineErrors("version: 2\nchanges: []\n") ==
        "b.yaml:1:10: version: unsupported baseline version (this trainer reads version 1; --update-baseline "
        "rewrites the file)\n");
  CHECK(BaselineErrors("version: 1\nchange: []\n") ==
        "b.yaml:2:1: unknown field \"change\" (expected version and changes)\n"
        "b.yaml:1:1: missing field \"changes\" (a list, [] when empty)\n");
  CHECK(BaselineErrors("version: 1\nchanges:\n- trainJob: ml/a\n  object: JobSet/ml/a\n  pth: x\n- 3\n"
                       "- {trainJob: ml/b, object: [], path: a}\n") ==
        "b.yaml:5:3: changes[0]: unknown field \"pth\" (expected trainJob, object, path and newValue)\n"
        "b.yaml:3:3: changes[0]: missing field \"path\"\n"
        "b.yaml:6:3: changes[1]: expected a map, got integer\n"
        "b.yaml:7:28: changes[2].object: expected a string, got array\n");
}

}  // namespace trainer
