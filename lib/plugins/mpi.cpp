// MPI: the ML policy of runtimes with mlPolicy.mpi, an mpirun launcher reaching its nodes over SSH.
//
// EnforceMLPolicy sets the `node` PodSet's count from the TrainJob's numNodes (one less when the
// launcher runs as a node), settles numProcPerNode (the TrainJob's, else the runtime's, else the
// GPUs per node when the runtime says 1), mounts the SSH auth Secret on the launcher and the nodes
// and the hostfile ConfigMap on the launcher, and gives the launcher the OpenMPI env. Under the
// current image behaviour it also sets the TrainJob image on both. Build makes the
// `<job>-mpi-ssh-auth` Secret and the `<job>-mpi-hostfile` ConfigMap. Validate checks numNodes
// against the runtime's Jobs and rejects the env names the plugin owns. Follows upstream
// pkg/runtime/framework/plugins/mpi/mpi.go.
#include "plugins/mpi.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "k8s/apply.h"
#include "runtime/image.h"
#include "runtime/objects.h"

namespace trainer::plugins {

namespace {

constexpr const char* kName = "MPI";
constexpr const char* kOpenMPI = "OpenMPI";
constexpr const char* kDefaultSSHAuthMountPath = "/root/.ssh";

constexpr const char* kSSHAuthSecretSuffix = "-mpi-ssh-auth";
constexpr const char* kSSHAuthVolumeName = "mpi-ssh-auth";
constexpr const char* kSSHAuthPrivateKey = "ssh-privatekey";
constexpr const char* kSSHPublicKey = "ssh-publickey";
constexpr const char* kSSHPrivateKeyFile = "id_rsa";
constexpr const char* kSSHPublicKeyFile = "id_rsa.pub";
constexpr const char* kSSHAuthorizedKeys = "authorized_keys";
constexpr std::int64_t kSSHAuthDefaultMode = 0400;
constexpr std::int64_t kSSHPrivateKeyFileMode = 0640;
constexpr std::int64_t kSSHPublicKeyFileMode = 0644;
constexpr const char* kSecretTypeSSHAuth = "kubernetes.io/ssh-auth";

constexpr const char* kHostfileDir = "/etc/mpi";
constexpr const char* kHostfileName = "hostfile";
constexpr const char* kHostfileConfigMapSuffix = "-mpi-hostfile";
constexpr const char* kHostfileVolumeName = "mpi-hostfile";
constexpr std::int64_t kHostfileMode = 0444;

constexpr const char* kEnvHostFileLocation = "OMPI_MCA_orte_default_hostfile";
constexpr const char* kEnvKeyRSHArgs = "OMPI_MCA_plm_rsh_args";
constexpr const char* kEnvDefaultValueRSHArgs = "-o ConnectionAttempts=10";
constexpr const char* kEnvKeepFQDNHostNames = "OMPI_MCA_orte_keep_fqdn_hostnames";
constexpr const char* kEnvDefaultSlots = "OMPI_MCA_orte_set_default_slots";
constexpr const char* kReservedEnvNames[] = {kEnvHostFileLocation, kEnvKeyRSHArgs, kEnvKeepFQDNHostNames,
                                             kEnvDefaultSlots};

// Marks a Secret whose data stands in for the keys the controller would generate.
constexpr const char* kPlaceholderAnnotation = "trainer-render.local/placeholder";
constexpr const char* kPlaceholderNote =
    "data is placeholder text: the controller generates a fresh ECDSA P-521 key pair for each TrainJob "
    "(trainer render --generate-ssh-keys writes one)";

const Origin kByMPI = Origin::Plugin(kName);

Tree String(std::string_view s) { return Tree::String(std::string(s), kByMPI); }

Tree KeyToPath(const char* key, const char* path, std::int64_t mode) {
  Tree item = Tree::Map(kByMPI);
  item.Set("key", String(key));
  item.Set("path", String(path));
  item.Set("mode", Tree::Int(mode, kByMPI));
  return item;
}

Tree SSHAuthVolume(const std::string& job_name) {
  Tree volume = Tree::Map(kByMPI);
  volume.Set("name", String(kSSHAuthVolumeName));
  Tree& secret = volume.Child("secret", kByMPI);
  secret.Set("secretName", String(job_name + kSSHAuthSecretSuffix));
  secret.Set("defaultMode", Tree::Int(kSSHAuthDefaultMode, kByMPI));
  Tree& items = secret.Set("items", Tree::List(kByMPI));
  items.Append(KeyToPath(kSSHAuthPrivateKey, kSSHPrivateKeyFile, kSSHPrivateKeyFileMode));
  items.Append(KeyToPath(kSSHPublicKey, kSSHPublicKeyFile, kSSHPublicKeyFileMode));
  items.Append(KeyToPath(kSSHPublicKey, kSSHAuthorizedKeys, kSSHPublicKeyFileMode));
  return volume;
}

Tree HostfileVolume(const std::string& job_name) {
  Tree volume = Tree::Map(kByMPI);
  volume.Set("name", String(kHostfileVolumeName));
  Tree& config_map = volume.Child("configMap", kByMPI);
  config_map.Set("name", String(job_name + kHostfileConfigMapSuffix));
  config_map.Set("items", Tree::List(kByMPI)).Append(KeyToPath(kHostfileName, kHostfileName, kHostfileMode));
  return volume;
}

Tree VolumeMount(const char* name, std::string_view path) {
  Tree mount = Tree::Map(kByMPI);
  mount.Set("name", String(name));
  mount.Set("mountPath", String(path));
  return mount;
}

bool HasPodSet(const Info& info, std::string_view name) {
  return std::any_of(info.template_spec.pod_sets.begin(), info.template_spec.pod_sets.end(),
                     [&](const PodSet& ps) { return ps.name == name; });
}

class MPI : public EnforceMLPolicyPlugin, public ComponentBuilderPlugin, public CustomValidationPlugin {
 public:
  MPI(const RenderOptions& options, std::unique_ptr<SSHKeySource> keys) : options_(options), keys_(std::move(keys)) {}

