#include "k8s/apply.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>
#include <unordered_map>

#include "k8s/value_key.h"

namespace trainer {

namespace {

// ptr.Equal on one field of two items: both absent counts as equal.
bool SameField(const Tree& a, const Tree& b, std::string_view key) {
  const Tree* x = a.IsMap() ? a.Find(key) : nullptr;
  const Tree* y = b.IsMap() ? b.Find(key) : nullptr;
  if (x == nullptr || y == nullptr) return x == y;
  return *x == *y;
}

// Lists this short are scanned: cheaper than an index for the few env vars most containers have.
constexpr std::size_t kScannedItems = 64;

// The key of `item` under `field` for the index below: ptr.Equal on one field, so two items that
// both lack the field (or are no maps) share the "absent" key.
std::string FieldKey(const Tree& item, std::string_view field) {
  const Tree* value = item.IsMap() ? item.Find(field) : nullptr;
  std::string key = value == nullptr ? "absent" : "=";
  if (value != nullptr) AppendValueKey(*value, key);
  return key;
}

// Upstream's upsert: each update in turn replaces the first item that matches it on any of
// `fields`, or is appended (so a later update may match one appended before it). Short lists are
// scanned; longer ones are indexed by key, so that each update costs a lookup, not a scan.
void Upsert(std::vector<Tree>& items, std::vector<Tree> updates, std::initializer_list<std::string_view> fields) {
  if (items.size() + updates.size() <= kScannedItems) {
    for (Tree& update : updates) {
      auto found = std::find_if(items.begin(), items.end(), [&](const Tree& item) {
        return std::any_of(fields.begin(), fields.end(),
                           [&](std::string_view f) { return SameField(item, update, f); });
      });
      if (found != items.end()) {
        *found = std::move(update);
      } else {
        items.push_back(std::move(update));
      }
    }
    return;
  }
  if (fields.size() == 1) {
    // An update matches on the one key, so the item it replaces keeps that key: the first
    // position of each key never changes.
    std::string_view field = *fields.begin();
    std::unordered_map<std::string, std::size_t> first;
    first.reserve(items.size() + updates.size());
    for (std::size_t i = 0; i < items.size(); ++i) first.emplace(FieldKey(items[i], field), i);
    for (Tree& update : updates) {
      auto [at, added] = first.emplace(FieldKey(update, field), items.size());
      if (added) {
        items.push_back(std::move(update));
      } else {
        items[at->second] = std::move(update);
      }
    }
    return;
  }
  // Several keys: the item an update replaces may change its other keys, so each key keeps the
  // ordered positions of all the items holding it.
  using Index = std::unordered_map<std::string, std::set<std::size_t>>;
  std::vector<Index> index(fields.size());
  auto each_field = [&](auto&& f) {
    std::size_t n = 0;
    for (std::string_view field : fields) f(field, index[n++]);
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    each_field([&](std::string_view field, Index& by) { by[FieldKey(items[i], field)].insert(i); });
  }
  for (Tree& update : updates) {
    std::size_t first = items.size();
    each_field([&](std::string_view field, Index& by) {
      if (auto it = by.find(FieldKey(update, field)); it != by.end() && !it->second.empty()) {
        first = std::min(first, *it->second.begin());
      }
    });
    if (first < items.size()) {
      each_field([&](std::string_view field, Index& by) { by[FieldKey(items[first], field)].erase(first); });
      items[first] = std::move(update);
    } else {
      items.push_back(std::move(update));
    }
    each_field([&](std::string_view field, Index& by) { by[FieldKey(items[first], field)].insert(first); });
  }
}

}  // namespace

void UpsertEnvVars(std::vector<Tree>& env, std::vector<Tree> updates) { Upsert(env, std::move(updates), {"name"}); }

void UpsertPorts(std::vector<Tree>& ports, std::vector<Tree> updates) {
  Upsert(ports, std::move(updates), {"containerPort", "name"});
}

void UpsertVolumes(std::vector<Tree>& volumes, std::vector<Tree> updates) {
  Upsert(volumes, std::move(updates), {"name"});
}

void UpsertVolumeMounts(std::vector<Tree>& mounts, std::vector<Tree> updates) {
  Upsert(mounts, std::move(updates), {"mountPath"});
}

std::vector<Tree>& ListField(Tree& map, std::string_view key) {
  Tree* field = map.Find(key);
  if (field == nullptr || !field->IsList()) field = &map.Set(key, Tree::List());
  return field->items();
}

Tree EnvVarApply(const Tree& env_var) {
  Tree out = Tree::Map(env_var.origin());
  if (const Tree* name = env_var.Find("name")) out.Set("name", *name);
  const Tree* from = env_var.Find("valueFrom");
  if (from == nullptr || !from->IsMap()) {
    const Tree* value = env_var.Find("value");
    out.Set("value", value ? *value : Tree::String("", env_var.origin()));
    return out;
  }
  Tree source = Tree::Map(from->origin());
  if (const Tree* ref = from->Find("fieldRef")) {
    Tree r = Tree::Map(ref->origin());
    if (const Tree* path = ref->Find("fieldPath")) r.Set("fieldPath", *path);
    else r.Set("fieldPath", Tree::String("", ref->origin()));
    source.Set("fieldRef", std::move(r));
  }
  if (const Tree* ref = from->Find("resourceFieldRef")) {
    Tree r = Tree::Map(ref->origin());
    const Tree* container = ref->Find("containerName");
    const Tree* resource = ref->Find("resource");
    const Tree* divisor = ref->Find("divisor");
    r.Set("containerName", container ? *container : Tree::String("", ref->origin()));
    r.Set("resource", resource ? *resource : Tree::String("", ref->origin()));
    r.Set("divisor", divisor ? *divisor : Tree::String("0", ref->origin()));
    source.Set("resourceFieldRef", std::move(r));
  }
  for (const char* kind : {"configMapKeyRef", "secretKeyRef"}) {
    const Tree* ref = from->Find(kind);
    if (ref == nullptr) continue;
    Tree r = Tree::Map(ref->origin());
    const Tree* key = ref->Find("key");
    const Tree* name = ref->Find("name");
    r.Set("key", key ? *key : Tree::String("", ref->origin()));
    r.Set("name", name ? *name : Tree::String("", ref->origin()));
    if (const Tree* optional = ref->Find("optional")) r.Set("optional", *optional);
    source.Set(kind, std::move(r));
  }
  out.Set("valueFrom", std::move(source));
  return out;
}

std::vector<Tree> EnvVarsApply(const std::vector<Tree>& env) {
  std::vector<Tree> out;
  out.reserve(env.size());
  for (const Tree& e : env) out.push_back(EnvVarApply(e));
  return out;
}

Tree EnvVarValue(std::string_view name, std::string_view value, const Origin& origin) {
  Tree env = Tree::Map(origin);
  env.Set("name", Tree::String(std::string(name), origin));
  env.Set("value", Tree::String(std::string(value), origin));
  return env;
}

Tree EnvVarFieldRef(std::string_view name, std::string_view field_path, const Origin& origin) {
  Tree env = Tree::Map(origin);
  env.Set("name", Tree::String(std::string(name), origin));
  env.Child("valueFrom", origin).Child("fieldRef", origin).Set("fieldPath", Tree::String(std::string(field_path), origin));
  return env;
}

Tree ContainerPort(std::int32_t port, const Origin& origin) {
  Tree p = Tree::Map(origin);
  p.Set("containerPort", Tree::Int(port, origin));
  return p;
}

}  // namespace trainer
