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

TrainerSpec With(TrainerSpec trainer, const char* resources_per_node, std::optional<std::int32_t> num_proc_per_node) {
  trainer.resources_per_node = Yaml(resources_per_node);
  trainer.num_proc_per_node = num_proc_per_node;
  return trainer;
}

TrainerSpec WithCommand(TrainerSpec trainer, std::optional<std::vector<std::string>> command,
                        std::optional<std::vector<std::string>> args) {
  trainer.command = std::move(command);
  trainer.args = std::move(args);
  return trainer;
}

TrainerSpec WithImage(TrainerSpec trainer, const char* image) {
  trainer.image = image;
  return trainer;
}

TrainerSpec WithEnv(TrainerSpec trainer, const char* env) {
  trainer.env = YamlList(env);
  return trainer;
}

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

// What EnforceMLPolicy adds to the trainer PodSet of TrainJob test-job.
const std::vector<Tree> kInstallerMounts = YamlList(R"(
- {name: flux-install, mountPath: /mnt/flux}
- {name: test-job-flux-entrypoint, mountPath: /etc/flux-config, readOnly: true}
)");
const std::vector<Tree> kNodeMounts = YamlList(R"(
- {name: flux-install, mountPath: /mnt/flux}
- {name: spack-install, mountPath: /opt/software}
- {name: test-job-flux-entrypoint, mountPath: /etc/flux-config, readOnly: true}
- {name: flux-curve, mountPath: /curve, readOnly: true}
- {name: shared-memory, mountPath: /dev/shm, readOnly: true}
)");
const std::vector<Tree> kVolumes = YamlList(R"(
- {name: spack-install, emptyDir: {}}
- {name: flux-install, emptyDir: {}}
- {name: test-job-flux-entrypoint, configMap: {name: test-job-flux-entrypoint, defaultMode: 493}}
- {name: shared-memory, emptyDir: {medium: Memory}}
- {name: flux-curve, secret: {secretName: test-job-flux-curve, defaultMode: 256}}
)");

// The TrainJob command EnforceMLPolicy writes: the entrypoint, given the original command.
std::vector<std::string> EntrypointCommand(std::string original) {
  return {"/bin/bash", "/etc/flux-config/entrypoint.sh", std::move(original)};
}

// A JobSet spec whose trainer node containers ask for four GPUs each.
const char* kRuntimeWithFourGPUs = R"(
replicatedJobs:
- name: node
  template:
    metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
    spec:
      template:
        spec:
          containers: [{name: node, resources: {limits: {nvidia.com/gpu: "4"}}}]
)";

}  // namespace

