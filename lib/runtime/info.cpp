#include "runtime/info.h"

#include <algorithm>
#include <cctype>

namespace trainer {

PodSet* Info::FindPodSetByAncestor(std::string_view ancestor) {
  for (PodSet& ps : template_spec.pod_sets) {
    if (ps.ancestor && *ps.ancestor == ancestor) return &ps;
  }
  return nullptr;
}

PodSet* Info::FindPodSetByName(std::string_view name) {
  for (PodSet& ps : template_spec.pod_sets) {
    if (ps.name == name) return &ps;
  }
  return nullptr;
}

namespace {

Container* FindIn(std::vector<Container>& containers, std::string_view name) {
  for (Container& c : containers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Adds `q` to `list[name]`.
void Add(ResourceList& list, const std::string& name, const Quantity& q) {
  auto it = list.find(name);
  if (it == list.end()) list.emplace(name, q);
  else it->second.Add(q);
}

ResourceList Requests(const Tree& container) {
  ResourceList out;
  const Tree* resources = container.Find("resources");
  const Tree* requests = resources && resources->IsMap() ? resources->Find("requests") : nullptr;
  if (requests == nullptr || !requests->IsMap()) return out;
  for (std::size_t i = 0; i < requests->size(); ++i) {
    if (auto q = Quantity::Parse(requests->items()[i].text())) out.emplace(requests->KeyAt(i), *q);
  }
  return out;
}

void AddAll(ResourceList& into, const ResourceList& more) {
  for (const auto& [name, q] : more) Add(into, name, q);
}

void MaxAll(ResourceList& into, const ResourceList& more) {
  for (const auto& [name, q] : more) {
    auto it = into.find(name);
    if (it == into.end()) into.emplace(name, q);
    else if (q.Cmp(it->second) > 0) it->second = q;
  }
}

const std::vector<Tree>& ListOrEmpty(const Tree& map, std::string_view key) {
  static const std::vector<Tree> kEmpty;
  const Tree* t = map.Find(key);
  return t && t->IsList() ? t->items() : kEmpty;
}

}  // namespace

Container* Info::FindContainerByPodSetAncestorContainerName(std::string_view ancestor, std::string_view container) {
  PodSet* ps = FindPodSetByAncestor(ancestor);
  return ps ? FindIn(ps->containers, container) : nullptr;
}

Container* Info::FindContainerByPodSetName(std::string_view pod_set, std::string_view container) {
  PodSet* ps = FindPodSetByName(pod_set);
  if (ps == nullptr) return nullptr;
  if (Container* c = FindIn(ps->containers, container)) return c;
  return FindIn(ps->init_containers, container);
}

int NumGPUPerNode(const Tree* resources) {
  if (resources == nullptr || !resources->IsMap()) return 0;
  // Upstream walks a Go map, so with several GPU resources the one it finds is random; we take
  // the first in name order.
  auto num_gpu = [&](std::string_view field) -> int {
    const Tree* list = resources->Find(field);
    if (list == nullptr || !list->IsMap()) return 0;
    std::vector<std::size_t> order(list->size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return list->KeyAt(a) < list->KeyAt(b); });
    for (std::size_t i : order) {
      std::string name = list->KeyAt(i);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      if (name.find("gpu") == std::string::npos) continue;
      auto q = Quantity::Parse(list->items()[i].text());
      return q ? static_cast<int>(q->Value()) : 0;
    }
    return 0;
  };
  int gpus = num_gpu("requests");
  if (int from_limits = num_gpu("limits"); gpus == 0 && from_limits > 0) gpus = from_limits;
  return gpus;
}

const Tree& BuiltSpec(const Info& info, const std::vector<Tree>& objects) {
  for (const Tree& object : objects) {
    const std::string* kind = object.FindString("kind");
    const Tree* spec = kind && *kind == "JobSet" ? object.Find("spec") : nullptr;
    if (spec != nullptr) return *spec;
  }
  return info.template_spec.obj_apply;
}

std::optional<Tree> ExtractResourcePerNodeFromRuntime(const Tree& jobset_spec) {
  const Tree* rjobs = jobset_spec.Find("replicatedJobs");
  if (rjobs == nullptr || !rjobs->IsList()) return std::nullopt;
  for (const Tree& rjob : rjobs->items()) {
    const std::string* name = rjob.FindString("name");
    const Tree* job_template = rjob.Find("template");
    if (job_template == nullptr) continue;
    const Tree* meta = job_template->Find("metadata");
    const Tree* labels = meta ? meta->Find("labels") : nullptr;
    const std::string* ancestor = labels && labels->IsMap() ? labels->FindString(kLabelTrainJobAncestor) : nullptr;
    if (!((name && *name == kNode) || (ancestor && *ancestor == kAncestorTrainer))) continue;
    const Tree* pod_spec = job_template->Find("spec");
    for (const char* key : {"template", "spec"}) pod_spec = pod_spec ? pod_spec->Find(key) : nullptr;
    if (pod_spec == nullptr) continue;
    for (const Tree& c : ListOrEmpty(*pod_spec, "containers")) {
      const std::string* cname = c.FindString("name");
      const Tree* resources = c.Find("resources");
      if (!cname || *cname != kNode || resources == nullptr || !resources->IsMap()) continue;
      Tree out = Tree::Map(resources->origin());
      for (const char* field : {"limits", "requests"}) {
        const Tree* list = resources->Find(field);
        out.Set(field, list && list->IsMap() ? *list : Tree::Map(resources->origin()));
      }
      return out;
    }
  }
  return std::nullopt;
}

ResourceList PodRequests(const Tree& pod_spec) {
  ResourceList requests;
  for (const Tree& c : ListOrEmpty(pod_spec, "containers")) AddAll(requests, Requests(c));
  ResourceList sidecars;        // restartable init containers seen so far
  ResourceList init_requests;   // the largest need of any init container's phase
  for (const Tree& c : ListOrEmpty(pod_spec, "initContainers")) {
    ResourceList need = Requests(c);
    const std::string* restart = c.FindString("restartPolicy");
    if (restart && *restart == "Always") {
      AddAll(requests, need);
      AddAll(sidecars, need);
      need = sidecars;
    } else {
      AddAll(need, sidecars);
    }
    MaxAll(init_requests, need);
  }
  MaxAll(requests, init_requests);
  // Pod-level requests (PodLevelResources) replace the containers' figure for cpu, memory and
  // hugepages-*; other names there are ignored.
  for (const auto& [name, q] : Requests(pod_spec)) {
    if (name == "cpu" || name == "memory" || name.rfind("hugepages-", 0) == 0) requests.insert_or_assign(name, q);
  }
  if (const Tree* overhead = pod_spec.Find("overhead"); overhead && overhead->IsMap()) {
    for (std::size_t i = 0; i < overhead->size(); ++i) {
      if (auto q = Quantity::Parse(overhead->items()[i].text())) Add(requests, overhead->KeyAt(i), *q);
    }
  }
  return requests;
}

}  // namespace trainer
