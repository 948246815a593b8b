#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/interface.h"
#include "plugins/mpi_ssh.h"

namespace trainer::plugins {

std::unique_ptr<Plugin> NewMPI(const RenderOptions& options);
// The same plugin with its SSH keys from `keys` instead of the source the options select.
std::unique_ptr<Plugin> NewMPIWithKeys(const RenderOptions& options, std::unique_ptr<SSHKeySource> keys);

// The OpenMPI hostfile: one "<endpoint> slots=<slots>" line per pod of the `node` PodSet, and of
// the `launcher` PodSet too when it runs as a node, in PodSet order.
// Nothing when it would be longer than `max_bytes` (longer than any rendering may be): then it is
// neither built nor allocated.
std::optional<std::string> MPIHostFile(const std::vector<PodSet>& pod_sets, bool run_launcher_as_node,
                                       std::int32_t slots, std::size_t max_bytes = std::string::npos);

}  // namespace trainer::plugins
