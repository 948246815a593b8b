#include "render/render.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "diff/stream.h"
#include "plugins/mpi.h"
#include "tests/fake_fs.h"
#include "util/error.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

// tests/hostile_names.yaml.in with the runtime's name, the TrainJob's namespace and its name.
std::string Input(const std::string& name, const std::string& ns, const std::string& job) {
  std::ifstream in(TRAINER_SOURCE_DIR "/tests/hostile_names.yaml.in");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!text.empty());
  for (auto [from, to] : {std::pair{"RUNTIME_NAME", &name}, std::pair{"NAMESPACE", &ns}, std::pair{"JOB_NAME", &job}}) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to->size())) {
      text.replace(at, std::string_view(from).size(), *to);
    }
  }
  return text;
}

// Takes the files --output-dir would write, by name.
class FileRecorder : public RenderSink {
 public:
  bool WantsFiles() const override { return true; }
  void File(const std::string& name, std::string_view text, FileAccess) override {
    names.push_back(name);
    texts.emplace_back(text);
  }
  std::vector<std::string> names;
  std::vector<std::string> texts;
};

RenderRequest Request(const std::string& path, ValidationMode mode) {
  RenderRequest request;
  request.load.paths = {path};
  request.load.validate = request.render.validate = mode;
  return request;
}

}  // namespace

TEST_CASE("the Source comment escapes its file, namespace and names as strconv.Quote does, without quotes") {
  const std::string file = "in\n---\nkind: Secret\\\xff.yaml";
  TrainJob job;
  job.origin.file = &file;
  job.metadata.namespace_ = "ml\r\n---\u0085\u2028\u2029\x7f";
  job.metadata.name = "job \"a\"\t\u00e9";
  Runtime runtime;
  runtime.kind = kClusterTrainingRuntimeKind;
  runtime.metadata.name = "rt\n# x";
  CHECK(SourceComment(job, runtime) ==
        "# Source: in\\n---\\nkind: Secret\\\\\\xff.yaml: TrainJob ml\\r\\n---\\u0085\\u2028\\u2029\\x7f/"
        "job \\\"a\\\"\\t\u00e9 -> ClusterTrainingRuntime/rt\\n# x\n");
}

TEST_CASE("under --validate=ignore, hostile names render to a stream that reads back to exactly the objects") {
  const std::string file = "in\n---\nkind: Secret\\\xff\u2028.yaml";
  testing::FakeFileSystem fs;
  fs.files[file] = Input("mpi\\n---\\nkind: Secret\\L\\Nx\\\\",
                         "ml\\n---\\napiVersion: v1\\nkind: Secret\\r\\n# \\x7f\\_", "job\\r\\n- x\\P\\t\\x01");
  RenderRequest request = Request(file, ValidationMode::kIgnore);
  StringSink sink;
  RenderTo(request, fs, sink);
  const std::string stream = sink.text();

  Inputs inputs = Load(request.load, fs);
  inputs.Checkpoint();
  std::vector<RenderedJob> rendered = RenderJobs(inputs, request.render);
  REQUIRE(rendered.size() == 1);
  std::vector<std::string> want;
  for (const Tree& object : rendered[0].objects) WriteJson(object, want.emplace_back());
  REQUIRE(want.size() == 3);

  const std::string name = "<stream>";
  std::vector<std::string> got;
  for (const Tree& document : ReadYamlStream(stream, &name)) WriteJson(document, got.emplace_back());
  CHECK(got == want);
  // One comment line per object, each the whole Source comment.
  std::vector<std::string> comments;
  for (std::size_t at = 0; (at = stream.find("\n#", at)) != std::string::npos; ++at) {
    comments.push_back(stream.substr(at + 1, stream.find('\n', at + 1) - at));
  }
  CHECK(comments == std::vector<std::string>(3, SourceComment(*rendered[0].job, *rendered[0].runtime)));
  CHECK(comments[0] ==
        "# Source: in\\n---\\nkind: Secret\\\\\\xff\\u2028.yaml: TrainJob ml\\n---\\napiVersion: v1\\nkind: "
        "Secret\\r\\n# \\x7f\\u00a0/job\\r\\n- x\\u2029\\t\\x01 -> ClusterTrainingRuntime/mpi\\n---\\nkind: "
        "Secret\\u2028\\u0085x\\\\\n");
}

