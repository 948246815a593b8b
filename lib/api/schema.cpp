// The CRD schema table and the checks behind it. Follows the upstream CRDs
// (manifests/base/crds/trainer.kubeflow.org_{trainjobs,trainingruntimes,clustertrainingruntimes}.yaml)
// and the API server's messages: kube-openapi pkg/validation (errors/schema.go, validate/values.go),
// apiextensions-apiserver pkg/apiserver/validation/validation.go (kubeOpenAPIResultToFieldErrors),
// pkg/apiserver/schema/cel/validation.go (rule failures) and pkg/apiserver/schema/listtype
// (duplicates), apimachinery pkg/util/validation/field/errors.go (ErrorBody).
#include "api/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <regex>
#include <stdexcept>
#include <string_view>

#include "util/field_path.h"
#include "util/quote.h"

namespace trainer {

namespace {

using Check = SchemaRule::Check;

// resource.Quantity's pattern, as every quantity field of the CRDs carries it.
constexpr std::string_view kQuantityPattern =
    "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+)"
    ")))?$";

// Rows within a group are sorted by path. `status` is left out: the API server drops it on create.
// Transition rules (those using oldSelf) are left out: they need an update. int32 and int64 formats
// are left to decoding, which checks integer widths.
// clang-format off
constexpr SchemaRule kRules[] = {
    // TrainJob
    {"TrainJob", "", Check::kRule, "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')", "metadata.name must match RFC 1035 DNS label format"},
    {"TrainJob", "", Check::kRule, "size(self.metadata.name) <= 63", "metadata.name must be no more than 63 characters"},
    {"TrainJob", "spec", Check::kRequired, "runtimeRef"},
    {"TrainJob", "spec.activeDeadlineSeconds", Check::kMinimum, "1"},
    {"TrainJob", "spec.initializer.dataset.env", Check::kListMap, "name"},
    {"TrainJob", "spec.initializer.dataset.env", Check::kMaxItems, "128"},
    {"TrainJob", "spec.initializer.dataset.env[*]", Check::kUse, "EnvVar"},
    {"TrainJob", "spec.initializer.dataset.storageUri", Check::kMaxLength, "2048"},
    {"TrainJob", "spec.initializer.dataset.storageUri", Check::kRule, "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')", "storageUri may be empty, or it must be a valid URI (scheme://...)"},
    {"TrainJob", "spec.initializer.model.env", Check::kListMap, "name"},
    {"TrainJob", "spec.initializer.model.env", Check::kMaxItems, "128"},
    {"TrainJob", "spec.initializer.model.env[*]", Check::kUse, "EnvVar"},
    {"TrainJob", "spec.initializer.model.storageUri", Check::kMaxLength, "2048"},
    {"TrainJob", "spec.initializer.model.storageUri", Check::kRule, "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')", "storageUri may be empty, or it must be a valid URI (scheme://...)"},
    {"TrainJob", "spec.managedBy", Check::kMaxLength, "253"},
    {"TrainJob", "spec.managedBy", Check::kRule, "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']", "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"},
    {"TrainJob", "spec.runtimePatches", Check::kListMap, "manager"},
    {"TrainJob", "spec.runtimePatches", Check::kMaxItems, "16"},
    {"TrainJob", "spec.runtimePatches[*]", Check::kRequired, "manager"},
    {"TrainJob", "spec.runtimePatches[*].manager", Check::kMaxLength, "253"},
    {"TrainJob", "spec.runtimePatches[*].manager", Check::kMinLength, "1"},
    {"TrainJob", "spec.runtimePatches[*].time", Check::kFormat, "date-time"},
    {"TrainJob", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs", Check::kListMap, "name"},
    {"TrainJob", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs", Check::kMaxItems, "100"},
    {"TrainJob", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*]", Check::kRequired, "name"},
    {"TrainJob", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].name", Check::kMaxLength, "253"},
    {"TrainJob", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].name", Check::kMinLength, "1"},
    {"TrainJob", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec", Check::kUse, "PodSpecPatch"},
    {"TrainJob", "spec.runtimeRef", Check::kRequired, "name"},
    {"TrainJob", "spec.runtimeRef.apiGroup", Check::kMaxLength, "253"},
    {"TrainJob", "spec.runtimeRef.kind", Check::kMaxLength, "253"},
    {"TrainJob", "spec.runtimeRef.name", Check::kMaxLength, "253"},
    {"TrainJob", "spec.runtimeRef.name", Check::kMinLength, "1"},
    {"TrainJob", "spec.trainer.args", Check::kMaxItems, "128"},
    {"TrainJob", "spec.trainer.args[*]", Check::kMaxLength, "1048576"},
    {"TrainJob", "spec.trainer.command", Check::kMaxItems, "128"},
    {"TrainJob", "spec.trainer.command[*]", Check::kMaxLength, "1048576"},
    {"TrainJob", "spec.trainer.env", Check::kListMap, "name"},
    {"TrainJob", "spec.trainer.env", Check::kMaxItems, "128"},
    {"TrainJob", "spec.trainer.env[*]", Check::kUse, "EnvVar"},
    {"TrainJob", "spec.trainer.image", Check::kMaxLength, "500"},
    {"TrainJob", "spec.trainer.numNodes", Check::kMinimum, "0"},
    {"TrainJob", "spec.trainer.numProcPerNode", Check::kRule, "self >= 1", "numProcPerNode must be greater than or equal to 1"},
    {"TrainJob", "spec.trainer.resourcesPerNode", Check::kUse, "ResourceRequirements"},
    // PodSpecPatch
    {"PodSpecPatch", "affinity", Check::kUse, "Affinity"},
    {"PodSpecPatch", "containers", Check::kListMap, "name"},
    {"PodSpecPatch", "containers", Check::kMaxItems, "64"},
    {"PodSpecPatch", "containers[*]", Check::kUse, "ContainerPatch"},
    {"PodSpecPatch", "imagePullSecrets", Check::kListMap, "name"},
    {"PodSpecPatch", "imagePullSecrets", Check::kMaxItems, "64"},
    {"PodSpecPatch", "initContainers", Check::kListMap, "name"},
    {"PodSpecPatch", "initContainers", Check::kMaxItems, "64"},
    {"PodSpecPatch", "initContainers[*]", Check::kUse, "ContainerPatch"},
    {"PodSpecPatch", "schedulingGates", Check::kListMap, "name"},
    {"PodSpecPatch", "schedulingGates", Check::kMaxItems, "16"},
    {"PodSpecPatch", "schedulingGates[*]", Check::kRequired, "name"},
    {"PodSpecPatch", "securityContext", Check::kUse, "PodSecurityContext"},
    {"PodSpecPatch", "serviceAccountName", Check::kMaxLength, "253"},
    {"PodSpecPatch", "terminationGracePeriodSeconds", Check::kMinimum, "0"},
    {"PodSpecPatch", "tolerations", Check::kMaxItems, "128"},
    {"PodSpecPatch", "volumes", Check::kListMap, "name"},
    {"PodSpecPatch", "volumes", Check::kMaxItems, "128"},
    {"PodSpecPatch", "volumes[*]", Check::kUse, "Volume"},
    // ContainerPatch
    {"ContainerPatch", "", Check::kRequired, "name"},
    {"ContainerPatch", "env", Check::kListMap, "name"},
    {"ContainerPatch", "env", Check::kMaxItems, "128"},
    {"ContainerPatch", "env[*]", Check::kUse, "EnvVar"},
    {"ContainerPatch", "name", Check::kMaxLength, "253"},
    {"ContainerPatch", "name", Check::kMinLength, "1"},
    {"ContainerPatch", "securityContext", Check::kUse, "SecurityContext"},
    {"ContainerPatch", "volumeMounts", Check::kListMap, "name"},
    {"ContainerPatch", "volumeMounts", Check::kMaxItems, "128"},
    {"ContainerPatch", "volumeMounts[*]", Check::kRequired, "mountPath"},
    {"ContainerPatch", "volumeMounts[*]", Check::kRequired, "name"},
    // TrainingRuntime
    {"TrainingRuntime", "spec", Check::kMinProperties, "1"},
    {"TrainingRuntime", "spec.mlPolicy", Check::kRule, "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1", "Only one of the policy can be configured"},
    {"TrainingRuntime", "spec.mlPolicy.flux.numProcPerNode", Check::kRule, "self >= 1", "NumProcPerNode in fluxPolicy must be >= 1"},
    {"TrainingRuntime", "spec.mlPolicy.mpi.mpiImplementation", Check::kEnum, "OpenMPI|"},
    {"TrainingRuntime", "spec.mlPolicy.mpi.numProcPerNode", Check::kRule, "self >= 1", "NumProcPerNode in mpiPolicy must be >= 1"},
    {"TrainingRuntime", "spec.mlPolicy.mpi.sshAuthMountPath", Check::kMaxLength, "4096"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets", Check::kListMap, "jobName"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets", Check::kMaxItems, "16"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*]", Check::kRequired, "containerNames"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*]", Check::kRequired, "jobName"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].containerNames", Check::kListSet, ""},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].containerNames", Check::kMaxItems, "8"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].containerNames", Check::kMinItems, "1"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].containerNames", Check::kRule, "!self.exists(c, c == 'node')", "containerNames must not include the main node container because PET_* envs are always injected into it"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].containerNames[*]", Check::kMaxLength, "63"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].jobName", Check::kMaxLength, "253"},
    {"TrainingRuntime", "spec.mlPolicy.torch.envInjection.targets[*].jobName", Check::kMinLength, "1"},
    {"TrainingRuntime", "spec.podGroupPolicy.volcano.networkTopology.mode", Check::kEnum, "hard|soft"},
    {"TrainingRuntime", "spec.template", Check::kMinProperties, "1"},
    {"TrainingRuntime", "spec.template.spec", Check::kRule, "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && self.replicatedJobs.exists(x, has(x.dependsOn)))", "StartupPolicy and DependsOn APIs are mutually exclusive"},
    {"TrainingRuntime", "spec.template.spec.coordinator", Check::kRequired, "replicatedJob"},
    {"TrainingRuntime", "spec.template.spec.failurePolicy.restartStrategy", Check::kEnum, "Recreate|BlockingRecreate|InPlaceRestart"},
    {"TrainingRuntime", "spec.template.spec.failurePolicy.rules[*]", Check::kRequired, "action"},
    {"TrainingRuntime", "spec.template.spec.failurePolicy.rules[*]", Check::kRequired, "name"},
    {"TrainingRuntime", "spec.template.spec.failurePolicy.rules[*].action", Check::kEnum, "FailJobSet|RestartJobSet|RestartJobSetAndIgnoreMaxRestarts|RestartJob|RestartJobAndIgnoreMaxRestarts"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs", Check::kListMap, "name"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*]", Check::kRequired, "name"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*]", Check::kRequired, "template"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].dependsOn", Check::kListMap, "name"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].dependsOn", Check::kMaxItems, "5"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].dependsOn[*]", Check::kRequired, "name"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].dependsOn[*]", Check::kRequired, "status"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].dependsOn[*].status", Check::kEnum, "Ready|Complete"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec", Check::kRequired, "template"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.podFailurePolicy", Check::kRequired, "rules"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.podFailurePolicy.rules[*]", Check::kRequired, "action"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.podFailurePolicy.rules[*].onExitCodes", Check::kRequired, "operator"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.podFailurePolicy.rules[*].onExitCodes", Check::kRequired, "values"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.podFailurePolicy.rules[*].onExitCodes.values", Check::kListSet, ""},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.podFailurePolicy.rules[*].onPodConditions[*]", Check::kRequired, "type"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.selector", Check::kUse, "LabelSelector"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.successPolicy", Check::kRequired, "rules"},
    {"TrainingRuntime", "spec.template.spec.replicatedJobs[*].template.spec.template.spec", Check::kUse, "PodSpec"},
    {"TrainingRuntime", "spec.template.spec.startupPolicy", Check::kRequired, "startupPolicyOrder"},
    {"TrainingRuntime", "spec.template.spec.startupPolicy.startupPolicyOrder", Check::kEnum, "AnyOrder|InOrder"},
    {"TrainingRuntime", "spec.template.spec.successPolicy", Check::kRequired, "operator"},
    {"TrainingRuntime", "spec.template.spec.successPolicy.operator", Check::kEnum, "All|Any"},
    {"TrainingRuntime", "spec.template.spec.ttlSecondsAfterFinished", Check::kMinimum, "0"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies", Check::kMaxItems, "50"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*]", Check::kRule, "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)", "namespace cannot be set for VolumeClaimPolicies templates"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].retentionPolicy.whenDeleted", Check::kEnum, "Delete|Retain"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates", Check::kMaxItems, "50"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].spec", Check::kUse, "PersistentVolumeClaimSpec"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.allocatedResources[*]", Check::kPattern, kQuantityPattern},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.capacity[*]", Check::kPattern, kQuantityPattern},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.conditions", Check::kListMap, "type"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.conditions[*]", Check::kRequired, "status"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.conditions[*]", Check::kRequired, "type"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.conditions[*].lastProbeTime", Check::kFormat, "date-time"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.conditions[*].lastTransitionTime", Check::kFormat, "date-time"},
    {"TrainingRuntime", "spec.template.spec.volumeClaimPolicies[*].templates[*].status.modifyVolumeStatus", Check::kRequired, "status"},
    // PodSpec
    {"PodSpec", "", Check::kRequired, "containers"},
    {"PodSpec", "affinity", Check::kUse, "Affinity"},
    {"PodSpec", "containers", Check::kListMap, "name"},
    {"PodSpec", "containers[*]", Check::kUse, "Container"},
    {"PodSpec", "ephemeralContainers", Check::kListMap, "name"},
    {"PodSpec", "ephemeralContainers[*]", Check::kUse, "Container"},
    {"PodSpec", "hostAliases", Check::kListMap, "ip"},
    {"PodSpec", "hostAliases[*]", Check::kRequired, "ip"},
    {"PodSpec", "imagePullSecrets", Check::kListMap, "name"},
    {"PodSpec", "initContainers", Check::kListMap, "name"},
    {"PodSpec", "initContainers[*]", Check::kUse, "Container"},
    {"PodSpec", "os", Check::kRequired, "name"},
    {"PodSpec", "overhead[*]", Check::kPattern, kQuantityPattern},
    {"PodSpec", "readinessGates[*]", Check::kRequired, "conditionType"},
    {"PodSpec", "resourceClaims", Check::kListMap, "name"},
    {"PodSpec", "resourceClaims[*]", Check::kRequired, "name"},
    {"PodSpec", "resources", Check::kUse, "ResourceRequirements"},
    {"PodSpec", "schedulingGates", Check::kListMap, "name"},
    {"PodSpec", "schedulingGates[*]", Check::kRequired, "name"},
    {"PodSpec", "securityContext", Check::kUse, "PodSecurityContext"},
    {"PodSpec", "topologySpreadConstraints", Check::kListMap, "topologyKey,whenUnsatisfiable"},
    {"PodSpec", "topologySpreadConstraints[*]", Check::kRequired, "maxSkew"},
    {"PodSpec", "topologySpreadConstraints[*]", Check::kRequired, "topologyKey"},
    {"PodSpec", "topologySpreadConstraints[*]", Check::kRequired, "whenUnsatisfiable"},
    {"PodSpec", "topologySpreadConstraints[*].labelSelector", Check::kUse, "LabelSelector"},
    {"PodSpec", "volumes", Check::kListMap, "name"},
    {"PodSpec", "volumes[*]", Check::kUse, "Volume"},
    // Container
    {"Container", "", Check::kRequired, "name"},
    {"Container", "env", Check::kListMap, "name"},
    {"Container", "env[*]", Check::kUse, "EnvVar"},
    {"Container", "lifecycle.postStart", Check::kUse, "LifecycleHandler"},
    {"Container", "lifecycle.preStop", Check::kUse, "LifecycleHandler"},
    {"Container", "livenessProbe", Check::kUse, "Probe"},
    {"Container", "ports", Check::kListMap, "containerPort,protocol"},
    {"Container", "ports[*]", Check::kRequired, "containerPort"},
    {"Container", "readinessProbe", Check::kUse, "Probe"},
    {"Container", "resizePolicy[*]", Check::kRequired, "resourceName"},
    {"Container", "resizePolicy[*]", Check::kRequired, "restartPolicy"},
    {"Container", "resources", Check::kUse, "ResourceRequirements"},
    {"Container", "restartPolicyRules[*]", Check::kRequired, "action"},
    {"Container", "restartPolicyRules[*].exitCodes", Check::kRequired, "operator"},
    {"Container", "restartPolicyRules[*].exitCodes.values", Check::kListSet, ""},
    {"Container", "securityContext", Check::kUse, "SecurityContext"},
    {"Container", "startupProbe", Check::kUse, "Probe"},
    {"Container", "volumeDevices", Check::kListMap, "devicePath"},
    {"Container", "volumeDevices[*]", Check::kRequired, "devicePath"},
    {"Container", "volumeDevices[*]", Check::kRequired, "name"},
    {"Container", "volumeMounts", Check::kListMap, "mountPath"},
    {"Container", "volumeMounts[*]", Check::kRequired, "mountPath"},
    {"Container", "volumeMounts[*]", Check::kRequired, "name"},
    // EnvVar
    {"EnvVar", "", Check::kRequired, "name"},
    {"EnvVar", "valueFrom.configMapKeyRef", Check::kRequired, "key"},
    {"EnvVar", "valueFrom.fieldRef", Check::kRequired, "fieldPath"},
    {"EnvVar", "valueFrom.fileKeyRef", Check::kRequired, "key"},
    {"EnvVar", "valueFrom.fileKeyRef", Check::kRequired, "path"},
    {"EnvVar", "valueFrom.fileKeyRef", Check::kRequired, "volumeName"},
    {"EnvVar", "valueFrom.resourceFieldRef", Check::kRequired, "resource"},
    {"EnvVar", "valueFrom.resourceFieldRef.divisor", Check::kPattern, kQuantityPattern},
    {"EnvVar", "valueFrom.secretKeyRef", Check::kRequired, "key"},
    // ResourceRequirements
    {"ResourceRequirements", "claims", Check::kListMap, "name"},
    {"ResourceRequirements", "claims[*]", Check::kRequired, "name"},
    {"ResourceRequirements", "limits[*]", Check::kPattern, kQuantityPattern},
    {"ResourceRequirements", "requests[*]", Check::kPattern, kQuantityPattern},
    // SecurityContext
    {"SecurityContext", "appArmorProfile", Check::kRequired, "type"},
    {"SecurityContext", "seccompProfile", Check::kRequired, "type"},
    // PodSecurityContext
    {"PodSecurityContext", "appArmorProfile", Check::kRequired, "type"},
    {"PodSecurityContext", "seccompProfile", Check::kRequired, "type"},
    {"PodSecurityContext", "sysctls[*]", Check::kRequired, "name"},
    {"PodSecurityContext", "sysctls[*]", Check::kRequired, "value"},
    // Affinity
    {"Affinity", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "preference"},
    {"Affinity", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "weight"},
    {"Affinity", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].preference.matchExpressions[*]", Check::kRequired, "key"},
    {"Affinity", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].preference.matchExpressions[*]", Check::kRequired, "operator"},
    {"Affinity", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].preference.matchFields[*]", Check::kRequired, "key"},
    {"Affinity", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].preference.matchFields[*]", Check::kRequired, "operator"},
    {"Affinity", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", Check::kRequired, "nodeSelectorTerms"},
    {"Affinity", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[*].matchExpressions[*]", Check::kRequired, "key"},
    {"Affinity", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[*].matchExpressions[*]", Check::kRequired, "operator"},
    {"Affinity", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[*].matchFields[*]", Check::kRequired, "key"},
    {"Affinity", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[*].matchFields[*]", Check::kRequired, "operator"},
    {"Affinity", "podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "podAffinityTerm"},
    {"Affinity", "podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "weight"},
    {"Affinity", "podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm", Check::kRequired, "topologyKey"},
    {"Affinity", "podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.labelSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.namespaceSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "topologyKey"},
    {"Affinity", "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].labelSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].namespaceSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "podAffinityTerm"},
    {"Affinity", "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "weight"},
    {"Affinity", "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm", Check::kRequired, "topologyKey"},
    {"Affinity", "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.labelSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.namespaceSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*]", Check::kRequired, "topologyKey"},
    {"Affinity", "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].labelSelector", Check::kUse, "LabelSelector"},
    {"Affinity", "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].namespaceSelector", Check::kUse, "LabelSelector"},
    // LabelSelector
    {"LabelSelector", "matchExpressions[*]", Check::kRequired, "key"},
    {"LabelSelector", "matchExpressions[*]", Check::kRequired, "operator"},
    // Volume
    {"Volume", "", Check::kRequired, "name"},
    {"Volume", "awsElasticBlockStore", Check::kRequired, "volumeID"},
    {"Volume", "azureDisk", Check::kRequired, "diskName"},
    {"Volume", "azureDisk", Check::kRequired, "diskURI"},
    {"Volume", "azureFile", Check::kRequired, "secretName"},
    {"Volume", "azureFile", Check::kRequired, "shareName"},
    {"Volume", "cephfs", Check::kRequired, "monitors"},
    {"Volume", "cinder", Check::kRequired, "volumeID"},
    {"Volume", "configMap.items[*]", Check::kRequired, "key"},
    {"Volume", "configMap.items[*]", Check::kRequired, "path"},
    {"Volume", "csi", Check::kRequired, "driver"},
    {"Volume", "downwardAPI.items[*]", Check::kRequired, "path"},
    {"Volume", "downwardAPI.items[*].fieldRef", Check::kRequired, "fieldPath"},
    {"Volume", "downwardAPI.items[*].resourceFieldRef", Check::kRequired, "resource"},
    {"Volume", "downwardAPI.items[*].resourceFieldRef.divisor", Check::kPattern, kQuantityPattern},
    {"Volume", "emptyDir.sizeLimit", Check::kPattern, kQuantityPattern},
    {"Volume", "ephemeral.volumeClaimTemplate", Check::kRequired, "spec"},
    {"Volume", "ephemeral.volumeClaimTemplate.spec", Check::kUse, "PersistentVolumeClaimSpec"},
    {"Volume", "flexVolume", Check::kRequired, "driver"},
    {"Volume", "gcePersistentDisk", Check::kRequired, "pdName"},
    {"Volume", "gitRepo", Check::kRequired, "repository"},
    {"Volume", "glusterfs", Check::kRequired, "endpoints"},
    {"Volume", "glusterfs", Check::kRequired, "path"},
    {"Volume", "hostPath", Check::kRequired, "path"},
    {"Volume", "iscsi", Check::kRequired, "iqn"},
    {"Volume", "iscsi", Check::kRequired, "lun"},
    {"Volume", "iscsi", Check::kRequired, "targetPortal"},
    {"Volume", "nfs", Check::kRequired, "path"},
    {"Volume", "nfs", Check::kRequired, "server"},
    {"Volume", "persistentVolumeClaim", Check::kRequired, "claimName"},
    {"Volume", "photonPersistentDisk", Check::kRequired, "pdID"},
    {"Volume", "portworxVolume", Check::kRequired, "volumeID"},
    {"Volume", "projected.sources[*].clusterTrustBundle", Check::kRequired, "path"},
    {"Volume", "projected.sources[*].clusterTrustBundle.labelSelector", Check::kUse, "LabelSelector"},
    {"Volume", "projected.sources[*].configMap.items[*]", Check::kRequired, "key"},
    {"Volume", "projected.sources[*].configMap.items[*]", Check::kRequired, "path"},
    {"Volume", "projected.sources[*].downwardAPI.items[*]", Check::kRequired, "path"},
    {"Volume", "projected.sources[*].downwardAPI.items[*].fieldRef", Check::kRequired, "fieldPath"},
    {"Volume", "projected.sources[*].downwardAPI.items[*].resourceFieldRef", Check::kRequired, "resource"},
    {"Volume", "projected.sources[*].downwardAPI.items[*].resourceFieldRef.divisor", Check::kPattern, kQuantityPattern},
    {"Volume", "projected.sources[*].podCertificate", Check::kRequired, "keyType"},
    {"Volume", "projected.sources[*].podCertificate", Check::kRequired, "signerName"},
    {"Volume", "projected.sources[*].secret.items[*]", Check::kRequired, "key"},
    {"Volume", "projected.sources[*].secret.items[*]", Check::kRequired, "path"},
    {"Volume", "projected.sources[*].serviceAccountToken", Check::kRequired, "path"},
    {"Volume", "quobyte", Check::kRequired, "registry"},
    {"Volume", "quobyte", Check::kRequired, "volume"},
    {"Volume", "rbd", Check::kRequired, "image"},
    {"Volume", "rbd", Check::kRequired, "monitors"},
    {"Volume", "scaleIO", Check::kRequired, "gateway"},
    {"Volume", "scaleIO", Check::kRequired, "secretRef"},
    {"Volume", "scaleIO", Check::kRequired, "system"},
    {"Volume", "secret.items[*]", Check::kRequired, "key"},
    {"Volume", "secret.items[*]", Check::kRequired, "path"},
    {"Volume", "vsphereVolume", Check::kRequired, "volumePath"},
    // PersistentVolumeClaimSpec
    {"PersistentVolumeClaimSpec", "dataSource", Check::kRequired, "kind"},
    {"PersistentVolumeClaimSpec", "dataSource", Check::kRequired, "name"},
    {"PersistentVolumeClaimSpec", "dataSourceRef", Check::kRequired, "kind"},
    {"PersistentVolumeClaimSpec", "dataSourceRef", Check::kRequired, "name"},
    {"PersistentVolumeClaimSpec", "resources.limits[*]", Check::kPattern, kQuantityPattern},
    {"PersistentVolumeClaimSpec", "resources.requests[*]", Check::kPattern, kQuantityPattern},
    {"PersistentVolumeClaimSpec", "selector", Check::kUse, "LabelSelector"},
    // LifecycleHandler
    {"LifecycleHandler", "httpGet", Check::kRequired, "port"},
    {"LifecycleHandler", "httpGet.httpHeaders[*]", Check::kRequired, "name"},
    {"LifecycleHandler", "httpGet.httpHeaders[*]", Check::kRequired, "value"},
    {"LifecycleHandler", "sleep", Check::kRequired, "seconds"},
    {"LifecycleHandler", "tcpSocket", Check::kRequired, "port"},
    // Probe
    {"Probe", "grpc", Check::kRequired, "port"},
    {"Probe", "httpGet", Check::kRequired, "port"},
    {"Probe", "httpGet.httpHeaders[*]", Check::kRequired, "name"},
    {"Probe", "httpGet.httpHeaders[*]", Check::kRequired, "value"},
    {"Probe", "tcpSocket", Check::kRequired, "port"},
};
// clang-format on

constexpr std::string_view kRootGroup[] = {"TrainJob", "TrainingRuntime"};

std::string JoinPath(std::string_view base, std::string_view rel) {
  if (base.empty()) return std::string(rel);
  if (rel.empty()) return std::string(base);
  std::string path;
  path.reserve(base.size() + 1 + rel.size());
  path.append(base);
  if (rel.front() != '[') path.push_back('.');
  path.append(rel);
  return path;
}

// Where each group's rows lie in kRules, found at compile time: a group's rows must be contiguous.
struct GroupRange {
  std::string_view group;
  std::size_t begin = 0;
  std::size_t end = 0;
};

constexpr std::size_t kGroupCount = [] {
  std::size_t count = 1;
  for (std::size_t i = 1; i < std::size(kRules); ++i) count += kRules[i].group != kRules[i - 1].group ? 1 : 0;
  return count;
}();

constexpr std::array<GroupRange, kGroupCount> kGroups = [] {
  std::array<GroupRange, kGroupCount> groups;
  std::size_t g = 0;
  groups[0] = GroupRange{kRules[0].group, 0, 0};
  for (std::size_t i = 0; i < std::size(kRules); ++i) {
    if (kRules[i].group != groups[g].group) {
      for (std::size_t j = 0; j <= g; ++j) {
        if (groups[j].group == kRules[i].group) throw std::logic_error("schema table: a group's rows are split");
      }
      groups[++g] = GroupRange{kRules[i].group, i, i};
    }
    groups[g].end = i + 1;
  }
  return groups;
}();

constexpr std::span<const SchemaRule> GroupRows(std::string_view group) {
  for (const GroupRange& range : kGroups) {
    if (range.group == group) return std::span<const SchemaRule>(kRules).subspan(range.begin, range.end - range.begin);
  }
  return {};
}

void Flatten(std::string_view group, const std::string& base, std::vector<FlatSchemaRule>& out, int depth) {
  if (depth > 16) throw std::logic_error(fmt::format("schema table: groups nest too deep at {}", group));
  for (const SchemaRule& rule : GroupRows(group)) {
    std::string path = JoinPath(base, rule.path);
    if (rule.check == Check::kUse) {
      Flatten(rule.arg, path, out, depth + 1);
    } else {
      out.push_back(FlatSchemaRule{std::move(path), rule.check, rule.arg, rule.message});
    }
  }
}

// The rules of a scope on a tree of their paths; a node's rules are indexes into `rules`, which
// holds those of FlattenSchema, in its order. Built at compile time (kTrie), so groups that nest
// too deep (a kUse cycle) stop the build.
struct RuleTrie : PathTree<std::uint16_t> {
  std::vector<const SchemaRule*> rules;
};

// Adds the rows of `group` below node `at`, following kUse rows into their groups, as Flatten
// orders them.
constexpr void Insert(RuleTrie& trie, std::string_view group, std::size_t at, int depth) {
  if (depth > 16) throw std::logic_error("schema table: groups nest too deep");
  for (const SchemaRule& rule : GroupRows(group)) {
    std::size_t node = trie.Add(at, rule.path);
    if (rule.check == Check::kUse) {
      Insert(trie, rule.arg, node, depth + 1);
    } else {
      if (trie.rules.size() > UINT16_MAX) throw std::logic_error("schema table: too many rules");
      trie.nodes[node].rules.push_back(static_cast<std::uint16_t>(trie.rules.size()));
      trie.rules.push_back(&rule);
    }
  }
}

constexpr RuleTrie BuildTrie(SchemaScope scope) {
  RuleTrie trie;
  trie.nodes.reserve(std::size(kRules) * 2);  // fewer steps for the compiler's evaluation
  trie.rules.reserve(std::size(kRules) * 2);
  Insert(trie, kRootGroup[static_cast<int>(scope)], 0, 0);
  return trie;
}

// A RuleTrie as the program holds it: its tree frozen, and the rules in FlattenSchema's order.
struct TrieView {
  std::span<const FrozenPathNode> nodes;
  std::span<const std::uint16_t> node_rules;  // indexes into `rules`
  std::span<const SchemaRule* const> rules;
};

template <std::size_t kNodes, std::size_t kRules>
struct FrozenTrie {
  FrozenPathTree<std::uint16_t, kNodes, kRules> tree;
  std::array<const SchemaRule*, kRules> rules{};

  constexpr TrieView View() const { return TrieView{tree.nodes, tree.rules, rules}; }
};

template <std::size_t kNodes, std::size_t kRules>
constexpr FrozenTrie<kNodes, kRules> FreezeTrie(const RuleTrie& trie) {
  FrozenTrie<kNodes, kRules> out{Freeze<kNodes, kRules>(trie), {}};
  for (std::size_t i = 0; i < trie.rules.size(); ++i) out.rules[i] = trie.rules[i];
  return out;
}

template <SchemaScope kScope>
constexpr auto kTrieSizes = FrozenSizes(BuildTrie(kScope));
template <SchemaScope kScope>
constexpr auto kTrie = FreezeTrie<kTrieSizes<kScope>[0], kTrieSizes<kScope>[1]>(BuildTrie(kScope));

TrieView Trie(SchemaScope scope) {
  if (scope == SchemaScope::kTrainJob) return kTrie<SchemaScope::kTrainJob>.View();
  return kTrie<SchemaScope::kRuntime>.View();
}

// One step from a parent to a value: a map key (a field, or a key under additionalProperties) or a
// list index.
struct Step {
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};

// The API path of a value, as the API server spells it (list items "[i]", map values ".key"),
// built only when a rule reports the value.
std::string PathOf(const std::vector<Step>& steps) {
  std::string path;
  for (const Step& step : steps) {
    if (step.is_index) {
      path += fmt::format("[{}]", step.index);
    } else {
      path = JoinPath(path, step.key);
    }
  }
  return path;
}

// A value reached by a rule's path, with the position to report (the field's key, or the item).
struct Target {
  const Tree* value;
  const std::vector<Step>* steps;
  Origin where;
  std::string Path() const { return PathOf(*steps); }
};

// The values `path` reaches from `node` (for a CEL rule's reported field). Nulls are absent fields.
std::vector<Target> Reach(const Tree& node, const std::vector<std::string_view>& segments, std::size_t at,
                          const Origin& where) {
  if (at == segments.size()) return {Target{&node, nullptr, where}};
  if (!node.IsMap()) return {};
  const Tree* value = node.Find(segments[at]);
  if (value == nullptr || value->IsNull()) return {};
  const std::size_t i = static_cast<std::size_t>(value - node.items().data());
  return Reach(*value, segments, at + 1, node.KeyOriginAt(i));
}

std::int64_t Number(std::string_view text) {
  std::int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Unicode code points, as the API server counts string lengths.
std::size_t RuneCount(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Whether `value` is one of the '|'-separated words of `list`.
bool IsOneOf(std::string_view list, std::string_view value) {
  while (true) {
    const std::size_t bar = list.find('|');
    if (list.substr(0, bar) == value) return true;
    if (bar == std::string_view::npos) return false;
    list.remove_prefix(bar + 1);
  }
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find(separator, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// Go's encoding/json for a scalar: strings quoted with HTML-safe escapes, numbers and booleans as is.
std::string JsonScalar(const Tree& v) {
  if (v.IsNull()) return "null";
  if (!v.IsString()) return v.text();
  std::string out;
  AppendJsonString(v.text(), out);
  return out;
}

// A field.Error's bad value as ErrorBody prints it: strings %q, numbers and booleans %v.
std::string BadValue(const Tree& v) { return v.IsString() ? GoQuote(v.text()) : v.text(); }

// strfmt's IsDateTime: a full date, "T", then hh:mm:ss with optional fraction and a zone.
bool IsDate(std::string_view s) {
  static const std::regex kDate("^([0-9]{4})-([0-9]{2})-([0-9]{2})$");
  std::string text(s);
  std::smatch m;
  if (!std::regex_match(text, m, kDate)) return false;
  int year = static_cast<int>(Number(m[1].str()));
  int month = static_cast<int>(Number(m[2].str()));
  int day = static_cast<int>(Number(m[3].str()));
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool IsDateTime(std::string_view s) {
  if (s.size() < 4) return false;
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<std::string_view> parts = Split(lower, 't');
  if (parts.size() < 2 || !IsDate(parts[0])) return false;
  static const std::regex kTime("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  std::string time(parts[1]);
  std::smatch m;
  if (!std::regex_search(time, m, kTime)) return false;
  return m[1].str() <= "23" && m[2].str() <= "59" && m[3].str() <= "59";
}

// ---- CEL rules ---------------------------------------------------------------------------------

bool Has(const Tree& object, std::string_view key) {
  const Tree* v = object.IsMap() ? object.Find(key) : nullptr;
  return v != nullptr && !v->IsNull();
}

// ^[a-z]([-a-z0-9]*[a-z0-9])?$
bool IsLowerDnsLabelShape(std::string_view s) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (s.empty() || !(s.front() >= 'a' && s.front() <= 'z') || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return c == '-' || lower_alnum(c); });
}

// ^[A-Za-z][A-Za-z0-9+.-]*://.+$ (RE2's "." takes any character but a newline)
bool IsUrlShape(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (s.empty() || !alpha(s.front())) return false;
  std::size_t i = 1;
  while (i < s.size() && (alpha(s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '.' || s[i] == '-')) ++i;
  if (s.substr(i, 3) != "://") return false;
  std::string_view rest = s.substr(i + 3);
  return !rest.empty() && rest.find('\n') == std::string_view::npos;
}

// kQuantityPattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
bool MatchesQuantityPattern(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t begin = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > begin;
  };
  // A decimal: digits with an optional "." and digits, or "." and at least one digit.
  auto decimal = [&] {
    if (digits()) {
      if (i < s.size() && s[i] == '.') {
        ++i;
        digits();
      }
      return true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      return digits();
    }
    return false;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (!decimal()) return false;
  if (i == s.size()) return true;
  const std::string_view suffix = s.substr(i);
  if (suffix.size() == 2 && suffix[1] == 'i' && std::string_view("KMGTPE").find(suffix[0]) != std::string_view::npos) return true;
  if (suffix.size() == 1 && std::string_view("numkMGTPE").find(suffix[0]) != std::string_view::npos) return true;
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  ++i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  return decimal() && i == s.size();
}

// Each rule of the CRDs, evaluated on `self`. A value of another type than the rule expects is
// left to decoding and passes here; so do fields a rule reads that are absent (the API server
// reports those as evaluation errors, which only malformed objects reach).
struct CelRule {
  std::string_view rule;
  bool (*holds)(const Tree& self);
  std::string_view field = {};  // reported field when not the rule's path
};

const CelRule kCelRules[] = {
    {"self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
     [](const Tree& self) {
       const Tree* meta = self.Find("metadata");
       const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
       return name == nullptr || IsLowerDnsLabelShape(*name);
     },
     "metadata.name"},
    {"size(self.metadata.name) <= 63",
     [](const Tree& self) {
       const Tree* meta = self.Find("metadata");
       const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
       return name == nullptr || RuneCount(*name) <= 63;
     },
     "metadata.name"},
    {"self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')",
     [](const Tree& self) {
       return !self.IsString() || self.text().empty() || IsUrlShape(self.text());
     }},
    {"self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']",
     [](const Tree& self) {
       return !self.IsString() || self.text() == "trainer.kubeflow.org/trainjob-controller" ||
              self.text() == "kueue.x-k8s.io/multikueue";
     }},
    {"self >= 1", [](const Tree& self) { return !self.IsInt() || self.AsInt() >= 1; }},
    {"[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1",
     [](const Tree& self) {
       int count = 0;
       for (const char* policy : {"torch", "mpi", "jax", "xgboost", "flux"}) count += Has(self, policy) ? 1 : 0;
       return count <= 1;
     }},
    {"!self.exists(c, c == 'node')",
     [](const Tree& self) {
       if (!self.IsList()) return true;
       return std::none_of(self.items().begin(), self.items().end(),
                           [](const Tree& c) { return c.IsString() && c.text() == "node"; });
     }},
    {"!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
     "self.replicatedJobs.exists(x, has(x.dependsOn)))",
     [](const Tree& self) {
       const Tree* startup = self.IsMap() ? self.Find("startupPolicy") : nullptr;
       const std::string* order = startup && startup->IsMap() ? startup->FindString("startupPolicyOrder") : nullptr;
       if (order == nullptr || *order != "InOrder") return true;
       const Tree* rjobs = self.Find("replicatedJobs");
       if (rjobs == nullptr || !rjobs->IsList()) return true;
       return std::none_of(rjobs->items().begin(), rjobs->items().end(),
                           [](const Tree& x) { return Has(x, "dependsOn"); });
     }},
    {"self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)",
     [](const Tree& self) {
       const Tree* templates = self.IsMap() ? self.Find("templates") : nullptr;
       if (templates == nullptr || !templates->IsList()) return true;
       return std::all_of(templates->items().begin(), templates->items().end(), [](const Tree& t) {
         const Tree* meta = t.IsMap() ? t.Find("metadata") : nullptr;
         const Tree* ns = meta && meta->IsMap() ? meta->Find("namespace") : nullptr;
         return ns == nullptr || ns->IsNull() || (ns->IsString() && ns->text().empty());
       });
     }},
};

const CelRule* FindCelRule(std::string_view rule) {
  for (const CelRule& r : kCelRules) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

// ---- Checks ------------------------------------------------------------------------------------

class Checker {
 public:
  Checker(TrieView trie, const std::string& subject, std::vector<Diagnostic>& out)
      : trie_(trie), subject_(subject), out_(out) {}

  void Run(const Tree& document) { Walk(document, 0, document.origin()); }

  // The API server reports a document's errors in the order of the rules, then of the values a rule
  // reaches; sorted by position, ties keep that order.
  void SortByPosition() {
    std::vector<std::size_t> order(out_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Origin& x = out_[a].where;
      const Origin& y = out_[b].where;
      return std::tie(x.line, x.column, rule_of_[a]) < std::tie(y.line, y.column, rule_of_[b]);
    });
    std::vector<Diagnostic> sorted;
    sorted.reserve(out_.size());
    for (std::size_t i : order) sorted.push_back(std::move(out_[i]));
    out_ = std::move(sorted);
  }

 private:
  void Walk(const Tree& node, std::size_t at, const Origin& where) {
    const FrozenPathNode& here = trie_.nodes[at];
    for (std::size_t r : trie_.node_rules.subspan(here.first_rule, here.rule_count)) {
      rule_ = r;
      One(*trie_.rules[r], Target{&node, &steps_, where});
    }
    for (std::size_t child = here.first_child; child < here.children_end(); ++child) {
      const std::string_view segment = trie_.nodes[child].segment;
      if (segment == "[*]") {
        if (node.IsList()) {
          for (std::size_t i = 0; i < node.items().size(); ++i) {
            const Tree& item = node.items()[i];
            if (item.IsNull()) continue;
            steps_.push_back(Step{{}, i, true});
            Walk(item, child, item.origin());
            steps_.pop_back();
          }
        } else if (node.IsMap()) {
          for (std::size_t i = 0; i < node.size(); ++i) {
            const Tree& value = node.items()[i];
            if (value.IsNull()) continue;
            steps_.push_back(Step{node.KeyAt(i), 0, false});
            Walk(value, child, node.KeyOriginAt(i));
            steps_.pop_back();
          }
        }
        continue;
      }
      if (!node.IsMap()) continue;
      // The API server prunes nulls of non-nullable fields: a null is an absent field.
      const Tree* value = node.Find(segment);
      if (value == nullptr || value->IsNull()) continue;
      const std::size_t i = static_cast<std::size_t>(value - node.items().data());
      steps_.push_back(Step{segment, 0, false});
      Walk(*value, child, node.KeyOriginAt(i));
      steps_.pop_back();
    }
  }

  void Add(const Origin& where, std::string field, std::string message) {
    out_.push_back(Diagnostic{where, subject_, std::move(field), std::move(message)});
    rule_of_.push_back(rule_);
  }

  void One(const SchemaRule& rule, const Target& t) {
    const Tree& v = *t.value;
    switch (rule.check) {
      case Check::kRequired:
        if (v.IsMap() && !Has(v, rule.arg)) Add(v.origin(), JoinPath(t.Path(), rule.arg), "Required value");
        return;
      case Check::kMinimum:
        if (v.IsInt() && v.AsInt() < Number(rule.arg)) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should be greater than or equal to {}", v.AsInt(), t.Path(),
                          rule.arg));
        }
        return;
      case Check::kMaximum:
        if (v.IsInt() && v.AsInt() > Number(rule.arg)) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should be less than or equal to {}", v.AsInt(), t.Path(), rule.arg));
        }
        return;
      case Check::kMinLength:
        if (v.IsString() && RuneCount(v.text()) < static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should be at least {} chars long", GoQuote(v.text()), t.Path(),
                          rule.arg));
        }
        return;
      case Check::kMaxLength:
        if (v.IsString() && RuneCount(v.text()) > static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Too long: may not be more than {} {}", rule.arg, rule.arg == "1" ? "byte" : "bytes"));
        }
        return;
      case Check::kMinItems:
        if (v.IsList() && v.items().size() < static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should have at least {} items", v.items().size(), t.Path(),
                          rule.arg));
        }
        return;
      case Check::kMaxItems:
        if (v.IsList() && v.items().size() > static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Too many: {}: must have at most {} {}", v.items().size(), rule.arg,
                          rule.arg == "1" ? "item" : "items"));
        }
        return;
      case Check::kMinProperties:
        if (v.IsMap() && v.size() < static_cast<std::size_t>(Number(rule.arg))) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should have at least {} properties", v.size(), t.Path(), rule.arg));
        }
        return;
      case Check::kEnum: {
        // Checked on every enum value of every document: no allocation unless it is reported.
        if (!v.IsString() || IsOneOf(rule.arg, v.text())) return;
        const std::vector<std::string_view> values = Split(rule.arg, '|');
        std::string supported;
        for (std::string_view value : values) supported += (supported.empty() ? "" : ", ") + GoQuote(value);
        Add(t.where, t.Path(), fmt::format("Unsupported value: {}: supported values: {}", GoQuote(v.text()), supported));
        return;
      }
      case Check::kPattern:
        if (v.IsString() && !MatchesPattern(v.text(), rule.arg)) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body should match '{}'", GoQuote(v.text()), t.Path(), rule.arg));
        }
        return;
      case Check::kFormat:
        if (v.IsString() && rule.arg == "date-time" && !IsDateTime(v.text())) {
          Add(t.where, t.Path(),
              fmt::format("Invalid value: {}: {} in body must be of type {}: {}", GoQuote(v.text()), t.Path(), rule.arg,
                          GoQuote(v.text())));
        }
        return;
      case Check::kListMap: ListMap(v, t, Split(rule.arg, ',')); return;
      case Check::kListSet: ListSet(v, t); return;
      case Check::kRule: {
        const CelRule* cel = FindCelRule(rule.arg);
        if (cel == nullptr) throw std::logic_error(fmt::format("schema table: no evaluator for rule {}", rule.arg));
        if (cel->holds(v)) return;
        std::string field = cel->field.empty() ? t.Path() : std::string(cel->field);
        Origin where = t.where;
        if (!cel->field.empty()) {
          std::vector<Target> at = Reach(v, Segments(field), 0, v.origin());
          if (!at.empty()) where = at.front().where;
        }
        // Objects and lists are left out of the message, scalars shown as the API server prints them.
        std::string value = v.IsMap() || v.IsList() ? "" : BadValue(v) + ": ";
        Add(where, field, fmt::format("Invalid value: {}{}", value, rule.message));
        return;
      }
      case Check::kUse: return;
    }
  }

  // x-kubernetes-list-type: map. The second item with the keys of an earlier one is a duplicate.
  void ListMap(const Tree& v, const Target& t, const std::vector<std::string_view>& keys) {
    if (!v.IsList()) return;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      const Tree& item = v.items()[i];
      if (!item.IsMap() && !item.IsNull()) return;
      // Go marshals the key map with its keys sorted; the table lists them sorted.
      std::string json;
      for (std::string_view key : keys) {
        const Tree* k = item.IsMap() ? item.Find(key) : nullptr;
        if (k == nullptr) continue;
        json += fmt::format("{}\"{}\":{}", json.empty() ? "" : ",", key, JsonScalar(*k));
      }
      json = "{" + json + "}";
      if (++seen[json] == 2) Add(item.origin(), fmt::format("{}[{}]", t.Path(), i), "Duplicate value: " + json);
    }
  }

  void ListSet(const Tree& v, const Target& t) {
    if (!v.IsList()) return;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      const Tree& item = v.items()[i];
      if (!item.IsScalar()) continue;
      std::string key = JsonScalar(item);
      if (++seen[key] == 2) Add(item.origin(), fmt::format("{}[{}]", t.Path(), i), "Duplicate value: " + BadValue(item));
    }
  }

  static bool MatchesPattern(const std::string& text, std::string_view pattern) {
    if (pattern == kQuantityPattern) return MatchesQuantityPattern(text);
    return std::regex_search(text, Pattern(pattern));
  }

  static const std::regex& Pattern(std::string_view pattern) {
    // The table's patterns, compiled once; they live as long as the table.
    static std::map<std::string_view, std::regex> patterns;
    auto it = patterns.find(pattern);
    if (it == patterns.end()) it = patterns.emplace(pattern, std::regex(std::string(pattern))).first;
    return it->second;
  }

  TrieView trie_;
  const std::string& subject_;
  std::vector<Diagnostic>& out_;
  std::vector<Step> steps_;            // from the document to the value being checked
  std::size_t rule_ = 0;               // the rule being checked
  std::vector<std::size_t> rule_of_;   // the rule of each diagnostic in out_
};

}  // namespace

std::span<const SchemaRule> SchemaRules() { return kRules; }

bool HasCelEvaluator(std::string_view rule) { return FindCelRule(rule) != nullptr; }

std::vector<FlatSchemaRule> FlattenSchema(SchemaScope scope) {
  std::vector<FlatSchemaRule> out;
  Flatten(kRootGroup[static_cast<int>(scope)], "", out, 0);
  return out;
}

std::vector<Diagnostic> CheckSchema(const Tree& document, SchemaScope scope, const std::string& subject) {
  std::vector<Diagnostic> out;
  if (!document.IsMap()) return out;
  Checker checker(Trie(scope), subject, out);
  checker.Run(document);
  checker.SortByPosition();
  return out;
}

}  // namespace trainer
