#include "plugins/mpi.h"

#include <doctest/doctest.h>

#include "tests/fixtures.h"

#include <algorithm>

#include "yaml/reader.h"

namespace trainer {

namespace {

using testing::Yaml;

// Keys that are the same on every call, as upstream's tests compare the Secret's data as "EXIST".
class FixedKeys : public SSHKeySource {
 public:
  SSHAuthKeys Generate() override { return SSHAuthKeys{"private\n", "public\n", false}; }
};

// The runtime's ML policy in a row: no Info at all, an Info without a policy, a policy without MPI,
// or MPI (numProcPerNode, runLauncherAsNode, implementation).
struct Policy {
  enum Kind { kNilInfo, kNone, kEmpty, kMPI } kind = kMPI;
  std::int32_t num_proc_per_node = 1;
  std::optional<bool> run_launcher_as_node;
  std::string implementation = "OpenMPI";

  MLPolicy ML() const {
    MLPolicy ml;
    if (kind == kMPI) ml.mpi = MPIPolicy{num_proc_per_node, implementation, "/root/.ssh", run_launcher_as_node};
    return ml;
  }
  const MLPolicy* Or(const MLPolicy& ml) const { return kind == kNone || kind == kNilInfo ? nullptr : &ml; }
};

const Policy kNilInfo{Policy::kNilInfo};
const Policy kNoPolicy{Policy::kNone};
const Policy kNoMPI{Policy::kEmpty};
const Policy kOpenMPI{};
const Policy kLauncherAsNode{.run_launcher_as_node = true};

// A PodSet with the endpoints the JobSet plugin's PreBuildSync gives it for TrainJob `trainJob`.
PodSet NewPodSet(const char* name, std::optional<std::string> ancestor, std::int32_t count, bool node_container) {
  PodSet ps;
  ps.name = name;
  ps.ancestor = std::move(ancestor);
  ps.count = count;
  ps.endpoints = EndpointSource{"trainJob", name, 1, "trainJob"};
  if (node_container) ps.containers.push_back(Container{.name = kNode});
  return ps;
}

Info NewInfo(const MLPolicy* ml, bool node_containers = false) {
  Info info;
  info.runtime_policy.ml_policy = ml;
  info.template_spec.pod_sets.push_back(NewPodSet(kLauncher, std::nullopt, 1, node_containers));
  info.template_spec.pod_sets.push_back(NewPodSet(kNode, kAncestorTrainer, 1, node_containers));
  return info;
}

TrainJob NewTrainJob(std::optional<TrainerSpec> trainer) {
  TrainJob job;
  job.metadata.name = "trainJob";
  job.metadata.namespace_ = "default";
  job.metadata.uid = "trainJob";
  job.spec.trainer = std::move(trainer);
  return job;
}

TrainerSpec Trainer(std::optional<std::int32_t> num_nodes,
                    std::optional<std::int32_t> num_proc_per_node = std::nullopt) {
  TrainerSpec trainer;
  trainer.num_nodes = num_nodes;
  trainer.num_proc_per_node = num_proc_per_node;
  return trainer;
}

TrainerSpec With(TrainerSpec trainer, const char* resources_per_node, const char* image = nullptr) {
  if (resources_per_node) trainer.resources_per_node = Yaml(resources_per_node);
  if (image) trainer.image = image;
  return trainer;
}

TrainerSpec WithEnv(const char* env) { return TrainerSpec{.env = Yaml(env).items()}; }

const Tree kSSHAuthVolume = Yaml(R"(
name: mpi-ssh-auth
secret:
  secretName: trainJob-mpi-ssh-auth
  defaultMode: 256
  items:
  - {key: ssh-privatekey, path: id_rsa, mode: 416}
  - {key: ssh-publickey, path: id_rsa.pub, mode: 420}
  - {key: ssh-publickey, path: authorized_keys, mode: 420}
)");

const Tree kHostfileVolume = Yaml(R"(
name: mpi-hostfile
configMap:
  name: trainJob-mpi-hostfile
  items:
  - {key: hostfile, path: hostfile, mode: 292}
)");

const Tree kOwner = Yaml(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
name: trainJob
uid: trainJob
controller: true
blockOwnerDeletion: true
)");

Tree ExpectedSecret() {
  Tree secret = Yaml(R"(
apiVersion: v1
kind: Secret
metadata: {name: trainJob-mpi-ssh-auth, namespace: default}
type: kubernetes.io/ssh-auth
data: {ssh-privatekey: cHJpdmF0ZQo=, ssh-publickey: cHVibGljCg==}
immutable: true
)");
  secret.Find("metadata")->Set("ownerReferences", Tree::List()).Append(kOwner);
  return secret;
}

Tree ExpectedConfigMap(const std::string& hostfile) {
  Tree config_map =
      Yaml("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: trainJob-mpi-hostfile, namespace: default}\n");
  config_map.Find("metadata")->Set("ownerReferences", Tree::List()).Append(kOwner);
  config_map.Child("data").Set("hostfile", Tree::String(hostfile));
  return config_map;
}

const std::string kFixedKeyPEM = R"(-----BEGIN EC PRIVATE KEY-----
MIHcAgEBBEIBBvrB2KHjBRke2RPm7uXaQWImsunfsufCSKx8GKsseIH4e6u7Q1rT
uOyCyKQiGGxNm660r6/rL53DBU50JWdfChmgBwYFK4EEACOhgYkDgYYABAHR64mi
Bgsual/LzPK7XMlnJ7ps26MH9MptVhIMc9hrzx5arfo3ZCWl+i953isg3qWwb50+
LdfoTLF2cmrCOZI+OQCmfPvM2KY3KEwmd4F/qKJK2URw1sT2H8D8i9DSXMX9NfV4
WnYRI8jHgV5+dKEB5G7npOCc/7c7H3RPd4mkctc4Pg==
-----END EC PRIVATE KEY-----
)";

// The same key as PKCS#8 (openssl pkcs8 -topk8 -nocrypt).
const std::string kFixedKeyPKCS8 = R"(-----BEGIN PRIVATE KEY-----
MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIBBvrB2KHjBRke2RPm
7uXaQWImsunfsufCSKx8GKsseIH4e6u7Q1rTuOyCyKQiGGxNm660r6/rL53DBU50
JWdfChmhgYkDgYYABAHR64miBgsual/LzPK7XMlnJ7ps26MH9MptVhIMc9hrzx5a
rfo3ZCWl+i953isg3qWwb50+LdfoTLF2cmrCOZI+OQCmfPvM2KY3KEwmd4F/qKJK
2URw1sT2H8D8i9DSXMX9NfV4WnYRI8jHgV5+dKEB5G7npOCc/7c7H3RPd4mkctc4
Pg==
-----END PRIVATE KEY-----
)";