TEST_CASE("with -o json, --output-dir writes one JSON object per file, named .json") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = Input("mpi", "ml-team", "job-v1");
  FileRecorder files;
  RenderRequest request = Request("in.yaml", ValidationMode::kStrict);
  request.format = RenderRequest::Format::kJson;
  RenderTo(request, fs, files);
  CHECK(files.names == std::vector<std::string>{
                           "jobset.x-k8s.io_v1alpha2_JobSet_ml-team_job-v1.json",
                           "v1_Secret_ml-team_job-v1-mpi-ssh-auth.json",
                           "v1_ConfigMap_ml-team_job-v1-mpi-hostfile.json",
                       });
  REQUIRE(files.texts.size() == 3);
  CHECK(files.texts[1].starts_with("{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n"));
  CHECK(files.texts[1].ends_with("\n}\n"));
  // Each file reads back as the one object it names.
  std::string name = files.names[2];
  std::vector<Tree> objects = ReadYamlStream(files.texts[2], &name);
  REQUIRE(objects.size() == 1);
  CHECK(*objects[0].FindString("kind") == "ConfigMap");
}

TEST_CASE("every file --output-dir writes has a plain name: no path separator, no NUL, not . or ..") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = Input("mpi", "ml-team", "job-v1");
  FileRecorder files;
  RenderTo(Request("in.yaml", ValidationMode::kStrict), fs, files);
  CHECK(files.names == std::vector<std::string>{
                           "jobset.x-k8s.io_v1alpha2_JobSet_ml-team_job-v1.yaml",
                           "v1_Secret_ml-team_job-v1-mpi-ssh-auth.yaml",
                           "v1_ConfigMap_ml-team_job-v1-mpi-hostfile.yaml",
                       });
  for (const std::string& name : files.names) {
    CHECK(name.find('/') == std::string::npos);
    CHECK(name.find('\0') == std::string::npos);
    CHECK(name != ".");
    CHECK(name != "..");
  }
}

TEST_CASE("--output-dir refuses a name or namespace that breaks the metadata rules under every mode, before any file") {
  const std::string label_message =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
      "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const std::string subdomain_message =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  struct Case {
    std::string ns;
    std::string job;
    std::string error;
  };
  const Case cases[] = {
      {"../../etc", "job",
       "in.yaml:21:25: TrainJob ../../etc/job: metadata.namespace: Invalid value: \"../../etc\": " + label_message},
      {"ml", "..", "in.yaml:21:12: TrainJob ml/..: metadata.name: Invalid value: \"..\": " + subdomain_message},
      {"ml", "a\\0b",
       "in.yaml:21:12: TrainJob ml/a\\x00b: metadata.name: Invalid value: \"a\\x00b\": " + subdomain_message},
  };
  for (ValidationMode mode : {ValidationMode::kIgnore, ValidationMode::kWarn, ValidationMode::kStrict}) {
    for (const Case& c : cases) {
      CAPTURE(c.job);
      testing::FakeFileSystem fs;
      fs.files["in.yaml"] = Input("mpi", c.ns, c.job);
      FileRecorder files;
      std::string error;
      try {
        RenderTo(Request("in.yaml", mode), fs, files);
      } catch (const Error& e) {
        error = e.diagnostics().back().Format();
      }
      CHECK(error == c.error);
      CHECK(files.names.empty());
    }
  }
}

TEST_CASE("--output-dir refuses a bad -n under every mode, though stdout output takes it when ignoring") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = Input("mpi", "", "job");
  RenderRequest request = Request("in.yaml", ValidationMode::kIgnore);
  request.load.default_namespace = "../x";
  FileRecorder files;
  std::string error;
  try {
    RenderTo(request, fs, files);
  } catch (const Error& e) {
    error = e.what();
  }
  CHECK(error ==
        "--namespace: Invalid value: \"../x\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  CHECK(files.names.empty());
  StringSink sink;
  RenderTo(request, fs, sink);
  CHECK(sink.text().find("namespace: ../x\n") != std::string::npos);
}

