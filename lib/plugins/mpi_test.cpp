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

MLPolicy MPIPolicyOf(std::int32_t num_proc_per_node, std::optional<bool> run_launcher_as_node,
                     std::string implementation = "OpenMPI") {
  MLPolicy ml;
  ml.mpi = MPIPolicy{num_proc_per_node, std::move(implementation), "/root/.ssh", run_launcher_as_node};
  return ml;
}

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

struct Run {
  Info& info;
  const TrainJob& job;
  bool legacy_image = false;

  std::vector<Tree> operator()() const {
    RenderOptions options;
    options.legacy_image = legacy_image;
    auto plugin = plugins::NewMPIWithKeys(options, std::make_unique<FixedKeys>());
    TrainJob working = job;  // plugins may change the TrainJob, as the pipeline's copy
    dynamic_cast<EnforceMLPolicyPlugin&>(*plugin).EnforceMLPolicy(info, working);
    std::vector<Tree> objects;
    dynamic_cast<ComponentBuilderPlugin&>(*plugin).Build(info, job, objects);
    return objects;
  }
};

Diagnostics Validate(const Info* info, const TrainJob& job) {
  auto plugin = plugins::NewMPIWithKeys(RenderOptions{}, std::make_unique<FixedKeys>());
  Diagnostics errors;
  dynamic_cast<CustomValidationPlugin&>(*plugin).Validate(info, nullptr, job, errors);
  return errors;
}

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

std::string Message(const Diagnostic& d) { return d.field + ": " + d.message; }

}  // namespace

// --- EnforceMLPolicy and Build, as upstream's TestMPI -------------------------------------------
// Upstream's fixed endpoint strings become the JobSet plugin's real ones here ("-0-" replica index).
// Its cases about an SSH auth Secret already in the cluster have no offline counterpart.

TEST_CASE("MPI: no action when mlPolicySource is nil") {
  Info info = NewInfo(nullptr);
  TrainJob job = NewTrainJob(Trainer(4));
  CHECK(Run{info, job}().empty());
  CHECK(info.template_spec.pod_sets[1].count == 1);
  CHECK(info.template_spec.pod_sets[0].volumes.empty());
}

TEST_CASE("MPI: no action when mlPolicySource mpi is null") {
  MLPolicy ml;
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(Trainer(4));
  CHECK(Run{info, job}().empty());
  CHECK(info.template_spec.pod_sets[1].count == 1);
  CHECK(info.template_spec.pod_sets[1].volumes.empty());
}

TEST_CASE("MPI: trainJob numNodes is respected rather than mlPolicy one") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(Trainer(2));
  std::vector<Tree> objects = Run{info, job}();
  const auto& launcher = info.template_spec.pod_sets[0];
  const auto& node = info.template_spec.pod_sets[1];
  CHECK(launcher.count == 1);
  CHECK(node.count == 2);
  CHECK(launcher.volumes == std::vector<Tree>{kSSHAuthVolume, kHostfileVolume});
  CHECK(node.volumes == std::vector<Tree>{kSSHAuthVolume});
  REQUIRE(objects.size() == 2);
  CHECK(objects[0] == ExpectedSecret());
  CHECK(objects[1] == ExpectedConfigMap("trainJob-node-0-0.trainJob slots=1\ntrainJob-node-0-1.trainJob slots=1\n"));
}

TEST_CASE("MPI: trainJob numProcPerNode is respected rather than mlPolicy one") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(Trainer(1, 2));
  std::vector<Tree> objects = Run{info, job}();
  REQUIRE(objects.size() == 2);
  CHECK(objects[1] == ExpectedConfigMap("trainJob-node-0-0.trainJob slots=2\n"));
}

TEST_CASE("MPI: numProcPerNode is set to number of GPUs in TrainJob") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info = NewInfo(&ml);
  TrainerSpec trainer = Trainer(1);
  trainer.resources_per_node = Yaml("{requests: {custom.com/gpu: \"5\"}}");
  TrainJob job = NewTrainJob(trainer);
  std::vector<Tree> objects = Run{info, job}();
  REQUIRE(objects.size() == 2);
  CHECK(objects[1] == ExpectedConfigMap("trainJob-node-0-0.trainJob slots=5\n"));
}