// What `ssh-keygen -y` prints for that key, plus the newline ssh.MarshalAuthorizedKey ends with.
const std::string kFixedKeyAuthorized =
    "ecdsa-sha2-nistp521 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAHR64miBgsual/LzPK7XMlnJ7ps26MH9MptVhIMc9hrzx5arfo3ZCWl+"
    "i953isg3qWwb50+LdfoTLF2cmrCOZI+OQCmfPvM2KY3KEwmd4F/qKJK2URw1sT2H8D8i9DSXMX9NfV4WnYRI8jHgV5+dKEB5G7npOCc/"
    "7c7H3RPd4mkctc4Pg==\n";

const std::string kP256KeyPEM = R"(-----BEGIN EC PRIVATE KEY-----
MHcCAQEEID/5shX2f4zxtdQ5I2TOYR0V6VqfKVqkBPqh4/C98XLvoAoGCCqGSM49
AwEHoUQDQgAEuCk/437639GjRooeK1wWuMurGwdRs6lUNl0CxK2NL6z2KNHw4YGV
zoAANn2yoa4mVjHqNdoXs3whpk0SwVeEmw==
-----END EC PRIVATE KEY-----
)";

// The hostfile lines of `count` pods of replicatedJob `rjob` of TrainJob "trainJob".
std::string HostLines(const std::string& rjob, int count, int slots = 1) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    out += "trainJob-" + rjob + "-0-" + std::to_string(i) + ".trainJob slots=" + std::to_string(slots) + "\n";
  }
  return out;
}

const std::vector<Tree> kLauncherVolumes = {kSSHAuthVolume, kHostfileVolume};
const std::vector<Tree> kNodeVolumes = {kSSHAuthVolume};
const std::vector<Tree> kLauncherMounts =
    Yaml("[{name: mpi-ssh-auth, mountPath: /root/.ssh}, {name: mpi-hostfile, mountPath: /etc/mpi}]").items();