namespace {

// An OpenMPI runtime: its hostfile has a line per node, so numNodes sizes the rendering.
std::string MPIRuntime() {
  std::ifstream in(TRAINER_SOURCE_DIR "/tests/mpi_runtime.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!text.empty());
  return text;
}

std::string MPIJob(const std::string& name, int num_nodes) {
  return "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
         "\nspec:\n  runtimeRef:\n    name: openmpi\n  trainer:\n    numNodes: " + std::to_string(num_nodes) + "\n";
}

std::string RenderError(testing::FakeFileSystem& fs, const RenderRequest& request) {
  StringSink sink;
  try {
    RenderTo(request, fs, sink);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The request to render the MPI runtime (runtime.yaml) and `jobs` (jobs.yaml), put in `fs`.
RenderRequest MPIJobs(testing::FakeFileSystem& fs, const std::string& jobs) {
  fs.files["runtime.yaml"] = MPIRuntime();
  fs.files["jobs.yaml"] = jobs;
  RenderRequest request;
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  return request;
}

}  // namespace

TEST_CASE("a render past the output size limit fails at the numNodes of the TrainJob that crossed it") {
  testing::FakeFileSystem fs;
  RenderRequest request = MPIJobs(fs, MPIJob("small", 2) + MPIJob("large", 3000) + MPIJob("after", 2));
  StringSink whole;
  RenderTo(request, fs, whole);
  fs.files["small.yaml"] = MPIJob("small", 2);
  request.load.paths = {"runtime.yaml", "small.yaml"};
  StringSink first;
  RenderTo(request, fs, first);
  // The limit is crossed by the second TrainJob: the render ends there.
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  request.render.max_output_bytes = first.text().size() + 100;
  CHECK(RenderError(fs, request) == "jobs.yaml:20:5: TrainJob default/large: spec.trainer.numNodes: output larger than " +
                                        std::to_string(first.text().size() + 100) + " bytes (output size limit)");
  request.render.max_output_bytes = whole.text().size();
  CHECK(RenderError(fs, request) == "no error");
}

namespace {

// The values of a stream as CountValues counts them, read with the limits of `trainer diff`.
std::size_t ValuesRead(const std::string& stream) {
  static const std::string kName = "<stream>";
  std::size_t values = 0;
  for (const Tree& document : ReadYamlStream(stream, &kName, RenderingLimits())) values += CountValues(document);
  return values;
}

}  // namespace

TEST_CASE("render counts the values it prints as the reader does, and fails past the output value limit") {
  testing::FakeFileSystem fs;
  RenderRequest request = MPIJobs(fs, MPIJob("first", 2) + MPIJob("second", 3) + MPIJob("last", 2));
  for (auto format : {RenderRequest::Format::kYaml, RenderRequest::Format::kJson}) {
    CAPTURE(static_cast<int>(format));
    request.format = format;
    request.render.max_output_values = kMaxRenderedValues;
    StringSink sink;
    RenderTo(request, fs, sink);
    const std::string stream = sink.text();
    const std::size_t values = ValuesRead(stream);
    // CountValues counts what the reader's value limit counts: the stream reads at that limit, not
    // below.
    static const std::string kName = "<stream>";
    ReadLimits limits;
    limits.max_values = values;
    CHECK(ReadYamlStream(stream, &kName, limits).size() == (format == RenderRequest::Format::kJson ? 1 : 3 * 3));
    limits.max_values = values - 1;
    std::string error = "no error";
    try {
      ReadYamlStream(stream, &kName, limits);
    } catch (const Error& e) {
      error = e.what();
    }
    CHECK(error.ends_with(fmt::format(": more than {} values in one stream (value count limit)", values - 1)));
    // And render counts as many, the JSON List around the objects included.
    request.render.max_output_values = values;
    CHECK(RenderError(fs, request) == "no error");
    request.render.max_output_values = values - 1;
    CHECK(RenderError(fs, request) ==
          fmt::format("jobs.yaml:30:5: TrainJob default/last: spec.trainer.numNodes: output of more than {} values "
                      "(output size limit)",
                      values - 1));
  }
}

TEST_CASE("a rendering of more values than one input may hold reads back as trainer diff reads it") {
  testing::FakeFileSystem fs;
  RenderRequest request;
  fs.files["runtime.yaml"] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: plain}\nspec:\n"
      "  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n"
      "          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"
      "          spec: {template: {spec: {containers: [{name: node, image: python}]}}}\n";
  std::string& jobs = fs.files["jobs.yaml"];
  constexpr int kJobs = 15'000;  // each renders 68 values
  for (int job = 0; job < kJobs; ++job) {
    jobs += fmt::format(
        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: job-{}}}\n"
        "spec: {{runtimeRef: {{name: plain}}}}\n",
        job);
  }
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  StringSink sink;
  RenderTo(request, fs, sink);
  const std::string stream = sink.text();
  REQUIRE(ValuesRead(stream) > ReadLimits{}.max_values);
  const std::string name = "rendered.yaml";
  CHECK(ReadObjectStream(stream, &name).size() == kJobs);
}

