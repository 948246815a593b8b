// Upsert helpers and the EnvVar conversion of upstream pkg/apply, on Trees.
//
// Upstream matches items with ptr.Equal, so two items that both lack the key field match each
// other (for ports: both without a name). We keep that.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

// Replace the first item matching by name, or append.
void UpsertEnvVars(std::vector<Tree>& env, std::vector<Tree> updates);
// Match by containerPort or by name.
void UpsertPorts(std::vector<Tree>& ports, std::vector<Tree> updates);
// Match by name.
void UpsertVolumes(std::vector<Tree>& volumes, std::vector<Tree> updates);
// Match by mountPath.
void UpsertVolumeMounts(std::vector<Tree>& mounts, std::vector<Tree> updates);

// The list stored at `map[key]`, created empty when absent or null.
std::vector<Tree>& ListField(Tree& map, std::string_view key);

// apply.EnvVar: the apply form of a core/v1 EnvVar. Without valueFrom, `value` is always set
// (`value: ""` when empty); fieldRef keeps only fieldPath; resourceFieldRef always carries a
// divisor ("0" when unset); fileKeyRef is not carried over.
Tree EnvVarApply(const Tree& env_var);
std::vector<Tree> EnvVarsApply(const std::vector<Tree>& env);

// {name: <name>, value: <value>} with the given origin.
Tree EnvVarValue(std::string_view name, std::string_view value, const Origin& origin);
// {name: <name>, valueFrom: {fieldRef: {fieldPath: <path>}}}.
Tree EnvVarFieldRef(std::string_view name, std::string_view field_path, const Origin& origin);
// {containerPort: <port>}, as upstream's corev1ac.ContainerPort().WithContainerPort(port).
Tree ContainerPort(std::int32_t port, const Origin& origin);

// The field path of the Job completion index, for ranks: metadata.annotations['batch.kubernetes.io/job-completion-index'].
inline constexpr const char* kJobCompletionIndexFieldPath = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

}  // namespace trainer