// As upstream's TestFlux, EnforceMLPolicy then Build. Each row's Info is one trainer PodSet `node`
// with an empty `node` container, changed as the row says; the TrainJob is test-job. Rows with
// `enforce` false run Build alone.
TEST_CASE("Flux EnforceMLPolicy and Build") {
  struct Case {
    const char* name;
    std::optional<std::int32_t> flux = 1;  // the policy's numProcPerNode; no Flux policy when unset
    Tree runtime_command;
    std::vector<Tree> runtime_env;
    const char* runtime_image = nullptr;
    const char* runtime_spec = nullptr;  // the JobSet spec
    std::optional<TrainerSpec> trainer = WithNumNodes(1);
    std::string uid = "test-uid";
    bool legacy_image = false;
    bool enforce = true;
    // After EnforceMLPolicy
    std::optional<std::vector<std::string>> command = EntrypointCommand("");
    std::optional<std::vector<std::string>> args;
    const char* installer_image = "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy";
    const char* image = nullptr;  // of the node container; none when null
    // After Build: the ConfigMap's scripts hold these lines, and the Secret this certificate.
    std::vector<std::string> init_has;
    std::vector<std::string> entrypoint_has;
    std::optional<std::string> curve_cert;
    // Or the error, from EnforceMLPolicy or else Build.
    const char* error_field = nullptr;
    const char* error_message = nullptr;
  };
  const Case cases[] = {
      {.name = "no action when flux policy is nil",
       .flux = std::nullopt,
       .trainer = WithNumNodes(2),
       .command = std::nullopt},
      // Upstream leaves the PodSet's command alone and rewrites the TrainJob's instead.
      {.name = "flux mutations are applied correctly", .trainer = WithNumNodes(2)},
      {.name = "wraps the TrainJob's command and args in the entrypoint and clears the args",
       .runtime_command = Yaml("[python, runtime.py]"),
       .trainer = WithCommand(WithNumNodes(1), std::nullopt, {{"--epochs", "10"}}),
       .command = EntrypointCommand("python runtime.py --epochs 10")},
      {.name = "the TrainJob's command replaces the runtime's",
       .runtime_command = Yaml("[python, runtime.py]"),
       .trainer = WithCommand(WithNumNodes(1), {{"lmp", "-in", "in.reaxc"}}, std::nullopt),
       .command = EntrypointCommand("lmp -in in.reaxc")},
      {.name = "takes broker settings from the trainer container's env, then the TrainJob's",
       .runtime_env = YamlList(R"(
- {name: FLUX_VIEW_IMAGE, value: runtime/view:1}
- {name: FLUX_QUEUE_POLICY, value: easy}
- {name: FLUX_NETWORK_DEVICE, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
- {name: OTHER, value: x}
)"),
       .trainer = WithEnv(WithNumNodes(1), R"(
- {name: FLUX_VIEW_IMAGE, value: job/view:2}
- {name: FLUX_QUEUE_POLICY, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}
)"),
       .installer_image = "job/view:2",
       .init_has = {"default_bind = \"tcp://eth0:%p\"\n", "queue-policy = \"\"\n"}},
      {.name = "counts GPUs from the runtime's resources when the TrainJob names none",
       .flux = 2,
       .runtime_spec = kRuntimeWithFourGPUs,
       .trainer = WithNumNodes(2),
       .enforce = false,
       .entrypoint_has = {"flags = \"-N 2 -n 4 -g 4\""}},
      {.name = "counts GPUs from the TrainJob's resourcesPerNode before the runtime's",
       .flux = 2,
       .runtime_spec = kRuntimeWithFourGPUs,
       .trainer = With(WithNumNodes(2), "{requests: {nvidia.com/gpu: '1'}}", 3),
       .enforce = false,
       .entrypoint_has = {"rspec = \"--cores=0-2 --gpu=0\"", "flags = \"-N 2 -n 6 -g 1\""}},
      {.name = "the curve Secret holds the certificate of the TrainJob's UID (TestBuildCurveSecret)",
       .uid = "12345-67890",
       .enforce = false,
       .curve_cert = plugins::Base64(plugins::CurveCertificate("test-job", CurveKeyPairFromUID("12345-67890")))},
      {.name = "sets the TrainJob image on the trainer node container",
       .runtime_image = "runtime/image:0",
       .trainer = WithImage(WithNumNodes(1), "job/image:1"),
       .image = "job/image:1"},
      {.name = "keeps the runtime's image under the legacy image rule",
       .runtime_image = "runtime/image:0",
       .trainer = WithImage(WithNumNodes(1), "job/image:1"),
       .legacy_image = true,
       .image = "runtime/image:0"},
      {.name = "reports a TrainJob without spec.trainer instead of crashing",
       .trainer = std::nullopt,
       .error_field = "spec.trainer",
       .error_message = "is required by a runtime with mlPolicy.flux: the controller's Flux plugin reads it "
                        "unconditionally and crashes without it"},
      {.name = "reports a TrainJob without numNodes instead of crashing",
       .trainer = TrainerSpec{},
       .enforce = false,
       .error_field = "spec.trainer.numNodes",
       .error_message = "is required by a runtime with mlPolicy.flux: the controller's Flux plugin reads it "
                        "unconditionally (not the runtime's mlPolicy.numNodes) and crashes without it"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml;
      if (c.flux) ml.flux = trainer::FluxPolicy{*c.flux};
      Info info = NewInfo(&ml);
      Container& node = info.template_spec.pod_sets[0].containers[0];
      node.command = c.runtime_command;
      node.env = c.runtime_env;
      if (c.runtime_image) node.image = Tree::String(c.runtime_image);
      if (c.runtime_spec) info.template_spec.obj_apply = Yaml(c.runtime_spec);
      TrainJob job = NewTrainJob(c.trainer, c.uid);
      RenderOptions options;
      options.legacy_image = c.legacy_image;
      auto plugin = plugins::NewFlux(options);
      std::vector<Tree> objects;
      try {
        if (c.enforce) dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job);
        dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
        CHECK(c.error_field == nullptr);
      } catch (const Error& e) {
        REQUIRE(c.error_field != nullptr);
        REQUIRE(e.diagnostics().size() == 1);
        CHECK(e.diagnostics()[0].field == c.error_field);
        CHECK(e.diagnostics()[0].message == c.error_message);
      }
      if (c.error_field == nullptr && c.enforce) {
        const PodSet& ps = info.template_spec.pod_sets[0];
        if (!c.flux) {
          CHECK(ps.init_containers.empty());
          CHECK(ps.containers[0].volume_mounts.empty());
          CHECK(ps.volumes.empty());
        } else {
          REQUIRE(ps.init_containers.size() == 1);
          const Container& installer = ps.init_containers[0];
          CHECK(installer.name == "flux-installer");
          CHECK(installer.image == Tree::String(c.installer_image));
          CHECK(installer.command == Yaml("[/bin/bash, /etc/flux-config/init.sh]"));
          CHECK(installer.volume_mounts == kInstallerMounts);
          CHECK(ps.containers[0].volume_mounts == kNodeMounts);
          CHECK(ps.volumes == kVolumes);
        }
        CHECK(ps.containers[0].command == c.runtime_command);
        CHECK(ps.containers[0].image == (c.image ? Tree::String(c.image) : Tree()));
        CHECK(job.spec.trainer->command == c.command);
        CHECK(job.spec.trainer->args == c.args);
      }
      if (c.error_field == nullptr && !c.flux) CHECK(objects.empty());
      if (c.error_field == nullptr && c.flux) {
        REQUIRE(objects.size() == 2);
        const Tree owner = Yaml("[{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name: test-job, uid: \"" +
                                c.uid + "\", controller: true, blockOwnerDeletion: true}]");
        CHECK(*objects[0].FindString("kind") == "ConfigMap");
        CHECK(*objects[0].Find("metadata")->FindString("name") == "test-job-flux-entrypoint");
        CHECK(*objects[0].Find("metadata")->FindString("namespace") == "default");
        CHECK(*objects[0].Find("metadata")->Find("ownerReferences") == owner);
        CHECK(objects[0].Find("data")->keys() == std::vector<std::string>{"entrypoint.sh", "init.sh"});
        CHECK(*objects[1].FindString("kind") == "Secret");
        CHECK(*objects[1].Find("metadata")->FindString("name") == "test-job-flux-curve");
        CHECK(*objects[1].Find("metadata")->Find("ownerReferences") == owner);
        CHECK(objects[1].Find("data")->keys() == std::vector<std::string>{"curve.cert"});
        for (const std::string& line : c.init_has) CHECK(Data(objects[0], "init.sh").find(line) != std::string::npos);
        for (const std::string& line : c.entrypoint_has) {
          CHECK(Data(objects[0], "entrypoint.sh").find(line) != std::string::npos);
        }
        if (c.curve_cert) CHECK(Data(objects[1], "curve.cert") == *c.curve_cert);
      }
    }
  }
}

