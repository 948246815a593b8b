// What a gang-scheduling PodGroup asks for: the members and resources of all PodSets together.
// Shared by the Coscheduling and Volcano plugins, which compute it the same way upstream
// (plugins/coscheduling/coscheduling.go and plugins/volcano/volcano.go, Build).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "runtime/info.h"
#include "yaml/tree.h"

namespace trainer {

struct PodGroupTotals {
  std::int32_t min_member = 0;  // wraps like Go's int32 sum
  ResourceList min_resources;
};

// For each PodSet in order: count added to min_member, and each single-pod request times count
// added to min_resources (a sum takes the format of its first non-zero addend).
PodGroupTotals SumPodSets(const std::vector<PodSet>& pod_sets);

// A PodGroup named after the TrainJob, in its namespace, owned by it; no spec yet.
Tree NewPodGroup(std::string_view api_version, const TrainJob& job, const Origin& origin);

// A ResourceList as the map a PodGroup spec prints: resource name to canonical quantity text.
Tree ResourceListTree(const ResourceList& list, const Origin& origin);

}  // namespace trainer
