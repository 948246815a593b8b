#include "k8s/go_types.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace trainer {

namespace {

// A type as the table below writes it; the program holds the table frozen (kTypes, kFields).
struct TypeRows {
  std::string_view name;
  std::vector<GoField> fields;
};

// THE table: one entry per Go struct, one row per field, in Go declaration order. What a row
// does to the output:
//   scalar, no kPointer  absent or null is the zero value; dropped when zero with kOmitEmpty,
//                        printed (zero included) without it
//   struct, no kPointer  always printed, `{}` when absent (so are Quantity "0" and IntOrString 0)
//   kPointer             dropped when absent or null, printed as is (zero included) otherwise
//   kList, kMap          dropped when absent, null or empty (the apply configuration's omitempty)
// Below kTypedInApply, a nil pointer, slice or map without kOmitEmpty prints as null instead.
// batch/v1 SuccessPolicy is named "batchv1.SuccessPolicy" to keep it apart from JobSet's.
constexpr std::vector<TypeRows> TypeTable() {
  using enum GoKind;
  // clang-format off
  return {
    // JobSet (jobset v0.12.0 api/jobset/v1alpha2)
    {"JobSetSpec", {
        {"replicatedJobs", "ReplicatedJob", kList | kOmitEmpty},
        {"network", "Network", kPointer | kOmitEmpty},
        {"successPolicy", "SuccessPolicy", kPointer | kOmitEmpty},
        {"failurePolicy", "FailurePolicy", kPointer | kOmitEmpty},
        {"startupPolicy", "StartupPolicy", kPointer | kOmitEmpty},
        {"suspend", kBool, kPointer | kOmitEmpty},
        {"coordinator", "Coordinator", kPointer | kOmitEmpty},
        {"managedBy", kString, kPointer | kOmitEmpty},
        {"ttlSecondsAfterFinished", kInt32, kPointer | kOmitEmpty},
        {"volumeClaimPolicies", "VolumeClaimPolicy", kList | kOmitEmpty},
    }},
    {"ReplicatedJob", {
        {"name", kString},
        {"groupName", kString, kOmitEmpty},
        {"template", "JobTemplateSpec"},
        {"replicas", kInt32, kOmitEmpty},
        {"dependsOn", "DependsOn", kList | kOmitEmpty},
    }},
    {"DependsOn", {
        {"name", kString},
        {"status", kString},
    }},
    {"Network", {
        {"enableDNSHostnames", kBool, kPointer | kOmitEmpty},
        {"subdomain", kString, kOmitEmpty},
        {"publishNotReadyAddresses", kBool, kPointer | kOmitEmpty},
    }},
    {"SuccessPolicy", {
        {"operator", kString},
        {"targetReplicatedJobs", kString, kList | kOmitEmpty},
    }},
    {"FailurePolicy", {
        {"maxRestarts", kInt32, kOmitEmpty},
        {"restartStrategy", kString, kOmitEmpty},
        {"rules", "FailurePolicyRule", kList | kOmitEmpty},
    }},
    {"FailurePolicyRule", {
        {"name", kString},
        {"action", kString},
        {"onJobFailureReasons", kString, kList | kOmitEmpty},
        {"onJobFailureMessagePatterns", kString, kList | kOmitEmpty},
        {"targetReplicatedJobs", kString, kList | kOmitEmpty},
    }},
    {"StartupPolicy", {
        {"startupPolicyOrder", kString},
    }},
    {"Coordinator", {
        {"replicatedJob", kString},
        {"jobIndex", kInt64, kOmitEmpty},
        {"podIndex", kInt64, kOmitEmpty},
    }},
    {"VolumeClaimPolicy", {
        {"templates", "PersistentVolumeClaim", kList | kOmitEmpty | kTypedInApply},
        {"retentionPolicy", "VolumeRetentionPolicy", kPointer | kOmitEmpty},
    }},
    {"VolumeRetentionPolicy", {
        {"whenDeleted", kString, kPointer | kOmitEmpty},
    }},
    // Job (batch/v1)
    {"JobTemplateSpec", {
        {"metadata", "ObjectMeta", kOmitEmpty},
        {"spec", "JobSpec", kOmitEmpty},
    }},
    {"JobSpec", {
        {"parallelism", kInt32, kPointer | kOmitEmpty},
        {"completions", kInt32, kPointer | kOmitEmpty},
        {"activeDeadlineSeconds", kInt64, kPointer | kOmitEmpty},
        {"podFailurePolicy", "PodFailurePolicy", kPointer | kOmitEmpty},
        {"successPolicy", "batchv1.SuccessPolicy", kPointer | kOmitEmpty},
        {"backoffLimit", kInt32, kPointer | kOmitEmpty},
        {"backoffLimitPerIndex", kInt32, kPointer | kOmitEmpty},
        {"maxFailedIndexes", kInt32, kPointer | kOmitEmpty},
        {"selector", "LabelSelector", kPointer | kOmitEmpty},
        {"manualSelector", kBool, kPointer | kOmitEmpty},
        {"template", "PodTemplateSpec"},
        {"ttlSecondsAfterFinished", kInt32, kPointer | kOmitEmpty},
        {"completionMode", kString, kPointer | kOmitEmpty},
        {"suspend", kBool, kPointer | kOmitEmpty},
        {"podReplacementPolicy", kString, kPointer | kOmitEmpty},
        {"managedBy", kString, kPointer | kOmitEmpty},
    }},
    {"PodFailurePolicy", {
        {"rules", "PodFailurePolicyRule", kList},
    }},
    {"PodFailurePolicyRule", {
        {"action", kString},
        {"onExitCodes", "PodFailurePolicyOnExitCodesRequirement", kPointer | kOmitEmpty},
        {"onPodConditions", "PodFailurePolicyOnPodConditionsPattern", kList | kOmitEmpty},
    }},
    {"PodFailurePolicyOnExitCodesRequirement", {
        {"containerName", kString, kPointer | kOmitEmpty},
        {"operator", kString},
        {"values", kInt32, kList},
    }},
    {"PodFailurePolicyOnPodConditionsPattern", {
        {"type", kString},
        {"status", kString},
    }},
    {"batchv1.SuccessPolicy", {
        {"rules", "SuccessPolicyRule", kList},
    }},
    {"SuccessPolicyRule", {
        {"succeededIndexes", kString, kPointer | kOmitEmpty},
        {"succeededCount", kInt32, kPointer | kOmitEmpty},
    }},
    // Object metadata (meta/v1)
    {"TypeMeta", {
        {"kind", kString, kOmitEmpty},
        {"apiVersion", kString, kOmitEmpty},
    }},
    {"ObjectMeta", {
        {"name", kString, kOmitEmpty},
        {"generateName", kString, kOmitEmpty},
        {"namespace", kString, kOmitEmpty},
        {"selfLink", kString, kOmitEmpty | kNotInApply},
        {"uid", kString, kOmitEmpty},
        {"resourceVersion", kString, kOmitEmpty},
        {"generation", kInt64, kOmitEmpty},
        {"creationTimestamp", kTime, kOmitEmpty | kOmitZero},
        {"deletionTimestamp", kTime, kPointer | kOmitEmpty},
        {"deletionGracePeriodSeconds", kInt64, kPointer | kOmitEmpty},
        {"labels", kString, kMap | kOmitEmpty},
        {"annotations", kString, kMap | kOmitEmpty},
        {"ownerReferences", "OwnerReference", kList | kOmitEmpty},
        {"finalizers", kString, kList | kOmitEmpty},
        {"managedFields", "ManagedFieldsEntry", kList | kOmitEmpty | kNotInApply},
    }},
    {"OwnerReference", {
        {"apiVersion", kString},
        {"kind", kString},
        {"name", kString},
        {"uid", kString},
        {"controller", kBool, kPointer | kOmitEmpty},
        {"blockOwnerDeletion", kBool, kPointer | kOmitEmpty},
    }},
    {"ManagedFieldsEntry", {
        {"manager", kString, kOmitEmpty},
        {"operation", kString, kOmitEmpty},
        {"apiVersion", kString, kOmitEmpty},
        {"time", kTime, kPointer | kOmitEmpty},
        {"fieldsType", kString, kOmitEmpty},
        {"fieldsV1", kAny, kPointer | kOmitEmpty},
        {"subresource", kString, kOmitEmpty},
    }},
    {"LabelSelector", {
        {"matchLabels", kString, kMap | kOmitEmpty},
        {"matchExpressions", "LabelSelectorRequirement", kList | kOmitEmpty},
    }},
    {"LabelSelectorRequirement", {
        {"key", kString},
        {"operator", kString},
        {"values", kString, kList | kOmitEmpty},
    }},
    // Pod (core/v1)
    {"PodTemplateSpec", {
        {"metadata", "ObjectMeta", kOmitEmpty},
        {"spec", "PodSpec", kOmitEmpty},
    }},
    {"PodSpec", {
        {"volumes", "Volume", kList | kOmitEmpty},
        {"initContainers", "Container", kList | kOmitEmpty},
        {"containers", "Container", kList},
        {"ephemeralContainers", "EphemeralContainer", kList | kOmitEmpty},
        {"restartPolicy", kString, kOmitEmpty},
        {"terminationGracePeriodSeconds", kInt64, kPointer | kOmitEmpty},
        {"activeDeadlineSeconds", kInt64, kPointer | kOmitEmpty},
        {"dnsPolicy", kString, kOmitEmpty},
        {"nodeSelector", kString, kMap | kOmitEmpty},
        {"serviceAccountName", kString, kOmitEmpty},
        {"serviceAccount", kString, kOmitEmpty},
        {"automountServiceAccountToken", kBool, kPointer | kOmitEmpty},
        {"nodeName", kString, kOmitEmpty},
        {"hostNetwork", kBool, kOmitEmpty},
        {"hostPID", kBool, kOmitEmpty},
        {"hostIPC", kBool, kOmitEmpty},
        {"shareProcessNamespace", kBool, kPointer | kOmitEmpty},
        {"securityContext", "PodSecurityContext", kPointer | kOmitEmpty},
        {"imagePullSecrets", "LocalObjectReference", kList | kOmitEmpty},
        {"hostname", kString, kOmitEmpty},
        {"subdomain", kString, kOmitEmpty},
        {"affinity", "Affinity", kPointer | kOmitEmpty},
        {"schedulerName", kString, kOmitEmpty},
        {"tolerations", "Toleration", kList | kOmitEmpty},
        {"hostAliases", "HostAlias", kList | kOmitEmpty},
        {"priorityClassName", kString, kOmitEmpty},
        {"priority", kInt32, kPointer | kOmitEmpty},
        {"dnsConfig", "PodDNSConfig", kPointer | kOmitEmpty},
        {"readinessGates", "PodReadinessGate", kList | kOmitEmpty},
        {"runtimeClassName", kString, kPointer | kOmitEmpty},
        {"enableServiceLinks", kBool, kPointer | kOmitEmpty},
        {"preemptionPolicy", kString, kPointer | kOmitEmpty},
        {"overhead", kQuantity, kMap | kOmitEmpty},
        {"topologySpreadConstraints", "TopologySpreadConstraint", kList | kOmitEmpty},
        {"setHostnameAsFQDN", kBool, kPointer | kOmitEmpty},
        {"os", "PodOS", kPointer | kOmitEmpty},
        {"hostUsers", kBool, kPointer | kOmitEmpty},
        {"schedulingGates", "PodSchedulingGate", kList | kOmitEmpty},
        {"resourceClaims", "PodResourceClaim", kList | kOmitEmpty},
        {"resources", "ResourceRequirements", kPointer | kOmitEmpty},
        {"hostnameOverride", kString, kPointer | kOmitEmpty},
        {"schedulingGroup", "PodSchedulingGroup", kPointer | kOmitEmpty},
    }},
    {"PodSecurityContext", {
        {"seLinuxOptions", "SELinuxOptions", kPointer | kOmitEmpty},
        {"windowsOptions", "WindowsSecurityContextOptions", kPointer | kOmitEmpty},
        {"runAsUser", kInt64, kPointer | kOmitEmpty},
        {"runAsGroup", kInt64, kPointer | kOmitEmpty},
        {"runAsNonRoot", kBool, kPointer | kOmitEmpty},
        {"supplementalGroups", kInt64, kList | kOmitEmpty},
        {"supplementalGroupsPolicy", kString, kPointer | kOmitEmpty},
        {"fsGroup", kInt64, kPointer | kOmitEmpty},
        {"sysctls", "Sysctl", kList | kOmitEmpty},
        {"fsGroupChangePolicy", kString, kPointer | kOmitEmpty},
        {"seccompProfile", "SeccompProfile", kPointer | kOmitEmpty},
        {"appArmorProfile", "AppArmorProfile", kPointer | kOmitEmpty},
        {"seLinuxChangePolicy", kString, kPointer | kOmitEmpty},
    }},
    {"Sysctl", {
        {"name", kString},
        {"value", kString},
    }},
    {"PodDNSConfig", {
        {"nameservers", kString, kList | kOmitEmpty},
        {"searches", kString, kList | kOmitEmpty},
        {"options", "PodDNSConfigOption", kList | kOmitEmpty},
    }},
    {"PodDNSConfigOption", {
        {"name", kString, kOmitEmpty},
        {"value", kString, kPointer | kOmitEmpty},
    }},
    {"HostAlias", {
        {"ip", kString},
        {"hostnames", kString, kList | kOmitEmpty},
    }},
    {"PodReadinessGate", {
        {"conditionType", kString},
    }},
    {"PodOS", {
        {"name", kString},
    }},
    {"PodSchedulingGate", {
        {"name", kString},
    }},
    {"PodResourceClaim", {
        {"name", kString},
        {"resourceClaimName", kString, kPointer | kOmitEmpty},
        {"resourceClaimTemplateName", kString, kPointer | kOmitEmpty},
    }},
    {"PodSchedulingGroup", {
        {"podGroupName", kString, kPointer | kOmitEmpty},
    }},
    {"LocalObjectReference", {
        {"name", kString, kOmitEmpty},
    }},
    // Scheduling (core/v1)
    {"Affinity", {
        {"nodeAffinity", "NodeAffinity", kPointer | kOmitEmpty},
        {"podAffinity", "PodAffinity", kPointer | kOmitEmpty},
        {"podAntiAffinity", "PodAntiAffinity", kPointer | kOmitEmpty},
    }},
    {"NodeAffinity", {
        {"requiredDuringSchedulingIgnoredDuringExecution", "NodeSelector", kPointer | kOmitEmpty},
        {"preferredDuringSchedulingIgnoredDuringExecution", "PreferredSchedulingTerm", kList | kOmitEmpty},
    }},
    {"NodeSelector", {
        {"nodeSelectorTerms", "NodeSelectorTerm", kList},
    }},
    {"NodeSelectorTerm", {
        {"matchExpressions", "NodeSelectorRequirement", kList | kOmitEmpty},
        {"matchFields", "NodeSelectorRequirement", kList | kOmitEmpty},
    }},
    {"NodeSelectorRequirement", {
        {"key", kString},
        {"operator", kString},
        {"values", kString, kList | kOmitEmpty},
    }},
    {"PreferredSchedulingTerm", {
        {"weight", kInt32},
        {"preference", "NodeSelectorTerm"},
    }},
    {"PodAffinity", {
        {"requiredDuringSchedulingIgnoredDuringExecution", "PodAffinityTerm", kList | kOmitEmpty},
        {"preferredDuringSchedulingIgnoredDuringExecution", "WeightedPodAffinityTerm", kList | kOmitEmpty},
    }},
    {"PodAntiAffinity", {
        {"requiredDuringSchedulingIgnoredDuringExecution", "PodAffinityTerm", kList | kOmitEmpty},
        {"preferredDuringSchedulingIgnoredDuringExecution", "WeightedPodAffinityTerm", kList | kOmitEmpty},
    }},
    {"PodAffinityTerm", {
        {"labelSelector", "LabelSelector", kPointer | kOmitEmpty},
        {"namespaces", kString, kList | kOmitEmpty},
        {"topologyKey", kString},
        {"namespaceSelector", "LabelSelector", kPointer | kOmitEmpty},
        {"matchLabelKeys", kString, kList | kOmitEmpty},
        {"mismatchLabelKeys", kString, kList | kOmitEmpty},
    }},
    {"WeightedPodAffinityTerm", {
        {"weight", kInt32},
        {"podAffinityTerm", "PodAffinityTerm"},
    }},
    {"Toleration", {
        {"key", kString, kOmitEmpty},
        {"operator", kString, kOmitEmpty},
        {"value", kString, kOmitEmpty},
        {"effect", kString, kOmitEmpty},
        {"tolerationSeconds", kInt64, kPointer | kOmitEmpty},
    }},
    {"TopologySpreadConstraint", {
        {"maxSkew", kInt32},
        {"topologyKey", kString},
        {"whenUnsatisfiable", kString},
        {"labelSelector", "LabelSelector", kPointer | kOmitEmpty},
        {"minDomains", kInt32, kPointer | kOmitEmpty},
        {"nodeAffinityPolicy", kString, kPointer | kOmitEmpty},
        {"nodeTaintsPolicy", kString, kPointer | kOmitEmpty},
        {"matchLabelKeys", kString, kList | kOmitEmpty},
    }},
    // Containers (core/v1)
    {"Container", {
        {"name", kString},
        {"image", kString, kOmitEmpty},
        {"command", kString, kList | kOmitEmpty},
        {"args", kString, kList | kOmitEmpty},
        {"workingDir", kString, kOmitEmpty},
        {"ports", "ContainerPort", kList | kOmitEmpty},
        {"envFrom", "EnvFromSource", kList | kOmitEmpty},
        {"env", "EnvVar", kList | kOmitEmpty},
        {"resources", "ResourceRequirements", kOmitEmpty},
        {"resizePolicy", "ContainerResizePolicy", kList | kOmitEmpty},
        {"restartPolicy", kString, kPointer | kOmitEmpty},
        {"restartPolicyRules", "ContainerRestartRule", kList | kOmitEmpty},
        {"volumeMounts", "VolumeMount", kList | kOmitEmpty},
        {"volumeDevices", "VolumeDevice", kList | kOmitEmpty},
        {"livenessProbe", "Probe", kPointer | kOmitEmpty},
        {"readinessProbe", "Probe", kPointer | kOmitEmpty},
        {"startupProbe", "Probe", kPointer | kOmitEmpty},
        {"lifecycle", "Lifecycle", kPointer | kOmitEmpty},
        {"terminationMessagePath", kString, kOmitEmpty},
        {"terminationMessagePolicy", kString, kOmitEmpty},
        {"imagePullPolicy", kString, kOmitEmpty},
        {"securityContext", "SecurityContext", kPointer | kOmitEmpty},
        {"stdin", kBool, kOmitEmpty},
        {"stdinOnce", kBool, kOmitEmpty},
        {"tty", kBool, kOmitEmpty},
    }},
    {"EphemeralContainer", {
        {"", "Container", kInline},  // EphemeralContainerCommon has exactly Container's fields
        {"targetContainerName", kString, kOmitEmpty},
    }},
    {"ContainerPort", {
        {"name", kString, kOmitEmpty},
        {"hostPort", kInt32, kOmitEmpty},
        {"containerPort", kInt32},
        {"protocol", kString, kOmitEmpty},
        {"hostIP", kString, kOmitEmpty},
    }},
    {"EnvFromSource", {
        {"prefix", kString, kOmitEmpty},
        {"configMapRef", "ConfigMapEnvSource", kPointer | kOmitEmpty},
        {"secretRef", "SecretEnvSource", kPointer | kOmitEmpty},
    }},
    {"ConfigMapEnvSource", {
        {"", "LocalObjectReference", kInline},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"SecretEnvSource", {
        {"", "LocalObjectReference", kInline},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"EnvVar", {
        {"name", kString},
        {"value", kString, kOmitEmpty},
        {"valueFrom", "EnvVarSource", kPointer | kOmitEmpty},
    }},
    {"EnvVarSource", {
        {"fieldRef", "ObjectFieldSelector", kPointer | kOmitEmpty},
        {"resourceFieldRef", "ResourceFieldSelector", kPointer | kOmitEmpty},
        {"configMapKeyRef", "ConfigMapKeySelector", kPointer | kOmitEmpty},
        {"secretKeyRef", "SecretKeySelector", kPointer | kOmitEmpty},
        {"fileKeyRef", "FileKeySelector", kPointer | kOmitEmpty},
    }},
    {"ObjectFieldSelector", {
        {"apiVersion", kString, kOmitEmpty},
        {"fieldPath", kString},
    }},
    {"ResourceFieldSelector", {
        {"containerName", kString, kOmitEmpty},
        {"resource", kString},
        {"divisor", kQuantity, kOmitEmpty},
    }},
    {"ConfigMapKeySelector", {
        {"", "LocalObjectReference", kInline},
        {"key", kString},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"SecretKeySelector", {
        {"", "LocalObjectReference", kInline},
        {"key", kString},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"FileKeySelector", {
        {"volumeName", kString},
        {"path", kString},
        {"key", kString},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"ResourceRequirements", {
        {"limits", kQuantity, kMap | kOmitEmpty},
        {"requests", kQuantity, kMap | kOmitEmpty},
        {"claims", "ResourceClaim", kList | kOmitEmpty},
    }},
    {"ResourceClaim", {
        {"name", kString},
        {"request", kString, kOmitEmpty},
    }},
    {"ContainerResizePolicy", {
        {"resourceName", kString},
        {"restartPolicy", kString},
    }},
    {"ContainerRestartRule", {
        {"action", kString, kOmitEmpty},
        {"exitCodes", "ContainerRestartRuleOnExitCodes", kPointer | kOmitEmpty},
    }},
    {"ContainerRestartRuleOnExitCodes", {
        {"operator", kString, kOmitEmpty},
        {"values", kInt32, kList | kOmitEmpty},
    }},
    {"VolumeMount", {
        {"name", kString},
        {"readOnly", kBool, kOmitEmpty},
        {"recursiveReadOnly", kString, kPointer | kOmitEmpty},
        {"mountPath", kString},
        {"subPath", kString, kOmitEmpty},
        {"mountPropagation", kString, kPointer | kOmitEmpty},
        {"subPathExpr", kString, kOmitEmpty},
    }},
    {"VolumeDevice", {
        {"name", kString},
        {"devicePath", kString},
    }},
    {"Probe", {
        {"", "ProbeHandler", kInline},
        {"initialDelaySeconds", kInt32, kOmitEmpty},
        {"timeoutSeconds", kInt32, kOmitEmpty},
        {"periodSeconds", kInt32, kOmitEmpty},
        {"successThreshold", kInt32, kOmitEmpty},
        {"failureThreshold", kInt32, kOmitEmpty},
        {"terminationGracePeriodSeconds", kInt64, kPointer | kOmitEmpty},
    }},
    {"ProbeHandler", {
        {"exec", "ExecAction", kPointer | kOmitEmpty},
        {"httpGet", "HTTPGetAction", kPointer | kOmitEmpty},
        {"tcpSocket", "TCPSocketAction", kPointer | kOmitEmpty},
        {"grpc", "GRPCAction", kPointer | kOmitEmpty},
    }},
    {"ExecAction", {
        {"command", kString, kList | kOmitEmpty},
    }},
    {"HTTPGetAction", {
        {"path", kString, kOmitEmpty},
        {"port", kIntOrString},
        {"host", kString, kOmitEmpty},
        {"scheme", kString, kOmitEmpty},
        {"httpHeaders", "HTTPHeader", kList | kOmitEmpty},
    }},
    {"HTTPHeader", {
        {"name", kString},
        {"value", kString},
    }},
    {"TCPSocketAction", {
        {"port", kIntOrString},
        {"host", kString, kOmitEmpty},
    }},
    {"GRPCAction", {
        {"port", kInt32},
        {"service", kString, kPointer},
    }},
    {"Lifecycle", {
        {"postStart", "LifecycleHandler", kPointer | kOmitEmpty},
        {"preStop", "LifecycleHandler", kPointer | kOmitEmpty},
        {"stopSignal", kString, kPointer | kOmitEmpty},
    }},
    {"LifecycleHandler", {
        {"exec", "ExecAction", kPointer | kOmitEmpty},
        {"httpGet", "HTTPGetAction", kPointer | kOmitEmpty},
        {"tcpSocket", "TCPSocketAction", kPointer | kOmitEmpty},
        {"sleep", "SleepAction", kPointer | kOmitEmpty},
    }},
    {"SleepAction", {
        {"seconds", kInt64},
    }},
    // Security contexts (core/v1)
    {"SecurityContext", {
        {"capabilities", "Capabilities", kPointer | kOmitEmpty},
        {"privileged", kBool, kPointer | kOmitEmpty},
        {"seLinuxOptions", "SELinuxOptions", kPointer | kOmitEmpty},
        {"windowsOptions", "WindowsSecurityContextOptions", kPointer | kOmitEmpty},
        {"runAsUser", kInt64, kPointer | kOmitEmpty},
        {"runAsGroup", kInt64, kPointer | kOmitEmpty},
        {"runAsNonRoot", kBool, kPointer | kOmitEmpty},
        {"readOnlyRootFilesystem", kBool, kPointer | kOmitEmpty},
        {"allowPrivilegeEscalation", kBool, kPointer | kOmitEmpty},
        {"procMount", kString, kPointer | kOmitEmpty},
        {"seccompProfile", "SeccompProfile", kPointer | kOmitEmpty},
        {"appArmorProfile", "AppArmorProfile", kPointer | kOmitEmpty},
    }},
    {"Capabilities", {
        {"add", kString, kList | kOmitEmpty},
        {"drop", kString, kList | kOmitEmpty},
    }},
    {"SELinuxOptions", {
        {"user", kString, kOmitEmpty},
        {"role", kString, kOmitEmpty},
        {"type", kString, kOmitEmpty},
        {"level", kString, kOmitEmpty},
    }},
    {"WindowsSecurityContextOptions", {
        {"gmsaCredentialSpecName", kString, kPointer | kOmitEmpty},
        {"gmsaCredentialSpec", kString, kPointer | kOmitEmpty},
        {"runAsUserName", kString, kPointer | kOmitEmpty},
        {"hostProcess", kBool, kPointer | kOmitEmpty},
    }},
    {"SeccompProfile", {
        {"type", kString},
        {"localhostProfile", kString, kPointer | kOmitEmpty},
    }},
    {"AppArmorProfile", {
        {"type", kString},
        {"localhostProfile", kString, kPointer | kOmitEmpty},
    }},
    // Volumes (core/v1)
    {"Volume", {
        {"name", kString},
        {"", "VolumeSource", kInline},
    }},
    {"VolumeSource", {
        {"hostPath", "HostPathVolumeSource", kPointer | kOmitEmpty},
        {"emptyDir", "EmptyDirVolumeSource", kPointer | kOmitEmpty},
        {"gcePersistentDisk", "GCEPersistentDiskVolumeSource", kPointer | kOmitEmpty},
        {"awsElasticBlockStore", "AWSElasticBlockStoreVolumeSource", kPointer | kOmitEmpty},
        {"gitRepo", "GitRepoVolumeSource", kPointer | kOmitEmpty},
        {"secret", "SecretVolumeSource", kPointer | kOmitEmpty},
        {"nfs", "NFSVolumeSource", kPointer | kOmitEmpty},
        {"iscsi", "ISCSIVolumeSource", kPointer | kOmitEmpty},
        {"glusterfs", "GlusterfsVolumeSource", kPointer | kOmitEmpty},
        {"persistentVolumeClaim", "PersistentVolumeClaimVolumeSource", kPointer | kOmitEmpty},
        {"rbd", "RBDVolumeSource", kPointer | kOmitEmpty},
        {"flexVolume", "FlexVolumeSource", kPointer | kOmitEmpty},
        {"cinder", "CinderVolumeSource", kPointer | kOmitEmpty},
        {"cephfs", "CephFSVolumeSource", kPointer | kOmitEmpty},
        {"flocker", "FlockerVolumeSource", kPointer | kOmitEmpty},
        {"downwardAPI", "DownwardAPIVolumeSource", kPointer | kOmitEmpty},
        {"fc", "FCVolumeSource", kPointer | kOmitEmpty},
        {"azureFile", "AzureFileVolumeSource", kPointer | kOmitEmpty},
        {"configMap", "ConfigMapVolumeSource", kPointer | kOmitEmpty},
        {"vsphereVolume", "VsphereVirtualDiskVolumeSource", kPointer | kOmitEmpty},
        {"quobyte", "QuobyteVolumeSource", kPointer | kOmitEmpty},
        {"azureDisk", "AzureDiskVolumeSource", kPointer | kOmitEmpty},
        {"photonPersistentDisk", "PhotonPersistentDiskVolumeSource", kPointer | kOmitEmpty},
        {"projected", "ProjectedVolumeSource", kPointer | kOmitEmpty},
        {"portworxVolume", "PortworxVolumeSource", kPointer | kOmitEmpty},
        {"scaleIO", "ScaleIOVolumeSource", kPointer | kOmitEmpty},
        {"storageos", "StorageOSVolumeSource", kPointer | kOmitEmpty},
        {"csi", "CSIVolumeSource", kPointer | kOmitEmpty},
        {"ephemeral", "EphemeralVolumeSource", kPointer | kOmitEmpty},
        {"image", "ImageVolumeSource", kPointer | kOmitEmpty},
    }},
    {"EmptyDirVolumeSource", {
        {"medium", kString, kOmitEmpty},
        {"sizeLimit", kQuantity, kPointer | kOmitEmpty},
    }},
    {"HostPathVolumeSource", {
        {"path", kString},
        {"type", kString, kPointer | kOmitEmpty},
    }},
    {"ConfigMapVolumeSource", {
        {"", "LocalObjectReference", kInline},
        {"items", "KeyToPath", kList | kOmitEmpty},
        {"defaultMode", kInt32, kPointer | kOmitEmpty},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"SecretVolumeSource", {
        {"secretName", kString, kOmitEmpty},
        {"items", "KeyToPath", kList | kOmitEmpty},
        {"defaultMode", kInt32, kPointer | kOmitEmpty},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"PersistentVolumeClaimVolumeSource", {
        {"claimName", kString},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"DownwardAPIVolumeSource", {
        {"items", "DownwardAPIVolumeFile", kList | kOmitEmpty},
        {"defaultMode", kInt32, kPointer | kOmitEmpty},
    }},
    {"ProjectedVolumeSource", {
        {"sources", "VolumeProjection", kList},
        {"defaultMode", kInt32, kPointer | kOmitEmpty},
    }},
    {"CSIVolumeSource", {
        {"driver", kString},
        {"readOnly", kBool, kPointer | kOmitEmpty},
        {"fsType", kString, kPointer | kOmitEmpty},
        {"volumeAttributes", kString, kMap | kOmitEmpty},
        {"nodePublishSecretRef", "LocalObjectReference", kPointer | kOmitEmpty},
    }},
    {"EphemeralVolumeSource", {
        {"volumeClaimTemplate", "PersistentVolumeClaimTemplate", kPointer | kOmitEmpty},
    }},
    {"NFSVolumeSource", {
        {"server", kString},
        {"path", kString},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"ImageVolumeSource", {
        {"reference", kString, kOmitEmpty},
        {"pullPolicy", kString, kOmitEmpty},
    }},
    {"KeyToPath", {
        {"key", kString},
        {"path", kString},
        {"mode", kInt32, kPointer | kOmitEmpty},
    }},
    {"DownwardAPIVolumeFile", {
        {"path", kString},
        {"fieldRef", "ObjectFieldSelector", kPointer | kOmitEmpty},
        {"resourceFieldRef", "ResourceFieldSelector", kPointer | kOmitEmpty},
        {"mode", kInt32, kPointer | kOmitEmpty},
    }},
    {"VolumeProjection", {
        {"secret", "SecretProjection", kPointer | kOmitEmpty},
        {"downwardAPI", "DownwardAPIProjection", kPointer | kOmitEmpty},
        {"configMap", "ConfigMapProjection", kPointer | kOmitEmpty},
        {"serviceAccountToken", "ServiceAccountTokenProjection", kPointer | kOmitEmpty},
        {"clusterTrustBundle", "ClusterTrustBundleProjection", kPointer | kOmitEmpty},
        {"podCertificate", "PodCertificateProjection", kPointer | kOmitEmpty},
    }},
    {"SecretProjection", {
        {"", "LocalObjectReference", kInline},
        {"items", "KeyToPath", kList | kOmitEmpty},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"DownwardAPIProjection", {
        {"items", "DownwardAPIVolumeFile", kList | kOmitEmpty},
    }},
    {"ConfigMapProjection", {
        {"", "LocalObjectReference", kInline},
        {"items", "KeyToPath", kList | kOmitEmpty},
        {"optional", kBool, kPointer | kOmitEmpty},
    }},
    {"ServiceAccountTokenProjection", {
        {"audience", kString, kOmitEmpty},
        {"expirationSeconds", kInt64, kPointer | kOmitEmpty},
        {"path", kString},
    }},
    {"ClusterTrustBundleProjection", {
        {"name", kString, kPointer | kOmitEmpty},
        {"signerName", kString, kPointer | kOmitEmpty},
        {"labelSelector", "LabelSelector", kPointer | kOmitEmpty},
        {"optional", kBool, kPointer | kOmitEmpty},
        {"path", kString},
    }},
    {"PodCertificateProjection", {
        {"signerName", kString, kOmitEmpty},
        {"keyType", kString, kOmitEmpty},
        {"maxExpirationSeconds", kInt32, kPointer | kOmitEmpty},
        {"credentialBundlePath", kString, kOmitEmpty},
        {"keyPath", kString, kOmitEmpty},
        {"certificateChainPath", kString, kOmitEmpty},
        {"userAnnotations", kString, kMap | kOmitEmpty},
    }},
    {"PersistentVolumeClaimTemplate", {
        {"metadata", "ObjectMeta", kOmitEmpty},
        {"spec", "PersistentVolumeClaimSpec"},
    }},
    // Persistent volume claims (core/v1)
    {"PersistentVolumeClaim", {
        {"", "TypeMeta", kInline},
        {"metadata", "ObjectMeta", kOmitEmpty},
        {"spec", "PersistentVolumeClaimSpec", kOmitEmpty},
        {"status", "PersistentVolumeClaimStatus", kOmitEmpty},
    }},
    {"PersistentVolumeClaimSpec", {
        {"accessModes", kString, kList | kOmitEmpty},
        {"selector", "LabelSelector", kPointer | kOmitEmpty},
        {"resources", "VolumeResourceRequirements", kOmitEmpty},
        {"volumeName", kString, kOmitEmpty},
        {"storageClassName", kString, kPointer | kOmitEmpty},
        {"volumeMode", kString, kPointer | kOmitEmpty},
        {"dataSource", "TypedLocalObjectReference", kPointer | kOmitEmpty},
        {"dataSourceRef", "TypedObjectReference", kPointer | kOmitEmpty},
        {"volumeAttributesClassName", kString, kPointer | kOmitEmpty},
    }},
    {"VolumeResourceRequirements", {
        {"limits", kQuantity, kMap | kOmitEmpty},
        {"requests", kQuantity, kMap | kOmitEmpty},
    }},
    {"TypedLocalObjectReference", {
        {"apiGroup", kString, kPointer},
        {"kind", kString},
        {"name", kString},
    }},
    {"TypedObjectReference", {
        {"apiGroup", kString, kPointer},
        {"kind", kString},
        {"name", kString},
        {"namespace", kString, kPointer | kOmitEmpty},
    }},
    {"PersistentVolumeClaimStatus", {
        {"phase", kString, kOmitEmpty},
        {"accessModes", kString, kList | kOmitEmpty},
        {"capacity", kQuantity, kMap | kOmitEmpty},
        {"conditions", "PersistentVolumeClaimCondition", kList | kOmitEmpty},
        {"allocatedResources", kQuantity, kMap | kOmitEmpty},
        {"allocatedResourceStatuses", kString, kMap | kOmitEmpty},
        {"currentVolumeAttributesClassName", kString, kPointer | kOmitEmpty},
        {"modifyVolumeStatus", "ModifyVolumeStatus", kPointer | kOmitEmpty},
    }},
    {"PersistentVolumeClaimCondition", {
        {"type", kString},
        {"status", kString},
        {"lastProbeTime", kTime, kOmitEmpty},
        {"lastTransitionTime", kTime, kOmitEmpty},
        {"reason", kString, kOmitEmpty},
        {"message", kString, kOmitEmpty},
    }},
    {"ModifyVolumeStatus", {
        {"targetVolumeAttributesClassName", kString, kOmitEmpty},
        {"status", kString},
    }},
    // Legacy in-tree volume sources (core/v1)
    {"GCEPersistentDiskVolumeSource", {
        {"pdName", kString},
        {"fsType", kString, kOmitEmpty},
        {"partition", kInt32, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"AWSElasticBlockStoreVolumeSource", {
        {"volumeID", kString},
        {"fsType", kString, kOmitEmpty},
        {"partition", kInt32, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"GitRepoVolumeSource", {
        {"repository", kString},
        {"revision", kString, kOmitEmpty},
        {"directory", kString, kOmitEmpty},
    }},
    {"ISCSIVolumeSource", {
        {"targetPortal", kString},
        {"iqn", kString},
        {"lun", kInt32},
        {"iscsiInterface", kString, kOmitEmpty},
        {"fsType", kString, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
        {"portals", kString, kList | kOmitEmpty},
        {"chapAuthDiscovery", kBool, kOmitEmpty},
        {"chapAuthSession", kBool, kOmitEmpty},
        {"secretRef", "LocalObjectReference", kPointer | kOmitEmpty},
        {"initiatorName", kString, kPointer | kOmitEmpty},
    }},
    {"GlusterfsVolumeSource", {
        {"endpoints", kString},
        {"path", kString},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"RBDVolumeSource", {
        {"monitors", kString, kList},
        {"image", kString},
        {"fsType", kString, kOmitEmpty},
        {"pool", kString, kOmitEmpty},
        {"user", kString, kOmitEmpty},
        {"keyring", kString, kOmitEmpty},
        {"secretRef", "LocalObjectReference", kPointer | kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"FlexVolumeSource", {
        {"driver", kString},
        {"fsType", kString, kOmitEmpty},
        {"secretRef", "LocalObjectReference", kPointer | kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
        {"options", kString, kMap | kOmitEmpty},
    }},
    {"CinderVolumeSource", {
        {"volumeID", kString},
        {"fsType", kString, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
        {"secretRef", "LocalObjectReference", kPointer | kOmitEmpty},
    }},
    {"CephFSVolumeSource", {
        {"monitors", kString, kList},
        {"path", kString, kOmitEmpty},
        {"user", kString, kOmitEmpty},
        {"secretFile", kString, kOmitEmpty},
        {"secretRef", "LocalObjectReference", kPointer | kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"FlockerVolumeSource", {
        {"datasetName", kString, kOmitEmpty},
        {"datasetUUID", kString, kOmitEmpty},
    }},
    {"FCVolumeSource", {
        {"targetWWNs", kString, kList | kOmitEmpty},
        {"lun", kInt32, kPointer | kOmitEmpty},
        {"fsType", kString, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
        {"wwids", kString, kList | kOmitEmpty},
    }},
    {"AzureFileVolumeSource", {
        {"secretName", kString},
        {"shareName", kString},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"VsphereVirtualDiskVolumeSource", {
        {"volumePath", kString},
        {"fsType", kString, kOmitEmpty},
        {"storagePolicyName", kString, kOmitEmpty},
        {"storagePolicyID", kString, kOmitEmpty},
    }},
    {"QuobyteVolumeSource", {
        {"registry", kString},
        {"volume", kString},
        {"readOnly", kBool, kOmitEmpty},
        {"user", kString, kOmitEmpty},
        {"group", kString, kOmitEmpty},
        {"tenant", kString, kOmitEmpty},
    }},
    {"AzureDiskVolumeSource", {
        {"diskName", kString},
        {"diskURI", kString},
        {"cachingMode", kString, kPointer | kOmitEmpty},
        {"fsType", kString, kPointer | kOmitEmpty},
        {"readOnly", kBool, kPointer | kOmitEmpty},
        {"kind", kString, kPointer | kOmitEmpty},
    }},
    {"PhotonPersistentDiskVolumeSource", {
        {"pdID", kString},
        {"fsType", kString, kOmitEmpty},
    }},
    {"PortworxVolumeSource", {
        {"volumeID", kString},
        {"fsType", kString, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"ScaleIOVolumeSource", {
        {"gateway", kString},
        {"system", kString},
        {"secretRef", "LocalObjectReference", kPointer},
        {"sslEnabled", kBool, kOmitEmpty},
        {"protectionDomain", kString, kOmitEmpty},
        {"storagePool", kString, kOmitEmpty},
        {"storageMode", kString, kOmitEmpty},
        {"volumeName", kString, kOmitEmpty},
        {"fsType", kString, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
    }},
    {"StorageOSVolumeSource", {
        {"volumeName", kString, kOmitEmpty},
        {"volumeNamespace", kString, kOmitEmpty},
        {"fsType", kString, kOmitEmpty},
        {"readOnly", kBool, kOmitEmpty},
        {"secretRef", "LocalObjectReference", kPointer | kOmitEmpty},
    }},
  };
  // clang-format on
}

// The table frozen at compile time, so that no process builds it: every type's fields in one
// array, in the table's order, each struct field pointing at its type; a field naming a type the
// table lacks stops the build.
constexpr std::size_t kTypeCount = TypeTable().size();
constexpr std::size_t kFieldCount = [] {
  std::size_t count = 0;
  for (const TypeRows& type : TypeTable()) count += type.fields.size();
  return count;
}();

constexpr std::array<GoField, kFieldCount> FreezeFields() {
  const std::vector<TypeRows> table = TypeTable();
  const auto index_of = [&](std::string_view name) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (table[i].name == name) return static_cast<std::uint16_t>(i);
    }
    throw std::logic_error("typed round trip: a field refers to a type the table lacks");
  };
  std::array<GoField, kFieldCount> fields;
  std::size_t next = 0;
  for (const TypeRows& type : table) {
    for (GoField field : type.fields) {
      if (field.kind == GoKind::kStruct) field.type_index = index_of(field.type);
      fields[next++] = field;
    }
  }
  return fields;
}
constexpr std::array<GoField, kFieldCount> kFields = FreezeFields();

constexpr std::array<GoStruct, kTypeCount> FreezeTypes() {
  const std::vector<TypeRows> table = TypeTable();
  std::array<GoStruct, kTypeCount> types;
  std::size_t first = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    types[i] = GoStruct{table[i].name, std::span<const GoField>(kFields).subspan(first, table[i].fields.size())};
    first += table[i].fields.size();
  }
  return types;
}
constexpr std::array<GoStruct, kTypeCount> kTypes = FreezeTypes();

// kTypes' indexes in order of name, for FindType.
constexpr std::array<std::uint16_t, kTypeCount> kByName = [] {
  std::array<std::uint16_t, kTypeCount> order;
  for (std::size_t i = 0; i < kTypeCount; ++i) order[i] = static_cast<std::uint16_t>(i);
  std::sort(order.begin(), order.end(),
            [](std::uint16_t a, std::uint16_t b) { return kTypes[a].name < kTypes[b].name; });
  for (std::size_t i = 1; i < kTypeCount; ++i) {
    if (kTypes[order[i - 1]].name == kTypes[order[i]].name) throw std::logic_error("typed round trip: a type twice");
  }
  return order;
}();

}  // namespace

const GoStruct& TypeOf(const GoField& field) { return kTypes[field.type_index]; }

const GoStruct* FindType(std::string_view name) {
  const auto it = std::lower_bound(kByName.begin(), kByName.end(), name,
                                   [](std::uint16_t i, std::string_view n) { return kTypes[i].name < n; });
  return it != kByName.end() && kTypes[*it].name == name ? &kTypes[*it] : nullptr;
}

const GoField* FindField(const GoStruct& type, std::string_view name) {
  for (const GoField& field : type.fields) {
    if (field.Has(kInline)) {
      if (const GoField* inner = FindField(TypeOf(field), name)) return inner;
    } else if (field.name == name) {
      return &field;
    }
  }
  return nullptr;
}

void FieldNames(const GoStruct& type, std::vector<std::string_view>& out) {
  for (const GoField& field : type.fields) {
    if (field.Has(kInline)) {
      FieldNames(TypeOf(field), out);
    } else {
      out.push_back(field.name);
    }
  }
}


}  // namespace trainer