TEST_CASE("Flux: getOriginalCommand joins command and args and trims the ends only") {
  struct Case {
    const char* name;
    std::vector<std::string> command;
    std::vector<std::string> args;
    std::string want;
  };
  const Case cases[] = {
      {"command and args", {"python"}, {"train.py", "--epochs", "10"}, "python train.py --epochs 10"},
      {"spaces inside are kept", {"  python  "}, {" script.py "}, "python    script.py"},
      {"nothing", {}, {}, ""},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::JoinOriginalCommand(c.command, c.args) == c.want); }
  }
}

TEST_CASE("Flux: generateRange") {
  struct Case {
    const char* name;
    std::int32_t count;
    std::int32_t start;
    const char* want;
  };
  const Case cases[] = {
      {"single node", 1, 0, "0"},
      {"multiple nodes starting at zero", 4, 0, "0-3"},
      {"multiple nodes with offset start", 3, 10, "10-12"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::GenerateRange(c.count, c.start) == c.want); }
  }
}

TEST_CASE("Flux: generateHostlist") {
  struct Case {
    const char* name;
    const char* prefix;
    std::int32_t size;
    const char* want;
  };
  const Case cases[] = {
      {"prefix with one node", "lammps-job", 1, "lammps-job-node-0-[0]"},
      {"prefix with four nodes", "flux-cluster", 4, "flux-cluster-node-0-[0-3]"},
      {"empty prefix handled", "", 2, "-node-0-[0-1]"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::GenerateHostlist(c.prefix, c.size) == c.want); }
  }
}