TEST_CASE("an MPI hostfile stops growing past the output size limit") {
  // numNodes of a few bytes can ask for gigabytes of hostfile: the rendering fails instead.
  testing::FakeFileSystem fs;
  fs.files["runtime.yaml"] = MPIRuntime();
  fs.files["jobs.yaml"] = MPIJob("huge", 2'000'000'000);
  RenderRequest request;
  request.load.paths = {"runtime.yaml", "jobs.yaml"};
  request.render.max_output_bytes = 100'000;
  CHECK(RenderError(fs, request) ==
        "jobs.yaml:10:5: TrainJob default/huge: spec.trainer.numNodes: output larger than 100000 bytes (output size limit)");

  PodSet nodes;
  nodes.name = "node";
  nodes.count = 1'000'000;
  nodes.endpoints = EndpointSource{"job", "node", 1, "job"};
  // Its size is known before a line is written: "job-node-0-<pod>.job slots=4\n" for 0 to 999999.
  const std::size_t size = 1'000'000 * 24 + 10 * 1 + 90 * 2 + 900 * 3 + 9'000 * 4 + 90'000 * 5 + 900'000 * 6;
  CHECK_FALSE(plugins::MPIHostFile({nodes}, false, 4, size - 1));
  CHECK(plugins::MPIHostFile({nodes}, false, 4, size)->size() == size);
}

TEST_CASE("diff's renderings count against the output size limit each") {
  testing::FakeFileSystem fs;
  fs.files["runtime.yaml"] = MPIRuntime();
  fs.files["jobs.yaml"] = MPIJob("a", 2000);
  LoadOptions load;
  load.paths = {"runtime.yaml", "jobs.yaml"};
  Inputs inputs = Load(load, fs);
  inputs.Checkpoint();
  RenderOptions options;
  CHECK(RenderJobs(inputs, options, nullptr).size() == 1);
  options.max_output_bytes = 10'000;
  try {
    RenderJobs(inputs, options, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "jobs.yaml:10:5: TrainJob default/a: spec.trainer.numNodes: output larger than 10000 bytes (output size limit)");
  }
}

namespace {

// A PlainML runtime of `num_nodes` nodes whose JobSet sets `extra_spec` (YAML lines indented by 6),
// then a TrainJob named `name` on it, in one file.
std::string PlainJobs(const std::string& name, int num_nodes, const std::string& extra_spec = "") {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: plain\n"
         "spec:\n  mlPolicy:\n    numNodes: " +
         std::to_string(num_nodes) + "\n  template:\n    spec:\n" + extra_spec +
         "      replicatedJobs:\n        - name: node\n          template:\n            metadata:\n"
         "              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}\n"
         "            spec:\n              template:\n                spec:\n"
         "                  containers: [{name: node, image: busybox}]\n"
         "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " +
         name + "\nspec:\n  runtimeRef:\n    name: plain\n";
}

}  // namespace

TEST_CASE("render judges the JobSet as the JobSet webhook: strict refuses a Pod name too long, at the TrainJob name") {
  testing::FakeFileSystem fs;
  // <name>-node-0-1-xxxxx: 49 + 15 = 64 characters.
  const std::string name(49, 'a');
  fs.files["in.yaml"] = PlainJobs(name, 2);
  const std::string error = RenderError(fs, Request("in.yaml", ValidationMode::kStrict));
  CHECK(error == "in.yaml:23:3: TrainJob default/" + name + ": metadata.name: the longest Pod name, \"" + name +
                     "-node-0-1-xxxxx\", is 64 characters (at most 63): shorten the TrainJob name by 1 character; the "
                     "JobSet webhook would refuse the JobSet: spec.replicatedJobs[0].name: Invalid value: \"" +
                     name +
                     "-node-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 "
                     "characters");
}

TEST_CASE("render under warn warns of what the JobSet webhook refuses and renders; under ignore it says nothing") {
  testing::FakeFileSystem fs;
  const std::string name(52, 'a');  // 3 characters too many
  fs.files["in.yaml"] = PlainJobs(name, 2);
  StringSink warned;
  RenderResult result = RenderTo(Request("in.yaml", ValidationMode::kWarn), fs, warned);
  REQUIRE(result.warnings.size() == 1);
  CHECK(FormatWarning(result.warnings[0]) ==
        "in.yaml:23:3: warning: TrainJob default/" + name + ": metadata.name: the longest Pod name, \"" + name +
            "-node-0-1-xxxxx\", is 67 characters (at most 63): shorten the TrainJob name by 4 characters; the JobSet "
            "webhook would refuse the JobSet: spec.replicatedJobs[0].name: Invalid value: \"" +
            name + "-node-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 characters");
  StringSink ignored;
  CHECK(RenderTo(Request("in.yaml", ValidationMode::kIgnore), fs, ignored).warnings.empty());
  CHECK(ignored.text() == warned.text());
  // The printed JobSet is the controller's, without the webhook's defaults.
  CHECK(warned.text().find("successPolicy") == std::string::npos);
  CHECK(warned.text().find("enableDNSHostnames") == std::string::npos);
}

TEST_CASE("render points a JobSet webhook refusal of a runtime's value at that value") {
  testing::FakeFileSystem fs;
  fs.files["in.yaml"] = PlainJobs("job", 1, "      failurePolicy:\n        rules: [{name: 1st, action: FailJobSet}]\n");
  const std::string error = RenderError(fs, Request("in.yaml", ValidationMode::kStrict));
  CHECK(error ==
        "in.yaml:11:24: TrainJob default/job: the JobSet webhook would refuse the JobSet: <nil>: Internal error: "
        "invalid failure policy rule name '1st', a failure policy rule name must start with an alphabetic character, "
        "optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric "
        "character or '_'");
}

namespace {

constexpr const char* kPlainRuntime =
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: plain}\n"
    "spec: {template: {spec: {replicatedJobs: [{name: node, template: {metadata: {labels: "
    "{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}, spec: {template: {spec: {containers: [{name: node, "
    "image: python}]}}}}}]}}}\n";

}  // namespace