TEST_CASE("MPI: the GPU rule applies only when the runtime's numProcPerNode is 1") {
  MLPolicy ml = MPIPolicyOf(3, std::nullopt);
  Info info = NewInfo(&ml);
  TrainerSpec trainer = Trainer(1);
  trainer.resources_per_node = Yaml("{limits: {nvidia.com/gpu: \"8\"}}");
  TrainJob job = NewTrainJob(trainer);
  std::vector<Tree> objects = Run{info, job}();
  REQUIRE(objects.size() == 2);
  CHECK(objects[1] == ExpectedConfigMap("trainJob-node-0-0.trainJob slots=3\n"));
}

TEST_CASE("MPI: runLauncherAsNode is true") {
  MLPolicy ml = MPIPolicyOf(1, true);
  Info info = NewInfo(&ml, true);
  TrainJob job = NewTrainJob(Trainer(10));
  std::vector<Tree> objects = Run{info, job}();
  const auto& launcher = info.template_spec.pod_sets[0];
  const auto& node = info.template_spec.pod_sets[1];
  CHECK(launcher.count == 1);
  CHECK(node.count == 9);
  CHECK(launcher.containers[0].volume_mounts ==
        Yaml("[{name: mpi-ssh-auth, mountPath: /root/.ssh}, {name: mpi-hostfile, mountPath: /etc/mpi}]").items());
  Tree env = Yaml(R"(
- {name: OMPI_MCA_orte_default_hostfile, value: /etc/mpi/hostfile}
- {name: OMPI_MCA_orte_keep_fqdn_hostnames, value: "true"}
- {name: OMPI_MCA_orte_set_default_slots, value: "1"}
- {name: OMPI_MCA_plm_rsh_args, value: -o ConnectionAttempts=10}
)");
  CHECK(launcher.containers[0].env == env.items());
  CHECK(node.containers[0].volume_mounts == Yaml("[{name: mpi-ssh-auth, mountPath: /root/.ssh}]").items());
  CHECK(node.containers[0].env.empty());
  REQUIRE(objects.size() == 2);
  std::string hostfile = "trainJob-launcher-0-0.trainJob slots=1\n";
  for (int i = 0; i < 9; ++i) hostfile += "trainJob-node-0-" + std::to_string(i) + ".trainJob slots=1\n";
  CHECK(objects[1] == ExpectedConfigMap(hostfile));
}

TEST_CASE("MPI: runLauncherAsNode with one node keeps one node Job pod") {
  MLPolicy ml = MPIPolicyOf(1, true);
  Info info = NewInfo(&ml, true);
  TrainJob job = NewTrainJob(Trainer(1));
  Run{info, job}();
  CHECK(info.template_spec.pod_sets[1].count == 1);
}

TEST_CASE("MPI: an MPI implementation other than OpenMPI is an error") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt, "");
  Info info = NewInfo(&ml, true);
  TrainJob job = NewTrainJob(Trainer(2));
  Run run{info, job};
  CHECK_THROWS_WITH_AS(run(), "MPI implementation for \"\" doesn't supported", Error);
}

TEST_CASE("MPI: without a launcher node container another MPI implementation gets an empty hostfile") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt, "Intel");
  Info info = NewInfo(&ml);
  TrainJob job = NewTrainJob(Trainer(2));
  std::vector<Tree> objects = Run{info, job}();
  REQUIRE(objects.size() == 2);
  CHECK(objects[1] == ExpectedConfigMap(""));
}

TEST_CASE("MPI sets the TrainJob image on launcher and nodes") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  TrainerSpec trainer = Trainer(2);
  trainer.image = "app:2";
  TrainJob job = NewTrainJob(trainer);

  Info current = NewInfo(&ml, true);
  Run{current, job}();
  CHECK(current.template_spec.pod_sets[0].containers[0].image == Tree::String("app:2"));
  CHECK(current.template_spec.pod_sets[1].containers[0].image == Tree::String("app:2"));

  Info legacy = NewInfo(&ml, true);
  Run{legacy, job, true}();
  CHECK(legacy.template_spec.pod_sets[0].containers[0].image.IsNull());
  CHECK(legacy.template_spec.pod_sets[1].containers[0].image.IsNull());
}