  std::string_view Name() const override { return kName; }

  void Validate(const Info* info, const TrainJob*, const TrainJob& job, Diagnostics& errors) override {
    const MPIPolicy* mpi = Policy(info);
    if (mpi == nullptr || !job.spec.trainer) return;
    const TrainerSpec& trainer = *job.spec.trainer;
    if (trainer.num_nodes.value_or(1) >= 2 && mpi->run_launcher_as_node.value_or(false) &&
        (!HasPodSet(*info, kLauncher) || !HasPodSet(*info, kNode))) {
      errors.Add(job.positions.Find("spec.trainer.numNodes"), "spec.trainer.numNodes",
                 "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher "
                 "and node");
    }
    std::set<std::string> reserved;
    for (const Tree& env : trainer.env) {
      const std::string* name = env.IsMap() ? env.FindString("name") : nullptr;
      if (name == nullptr) continue;
      for (const char* r : kReservedEnvNames) {
        if (*name == r) reserved.insert(*name);
      }
    }
    if (!reserved.empty()) {
      errors.Add(job.positions.Find("spec.trainer.env"), "spec.trainer.env",
                 fmt::format("must not have reserved envs, invalid envs configured: [{}]", fmt::join(reserved, " ")));
    }
  }

  void EnforceMLPolicy(Info& info, TrainJob& job) override {
    const MPIPolicy* mpi = Policy(&info);
    if (mpi == nullptr) return;
    const auto& trainer = job.spec.trainer;
    bool launcher_as_node = mpi->run_launcher_as_node.value_or(false);

    if (trainer && trainer->num_nodes) {
      if (PodSet* node = info.FindPodSetByName(kNode); node && node->count) {
        // One of the nodes is the launcher itself when it runs as a node.
        *node->count = launcher_as_node ? std::max(*trainer->num_nodes - 1, 1) : *trainer->num_nodes;
        // Under runLauncherAsNode MPI computes the count (numNodes less the launcher): credited to MPI.
        node->count_origin = launcher_as_node ? Origin::Plugin(kName) : job.positions.Find("spec.trainer.numNodes");
      }
    }

    // Upstream writes the settled value back into the runtime's policy for Build to read.
    num_proc_per_node_ = mpi->num_proc_per_node.value_or(1);
    if (trainer && trainer->num_proc_per_node) {
      num_proc_per_node_ = *trainer->num_proc_per_node;
    } else if (num_proc_per_node_ == 1) {
      std::optional<Tree> resources = ExtractResourcePerNodeFromRuntime(info.template_spec.obj_apply);
      if (trainer && trainer->resources_per_node) resources = *trainer->resources_per_node;
      if (int gpus = NumGPUPerNode(resources ? &*resources : nullptr); gpus > 1) num_proc_per_node_ = gpus;
    }

    std::string ssh_path = mpi->ssh_auth_mount_path.value_or(kDefaultSSHAuthMountPath);
    for (PodSet& ps : info.template_spec.pod_sets) {
      bool is_launcher = ps.name == kLauncher;
      if (ps.name != kNode && !is_launcher) continue;
      UpsertVolumes(ps.volumes, {SSHAuthVolume(job.metadata.name)});
      if (is_launcher) UpsertVolumes(ps.volumes, {HostfileVolume(job.metadata.name)});
      for (Container& container : ps.containers) {
        if (container.name != kNode) continue;
        UpsertVolumeMounts(container.volume_mounts, {VolumeMount(kSSHAuthVolumeName, ssh_path)});
        if (!is_launcher) continue;
        UpsertVolumeMounts(container.volume_mounts, {VolumeMount(kHostfileVolumeName, kHostfileDir)});
        std::string implementation = mpi->mpi_implementation.value_or(kOpenMPI);
        if (implementation != kOpenMPI) {
          // Upstream prints the address of the value here; we print the value.
          throw Error(fmt::format("MPI implementation for \"{}\" doesn't supported", implementation));
        }
        UpsertEnvVars(container.env,
                      {
                          EnvVarValue(kEnvHostFileLocation, fmt::format("{}/{}", kHostfileDir, kHostfileName), kByMPI),
                          EnvVarValue(kEnvKeepFQDNHostNames, "true", kByMPI),
                          EnvVarValue(kEnvDefaultSlots, std::to_string(num_proc_per_node_), kByMPI),
                          EnvVarValue(kEnvKeyRSHArgs, kEnvDefaultValueRSHArgs, kByMPI),
                      });
      }
    }

    // The nodes run the TrainJob image too, so that mpirun and its processes match.
    if (!options_.legacy_image) {
      SetTrainJobImage(info.FindContainerByPodSetName(kLauncher, kNode), job, "MPI");
      SetTrainJobImage(info.FindContainerByPodSetName(kNode, kNode), job, "MPI");
    }
  }