TEST_CASE("Flux entrypoint values") {
  plugins::FluxBrokerSettings ib0;
  ib0.network_device = "ib0";
  struct Case {
    const char* name;
    const char* job;
    const char* namespace_;
    std::int32_t nodes;
    std::int32_t tasks;
    std::int32_t gpus;
    plugins::FluxBrokerSettings settings;
    FluxScriptValues want;
  };
  const Case cases[] = {
      {"two nodes of four tasks without GPUs",
       "lammps",
       "team",
       2,
       4,
       0,
       {},
       {"/opt/view", "lammps-0", "lammps-node-0-[0-1]", "tcp://eth0:%p", "tcp://%h.lammps.team.svc.cluster.local:%p",
        "fcfs", "--cores=0-3", "lammps-node-0-0", "-N 2 -n 8"}},
      {"GPUs add GPUs per task and to the resource spec",
       "job",
       "default",
       3,
       1,
       2,
       ib0,
       {"/opt/view", "job-0", "job-node-0-[0-2]", "tcp://ib0:%p", "tcp://%h.job.default.svc.cluster.local:%p", "fcfs",
        "--cores=0 --gpu=0-1", "job-node-0-0", "-N 3 -n 3 -g 2"}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      FluxScriptValues v = FluxEntrypointValues(c.job, c.namespace_, c.nodes, c.tasks, c.gpus, c.settings);
      CHECK(v.flux_root == c.want.flux_root);
      CHECK(v.init_main_host == c.want.init_main_host);
      CHECK(v.hosts == c.want.hosts);
      CHECK(v.default_bind == c.want.default_bind);
      CHECK(v.default_connect == c.want.default_connect);
      CHECK(v.queue_policy == c.want.queue_policy);
      CHECK(v.resource_spec == c.want.resource_spec);
      CHECK(v.main_host == c.want.main_host);
      CHECK(v.flags == c.want.flags);
    }
  }
}