const std::vector<Tree> kNodeMounts = Yaml("[{name: mpi-ssh-auth, mountPath: /root/.ssh}]").items();
const std::vector<Tree> kLauncherEnv = Yaml(R"(
- {name: OMPI_MCA_orte_default_hostfile, value: /etc/mpi/hostfile}
- {name: OMPI_MCA_orte_keep_fqdn_hostnames, value: "true"}
- {name: OMPI_MCA_orte_set_default_slots, value: "1"}
- {name: OMPI_MCA_plm_rsh_args, value: -o ConnectionAttempts=10}
)")
                                           .items();

// What a container holds after EnforceMLPolicy.
struct ContainerWant {
  std::vector<Tree> volume_mounts;
  std::vector<Tree> env;
  const char* image = nullptr;  // none when null
};

void Check(const Container& got, const ContainerWant& want) {
  CHECK(got.volume_mounts == want.volume_mounts);
  CHECK(got.env == want.env);
  CHECK(got.image == (want.image ? Tree::String(want.image) : Tree()));
}

}  // namespace

// --- EnforceMLPolicy and Build, as upstream's TestMPI -------------------------------------------
// Upstream's fixed endpoint strings become the JobSet plugin's real ones here ("-0-" replica index).
// Its cases about an SSH auth Secret already in the cluster have no offline counterpart.

// Each row's Info has a `launcher` PodSet and a trainer `node` PodSet of one pod each, with a
// `node` container each when `node_containers`; the row says what the PodSets and their containers
// hold after EnforceMLPolicy, and the Secret and the hostfile ConfigMap Build then gives.
TEST_CASE("MPI EnforceMLPolicy and Build") {
  struct Case {
    const char* name;
    Policy policy = kOpenMPI;
    bool node_containers = false;
    bool node_init_container = false;  // an init container `node` on the node PodSet
    TrainerSpec trainer;
    bool legacy_image = false;
    std::int32_t node_count = 1;  // the launcher's stays 1
    std::vector<Tree> launcher_volumes = kLauncherVolumes;
    std::vector<Tree> node_volumes = kNodeVolumes;
    ContainerWant launcher{kLauncherMounts, kLauncherEnv};  // when node_containers
    ContainerWant node{kNodeMounts};                        // when node_containers
    ContainerWant node_init;                                // when node_init_container
    std::optional<std::string> hostfile;                    // no objects when unset
    const char* error = nullptr;
  };
  const Case cases[] = {
      {.name = "no action when mlPolicySource is nil",
       .policy = kNoPolicy,
       .trainer = Trainer(4),
       .launcher_volumes = {},
       .node_volumes = {}},
      {.name = "no action when mlPolicySource mpi is null",
       .policy = kNoMPI,
       .trainer = Trainer(4),
       .launcher_volumes = {},
       .node_volumes = {}},
      {.name = "trainJob numNodes is respected rather than mlPolicy one",
       .trainer = Trainer(2),
       .node_count = 2,
       .hostfile = HostLines("node", 2)},
      {.name = "trainJob numProcPerNode is respected rather than mlPolicy one",
       .trainer = Trainer(1, 2),
       .hostfile = HostLines("node", 1, 2)},
      {.name = "numProcPerNode is set to number of GPUs in TrainJob",
       .trainer = With(Trainer(1), "{requests: {custom.com/gpu: \"5\"}}"),
       .hostfile = HostLines("node", 1, 5)},
      {.name = "the GPU rule applies only when the runtime's numProcPerNode is 1",
       .policy = {.num_proc_per_node = 3},
       .trainer = With(Trainer(1), "{limits: {nvidia.com/gpu: \"8\"}}"),
       .hostfile = HostLines("node", 1, 3)},
      {.name = "runLauncherAsNode is true",
       .policy = kLauncherAsNode,
       .node_containers = true,
       .trainer = Trainer(10),
       .node_count = 9,
       .hostfile = HostLines("launcher", 1) + HostLines("node", 9)},
      {.name = "runLauncherAsNode with one node keeps one node Job pod",
       .policy = kLauncherAsNode,
       .node_containers = true,
       .trainer = Trainer(1),
       .hostfile = HostLines("launcher", 1) + HostLines("node", 1)},
      {.name = "an MPI implementation other than OpenMPI is an error",
       .policy = {.implementation = ""},
       .node_containers = true,
       .trainer = Trainer(2),
       .error = "MPI implementation for \"\" doesn't supported"},
      {.name = "without a launcher node container another MPI implementation gets an empty hostfile",
       .policy = {.implementation = "Intel"},
       .trainer = Trainer(2),
       .node_count = 2,
       .hostfile = ""},
      {.name = "sets the TrainJob image on launcher and nodes",
       .node_containers = true,
       .trainer = With(Trainer(2), nullptr, "app:2"),
       .node_count = 2,
       .launcher = {kLauncherMounts, kLauncherEnv, "app:2"},
       .node = {kNodeMounts, {}, "app:2"},
       .hostfile = HostLines("node", 2)},
      {.name = "keeps the runtime's images under the legacy image rule",
       .node_containers = true,
       .trainer = With(Trainer(2), nullptr, "app:2"),
       .legacy_image = true,
       .node_count = 2,
       .hostfile = HostLines("node", 2)},
      // The volume mounts go to regular containers only.
      {.name = "sets the TrainJob image on an init container named node when no container is",
       .node_init_container = true,
       .trainer = With(Trainer(2), nullptr, "app:2"),
       .node_count = 2,
       .node_init = {{}, {}, "app:2"},
       .hostfile = HostLines("node", 2)},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml = c.policy.ML();
      Info info = NewInfo(c.policy.Or(ml), c.node_containers);
      if (c.node_init_container) info.template_spec.pod_sets[1].init_containers.push_back(Container{.name = kNode});
      const TrainJob job = NewTrainJob(c.trainer);
      RenderOptions options;
      options.legacy_image = c.legacy_image;
      auto plugin = plugins::NewMPIWithKeys(options, std::make_unique<FixedKeys>());
      std::vector<Tree> objects;
      auto run = [&] {
        TrainJob working = job;  // plugins may change the TrainJob, as the pipeline's copy
        dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, working);
        dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
      };
      if (c.error) {
        CHECK_THROWS_WITH_AS(run(), c.error, Error);
      } else {
        run();
        const PodSet& launcher = info.template_spec.pod_sets[0];
        const PodSet& node = info.template_spec.pod_sets[1];
        CHECK(launcher.count == 1);
        CHECK(node.count == c.node_count);
        CHECK(launcher.volumes == c.launcher_volumes);
        CHECK(node.volumes == c.node_volumes);
        if (c.node_containers) {
          Check(launcher.containers.at(0), c.launcher);
          Check(node.containers.at(0), c.node);
        }
        if (c.node_init_container) Check(node.init_containers.at(0), c.node_init);
        if (c.hostfile) {
          CHECK(objects == std::vector<Tree>{ExpectedSecret(), ExpectedConfigMap(*c.hostfile)});
        } else {
          CHECK(objects.empty());
        }
      }
    }
  }
}