TEST_CASE("an input without TrainJobs, or runtimes under --probe, fails saying what renders, unless allow_empty") {
  testing::FakeFileSystem fs;
  fs.files["rt.yaml"] = kPlainRuntime;
  fs.files["empty.yaml"] = "";
  StringSink sink;
  CHECK_THROWS_WITH(RenderTo(Request("rt.yaml", ValidationMode::kStrict), fs, sink),
                    "no TrainJob in the inputs, only runtimes: --probe renders each runtime with a probe TrainJob "
                    "(--allow-empty lets an input without TrainJobs pass)");
  CHECK_THROWS_WITH(RenderTo(Request("empty.yaml", ValidationMode::kStrict), fs, sink),
                    "no TrainJob in the inputs: nothing rendered (runtimes alone render with --probe; --allow-empty "
                    "lets an input without TrainJobs pass)");
  RenderRequest probe = Request("empty.yaml", ValidationMode::kStrict);
  probe.probe = true;
  CHECK_THROWS_WITH(RenderTo(probe, fs, sink),
                    "no runtime to probe: give ClusterTrainingRuntime or TrainingRuntime files (--allow-empty lets "
                    "an input without runtimes pass)");
  for (const char* path : {"rt.yaml", "empty.yaml"}) {
    RenderRequest allowed = Request(path, ValidationMode::kStrict);
    allowed.allow_empty = true;
    StringSink empty;
    CHECK(RenderTo(allowed, fs, empty).warnings.empty());
    CHECK(empty.text().empty());
  }
}

TEST_CASE("--probe renders each runtime with the probe TrainJob, named by the runtime's file, and reads no TrainJob") {
  testing::FakeFileSystem fs;
  fs.files["rt.yaml"] = std::string(kPlainRuntime) +
                        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job}\n"
                        "spec: {runtimeRef: {name: missing}}\n";
  RenderRequest request = Request("rt.yaml", ValidationMode::kStrict);
  request.probe = true;
  request.show_only = {"JobSet"};
  StringSink sink;
  RenderTo(request, fs, sink);
  const std::string text = sink.text();
  CHECK(text.rfind("---\n# Source: rt.yaml: TrainJob default/probe -> ClusterTrainingRuntime/plain\n"
                   "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: probe\n",
                   0) == 0);
  CHECK(text.find("image: trainer-probe:latest") != std::string::npos);
  CHECK(text.find("# Source:", 5) == std::string::npos);  // one JobSet: the TrainJob was not read
}

}  // namespace trainer
