#include "plugins/flux.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugins/flux_curve.h"
#include "plugins/flux_entrypoint.h"
#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

using plugins::CurveKeyPairFromUID;
using plugins::FluxEntrypointValues;
using plugins::FluxScriptValues;

using testing::Yaml;

std::vector<Tree> YamlList(std::string_view text) { return Yaml(text).items(); }

MLPolicy WithFlux(std::int32_t procs = 1) {
  MLPolicy ml;
  ml.flux = trainer::FluxPolicy{procs};
  return ml;
}

// An Info with one trainer PodSet `node` holding an empty `node` container, as upstream's test.
Info NewInfo(const MLPolicy* ml) {
  Info info;
  info.runtime_policy.ml_policy = ml;
  PodSet ps;
  ps.name = kNode;
  ps.ancestor = kAncestorTrainer;
  ps.count = 1;
  ps.containers.push_back(Container{.name = kNode});
  info.template_spec.pod_sets.push_back(std::move(ps));
  return info;
}

TrainJob NewTrainJob(std::optional<TrainerSpec> trainer, std::string uid = "test-uid") {
  TrainJob job;
  job.metadata.name = "test-job";
  job.metadata.namespace_ = "default";
  job.metadata.uid = std::move(uid);
  job.spec.trainer = std::move(trainer);
  return job;
}

TrainerSpec WithNumNodes(std::int32_t n) {
  TrainerSpec trainer;
  trainer.num_nodes = n;
  return trainer;
}

struct FluxPlugin {
  explicit FluxPlugin(RenderOptions options = {}) : plugin(plugins::NewFlux(options)) {}
  void Enforce(Info& info, TrainJob& job) {
    dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job);
  }
  std::vector<Tree> Build(Info& info, const TrainJob& job) {
    std::vector<Tree> objects;
    dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
    return objects;
  }
  Diagnostics Validate(const Info& info, const TrainJob& job) {
    Diagnostics errors;
    dynamic_cast<CustomValidationPlugin&>(*plugin).Validate(&info, nullptr, job, errors);
    return errors;
  }
  std::unique_ptr<Plugin> plugin;
};

std::string Data(const Tree& object, std::string_view key) { return object.Find("data")->Find(key)->text(); }

// The expected keys for a few UIDs, computed independently of trainer: Python's hashlib for
// SHA-256, an RFC 7748 X25519 ladder in pure Python (checked against the RFC's test vector and
// against the `cryptography` package), and a Python Z85 encoder.
struct KnownKey {
  const char* uid;
  const char* public_key;
  const char* secret_key;
};
constexpr KnownKey kKnownKeys[] = {
    {"uid-123", "{Kg:IBbf$c>3A8?DFDE)]vL!]GeJJR45-%wW^$+b", "bs&KJW1]Uo^ABuY{?H+Jq/?h#-oYas)B*qa0i0ms"},
    {"", "7?EGW/m>&Y9HQagaISXu)D$eAd5[-hYZ)hT8q:j&", "<flD*Nev{rN!#-#NqYRYc:2+@wsF=RQ)mt!CV84K"},
    {"12345-67890", "=5tz+^nr>fsG0r)APsh9&*hw22n>C@sC.y{pn0q=", "9v+V-VmP1<i#7s}ZY#SyyUlHmlYNsC{u@t=@rKRv"},
};

}  // namespace

TEST_CASE("Flux: no action when flux policy is nil") {
  MLPolicy ml;
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(WithNumNodes(2));
  FluxPlugin flux;
  flux.Enforce(info, job);
  CHECK(info.template_spec.pod_sets[0].init_containers.empty());
  CHECK(info.template_spec.pod_sets[0].volumes.empty());
  CHECK(flux.Build(info, job).empty());
  CHECK(!job.spec.trainer->command);
}