TEST_CASE("MPI marks placeholder SSH keys on the Secret") {
  MLPolicy ml = kOpenMPI.ML();
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(Trainer(1));
  auto plugin = plugins::NewMPI(RenderOptions{});
  dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, job);
  std::vector<Tree> objects;
  dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
  REQUIRE(objects.size() == 2);
  const Tree* annotations = objects[0].Find("metadata")->Find("annotations");
  REQUIRE(annotations != nullptr);
  CHECK(annotations->FindString("trainer-render.local/placeholder") != nullptr);
}

// --- Validate, as upstream's TestValidate ------------------------------------------------------

TEST_CASE("MPI Validate") {
  const std::string launcher_as_node_error =
      "spec.trainer.numNodes: must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have "
      "either launcher and node";
  struct Case {
    const char* name;
    Policy policy = kOpenMPI;
    std::vector<PodSet> pod_sets;
    std::optional<TrainerSpec> trainer;
    std::vector<std::string> want;
  };
  // A TrainJob that an MPI policy would refuse: the rows without one show that nothing is checked.
  const TrainerSpec reserved = WithEnv("[{name: OMPI_MCA_orte_default_hostfile, value: x}]");
  const Case cases[] = {
      {.name = "no action when info is nil", .policy = kNilInfo, .trainer = reserved},
      {.name = "no action when info does not have MLPolicySource", .policy = kNoPolicy, .trainer = reserved},
      {.name = "info does not have MPIPolicySource", .policy = kNoMPI, .trainer = reserved},
      {.name = "numProcPerNode typed is int", .trainer = Trainer(std::nullopt, 8)},
      {.name = "runtime does not have Launcher but TrainJob has only 1 numNodes",
       .policy = kLauncherAsNode,
       .pod_sets = {NewPodSet(kNode, kAncestorTrainer, 1, true)},
       .trainer = Trainer(1)},
      {.name = "runtime with only node rejects 2 numNodes with runLauncherAsNode",
       .policy = kLauncherAsNode,
       .pod_sets = {NewPodSet(kNode, std::nullopt, 1, true)},
       .trainer = Trainer(2),
       .want = {launcher_as_node_error}},
      {.name = "runtime with only launcher rejects 2 numNodes with runLauncherAsNode",
       .policy = kLauncherAsNode,
       .pod_sets = {NewPodSet(kLauncher, std::nullopt, 1, true)},
       .trainer = Trainer(2),
       .want = {launcher_as_node_error}},
      {.name = "runtime without launcher or node rejects 2 numNodes with runLauncherAsNode",
       .policy = kLauncherAsNode,
       .trainer = Trainer(2),
       .want = {launcher_as_node_error}},
      {.name = "trainer has reserved MPI env OMPI_MCA_orte_default_hostfile",
       .trainer = WithEnv("[{name: OMPI_MCA_orte_default_hostfile, value: /custom/hostfile}]"),
       .want = {"spec.trainer.env: must not have reserved envs, invalid envs configured: "
                "[OMPI_MCA_orte_default_hostfile]"}},
      {.name = "trainer has multiple reserved MPI envs",
       .trainer = WithEnv("[{name: OMPI_MCA_plm_rsh_args, value: custom-args}, {name: OMPI_MCA_orte_default_hostfile, "
                          "value: /custom/hostfile}, {name: OMPI_MCA_plm_rsh_args, value: again}]"),
       .want = {"spec.trainer.env: must not have reserved envs, invalid envs configured: "
                "[OMPI_MCA_orte_default_hostfile OMPI_MCA_plm_rsh_args]"}},
      {.name = "trainer has non-reserved env is valid",
       .trainer = WithEnv("[{name: CUSTOM_ENV, value: custom-value}]")},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      MLPolicy ml = c.policy.ML();
      Info info;
      info.runtime_policy.ml_policy = c.policy.Or(ml);
      info.template_spec.pod_sets = c.pod_sets;
      auto plugin = plugins::NewMPIWithKeys(RenderOptions{}, std::make_unique<FixedKeys>());
      CHECK(testing::ValidationErrors(*plugin, c.policy.kind == Policy::kNilInfo ? nullptr : &info,
                                      NewTrainJob(c.trainer)) == c.want);
    }
  }
}