  void Build(Info& info, const TrainJob& job, std::vector<Tree>& objects) override {
    const MPIPolicy* mpi = Policy(&info);
    if (mpi == nullptr) return;
    // Upstream skips the Secret when it already exists in the cluster; offline it never does.
    objects.push_back(SSHAuthSecret(job));
    bool openmpi = mpi->mpi_implementation.value_or(kOpenMPI) == kOpenMPI;
    std::optional<std::string> hostfile = openmpi ? MPIHostFile(info.template_spec.pod_sets,
                                                                mpi->run_launcher_as_node.value_or(false),
                                                                num_proc_per_node_, options_.max_output_bytes)
                                                  : std::string();
    if (!hostfile) throw OutputLimitError(job, options_.max_output_bytes);
    Tree config_map = NewOwnedObject("v1", "ConfigMap", job.metadata.name + kHostfileConfigMapSuffix, job, kByMPI);
    config_map.Child("data", kByMPI).Set(kHostfileName, String(std::move(*hostfile)));
    objects.push_back(std::move(config_map));
  }

 private:
  static const MPIPolicy* Policy(const Info* info) {
    if (info == nullptr || info->runtime_policy.ml_policy == nullptr || !info->runtime_policy.ml_policy->mpi) {
      return nullptr;
    }
    return &*info->runtime_policy.ml_policy->mpi;
  }

