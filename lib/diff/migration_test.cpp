#include "diff/migration.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "diff/report.h"
#include "tests/fake_fs.h"
#include "util/error.h"
#include "yaml/writer.h"

namespace trainer {

TEST_CASE("the migration check classes each TrainJob by the state of the cluster, first match wins") {
  auto job = [](std::string name) {
    TrainJob j;
    j.metadata.namespace_ = "ml";
    j.metadata.name = std::move(name);
    return j;
  };
  TrainJob kueue = job("kueue");
  kueue.spec.managed_by = "kueue.x-k8s.io/multikueue";
  kueue.status.complete = true;  // managedBy decides first
  TrainJob ours = job("ours");
  ours.spec.managed_by = kTrainJobControllerName;
  TrainJob complete = job("complete");
  complete.status.complete = true;
  TrainJob failed = job("failed");
  failed.status.failed = true;
  TrainJob running = job("running");
  running.status.has_jobs_status = true;  // ignored while the inputs hold JobSets
  TrainJob suspended = job("suspended");
  suspended.spec.suspend = true;
  TrainJob paused_jobset = job("paused-jobset");

  std::vector<JobSetState> jobsets = {{"ml", "running", false, {}},
                                      {"ml", "suspended", false, {}},
                                      {"ml", "paused-jobset", true, {}},
                                      {"other", "ours", false, {}}};
  ClusterState with_jobsets(jobsets);
  CHECK(with_jobsets.Classify(kueue) == Reach::kManagedElsewhere);
  CHECK(with_jobsets.Classify(ours) == Reach::kNow);  // its JobSet is in another namespace
  CHECK(with_jobsets.Classify(complete) == Reach::kFinished);
  CHECK(with_jobsets.Classify(failed) == Reach::kFinished);
  CHECK(with_jobsets.Classify(running) == Reach::kAfterSuspendAndResume);
  CHECK(with_jobsets.Classify(suspended) == Reach::kOnResume);
  CHECK(with_jobsets.Classify(paused_jobset) == Reach::kOnResume);

  // Without JobSets in the inputs, status.jobsStatus says the JobSet exists, and the Suspended
  // condition stands for its suspension.
  ClusterState from_status({});
  CHECK(from_status.Classify(running) == Reach::kAfterSuspendAndResume);
  running.status.suspended = true;
  CHECK(from_status.Classify(running) == Reach::kOnResume);
  CHECK(from_status.Classify(ours) == Reach::kNow);
  CHECK(from_status.Classify(kueue) == Reach::kManagedElsewhere);
}

namespace {

// A runtime `plain` whose trainer Job runs python:3.12, then tests/mpi_runtime.yaml (openmpi).
std::string MigrationRuntimes() {
  std::ifstream in(TRAINER_SOURCE_DIR "/tests/mpi_runtime.yaml");
  std::string mpi((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!mpi.empty());
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: plain}\n"
         "spec:\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n"
         "          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"
         "          spec: {template: {spec: {containers: [{name: node, image: python:3.12}]}}}\n---\n" +
         mpi;
}

std::string MigrationJob(const std::string& name, const std::string& runtime, const std::string& image) {
  return "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: " + name +
         "}\nspec:\n  runtimeRef: {name: " + runtime + "}\n  trainer: {image: " + image + "}\n";
}

Inputs LoadMigration(testing::FakeFileSystem& fs, const std::string& jobs) {
  fs.files["runtimes.yaml"] = MigrationRuntimes();
  fs.files["jobs.yaml"] = jobs;
  LoadOptions load;
  load.paths = {"runtimes.yaml", "jobs.yaml"};
  Inputs inputs = Load(load, fs);
  inputs.Checkpoint();
  return inputs;
}

// The bytes of the TrainJob's objects as YAML, as the output size limit counts them.
std::size_t RenderedBytes(const RenderedJob& rendered) {
  std::size_t bytes = 0;
  for (const Tree& object : rendered.objects) {
    std::string text;
    WriteYaml(object, text);
    bytes += text.size();
  }
  return bytes;
}

std::string MigrationError(const Inputs& inputs, const RenderOptions& options) {
  try {
    CheckMigration(inputs, options, {}, nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the migration check keeps of each TrainJob its changed objects only, without their renderings") {
  testing::FakeFileSystem fs;
  Inputs inputs = LoadMigration(fs, MigrationJob("same", "plain", "app:1") + MigrationJob("pi", "openmpi", "app:2"));
  ReportOptions unified;
  unified.format = ReportFormat::kUnified;
  unified.context = 1;
  Report report = CheckMigration(inputs, RenderOptions{}, {}, nullptr, false, &unified);
  REQUIRE(report.groups.size() == 2);
  CHECK(report.groups[0].objects.empty());
  CHECK(report.groups[0].unchanged == 1);
  REQUIRE(report.groups[1].objects.size() == 1);  // the JobSet; the hostfile and the SSH keys are the same
  CHECK(report.groups[1].unchanged == 2);
  CHECK(report.groups[1].objects[0].diff.from == nullptr);
  CHECK(report.groups[1].objects[0].diff.to == nullptr);
  CHECK(Summarize(report).objects == 4);
  CHECK(FormatReport(report, unified) ==
        "# jobs.yaml:9: TrainJob default/pi changes now\n"
        "--- JobSet default/pi (legacy)\n"
        "+++ JobSet default/pi (current)\n"
        "@@ -79,3 +79,3 @@\n"
        "             containers:\n"
        "-            - image: mpi/worker:1\n"
        "+            - image: app:2\n"
        "               name: node\n");
  CHECK(FormatReport(report, ReportOptions{}) ==
        "jobs.yaml:9: TrainJob default/pi on openmpi (ClusterTrainingRuntime) changes now\n"
        "  JobSet default/pi\n"
        "    spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image\n"
        "      mpi/worker:1 → app:2\n"
        "      reason: MPI nodes now run the TrainJob image\n"
        "      asks: the runtime sets no command for the MPI nodes: they now start the TrainJob image's entrypoint, "
        "which must run the MPI node (its SSH server)\n"
        "      source: jobs.yaml:14:13, set by MPI\n"
        "\n"
        "2 TrainJobs checked: 1 changed (1 now), 1 unchanged\n");
}

TEST_CASE("the migration check reports the legacy renderings' size limit first, as though they all came first") {
  testing::FakeFileSystem fs;
  // The current rendering of `long` is the larger: it runs the TrainJob's image on the MPI nodes.
  const std::string image = "registry.example.com/a/long/name/for/the/trainer/image:1";
  Inputs inputs = LoadMigration(fs, MigrationJob("long", "openmpi", image) + MigrationJob("next", "plain", "app:1"));
  RenderOptions legacy;
  legacy.legacy_image = true;
  std::vector<RenderedJob> legacy_renderings = RenderJobs(inputs, legacy);
  std::vector<RenderedJob> current_renderings = RenderJobs(inputs, RenderOptions{});
  const std::size_t first = RenderedBytes(legacy_renderings[0]);
  REQUIRE(RenderedBytes(current_renderings[0]) > first + 1);
  RenderOptions options;
  options.max_output_bytes = first + 1;
  const std::string limit = "output larger than " + std::to_string(first + 1) + " bytes (output size limit)";
  CHECK(MigrationError(inputs, options) == "jobs.yaml:14:3: TrainJob default/next: spec.trainer.numNodes: " + limit);
  // Without the second TrainJob, the legacy renderings keep to the limit, and the current ones do not.
  Inputs one = LoadMigration(fs, MigrationJob("long", "openmpi", image));
  CHECK(MigrationError(one, options) == "jobs.yaml:7:3: TrainJob default/long: spec.trainer.numNodes: " + limit);
}

}  // namespace trainer