TEST_CASE("MPI sets the TrainJob image on an init container named node when no container is") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  TrainerSpec trainer = Trainer(2);
  trainer.image = "app:2";
  TrainJob job = NewTrainJob(trainer);
  Info info = NewInfo(&ml);
  info.template_spec.pod_sets[1].init_containers.push_back(Container{.name = kNode});
  Run{info, job}();
  CHECK(info.template_spec.pod_sets[1].init_containers[0].image == Tree::String("app:2"));
  // The volume mounts go to regular containers only.
  CHECK(info.template_spec.pod_sets[1].init_containers[0].volume_mounts.empty());
}

TEST_CASE("MPI marks placeholder SSH keys on the Secret") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
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

TEST_CASE("MPI Validate: no action when info is nil") { CHECK(Validate(nullptr, NewTrainJob(Trainer(2))).empty()); }

TEST_CASE("MPI Validate: no action when info does not have MLPolicySource") {
  Info info;
  CHECK(Validate(&info, NewTrainJob(std::nullopt)).empty());
}

TEST_CASE("MPI Validate: info does not have MPIPolicySource") {
  MLPolicy ml;
  Info info;
  info.runtime_policy.ml_policy = &ml;
  CHECK(Validate(&info, NewTrainJob(std::nullopt)).empty());
}

TEST_CASE("MPI Validate: numProcPerNode typed is int") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info;
  info.runtime_policy.ml_policy = &ml;
  CHECK(Validate(&info, NewTrainJob(Trainer(std::nullopt, 8))).empty());
}

TEST_CASE("MPI Validate: runtime does not have Launcher but TrainJob has only 1 numNodes") {
  MLPolicy ml = MPIPolicyOf(1, true);
  Info info;
  info.runtime_policy.ml_policy = &ml;
  info.template_spec.pod_sets.push_back(NewPodSet(kNode, kAncestorTrainer, 1, true));
  CHECK(Validate(&info, NewTrainJob(Trainer(1))).empty());
}

TEST_CASE("MPI Validate: runtime without launcher or node rejects 2 numNodes with runLauncherAsNode") {
  const std::string expected =
      "spec.trainer.numNodes: must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have "
      "either launcher and node";
  MLPolicy ml = MPIPolicyOf(1, true);
  for (const char* only : {kNode, kLauncher, ""}) {
    CAPTURE(only);
    Info info;
    info.runtime_policy.ml_policy = &ml;
    if (*only) info.template_spec.pod_sets.push_back(NewPodSet(only, std::nullopt, 1, true));
    Diagnostics errors = Validate(&info, NewTrainJob(Trainer(2)));
    REQUIRE(errors.items().size() == 1);
    CHECK(Message(errors.items()[0]) == expected);
  }
}

TEST_CASE("MPI Validate: trainer has reserved MPI env OMPI_MCA_orte_default_hostfile") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info;
  info.runtime_policy.ml_policy = &ml;
  TrainerSpec trainer;
  trainer.env = Yaml("[{name: OMPI_MCA_orte_default_hostfile, value: /custom/hostfile}]").items();
  Diagnostics errors = Validate(&info, NewTrainJob(trainer));
  REQUIRE(errors.items().size() == 1);
  CHECK(Message(errors.items()[0]) ==
        "spec.trainer.env: must not have reserved envs, invalid envs configured: [OMPI_MCA_orte_default_hostfile]");
}

TEST_CASE("MPI Validate: trainer has multiple reserved MPI envs") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info;
  info.runtime_policy.ml_policy = &ml;
  TrainerSpec trainer;
  Tree env = Yaml(R"(
- {name: OMPI_MCA_plm_rsh_args, value: custom-args}
- {name: OMPI_MCA_orte_default_hostfile, value: /custom/hostfile}
- {name: OMPI_MCA_plm_rsh_args, value: again}
)");
  trainer.env = env.items();
  Diagnostics errors = Validate(&info, NewTrainJob(trainer));
  REQUIRE(errors.items().size() == 1);
  CHECK(Message(errors.items()[0]) ==
        "spec.trainer.env: must not have reserved envs, invalid envs configured: [OMPI_MCA_orte_default_hostfile "
        "OMPI_MCA_plm_rsh_args]");
}