  Tree SSHAuthSecret(const TrainJob& job) {
    SSHAuthKeys keys = keys_->Generate();
    Tree secret = NewOwnedObject("v1", "Secret", job.metadata.name + kSSHAuthSecretSuffix, job, kByMPI);
    if (keys.placeholder) {
      secret.Find("metadata")->Child("annotations", kByMPI).Set(kPlaceholderAnnotation, String(kPlaceholderNote));
    }
    secret.Set("type", String(kSecretTypeSSHAuth));
    Tree& data = secret.Child("data", kByMPI);
    data.Set(kSSHAuthPrivateKey, String(Base64Encode(keys.private_key)));
    data.Set(kSSHPublicKey, String(Base64Encode(keys.public_key)));
    secret.Set("immutable", Tree::Bool(true, kByMPI));
    return secret;
  }

  RenderOptions options_;
  std::unique_ptr<SSHKeySource> keys_;
  // numProcPerNode as EnforceMLPolicy settled it, for Build of the same TrainJob.
  std::int32_t num_proc_per_node_ = 1;
};

}  // namespace

std::optional<std::string> MPIHostFile(const std::vector<PodSet>& pod_sets, bool run_launcher_as_node,
                                       std::int32_t slots, std::size_t max_bytes) {
  std::string suffix = fmt::format(" slots={}\n", slots);
  auto lists = [&](const PodSet& ps) { return ps.name == kNode || (run_launcher_as_node && ps.name == kLauncher); };
  // The size is known before a byte is written: too many pods fail here, and the rest is
  // allocated once.
  auto digits_below = [](std::uint64_t n) {  // the digits of 0, 1, ..., n - 1 written out
    std::uint64_t total = 0;
    for (std::uint64_t low = 0, high = 10, width = 1; low < n; low = high, high *= 10, ++width) {
      total += (std::min(n, high) - low) * width;
    }
    return total;
  };
  std::uint64_t size = 0;
  for (const PodSet& ps : pod_sets) {
    if (!lists(ps) || !ps.endpoints) continue;
    const EndpointSource& e = *ps.endpoints;
    const auto replicas = static_cast<std::uint64_t>(std::max(e.replicas, 0));
    const auto pods = static_cast<std::uint64_t>(std::max(ps.count.value_or(1), 0));
    // "<job>-<rjob>-<replica>-<pod>.<subdomain><suffix>"
    const std::uint64_t fixed = e.job_set_name.size() + e.replicated_job_name.size() + e.subdomain.size() + 4 + suffix.size();
    size += replicas * pods * fixed + pods * digits_below(replicas) + replicas * digits_below(pods);
  }
  if (size > max_bytes) return std::nullopt;
  std::string hostfile;
  hostfile.reserve(size);
  for (const PodSet& ps : pod_sets) {
    if (!lists(ps)) continue;
    ps.ForEachEndpoint([&](const std::string& endpoint) {
      hostfile += endpoint;
      hostfile += suffix;
      return true;
    });
  }
  return hostfile;
}

std::unique_ptr<Plugin> NewMPI(const RenderOptions& options) {
  return NewMPIWithKeys(options, options.generate_ssh_keys ? NewECDSAP521SSHKeys() : NewPlaceholderSSHKeys());
}

std::unique_ptr<Plugin> NewMPIWithKeys(const RenderOptions& options, std::unique_ptr<SSHKeySource> keys) {
  return std::make_unique<MPI>(options, std::move(keys));
}

}  // namespace trainer::plugins
