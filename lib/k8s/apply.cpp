#include "k8s/apply.h"

namespace trainer {

namespace {

// ptr.Equal on one field of two items: both absent counts as equal.
bool SameField(const Tree& a, const Tree& b, std::string_view key) {
  const Tree* x = a.IsMap() ? a.Find(key) : nullptr;
  const Tree* y = b.IsMap() ? b.Find(key) : nullptr;
  if (x == nullptr || y == nullptr) return x == y;
  return *x == *y;
}

template <class Same>
void Upsert(std::vector<Tree>& items, std::vector<Tree> updates, Same same) {
  for (Tree& update : updates) {
    bool replaced = false;
    for (Tree& item : items) {
      if (same(item, update)) {
        item = std::move(update);
        replaced = true;
        break;
      }
    }
    if (!replaced) items.push_back(std::move(update));
  }
}

}  // namespace

void UpsertEnvVars(std::vector<Tree>& env, std::vector<Tree> updates) {
  Upsert(env, std::move(updates), [](const Tree& a, const Tree& b) { return SameField(a, b, "name"); });
}

void UpsertPorts(std::vector<Tree>& ports, std::vector<Tree> updates) {
  Upsert(ports, std::move(updates), [](const Tree& a, const Tree& b) {
    return SameField(a, b, "containerPort") || SameField(a, b, "name");
  });
}

void UpsertVolumes(std::vector<Tree>& volumes, std::vector<Tree> updates) {
  Upsert(volumes, std::move(updates), [](const Tree& a, const Tree& b) { return SameField(a, b, "name"); });
}

void UpsertVolumeMounts(std::vector<Tree>& mounts, std::vector<Tree> updates) {
  Upsert(mounts, std::move(updates), [](const Tree& a, const Tree& b) { return SameField(a, b, "mountPath"); });
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