TEST_CASE("MPI Validate: trainer has non-reserved env is valid") {
  MLPolicy ml = MPIPolicyOf(1, std::nullopt);
  Info info;
  info.runtime_policy.ml_policy = &ml;
  TrainerSpec trainer;
  trainer.env = Yaml("[{name: CUSTOM_ENV, value: custom-value}]").items();
  CHECK(Validate(&info, NewTrainJob(trainer)).empty());
}

// --- The hostfile ------------------------------------------------------------------------------

TEST_CASE("MPIHostFile lists the node pods, and the launcher first when it comes first and runs as a node") {
  std::vector<PodSet> pod_sets = {NewPodSet("dataset-initializer", std::nullopt, 1, false),
                                  NewPodSet(kLauncher, kAncestorTrainer, 1, false),
                                  NewPodSet(kNode, std::nullopt, 2, false)};
  CHECK(*plugins::MPIHostFile(pod_sets, false, 4) ==
        "trainJob-node-0-0.trainJob slots=4\ntrainJob-node-0-1.trainJob slots=4\n");
  CHECK(*plugins::MPIHostFile(pod_sets, true, 4) ==
        "trainJob-launcher-0-0.trainJob slots=4\ntrainJob-node-0-0.trainJob slots=4\ntrainJob-node-0-1.trainJob "
        "slots=4\n");
}

TEST_CASE("MPIHostFile follows PodSet order, replicas and the subdomain") {
  std::vector<PodSet> pod_sets = {NewPodSet(kNode, std::nullopt, 2, false),
                                  NewPodSet(kLauncher, kAncestorTrainer, 1, false)};
  pod_sets[0].endpoints = EndpointSource{"job", "node", 2, "net"};
  CHECK(*plugins::MPIHostFile(pod_sets, true, 1) ==
        "job-node-0-0.net slots=1\njob-node-0-1.net slots=1\njob-node-1-0.net slots=1\njob-node-1-1.net slots=1\n"
        "trainJob-launcher-0-0.trainJob slots=1\n");
}

TEST_CASE("MPIHostFile is empty for PodSets without endpoints") {
  PodSet ps = NewPodSet(kNode, std::nullopt, 3, false);
  ps.endpoints.reset();
  CHECK(plugins::MPIHostFile({ps}, false, 1)->empty());
}

TEST_CASE("MPIHostFile writes one line per node for 10,000 nodes") {
  std::vector<PodSet> pod_sets = {NewPodSet(kNode, std::nullopt, 10000, false)};
  std::string hostfile = *plugins::MPIHostFile(pod_sets, false, 8);
  CHECK(std::count(hostfile.begin(), hostfile.end(), '\n') == 10000);
  CHECK(hostfile.ends_with("\ntrainJob-node-0-9999.trainJob slots=8\n"));
}

// --- SSH keys ----------------------------------------------------------------------------------

TEST_CASE("EncodeSSHAuthKeys writes the SEC1 PEM and the authorized_keys line upstream writes") {
  SSHAuthKeys keys = EncodeSSHAuthKeys(kFixedKeyPEM);
  CHECK(keys.private_key == kFixedKeyPEM);
  CHECK(keys.public_key == kFixedKeyAuthorized);
  CHECK_FALSE(keys.placeholder);
}

TEST_CASE("EncodeSSHAuthKeys re-encodes a PKCS#8 key as SEC1") {
  SSHAuthKeys keys = EncodeSSHAuthKeys(kFixedKeyPKCS8);
  CHECK(keys.private_key == kFixedKeyPEM);
  CHECK(keys.public_key == kFixedKeyAuthorized);
}

TEST_CASE("EncodeSSHAuthKeys rejects a key on another curve") {
  CHECK_THROWS_WITH_AS(EncodeSSHAuthKeys(kP256KeyPEM), "MPI SSH key: the key is on curve prime256v1, not P-521", Error);
}

TEST_CASE("EncodeSSHAuthKeys rejects text that is not a key") {
  CHECK_THROWS_AS(EncodeSSHAuthKeys("not a key"), Error);
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
  CHECK(Base64Encode("") == "");
  CHECK(Base64Encode("f") == "Zg==");
  CHECK(Base64Encode("fo") == "Zm8=");
  CHECK(Base64Encode("foo") == "Zm9v");
  CHECK(Base64Encode(std::string(100, 'x')).find('\n') == std::string::npos);
}

}  // namespace trainer
