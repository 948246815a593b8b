// The typed round trip, driven by one table of Go struct types.
//
// Rows follow the Go declarations field for field, in declaration order:
//   sigs.k8s.io/jobset v0.12.0       api/jobset/v1alpha2/jobset_types.go
//   k8s.io/api v0.36.3               batch/v1/types.go, core/v1/types.go
//   k8s.io/apimachinery v0.36.3      pkg/apis/meta/v1/types.go
// The rules applied to them come from apimachinery pkg/runtime/converter.go (ToUnstructured) and
// the apply configurations the result is decoded into (client-go v0.36.3 applyconfigurations,
// jobset v0.12.0 client-go/applyconfiguration), whose fields are all pointers, slices or maps
// with omitempty. Every struct reachable from JobSetSpec is covered, so nothing passes through
// unchecked except metav1.FieldsV1 (raw JSON by design).
#include "k8s/typed_roundtrip.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "k8s/quantity.h"
#include "k8s/quantity_advice.h"
#include "util/strconv.h"
#include "util/suggest.h"

namespace trainer {
namespace {

bool IsVowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// What a Go field holds once pointers, slices and maps are peeled off.
enum class Kind : std::uint8_t {
  kString,       // string and named string types (enums, types.UID)
  kInt32,        // int32
  kInt64,        // int64 and int
  kBool,         // bool
  kIntOrString,  // intstr.IntOrString
  kQuantity,     // resource.Quantity
  kTime,         // metav1.Time, RFC 3339 text
  kAny,          // metav1.FieldsV1: any JSON, kept as is
  kStruct,       // another type of the table
};

// How a Go field is declared; combine with |.
enum Trait : unsigned {
  kOmitEmpty = 1U << 0,  // json:",omitempty"
  kOmitZero = 1U << 1,   // json:",omitzero"
  kPointer = 1U << 2,    // *T
  kList = 1U << 3,       // []T
  kMap = 1U << 4,        // map[string]T
  kInline = 1U << 5,     // embedded struct: its fields sit in the parent object
  // The apply configuration has no such field: decoded (and checked), then dropped.
  kNotInApply = 1U << 6,
  // The apply configuration holds the typed Go value here, so everything below is printed by
  // encoding/json from the Go struct rather than from an apply configuration.
  kTypedInApply = 1U << 7,
};

struct Field {
  constexpr Field() = default;
  constexpr Field(std::string_view name, Kind kind, unsigned traits = 0) : name(name), kind(kind), traits(traits) {}
  constexpr Field(std::string_view name, std::string_view type, unsigned traits = 0)
      : name(name), kind(Kind::kStruct), type(type), traits(traits) {}

  bool Has(Trait trait) const { return (traits & trait) != 0; }

  std::string_view name;  // JSON name; empty for kInline
  Kind kind = Kind::kAny;
  std::string_view type;  // struct type name when kind is kStruct
  unsigned traits = 0;
  std::uint16_t type_index = 0;  // kTypes[type_index] is `type`; set by FreezeFields
};

// A type as the table below writes it; the program holds the table frozen (kTypes, kFields).
struct TypeRows {
  std::string_view name;
  std::vector<Field> fields;
};

struct StructType {
  std::string_view name;
  std::span<const Field> fields;
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
  using enum Kind;
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

constexpr std::array<Field, kFieldCount> FreezeFields() {
  const std::vector<TypeRows> table = TypeTable();
  const auto index_of = [&](std::string_view name) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (table[i].name == name) return static_cast<std::uint16_t>(i);
    }
    throw std::logic_error("typed round trip: a field refers to a type the table lacks");
  };
  std::array<Field, kFieldCount> fields;
  std::size_t next = 0;
  for (const TypeRows& type : table) {
    for (Field field : type.fields) {
      if (field.kind == Kind::kStruct) field.type_index = index_of(field.type);
      fields[next++] = field;
    }
  }
  return fields;
}
constexpr std::array<Field, kFieldCount> kFields = FreezeFields();

constexpr std::array<StructType, kTypeCount> FreezeTypes() {
  const std::vector<TypeRows> table = TypeTable();
  std::array<StructType, kTypeCount> types;
  std::size_t first = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    types[i] = StructType{table[i].name, std::span<const Field>(kFields).subspan(first, table[i].fields.size())};
    first += table[i].fields.size();
  }
  return types;
}
constexpr std::array<StructType, kTypeCount> kTypes = FreezeTypes();

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