// --- The hostfile ------------------------------------------------------------------------------

TEST_CASE("MPIHostFile lists the node pods, and the launcher too when it runs as a node") {
  // A PodSet of `count` pods whose endpoints are `job-node-<replica>-<pod>.net` over two replicas.
  auto replicated = [](std::int32_t count) {
    PodSet ps = NewPodSet(kNode, std::nullopt, count, false);
    ps.endpoints = EndpointSource{"job", "node", 2, "net"};
    return ps;
  };
  auto without_endpoints = [](std::int32_t count) {
    PodSet ps = NewPodSet(kNode, std::nullopt, count, false);
    ps.endpoints.reset();
    return ps;
  };
  const std::vector<PodSet> initializer_launcher_nodes = {NewPodSet("dataset-initializer", std::nullopt, 1, false),
                                                          NewPodSet(kLauncher, kAncestorTrainer, 1, false),
                                                          NewPodSet(kNode, std::nullopt, 2, false)};
  struct Case {
    const char* name;
    std::vector<PodSet> pod_sets;
    bool run_launcher_as_node;
    std::int32_t slots;
    std::string want;
  };
  const Case cases[] = {
      {"the node pods only when the launcher does not run as a node", initializer_launcher_nodes, false, 4,
       HostLines("node", 2, 4)},
      {"the launcher first when it comes first and runs as a node", initializer_launcher_nodes, true, 4,
       HostLines("launcher", 1, 4) + HostLines("node", 2, 4)},
      {"PodSet order, replicas and the subdomain are followed",
       {replicated(2), NewPodSet(kLauncher, kAncestorTrainer, 1, false)},
       true,
       1,
       "job-node-0-0.net slots=1\njob-node-0-1.net slots=1\njob-node-1-0.net slots=1\njob-node-1-1.net slots=1\n"
       "trainJob-launcher-0-0.trainJob slots=1\n"},
      {"empty for PodSets without endpoints", {without_endpoints(3)}, false, 1, ""},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(plugins::MPIHostFile(c.pod_sets, c.run_launcher_as_node, c.slots) == c.want); }
  }
}

