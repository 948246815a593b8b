#include "api/defaults.h"

#include <charconv>
#include <vector>

#include "util/field_path.h"

namespace trainer {

namespace {

using Scope = DefaultRule::Scope;

constexpr DefaultRule kRules[] = {
    {Scope::kTrainJob, "spec.initializer.dataset.env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.initializer.dataset.env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.initializer.dataset.env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.initializer.dataset.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.initializer.model.env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.initializer.model.env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.initializer.model.env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.initializer.model.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.managedBy", Tree::Type::kString, "trainer.kubeflow.org/trainjob-controller"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.imagePullSecrets[*].name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].azureDisk.fsType", Tree::Type::kString, "ext4"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].azureDisk.readOnly", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].cephfs.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].cinder.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].configMap.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].csi.nodePublishSecretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].flexVolume.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].iscsi.iscsiInterface", Tree::Type::kString, "default"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].iscsi.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].projected.sources[*].configMap.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].projected.sources[*].secret.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.keyring", Tree::Type::kString, "/etc/ceph/keyring"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.pool", Tree::Type::kString, "rbd"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.user", Tree::Type::kString, "admin"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].scaleIO.fsType", Tree::Type::kString, "xfs"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].scaleIO.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].scaleIO.storageMode", Tree::Type::kString, "ThinProvisioned"},
    {Scope::kTrainJob, "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].storageos.secretRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.runtimeRef.apiGroup", Tree::Type::kString, "trainer.kubeflow.org"},
    {Scope::kTrainJob, "spec.runtimeRef.kind", Tree::Type::kString, "ClusterTrainingRuntime"},
    {Scope::kTrainJob, "spec.suspend", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.trainer.env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kTrainJob, "spec.trainer.env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kTrainJob, "spec.trainer.env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.mlPolicy.flux.numProcPerNode", Tree::Type::kInt, "1"},
    {Scope::kRuntime, "spec.mlPolicy.mpi.mpiImplementation", Tree::Type::kString, "OpenMPI"},
    {Scope::kRuntime, "spec.mlPolicy.mpi.numProcPerNode", Tree::Type::kInt, "1"},
    {Scope::kRuntime, "spec.mlPolicy.mpi.runLauncherAsNode", Tree::Type::kBool, "false"},
    {Scope::kRuntime, "spec.mlPolicy.mpi.sshAuthMountPath", Tree::Type::kString, "/root/.ssh"},
    {Scope::kRuntime, "spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds", Tree::Type::kInt, "60"},
    {Scope::kRuntime, "spec.podGroupPolicy.volcano.networkTopology.highestTierAllowed", Tree::Type::kInt, "1"},
    {Scope::kRuntime, "spec.podGroupPolicy.volcano.networkTopology.mode", Tree::Type::kString, "hard"},
    {Scope::kRuntime, "spec.template.spec.failurePolicy.restartStrategy", Tree::Type::kString, "Recreate"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].groupName", Tree::Type::kString, "default"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].replicas", Tree::Type::kInt, "1"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].envFrom[*].configMapRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].envFrom[*].secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].livenessProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].ports[*].protocol", Tree::Type::kString, "TCP"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].readinessProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].startupProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].envFrom[*].configMapRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].envFrom[*].secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].livenessProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].ports[*].protocol", Tree::Type::kString, "TCP"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].readinessProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.ephemeralContainers[*].startupProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.imagePullSecrets[*].name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].env[*].valueFrom.configMapKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].env[*].valueFrom.fileKeyRef.optional", Tree::Type::kBool, "false"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].env[*].valueFrom.secretKeyRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].envFrom[*].configMapRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].envFrom[*].secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].livenessProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].ports[*].protocol", Tree::Type::kString, "TCP"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].readinessProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.initContainers[*].startupProbe.grpc.service", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].azureDisk.fsType", Tree::Type::kString, "ext4"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].azureDisk.readOnly", Tree::Type::kBool, "false"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].cephfs.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].cinder.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].configMap.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].csi.nodePublishSecretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].flexVolume.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].iscsi.iscsiInterface", Tree::Type::kString, "default"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].iscsi.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].projected.sources[*].configMap.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].projected.sources[*].secret.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.keyring", Tree::Type::kString, "/etc/ceph/keyring"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.pool", Tree::Type::kString, "rbd"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].rbd.user", Tree::Type::kString, "admin"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].scaleIO.fsType", Tree::Type::kString, "xfs"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].scaleIO.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].scaleIO.storageMode", Tree::Type::kString, "ThinProvisioned"},
    {Scope::kRuntime, "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*].storageos.secretRef.name", Tree::Type::kString, ""},
    {Scope::kRuntime, "spec.template.spec.volumeClaimPolicies[*].retentionPolicy.whenDeleted", Tree::Type::kString, "Delete"},
};

Tree MakeValue(const DefaultRule& rule) {
  switch (rule.type) {
    case Tree::Type::kBool: return Tree::Bool(rule.value == "true", Origin::Default());
    case Tree::Type::kInt: {
      std::int64_t v = 0;
      std::from_chars(rule.value.data(), rule.value.data() + rule.value.size(), v);
      return Tree::Int(v, Origin::Default());
    }
    default: return Tree::String(std::string(rule.value), Origin::Default());
  }
}

// The rules of a scope on a tree of their paths: a document is walked once, and each map gets its
// defaults in the table's order. Both trees are built at compile time.
constexpr PathTree<const DefaultRule*> BuildTree(Scope scope) {
  PathTree<const DefaultRule*> tree;
  for (const DefaultRule& rule : kRules) {
    if (rule.scope == scope) tree.nodes[tree.Add(0, rule.path)].rules.push_back(&rule);
  }
  return tree;
}

template <Scope kScope>
constexpr auto kTreeSizes = FrozenSizes(BuildTree(kScope));
template <Scope kScope>
constexpr auto kTree = Freeze<kTreeSizes<kScope>[0], kTreeSizes<kScope>[1]>(BuildTree(kScope));

// Sets the defaults below `node`, which stands at tree node `at`.
template <typename RuleTree>
void Apply(const RuleTree& tree, std::size_t at, Tree& node) {
  const FrozenPathNode& here = tree.nodes[at];
  for (std::size_t c = here.first_child; c < here.children_end(); ++c) {
    const FrozenPathNode& child = tree.nodes[c];
    if (child.segment == "[*]") {
      if (node.IsList()) {
        for (Tree& item : node.items()) Apply(tree, c, item);
      }
      continue;
    }
    if (!node.IsMap()) continue;
    Tree* value = node.Find(child.segment);
    for (const DefaultRule* rule : tree.RulesOf(child)) {
      if (value == nullptr || value->IsNull()) value = &node.Set(child.segment, MakeValue(*rule), Origin::Default());
    }
    if (value != nullptr && child.has_children()) Apply(tree, c, *value);
  }
}

}  // namespace

std::span<const DefaultRule> DefaultRules() { return kRules; }

void ApplyDefaults(Tree& document, DefaultRule::Scope scope) {
  if (scope == Scope::kTrainJob) {
    Apply(kTree<Scope::kTrainJob>, 0, document);
  } else {
    Apply(kTree<Scope::kRuntime>, 0, document);
  }
}

}  // namespace trainer