TEST_CASE("Flux renders its scripts") {
  FluxScriptValues one_node = FluxEntrypointValues("j", "ns", 1, 1, 0, {});
  one_node.queue_policy = "a\"b\\c\nd";
  const plugins::FluxTemplates templates{"tpl", "bind=%s connect=%s hosts=%s policy=%s\n", "R %s; lead %s; run %s\n",
                                         "root %s, first %s, all %s\n%s--\n"};
  struct Case {
    const char* name;
    FluxScriptValues values;
    const plugins::FluxTemplates* templates;
    std::string entrypoint;
    std::string init;
  };
  const Case cases[] = {
      {"only the values, under a marker, without templates", one_node, nullptr,
       "# trainer: Flux values only. This is not the controller's script: the controller fills its\n"
       "# entrypoint.sh template with the values below, in this order. trainer render --flux-templates DIR\n"
       "# (DIR holding upstream's broker.toml, entrypoint.sh and init.sh) renders the full script.\n"
       "rspec = \"--cores=0\"\n"
       "mainHost = \"j-node-0-0\"\n"
       "flags = \"-N 1 -n 1\"\n",
       "# trainer: Flux values only. This is not the controller's script: the controller fills its\n"
       "# init.sh template with the values below, in this order. trainer render --flux-templates DIR\n"
       "# (DIR holding upstream's broker.toml, entrypoint.sh and init.sh) renders the full script.\n"
       "fluxroot = \"/opt/view\"\n"
       "mainHost = \"j-0\"\n"
       "hosts = \"j-node-0-[0]\"\n"
       "\n"
       "# The fourth value: the controller's broker.toml template filled with these values, in this order.\n"
       "[\"broker.toml\"]\n"
       "default_bind = \"tcp://eth0:%p\"\n"
       "default_connect = \"tcp://%h.j.ns.svc.cluster.local:%p\"\n"
       "hosts = \"j-node-0-[0]\"\n"
       "queue-policy = \"a\\\"b\\\\c\\nd\"\n"},
      {"templates filled in the controller's order, the broker configuration inside init.sh",
       FluxEntrypointValues("j", "ns", 2, 1, 0, {}), &templates, "R --cores=0; lead j-node-0-0; run -N 2 -n 2\n",
       "root /opt/view, first j-0, all j-node-0-[0-1]\n"
       "bind=tcp://eth0:%p connect=tcp://%h.j.ns.svc.cluster.local:%p hosts=j-node-0-[0-1] policy=fcfs\n--\n"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      plugins::FluxScripts s = plugins::RenderFluxScripts(c.values, c.templates);
      CHECK(s.entrypoint == c.entrypoint);
      CHECK(s.init == c.init);
      CHECK((s.init.rfind(plugins::kFluxValuesOnlyMarker, 0) == 0) == (c.templates == nullptr));
    }
  }
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

TEST_CASE("Flux: TestDeterministicCurve") {
  for (const KnownKey& known : kKnownKeys) {
    SUBCASE(*known.uid ? known.uid : "the empty UID") {
      plugins::CurveKeyPair keys = CurveKeyPairFromUID(known.uid);
      CHECK(keys.public_key == known.public_key);
      CHECK(keys.secret_key == known.secret_key);
    }
  }
  SUBCASE("the same UID gives the same keys, another UID others") {
    CHECK(CurveKeyPairFromUID("uid-123").public_key == CurveKeyPairFromUID("uid-123").public_key);
    CHECK(CurveKeyPairFromUID("uid-123").public_key != CurveKeyPairFromUID("different-uid").public_key);
  }
}

TEST_CASE("Flux writes the curve certificate in the flux keygen layout, base64 in the Secret") {
  plugins::CurveKeyPair keys{"P", "S"};
  CHECK(plugins::CurveCertificate("test-job", keys) ==
        "#  ZeroMQ CURVE Secret Certificate\n#  Generated by Kubeflow Trainer\n\nmetadata\n    name = \"test-job\"\n"
        "curve\n    public-key = \"P\"\n    secret-key = \"S\"\n");
  struct Case {
    const char* name;
    const char* bytes;
    const char* want;
  };
  const Case cases[] = {
      {"empty", "", ""}, {"two bytes, one pad", "ab", "YWI="}, {"three bytes, no pad", "abc", "YWJj"}};
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::Base64(c.bytes) == c.want); }
  }
}

// As upstream's TestValidate.
TEST_CASE("Flux: TestValidate") {
  PodSet reserved_installer;
  reserved_installer.name = kNode;
  reserved_installer.init_containers.push_back(Container{.name = "flux-installer"});
  struct Case {
    const char* name;
    bool flux;
    std::vector<PodSet> pod_sets;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"valid when flux policy is nil", false, {}, {}},
      {"valid when flux policy is present", true, {}, {}},
      {"invalid when node podSet includes reserved flux installer init container",
       true,
       {reserved_installer},
       {"spec.trainer.initContainers: InitContainer 'flux-installer' is reserved"}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml = WithFlux();
      Info info;
      if (c.flux) info.runtime_policy.ml_policy = &ml;
      info.template_spec.pod_sets = c.pod_sets;
      auto plugin = plugins::NewFlux(RenderOptions{});
      CHECK(testing::ValidationErrors(*plugin, &info, NewTrainJob(std::nullopt)) == c.want);
    }
  }
}

}  // namespace trainer