TEST_CASE("MPIHostFile writes one line per node for 10,000 nodes") {
  std::vector<PodSet> pod_sets = {NewPodSet(kNode, std::nullopt, 10000, false)};
  std::string hostfile = *plugins::MPIHostFile(pod_sets, false, 8);
  CHECK(std::count(hostfile.begin(), hostfile.end(), '\n') == 10000);
  CHECK(hostfile.ends_with("\ntrainJob-node-0-9999.trainJob slots=8\n"));
}

// --- SSH keys ----------------------------------------------------------------------------------

TEST_CASE("EncodeSSHAuthKeys writes the SEC1 PEM and the authorized_keys line upstream writes") {
  struct Case {
    const char* name;
    std::string pem;
    const char* error = nullptr;  // the message, or "" for an Error whose message comes from OpenSSL
  };
  const Case cases[] = {
      {"a SEC1 key", kFixedKeyPEM},
      {"a PKCS#8 key is re-encoded as SEC1", kFixedKeyPKCS8},
      {"a key on another curve is rejected", kP256KeyPEM, "MPI SSH key: the key is on curve prime256v1, not P-521"},
      {"text that is not a key is rejected", "not a key", ""},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      if (c.error == nullptr) {
        SSHAuthKeys keys = EncodeSSHAuthKeys(c.pem);
        CHECK(keys.private_key == kFixedKeyPEM);
        CHECK(keys.public_key == kFixedKeyAuthorized);
        CHECK_FALSE(keys.placeholder);
      } else if (*c.error) {
        CHECK_THROWS_WITH_AS(EncodeSSHAuthKeys(c.pem), c.error, Error);
      } else {
        CHECK_THROWS_AS(EncodeSSHAuthKeys(c.pem), Error);
      }
    }
  }
}

TEST_CASE("Generated SSH keys are fresh P-521 key pairs whose public key matches the private key") {
  auto source = NewECDSAP521SSHKeys();
  SSHAuthKeys first = source->Generate();
  SSHAuthKeys second = source->Generate();
  CHECK(first.private_key.rfind("-----BEGIN EC PRIVATE KEY-----\n", 0) == 0);
  CHECK(first.public_key.rfind("ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACF", 0) == 0);
  CHECK(first.private_key != second.private_key);
  CHECK(first.public_key != second.public_key);
  // Decoding the PEM back and deriving its public key gives the same two values.
  SSHAuthKeys reread = EncodeSSHAuthKeys(first.private_key);
  CHECK(reread.private_key == first.private_key);
  CHECK(reread.public_key == first.public_key);
}

TEST_CASE("Placeholder SSH keys are the same on every call and marked as placeholders") {
  auto source = NewPlaceholderSSHKeys();
  SSHAuthKeys first = source->Generate();
  SSHAuthKeys second = source->Generate();
  CHECK(first.placeholder);
  CHECK(first.private_key == second.private_key);
  CHECK(first.public_key == second.public_key);
  CHECK(first.private_key.rfind("PLACEHOLDER: ", 0) == 0);
  CHECK(first.public_key.rfind("PLACEHOLDER: ", 0) == 0);
}

TEST_CASE("Base64Encode pads as Go's encoding/json writes []byte") {
  std::string long_text;  // 33 groups of "xxx" and a last "x", with no line breaks
  for (int i = 0; i < 33; ++i) long_text += "eHh4";
  long_text += "eA==";
  struct Case {
    const char* name;
    std::string bytes;
    std::string want;
  };
  const Case cases[] = {
      {"empty", "", ""},
      {"one byte, two pads", "f", "Zg=="},
      {"two bytes, one pad", "fo", "Zm8="},
      {"three bytes, no pad", "foo", "Zm9v"},
      {"100 bytes on one line", std::string(100, 'x'), long_text},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) { CHECK(Base64Encode(c.bytes) == c.want); }
  }
}

}  // namespace trainer