TEST_CASE("Flux: flux mutations are applied correctly") {
  MLPolicy ml = WithFlux();
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(WithNumNodes(2));
  FluxPlugin flux;
  flux.Enforce(info, job);

  const PodSet& ps = info.template_spec.pod_sets[0];
  REQUIRE(ps.init_containers.size() == 1);
  const Container& installer = ps.init_containers[0];
  CHECK(installer.name == "flux-installer");
  CHECK(installer.image == Tree::String("ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"));
  CHECK(installer.command == Yaml("[/bin/bash, /etc/flux-config/init.sh]"));
  CHECK(installer.volume_mounts == YamlList(R"(
- {name: flux-install, mountPath: /mnt/flux}
- {name: test-job-flux-entrypoint, mountPath: /etc/flux-config, readOnly: true}
)"));
  CHECK(ps.containers[0].volume_mounts == YamlList(R"(
- {name: flux-install, mountPath: /mnt/flux}
- {name: spack-install, mountPath: /opt/software}
- {name: test-job-flux-entrypoint, mountPath: /etc/flux-config, readOnly: true}
- {name: flux-curve, mountPath: /curve, readOnly: true}
- {name: shared-memory, mountPath: /dev/shm, readOnly: true}
)"));
  CHECK(ps.volumes == YamlList(R"(
- {name: spack-install, emptyDir: {}}
- {name: flux-install, emptyDir: {}}
- {name: test-job-flux-entrypoint, configMap: {name: test-job-flux-entrypoint, defaultMode: 493}}
- {name: shared-memory, emptyDir: {medium: Memory}}
- {name: flux-curve, secret: {secretName: test-job-flux-curve, defaultMode: 256}}
)"));
  // Upstream leaves the PodSet's command alone and rewrites the TrainJob's instead.
  CHECK(ps.containers[0].command.IsNull());
  CHECK(job.spec.trainer->command == std::vector<std::string>{"/bin/bash", "/etc/flux-config/entrypoint.sh", ""});

  std::vector<Tree> objects = flux.Build(info, job);
  REQUIRE(objects.size() == 2);
  const char* owner =
      "[{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name: test-job, uid: test-uid, "
      "controller: true, blockOwnerDeletion: true}]";
  CHECK(*objects[0].FindString("kind") == "ConfigMap");
  CHECK(*objects[0].Find("metadata")->FindString("name") == "test-job-flux-entrypoint");
  CHECK(*objects[0].Find("metadata")->FindString("namespace") == "default");
  CHECK(*objects[0].Find("metadata")->Find("ownerReferences") == Yaml(owner));
  CHECK(objects[0].Find("data")->keys() == std::vector<std::string>{"entrypoint.sh", "init.sh"});
  CHECK(*objects[1].FindString("kind") == "Secret");
  CHECK(*objects[1].Find("metadata")->FindString("name") == "test-job-flux-curve");
  CHECK(*objects[1].Find("metadata")->Find("ownerReferences") == Yaml(owner));
  CHECK(objects[1].Find("data")->keys() == std::vector<std::string>{"curve.cert"});
}

TEST_CASE("Flux wraps the TrainJob's command and args in the entrypoint and clears the args") {
  MLPolicy ml = WithFlux();
  Info info = NewInfo(&ml);
  info.template_spec.pod_sets[0].containers[0].command = Yaml("[python, runtime.py]");
  TrainerSpec trainer = WithNumNodes(1);
  trainer.args = {{"--epochs", "10"}};
  TrainJob job = NewTrainJob(trainer);
  FluxPlugin().Enforce(info, job);
  CHECK(job.spec.trainer->command ==
        std::vector<std::string>{"/bin/bash", "/etc/flux-config/entrypoint.sh", "python runtime.py --epochs 10"});
  CHECK(!job.spec.trainer->args);

  SUBCASE("the TrainJob's command replaces the runtime's") {
    Info again = NewInfo(&ml);
    again.template_spec.pod_sets[0].containers[0].command = Yaml("[python, runtime.py]");
    TrainerSpec own = WithNumNodes(1);
    own.command = {{"lmp", "-in", "in.reaxc"}};
    TrainJob job2 = NewTrainJob(own);
    FluxPlugin().Enforce(again, job2);
    CHECK(job2.spec.trainer->command->back() == "lmp -in in.reaxc");
  }
}

TEST_CASE("Flux: getOriginalCommand joins command and args and trims the ends only") {
  CHECK(plugins::JoinOriginalCommand({"python"}, {"train.py", "--epochs", "10"}) == "python train.py --epochs 10");
  CHECK(plugins::JoinOriginalCommand({"  python  "}, {" script.py "}) == "python    script.py");
  CHECK(plugins::JoinOriginalCommand({}, {}).empty());
}

TEST_CASE("Flux takes broker settings from the trainer container's env, then the TrainJob's") {
  MLPolicy ml = WithFlux();
  Info info = NewInfo(&ml);
  info.template_spec.pod_sets[0].containers[0].env = YamlList(R"(
- {name: FLUX_VIEW_IMAGE, value: runtime/view:1}
- {name: FLUX_QUEUE_POLICY, value: easy}
- {name: FLUX_NETWORK_DEVICE, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
- {name: OTHER, value: x}
)");
  TrainerSpec trainer = WithNumNodes(1);
  trainer.env = YamlList(R"(
- {name: FLUX_VIEW_IMAGE, value: job/view:2}
- {name: FLUX_QUEUE_POLICY, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}
)");
  TrainJob job = NewTrainJob(trainer);
  FluxPlugin flux;
  flux.Enforce(info, job);
  CHECK(info.template_spec.pod_sets[0].init_containers[0].image == Tree::String("job/view:2"));
  std::string init = Data(flux.Build(info, job)[0], "init.sh");
  CHECK(init.find("default_bind = \"tcp://eth0:%p\"\n") != std::string::npos);
  CHECK(init.find("queue-policy = \"\"\n") != std::string::npos);
}

TEST_CASE("Flux: generateRange") {
  CHECK(plugins::GenerateRange(1, 0) == "0");       // single node
  CHECK(plugins::GenerateRange(4, 0) == "0-3");     // multiple nodes starting at zero
  CHECK(plugins::GenerateRange(3, 10) == "10-12");  // multiple nodes with offset start
}

TEST_CASE("Flux: generateHostlist") {
  CHECK(plugins::GenerateHostlist("lammps-job", 1) == "lammps-job-node-0-[0]");        // prefix with one node
  CHECK(plugins::GenerateHostlist("flux-cluster", 4) == "flux-cluster-node-0-[0-3]");  // prefix with four nodes
  CHECK(plugins::GenerateHostlist("", 2) == "-node-0-[0-1]");                          // empty prefix handled
}

TEST_CASE("Flux entrypoint values for two nodes of four tasks without GPUs") {
  FluxScriptValues v = FluxEntrypointValues("lammps", "team", 2, 4, 0, {});
  CHECK(v.flux_root == "/opt/view");
  CHECK(v.init_main_host == "lammps-0");
  CHECK(v.hosts == "lammps-node-0-[0-1]");
  CHECK(v.default_bind == "tcp://eth0:%p");
  CHECK(v.default_connect == "tcp://%h.lammps.team.svc.cluster.local:%p");
  CHECK(v.queue_policy == "fcfs");
  CHECK(v.resource_spec == "--cores=0-3");
  CHECK(v.main_host == "lammps-node-0-0");
  CHECK(v.flags == "-N 2 -n 8");
}

TEST_CASE("Flux entrypoint values with GPUs add GPUs per task and to the resource spec") {
  plugins::FluxBrokerSettings settings;
  settings.network_device = "ib0";
  FluxScriptValues v = FluxEntrypointValues("job", "default", 3, 1, 2, settings);
  CHECK(v.resource_spec == "--cores=0 --gpu=0-1");
  CHECK(v.flags == "-N 3 -n 3 -g 2");
  CHECK(v.hosts == "job-node-0-[0-2]");
  CHECK(v.default_bind == "tcp://ib0:%p");
}

TEST_CASE("Flux counts GPUs from the TrainJob's resourcesPerNode before the runtime's") {
  MLPolicy ml = WithFlux(2);
  Info info = NewInfo(&ml);
  info.template_spec.obj_apply = Yaml(R"(
replicatedJobs:
- name: node
  template:
    metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
    spec:
      template:
        spec:
          containers: [{name: node, resources: {limits: {nvidia.com/gpu: "4"}}}]
)");
  TrainJob job = NewTrainJob(WithNumNodes(2));
  CHECK(Data(FluxPlugin().Build(info, job)[0], "entrypoint.sh").find("flags = \"-N 2 -n 4 -g 4\"") !=
        std::string::npos);
  job.spec.trainer->resources_per_node = Yaml("{requests: {nvidia.com/gpu: '1'}}");
  job.spec.trainer->num_proc_per_node = 3;
  std::string entrypoint = Data(FluxPlugin().Build(info, job)[0], "entrypoint.sh");
  CHECK(entrypoint.find("rspec = \"--cores=0-2 --gpu=0\"") != std::string::npos);
  CHECK(entrypoint.find("flags = \"-N 2 -n 6 -g 1\"") != std::string::npos);
}

TEST_CASE("Flux writes only the values, under a marker, without templates") {
  FluxScriptValues v = FluxEntrypointValues("j", "ns", 1, 1, 0, {});
  v.queue_policy = "a\"b\\c\nd";
  plugins::FluxScripts s = plugins::RenderFluxScripts(v, nullptr);
  CHECK(s.entrypoint ==
        "# trainer: Flux values only. This is not the controller's script: the controller fills its\n"
        "# entrypoint.sh template with the values below, in this order. trainer render --flux-templates DIR\n"
        "# (DIR holding upstream's broker.toml, entrypoint.sh and init.sh) renders the full script.\n"
        "rspec = \"--cores=0\"\n"
        "mainHost = \"j-node-0-0\"\n"
        "flags = \"-N 1 -n 1\"\n");
  CHECK(s.init.rfind(plugins::kFluxValuesOnlyMarker, 0) == 0);
  CHECK(s.init.find("fluxroot = \"/opt/view\"\nmainHost = \"j-0\"\nhosts = \"j-node-0-[0]\"\n") != std::string::npos);
  CHECK(s.init.find("[\"broker.toml\"]\ndefault_bind = \"tcp://eth0:%p\"\n"
                    "default_connect = \"tcp://%h.j.ns.svc.cluster.local:%p\"\nhosts = \"j-node-0-[0]\"\n"
                    "queue-policy = \"a\\\"b\\\\c\\nd\"\n") != std::string::npos);
}

TEST_CASE("Flux fills templates in the controller's order, the broker configuration inside init.sh") {
  plugins::FluxTemplates t{"tpl", "bind=%s connect=%s hosts=%s policy=%s\n", "R %s; lead %s; run %s\n",
                           "root %s, first %s, all %s\n%s--\n"};
  FluxScriptValues v = FluxEntrypointValues("j", "ns", 2, 1, 0, {});
  plugins::FluxScripts s = plugins::RenderFluxScripts(v, &t);
  CHECK(s.entrypoint == "R --cores=0; lead j-node-0-0; run -N 2 -n 2\n");
  CHECK(s.init ==
        "root /opt/view, first j-0, all j-node-0-[0-1]\n"
        "bind=tcp://eth0:%p connect=tcp://%h.j.ns.svc.cluster.local:%p hosts=j-node-0-[0-1] policy=fcfs\n--\n");
}

TEST_CASE("Flux reads templates from a directory and names a missing one") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("trainer-flux-templates-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "broker.toml") << "b %s %s %s %s";
  std::ofstream(dir / "entrypoint.sh") << "";
  CHECK_THROWS_WITH_AS(
      plugins::ReadFluxTemplates(dir.string()),
      ("--flux-templates " + dir.string() + ": cannot read " + dir.string() + "/init.sh: No such file or directory")
          .c_str(),
      Error);
  std::ofstream(dir / "init.sh") << "i %s %s %s [%s]";
  plugins::FluxTemplates t = plugins::ReadFluxTemplates(dir.string());
  CHECK(t.broker == "b %s %s %s %s");
  CHECK(t.entrypoint.empty());
  fs::remove_all(dir);
}

TEST_CASE("Flux: TestDeterministicCurve and TestBuildCurveSecret") {
  for (const KnownKey& known : kKnownKeys) {
    CAPTURE(known.uid);
    plugins::CurveKeyPair keys = CurveKeyPairFromUID(known.uid);
    CHECK(keys.public_key == known.public_key);
    CHECK(keys.secret_key == known.secret_key);
  }
  CHECK(CurveKeyPairFromUID("uid-123").public_key == CurveKeyPairFromUID("uid-123").public_key);
  CHECK(CurveKeyPairFromUID("uid-123").public_key != CurveKeyPairFromUID("different-uid").public_key);
}

TEST_CASE("Flux writes the curve certificate in the flux keygen layout, base64 in the Secret") {
  plugins::CurveKeyPair keys{"P", "S"};
  CHECK(plugins::CurveCertificate("test-job", keys) ==
        "#  ZeroMQ CURVE Secret Certificate\n#  Generated by Kubeflow Trainer\n\nmetadata\n    name = \"test-job\"\n"
        "curve\n    public-key = \"P\"\n    secret-key = \"S\"\n");
  CHECK(plugins::Base64("") == "");
  CHECK(plugins::Base64("ab") == "YWI=");
  CHECK(plugins::Base64("abc") == "YWJj");

  MLPolicy ml = WithFlux();
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(WithNumNodes(1), "12345-67890");
  std::string cert = plugins::CurveCertificate("test-job", CurveKeyPairFromUID("12345-67890"));
  CHECK(Data(FluxPlugin().Build(info, job)[1], "curve.cert") == plugins::Base64(cert));
}

TEST_CASE("Flux sets the TrainJob image on the trainer node container, except under the legacy rule") {
  MLPolicy ml = WithFlux();
  TrainerSpec trainer = WithNumNodes(1);
  trainer.image = "job/image:1";
  {
    Info info = NewInfo(&ml);
    info.template_spec.pod_sets[0].containers[0].image = Tree::String("runtime/image:0");
    TrainJob job = NewTrainJob(trainer);
    FluxPlugin().Enforce(info, job);
    CHECK(info.template_spec.pod_sets[0].containers[0].image == Tree::String("job/image:1"));
  }
  {
    Info info = NewInfo(&ml);
    info.template_spec.pod_sets[0].containers[0].image = Tree::String("runtime/image:0");
    TrainJob job = NewTrainJob(trainer);
    RenderOptions legacy;
    legacy.legacy_image = true;
    FluxPlugin(legacy).Enforce(info, job);
    CHECK(info.template_spec.pod_sets[0].containers[0].image == Tree::String("runtime/image:0"));
  }
}

TEST_CASE("Flux reports a TrainJob without spec.trainer or numNodes instead of crashing") {
  MLPolicy ml = WithFlux();
  Info info = NewInfo(&ml);
  TrainJob no_trainer = NewTrainJob(std::nullopt);
  try {
    FluxPlugin().Enforce(info, no_trainer);
    FAIL("expected an error");
  } catch (const Error& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].field == "spec.trainer");
    CHECK(e.diagnostics()[0].message ==
          "is required by a runtime with mlPolicy.flux: the controller's Flux plugin reads it unconditionally and "
          "crashes without it");
  }
  TrainJob no_nodes = NewTrainJob(TrainerSpec{});
  try {
    FluxPlugin().Build(info, no_nodes);
    FAIL("expected an error");
  } catch (const Error& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].field == "spec.trainer.numNodes");
    CHECK(e.diagnostics()[0].message ==
          "is required by a runtime with mlPolicy.flux: the controller's Flux plugin reads it unconditionally (not the "
          "runtime's mlPolicy.numNodes) and crashes without it");
  }
}

TEST_CASE("Flux: TestValidate") {
  TrainJob job = NewTrainJob(std::nullopt);
  SUBCASE("valid when flux policy is nil") { CHECK(FluxPlugin().Validate(Info{}, job).empty()); }
  MLPolicy ml = WithFlux();
  SUBCASE("valid when flux policy is present") {
    Info info;
    info.runtime_policy.ml_policy = &ml;
    CHECK(FluxPlugin().Validate(info, job).empty());
  }
  SUBCASE("invalid when node podSet includes reserved flux installer init container") {
    Info info;
    info.runtime_policy.ml_policy = &ml;
    PodSet ps;
    ps.name = kNode;
    ps.init_containers.push_back(Container{.name = "flux-installer"});
    info.template_spec.pod_sets.push_back(ps);
    Diagnostics errors = FluxPlugin().Validate(info, job);
    REQUIRE(errors.items().size() == 1);
    CHECK(errors.items()[0].field == "spec.trainer.initContainers");
    CHECK(errors.items()[0].message == "InitContainer 'flux-installer' is reserved");
  }
}

}  // namespace trainer
