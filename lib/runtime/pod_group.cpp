#include "runtime/pod_group.h"

#include "runtime/objects.h"

namespace trainer {

PodGroupTotals SumPodSets(const std::vector<PodSet>& pod_sets) {
  PodGroupTotals totals;
  std::uint32_t members = 0;
  for (const PodSet& ps : pod_sets) {
    // The pipeline always sets a count; upstream would dereference a missing one.
    std::int32_t count = ps.count.value_or(1);
    members += static_cast<std::uint32_t>(count);
    for (const auto& [name, single] : ps.single_pod_requests) {
      Quantity product = single;
      product.Mul(count);
      // A missing entry starts as the zero Quantity, which adopts the format of what is added.
      totals.min_resources[name].Add(product);
    }
  }
  totals.min_member = static_cast<std::int32_t>(members);
  return totals;
}

Tree NewPodGroup(std::string_view api_version, const TrainJob& job, const Origin& origin) {
  Tree pod_group = NewOwnedObject(api_version, "PodGroup", job.metadata.name, job, origin);
  pod_group.Find("metadata")->Set("name", Tree::String(job.metadata.name, job.positions.Find("metadata.name")));
  return pod_group;
}

Tree ResourceListTree(const ResourceList& list, const Origin& origin) {
  Tree out = Tree::Map(origin);
  for (const auto& [name, q] : list) out.Set(name, Tree::String(q.String(), origin));
  return out;
}

}  // namespace trainer