const StructType& TypeOf(const Field& field) { return kTypes[field.type_index]; }

const StructType* FindType(std::string_view name) {
  const auto it = std::lower_bound(kByName.begin(), kByName.end(), name,
                                   [](std::uint16_t i, std::string_view n) { return kTypes[i].name < n; });
  return it != kByName.end() && kTypes[*it].name == name ? &kTypes[*it] : nullptr;
}

// Looks `name` up among the fields of `type`, including those of its inline structs.
const Field* FindField(const StructType& type, std::string_view name) {
  for (const Field& field : type.fields) {
    if (field.Has(kInline)) {
      if (const Field* inner = FindField(TypeOf(field), name)) return inner;
    } else if (field.name == name) {
      return &field;
    }
  }
  return nullptr;
}

// The JSON names of the fields of `type`, those of its inline structs included.
void FieldNames(const StructType& type, std::vector<std::string_view>& out) {
  for (const Field& field : type.fields) {
    if (field.Has(kInline)) {
      FieldNames(TypeOf(field), out);
    } else {
      out.push_back(field.name);
    }
  }
}

std::string Join(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : fmt::format("{}.{}", path, name);
}

std::int64_t DaysFromCivil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

struct CivilDate {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

CivilDate CivilFromDays(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(year_of_era) + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

struct ParsedTime {
  bool zero = false;  // Go's zero time.Time, which serialises as null
  std::string utc;    // time.RFC3339 in UTC, as metav1.Time writes it
};

// Parses RFC 3339 as time.Parse(time.RFC3339, ...) does: fractional seconds are accepted (and
// dropped on output), the zone is "Z" or "+hh:mm"/"-hh:mm", fields are range-checked.
std::optional<ParsedTime> ParseTime(std::string_view text) {
  std::size_t pos = 0;
  const auto digits = [&](std::size_t count) -> std::optional<unsigned> {
    if (pos + count > text.size()) return std::nullopt;
    unsigned value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const char c = text[pos + i];
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    pos += count;
    return value;
  };
  const auto literal = [&](char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
  };
  const auto year = digits(4);
  if (!year || !literal('-')) return std::nullopt;
  const auto month = digits(2);
  if (!month || !literal('-')) return std::nullopt;
  const auto day = digits(2);
  if (!day || !literal('T')) return std::nullopt;
  const auto hour = digits(2);
  if (!hour || !literal(':')) return std::nullopt;
  const auto minute = digits(2);
  if (!minute || !literal(':')) return std::nullopt;
  const auto second = digits(2);
  if (!second) return std::nullopt;
  bool fraction_is_zero = true;
  if (literal('.')) {
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      fraction_is_zero = fraction_is_zero && text[pos] == '0';
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  std::int64_t offset = 0;
  if (!literal('Z')) {
    if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
    const int sign = text[pos++] == '-' ? -1 : 1;
    const auto zone_hour = digits(2);
    if (!zone_hour || !literal(':')) return std::nullopt;
    const auto zone_minute = digits(2);
    if (!zone_minute || *zone_hour > 23 || *zone_minute > 59) return std::nullopt;
    offset = sign * static_cast<std::int64_t>(*zone_hour * 3600 + *zone_minute * 60);
  }
  if (pos != text.size()) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  const bool leap = (*year % 4 == 0 && *year % 100 != 0) || *year % 400 == 0;
  constexpr unsigned kDaysInMonth[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (*day > kDaysInMonth[*month - 1] + (*month == 2 && leap ? 1 : 0)) return std::nullopt;

  const std::int64_t seconds =
      DaysFromCivil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
  const std::int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  const std::int64_t rest = seconds - days * 86400;
  const CivilDate date = CivilFromDays(days);
  ParsedTime parsed;
  parsed.zero = fraction_is_zero && seconds == DaysFromCivil(1, 1, 1) * 86400;
  parsed.utc = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", date.year, date.month, date.day,
                           rest / 3600, rest / 60 % 60, rest % 60);
  return parsed;
}

// A field path built only when an issue needs it: most values decode without one, and building
// every path eagerly was most of the round trip's cost. Each link lives on the caller's stack.
struct PathRef {
  const PathRef* parent = nullptr;
  const std::string* root = nullptr;  // set on the root link only
  std::string_view field;             // ".field", or the key of "[key]"
  std::size_t index = 0;
  enum class Step : std::uint8_t { kRoot, kField, kIndex, kKey } step = Step::kRoot;

  PathRef Field(std::string_view name) const { return PathRef{this, nullptr, name, 0, Step::kField}; }
  PathRef Index(std::size_t i) const { return PathRef{this, nullptr, {}, i, Step::kIndex}; }
  PathRef Key(std::string_view key) const { return PathRef{this, nullptr, key, 0, Step::kKey}; }

  std::string String() const {
    switch (step) {
      case Step::kRoot: return *root;
      case Step::kField: return Join(parent->String(), field);
      case Step::kIndex: return fmt::format("{}[{}]", parent->String(), index);
      case Step::kKey: return fmt::format("{}[{}]", parent->String(), field);
    }
    return {};
  }
};

// Walks a tree alongside the table, rewriting it in place and collecting issues.
class RoundTripper {
 public:
  explicit RoundTripper(std::vector<FieldIssue>& issues) : issues_(issues) {}

  // `object` is a map. `typed` is set below kTypedInApply.
  void Struct(Tree& object, const StructType& type, const PathRef& path, bool typed) {
    for (std::size_t i = 0; i < object.size(); ++i) {
      const std::string& key = object.KeyAt(i);
      if (FindField(type, key) != nullptr) continue;
      const Origin& origin = object.KeyOriginAt(i).kind != Origin::Kind::kNone
                                 ? object.KeyOriginAt(i)
                                 : object.items()[i].origin();
      std::vector<std::string_view> known;
      FieldNames(type, known);
      Report(path.Field(key), origin, UnknownFieldMessage(key, known));
    }
    Fields(object, type, path, typed);
  }

 private:
  void Fields(Tree& object, const StructType& type, const PathRef& path, bool typed) {
    for (const Field& field : type.fields) {
      if (field.Has(kInline)) {
        Fields(object, TypeOf(field), path, typed);
      } else {
        OneField(object, field, path, typed);
      }
    }
  }

  void OneField(Tree& object, const Field& field, const PathRef& parent_path, bool typed) {
    const PathRef path = parent_path.Field(field.name);
    const bool typed_below = typed || field.Has(kTypedInApply);
    Tree* value = object.Find(field.name);
    const bool absent = value == nullptr || value->IsNull();

    if (field.Has(kList) || field.Has(kMap)) {
      // Go leaves nil for absent and null; the apply configuration's omitempty drops nil and
      // empty alike. Typed JSON writes a nil field without omitempty as null.
      if (absent) {
        Absent(object, field, typed);
      } else if (field.Has(kList) ? !value->IsList() : !value->IsMap()) {
        Mismatch(path, *value, field.Has(kList) ? "array" : "object");
      } else {
        for (std::size_t i = 0; i < value->items().size(); ++i) {
          const PathRef item_path = field.Has(kList) ? path.Index(i) : path.Key(value->KeyAt(i));
          Value(value->items()[i], field, item_path, typed_below);
        }
        const bool typed_keeps_empty = typed && !field.Has(kOmitEmpty);
        if (value->items().empty() && !typed_keeps_empty) object.Erase(field.name);
      }
    } else if (field.Has(kPointer)) {
      // A nil pointer is dropped; a set one keeps even its zero value.
      if (absent) {
        Absent(object, field, typed);
      } else {
        Value(*value, field, path, typed_below);
        // A zero time becomes null on the way to JSON, and the pointer decodes from it as nil.
        if (field.kind == Kind::kTime && value->IsNull()) object.Erase(field.name);
      }
    } else {
      // A non-pointer field always holds a value: absent and null mean the zero value.
      if (value == nullptr) {  // no input wrote it: the zero value has no origin
        if (ZeroOmitted(field)) return;  // it would be set and dropped again at once
        value = &object.Set(field.name, Tree::Null(), Origin());
      }
      Value(*value, field, path, typed_below);
      if (OmittedWhenZero(*value, field, typed)) object.Erase(field.name);
    }
    if (field.Has(kNotInApply) && !typed) object.Erase(field.name);
  }

  // A nil pointer, slice or map.
  void Absent(Tree& object, const Field& field, bool typed) {
    if (typed && !field.Has(kOmitEmpty)) {
      object.Set(field.name, Tree::Null(object.origin()), object.origin());
    } else {
      object.Erase(field.name);
    }
  }

  // Whether the zero value of a field is dropped whatever the way: an omitempty string, integer or
  // boolean.
  static bool ZeroOmitted(const Field& field) {
    switch (field.kind) {
      case Kind::kString:
      case Kind::kInt32:
      case Kind::kInt64:
      case Kind::kBool: return field.Has(kOmitEmpty);
      default: return false;
    }
  }

  // Whether a non-pointer field holding `value` is left out of the output.
  static bool OmittedWhenZero(const Tree& value, const Field& field, bool typed) {
    switch (field.kind) {
      case Kind::kString: return field.Has(kOmitEmpty) && value.IsString() && value.text().empty();
      case Kind::kInt32:
      case Kind::kInt64: return field.Has(kOmitEmpty) && value.IsInt() && value.AsInt() == 0;
      case Kind::kBool: return field.Has(kOmitEmpty) && value.IsBool() && !value.AsBool();
      case Kind::kTime:
        // The zero time converts to null, which the apply configuration drops; typed JSON
        // prints it as null unless omitzero skips it (omitempty never skips a struct).
        return value.IsNull() && (!typed || field.Has(kOmitZero));
      case Kind::kIntOrString:
      case Kind::kQuantity:
      case Kind::kAny:
      case Kind::kStruct: return false;  // structs are never empty to omitempty
    }
    return false;
  }

  // Decodes one value of the field's kind in place; null becomes the Go zero value.
  void Value(Tree& value, const Field& field, const PathRef& path, bool typed) {
    const Origin origin = value.origin();
    switch (field.kind) {
      case Kind::kString:
        if (value.IsNull()) {
          value = Tree::String("", origin);
        } else if (!value.IsString()) {
          Mismatch(path, value, "string", QuoteAdvice(value));
        }
        return;
      case Kind::kInt32:
        Integer(value, path, "int32", std::numeric_limits<std::int32_t>::min(),
                std::numeric_limits<std::int32_t>::max(), "integer");
        return;
      case Kind::kInt64:
        Integer(value, path, "int64", std::numeric_limits<std::int64_t>::min(),
                std::numeric_limits<std::int64_t>::max(), "integer");
        return;
      case Kind::kBool:
        if (value.IsNull()) {
          value = Tree::Bool(false, origin);
        } else if (!value.IsBool()) {
          Mismatch(path, value, "boolean");
        }
        return;
      case Kind::kIntOrString:
        // The integer side is an int32; null decodes as the integer 0.
        if (!value.IsString()) {
          Integer(value, path, "int32", std::numeric_limits<std::int32_t>::min(),
                  std::numeric_limits<std::int32_t>::max(), "integer or string");
        }
        return;
      case Kind::kQuantity: Quantity(value, path); return;
      case Kind::kTime: Time(value, path); return;
      case Kind::kAny: return;
      case Kind::kStruct:
        if (value.IsNull()) value = Tree::Map(origin);
        if (!value.IsMap()) {
          Mismatch(path, value, "object");
          return;
        }
        Struct(value, TypeOf(field), path, typed);
        return;
    }
  }

  // An integer in [min, max]. A YAML float with an integral value is accepted: kubectl's
  // YAML-to-JSON conversion writes 2.0 as 2, which Go decodes into an integer field.
  void Integer(Tree& value, const PathRef& path, std::string_view go_type, std::int64_t min,
               std::int64_t max, std::string_view expected) {
    if (value.IsNull()) {
      value = Tree::Int(0, value.origin());
      return;
    }
    if (value.IsFloat()) {
      const std::optional<double> number = ParseFloat64(value.text());
      if (!number || std::trunc(*number) != *number || std::fabs(*number) >= 0x1p63) {
        Mismatch(path, value, expected);
        return;
      }
      value = Tree::Int(static_cast<std::int64_t>(*number), value.origin());
    }
    if (!value.IsInt()) {
      Mismatch(path, value, expected);
    } else if (value.AsInt() < min || value.AsInt() > max) {
      Report(path, value.origin(),
             fmt::format("{} is out of range for {}", value.AsInt(), go_type));
    }
  }

  // resource.Quantity: a string or a JSON number, printed back with Quantity.String(). The
  // value goes through String() twice (ToUnstructured, then the apply configuration's JSON);
  // the second pass matters when the first one changed the format.
  void Quantity(Tree& value, const PathRef& path) {
    const std::optional<std::string> text = QuantityText(value);
    if (!text) {
      Mismatch(path, value, "quantity (string or number)");
      return;
    }
    const char* error = kQuantityErrorMessage;
    const std::optional<trainer::Quantity> parsed = trainer::Quantity::Parse(*text, &error);
    if (!parsed) {
      // For the commonest error, what was likely meant rather than Go's regular expression.
      Report(path, value.origin(),
             std::string_view(error) == kQuantityErrorMessage ? QuantityAdvice(*text) : fmt::format("invalid quantity \"{}\": {}", *text, error));
      return;
    }
    std::string canonical = parsed->String();
    if (const std::optional<trainer::Quantity> again = trainer::Quantity::Parse(canonical)) {
      canonical = again->String();
    }
    value = Tree::String(std::move(canonical), value.origin());
  }

  // metav1.Time: RFC 3339 text, printed back in UTC without fractional seconds; the zero time
  // becomes null.
  void Time(Tree& value, const PathRef& path) {
    if (value.IsNull()) return;
    if (!value.IsString()) {
      Mismatch(path, value, "string");
      return;
    }
    const std::optional<ParsedTime> parsed = ParseTime(value.text());
    if (!parsed) {
      Report(path, value.origin(),
             fmt::format("invalid time \"{}\": expected RFC 3339, e.g. 2006-01-02T15:04:05Z",
                         value.text()));
      return;
    }
    value = parsed->zero ? Tree::Null(value.origin()) : Tree::String(parsed->utc, value.origin());
  }

  // `advice` follows the message: what to do about it, if anything.
  void Mismatch(const PathRef& path, const Tree& value, std::string_view expected, std::string_view advice = {}) {
    Report(path, value.origin(),
           fmt::format("expected {} {}, got {}{}", IsVowel(expected.front()) ? "an" : "a", expected,
                       Tree::DescribeType(value.type()), advice));
  }

  void Report(const PathRef& path, const Origin& origin, std::string message) {
    issues_.push_back(FieldIssue{path.String(), origin, std::move(message)});
  }

  std::vector<FieldIssue>& issues_;
};

}  // namespace

std::optional<std::string> QuantityText(const Tree& value) {
  if (value.IsNull()) return std::string(1, '0');  // not "0": GCC 12 -Wrestrict false positive under the sanitizers
  if (value.IsInt()) return value.text();
  if (value.IsFloat()) {
    const std::optional<double> number = ParseFloat64(value.text());
    return number ? GoFloatText(*number) : value.text();
  }
  if (!value.IsString()) return std::nullopt;
  const std::string& text = value.text();
  const std::size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return std::string();
  const std::size_t last = text.find_last_not_of(" \t\n\r\f\v");
  return text.substr(first, last - first + 1);
}

void RoundTrip(Tree& value, std::string_view type_name, const std::string& path,
               std::vector<FieldIssue>& issues) {
  const StructType* type = FindType(type_name);
  if (type == nullptr) {
    throw std::logic_error(fmt::format("typed round trip: no table for Go type {}", type_name));
  }
  if (value.IsNull()) value = Tree::Map(value.origin());
  if (!value.IsMap()) {
    issues.push_back(
        FieldIssue{path, value.origin(),
                   fmt::format("expected an object, got {}", Tree::DescribeType(value.type()))});
    return;
  }
  PathRef root;
  root.root = &path;
  RoundTripper(issues).Struct(value, *type, root, false);
}

}  // namespace trainer
