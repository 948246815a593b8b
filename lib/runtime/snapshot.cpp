#include "runtime/snapshot.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "api/decode.h"
#include "api/defaults.h"
#include "k8s/typed_roundtrip.h"
#include "runtime/objects.h"
#include "util/quote.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

const Origin kBySnapshot = Origin::Plugin("runtime snapshot");
constexpr std::string_view kRefused = "invalid runtime snapshot: ";

// Rewrites the origin of every value and map key of `tree`.
void MapOrigins(Tree& tree, const std::function<Origin(const Origin&)>& map) {
  tree.set_origin(map(tree.origin()));
  if (!tree.IsMap()) {
    for (Tree& item : tree.items()) MapOrigins(item, map);
    return;
  }
  std::vector<Tree::MapKey> keys;
  keys.reserve(tree.size());
  for (std::size_t i = 0; i < tree.size(); ++i) keys.push_back(Tree::MapKey{tree.KeyAt(i), map(tree.KeyOriginAt(i))});
  std::vector<Tree> items = std::move(tree.items());
  for (Tree& item : items) MapOrigins(item, map);
  tree.AdoptEntries(std::move(keys), std::move(items));
}

// Where the lines of a literal block scalar whose indicator ("|", "|-", "|+") stands at `at` start
// in the input: the line after the indicator, and the indentation of its first line that is not
// blank. nullopt for any other scalar (quoted, plain, folded) or an explicit indentation indicator.
struct BlockLines {
  std::uint32_t line_before;  // the line of the indicator: inner line n is line_before + n
  std::uint32_t indent;       // inner column c is c + indent
};
std::optional<BlockLines> LiteralBlockAt(const InputLines& lines, const Origin& at) {
  if (!at.HasPosition() || at.line > lines.starts.size()) return std::nullopt;
  auto line_text = [&](std::size_t index) {  // 0-based, without its line break
    const std::size_t start = lines.starts[index];
    const std::size_t end = index + 1 < lines.starts.size() ? lines.starts[index + 1] : lines.text.size();
    std::string_view s = lines.text.substr(start, end - start);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    return s;
  };
  std::string_view head = line_text(at.line - 1);
  if (at.column == 0 || at.column > head.size() || head[at.column - 1] != '|') return std::nullopt;
  head.remove_prefix(at.column);
  if (!head.empty() && (head.front() == '-' || head.front() == '+')) head.remove_prefix(1);
  const std::size_t rest = head.find_first_not_of(' ');
  if (rest != std::string_view::npos && head[rest] != '#') return std::nullopt;  // "|2", or not a block
  for (std::size_t i = at.line; i < lines.starts.size(); ++i) {
    std::string_view text = line_text(i);
    const std::size_t indent = text.find_first_not_of(' ');
    if (indent == std::string_view::npos) continue;
    return BlockLines{at.line, static_cast<std::uint32_t>(indent)};
  }
  return std::nullopt;
}

// Decodes data.runtime into `snapshot`, as yaml.Unmarshal into the runtime type: the first
// document, unknown fields dropped; a name-less runtime decodes (the reference check refuses it).
void DecodeRuntimeData(const std::string& value, RuntimeSnapshot& snapshot, const InputLines* lines,
                       std::size_t& values_left) {
  const std::string inner_name = "data.runtime";  // origins point to it only within this function
  const Origin at = snapshot.runtime_at;
  std::optional<BlockLines> block = lines ? LiteralBlockAt(*lines, at) : std::nullopt;
  auto map = [&](const Origin& o) {
    if (o.file != &inner_name) return o;
    if (block) return Origin::Input(at.file, block->line_before + o.line, o.column + block->indent);
    return at;
  };
  // A problem inside data.runtime, at its place in the input, or at data.runtime with its place
  // inside it said.
  auto keep = [&](Diagnostic d) {
    if (d.where.file == &inner_name && !block) {
      d.message += fmt::format(" (line {}, column {} of data.runtime)", d.where.line, d.where.column);
    }
    d.where = map(d.where);
    d.location.clear();
    d.source_line.clear();
    snapshot.unmarshal_errors.push_back(std::move(d));
  };
  ReadLimits limits;
  limits.max_values = values_left;
  limits.max_alias_nodes = std::min(limits.max_alias_nodes, values_left);
  std::vector<Tree> documents;
  try {
    documents = ReadYamlStream(value, &inner_name, limits);
  } catch (const Error& e) {
    for (Diagnostic d : e.diagnostics()) {
      if (d.message.ends_with("limit)")) {  // the budget is spent: no later snapshot may read on
        values_left = 0;
        d.message += "; the runtime snapshots of one input share one stream's limits";
      }
      keep(std::move(d));
    }
    return;
  }
  Tree document = documents.empty() ? Tree::Map(at) : std::move(documents.front());
  for (const Tree& d : documents) values_left -= std::min(values_left, CountValues(d));
  documents.clear();
  MapOrigins(document, map);
  if (!document.IsMap()) {
    keep(Diagnostic{.where = document.origin(),
                    .message = fmt::format("expected an object, got {}", Tree::DescribeType(document.type()))});
    return;
  }
  const TypeMeta tm = ReadTypeMeta(document);
  snapshot.runtime_group = std::string(ApiGroup(tm.api_version));
  snapshot.runtime_kind = tm.kind;
  const Tree* meta = document.Find("metadata");
  const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
  snapshot.runtime_name = name ? *name : std::string();
  // Decodes a document of data.runtime: what yaml.Unmarshal keeps of it, with CRD defaults. The
  // decoder requires a name; the controller reads none as "", and the reference check then refuses
  // the snapshot.
  auto decode = [&](Tree& doc) {
    ApplyDefaults(doc, DefaultRule::Scope::kRuntime);
    if (snapshot.runtime_name.empty()) {
      Tree& named = doc.Child("metadata", at);
      if (named.IsMap()) named.Set("name", Tree::String("-", at), at);
    }
    std::vector<Diagnostic> unknown_fields;  // dropped, as yaml.Unmarshal drops them
    return DecodeRuntimePruned(doc, unknown_fields);
  };
  try {
    snapshot.runtime = decode(document);
  } catch (const Error& e) {
    if (!block) {  // decoded again where positions are data.runtime's own, for the messages to say
      try {
        Tree again = ReadYamlStream(value, &inner_name, limits).front();
        decode(again);
      } catch (const Error& inner) {
        for (const Diagnostic& d : inner.diagnostics()) keep(d);
        return;
      }
    }
    for (const Diagnostic& d : e.diagnostics()) keep(d);
  }
}

// A `Torch`, `MPI`, ... policy: the keys Go's json.Marshal writes for the set fields.
void SetInt(Tree& map, std::string_view key, const std::optional<std::int32_t>& value) {
  if (value) map.Set(key, Tree::Int(*value));
}

Tree MLPolicyData(const MLPolicy& ml) {
  Tree out = Tree::Map();
  SetInt(out, "numNodes", ml.num_nodes);
  if (ml.torch) {
    Tree& torch = out.Set("torch", Tree::Map());
    if (ml.torch->env_injection_targets) {
      Tree& injection = torch.Set("envInjection", Tree::Map());
      if (!ml.torch->env_injection_targets->empty()) {
        Tree& targets = injection.Set("targets", Tree::List());
        for (const EnvInjectionTarget& t : *ml.torch->env_injection_targets) {
          Tree& target = targets.Append(Tree::Map());
          if (!t.job_name.empty()) target.Set("jobName", Tree::String(t.job_name));
          if (!t.container_names.empty()) {
            Tree& names = target.Set("containerNames", Tree::List());
            for (const std::string& n : t.container_names) names.Append(Tree::String(n));
          }
        }
      }
    }
  }
  if (ml.mpi) {
    Tree& mpi = out.Set("mpi", Tree::Map());
    SetInt(mpi, "numProcPerNode", ml.mpi->num_proc_per_node);
    if (ml.mpi->mpi_implementation) mpi.Set("mpiImplementation", Tree::String(*ml.mpi->mpi_implementation));
    if (ml.mpi->ssh_auth_mount_path) mpi.Set("sshAuthMountPath", Tree::String(*ml.mpi->ssh_auth_mount_path));
    if (ml.mpi->run_launcher_as_node) mpi.Set("runLauncherAsNode", Tree::Bool(*ml.mpi->run_launcher_as_node));
  }
  if (ml.flux) SetInt(out.Set("flux", Tree::Map()), "numProcPerNode", ml.flux->num_proc_per_node);
  if (ml.jax) out.Set("jax", Tree::Map());
  if (ml.xgboost) out.Set("xgboost", Tree::Map());
  return out;
}

Tree PodGroupPolicyData(const PodGroupPolicy& pg) {
  Tree out = Tree::Map();
  if (pg.coscheduling) {
    SetInt(out.Set("coscheduling", Tree::Map()), "scheduleTimeoutSeconds", pg.coscheduling->schedule_timeout_seconds);
  }
  if (pg.volcano) {
    Tree& volcano = out.Set("volcano", Tree::Map());
    if (const std::optional<NetworkTopology>& topology = pg.volcano->network_topology) {
      Tree& t = volcano.Set("networkTopology", Tree::Map());
      if (topology->mode && !topology->mode->empty()) t.Set("mode", Tree::String(*topology->mode));
      SetInt(t, "highestTierAllowed", topology->highest_tier_allowed);
    }
  }
  return out;
}

void SetStringMap(Tree& map, std::string_view key, const std::optional<StringMap>& value) {
  if (!value || value->empty()) return;  // omitempty
  Tree& out = map.Set(key, Tree::Map());
  for (const auto& [k, v] : *value) out.Set(k, Tree::String(v));
}

}  // namespace

InputLines::InputLines(std::string_view text) : text(text) {
  starts.push_back(0);
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
    if (i + 1 < text.size()) starts.push_back(i + 1);
  }
}

std::string RuntimeSnapshot::Subject() const { return Printable(fmt::format("ConfigMap {}/{}", namespace_, name)); }

bool IsRuntimeSnapshot(std::string_view api_version, std::string_view kind, std::string_view name) {
  return api_version == "v1" && kind == "ConfigMap" && name.size() > kRuntimeSnapshotSuffix.size() &&
         name.ends_with(kRuntimeSnapshotSuffix);
}

std::string RuntimeSnapshotName(const TrainJob& job) { return job.metadata.name + std::string(kRuntimeSnapshotSuffix); }

RuntimeSnapshot ReadRuntimeSnapshot(const Tree& document, const std::string& default_namespace, const InputLines* lines,
                                    std::size_t& values_left) {
  RuntimeSnapshot snapshot;
  snapshot.origin = snapshot.data_at = snapshot.runtime_at = snapshot.owner_at = document.origin();
  const Tree* meta = document.Find("metadata");
  if (meta && meta->IsMap()) {
    if (const std::string* name = meta->FindString("name")) snapshot.name = *name;
    const std::string* ns = meta->FindString("namespace");
    snapshot.namespace_ = ns && !ns->empty() ? *ns : default_namespace;
    if (const Tree* owners = meta->Find("ownerReferences"); owners && owners->IsList()) {
      snapshot.owner_at = owners->origin();
      // metav1.GetControllerOf: the first reference with controller: true.
      for (const Tree& owner : owners->items()) {
        const Tree* controller = owner.IsMap() ? owner.Find("controller") : nullptr;
        if (controller == nullptr || !controller->IsBool() || !controller->AsBool()) continue;
        const std::string* uid = owner.FindString("uid");
        snapshot.controller_uid = uid ? *uid : std::string();
        break;
      }
    }
  } else {
    snapshot.namespace_ = default_namespace;
  }
  const Tree* data = document.Find("data");
  const Tree* value = data && data->IsMap() ? data->Find(kRuntimeDataKey) : nullptr;
  if (data) snapshot.data_at = snapshot.runtime_at = data->origin();
  if (value) {
    snapshot.has_runtime = true;
    snapshot.runtime_at = value->origin();
    if (value->IsString() || value->IsNull()) {
      DecodeRuntimeData(value->IsNull() ? std::string() : value->text(), snapshot, lines, values_left);
    } else {  // as kubectl reads a ConfigMap's data: strings only
      snapshot.unmarshal_errors.push_back(
          Diagnostic{.where = value->origin(),
                     .message = fmt::format("expected a string, got {}", Tree::DescribeType(value->type()))});
    }
  }
  snapshot.document = document;
  return snapshot;
}

std::optional<Diagnostic> CheckRuntimeSnapshot(const TrainJob& job, const RuntimeSnapshot& snapshot) {
  const std::string subject = snapshot.Subject();
  if (!snapshot.controller_uid || job.metadata.uid.empty() || *snapshot.controller_uid != job.metadata.uid) {
    return Diagnostic{.where = snapshot.owner_at,
                      .subject = subject,
                      .field = "metadata.ownerReferences",
                      .message = std::string(kRefused) + "a snapshot configmap exists but is owned by another object"};
  }
  if (!snapshot.has_runtime) {
    return Diagnostic{
        .where = snapshot.data_at,
        .subject = subject,
        .field = "data",
        .message = fmt::format("{}snapshot ConfigMap missing {} data key", kRefused, GoQuote(kRuntimeDataKey))};
  }
  if (!snapshot.unmarshal_errors.empty()) {
    const Diagnostic& first = snapshot.unmarshal_errors.front();
    std::string inside = first.field.empty() ? first.message : fmt::format("{}: {}", first.field, first.message);
    return Diagnostic{.where = first.where,
                      .subject = subject,
                      .field = "data.runtime",
                      .message = fmt::format("{}unable to unmarshal the snapshot: {}", kRefused, inside)};
  }
  const RuntimeRef& ref = job.spec.runtime_ref;
  const bool kind_mismatch = ref.kind && snapshot.runtime_kind != *ref.kind;
  const bool group_mismatch = ref.api_group && snapshot.runtime_group != *ref.api_group;
  if (kind_mismatch || group_mismatch || snapshot.runtime_name != ref.name) {
    return Diagnostic{
        .where = snapshot.runtime_at,
        .subject = subject,
        .field = "data.runtime",
        .message = fmt::format("{}the snapshot refers to the wrong runtime: expecting a runtime with name, api "
                               "group and kind of {}, {}, {} but found runtime with name, api group and kind of "
                               "{}, {}, {}",
                               kRefused, GoQuote(ref.name), GoQuote(ref.api_group.value_or("<any>")),
                               GoQuote(ref.kind.value_or("<any>")), GoQuote(snapshot.runtime_name),
                               GoQuote(snapshot.runtime_group), GoQuote(snapshot.runtime_kind))};
  }
  return std::nullopt;
}

Tree RuntimeSnapshotData(const Runtime& runtime) {
  Tree out = Tree::Map();
  for (std::string_view key : {"apiVersion", "kind"}) {
    if (const Tree* v = runtime.source.Find(key); v && v->IsString() && !v->text().empty()) out.Set(key, *v);
  }
  // ObjectMeta: a struct, so always there.
  const Tree* source_meta = runtime.source.Find("metadata");
  Tree meta = source_meta && source_meta->IsMap() ? *source_meta : Tree::Map();
  std::vector<FieldIssue> issues;  // the loader has reported them
  RoundTrip(meta, "ObjectMeta", "metadata", issues);
  out.Set("metadata", std::move(meta));
  Tree spec = Tree::Map();
  if (runtime.spec.ml_policy) spec.Set("mlPolicy", MLPolicyData(*runtime.spec.ml_policy));
  if (runtime.spec.pod_group_policy) spec.Set("podGroupPolicy", PodGroupPolicyData(*runtime.spec.pod_group_policy));
  const JobSetTemplateSpec& t = runtime.spec.template_;
  // template and spec are omitzero: left out when nothing in them is set.
  const bool template_zero = !t.labels && !t.annotations && (!t.spec.IsMap() || t.spec.size() == 0);
  if (!template_zero) {
    Tree& tmpl = spec.Set("template", Tree::Map());
    Tree& tmeta = tmpl.Set("metadata", Tree::Map());
    SetStringMap(tmeta, "labels", t.labels);
    SetStringMap(tmeta, "annotations", t.annotations);
    tmpl.Set("spec", t.spec.IsMap() ? t.spec : Tree::Map());
  }
  if (spec.size() != 0) out.Set("spec", std::move(spec));
  return out;
}

Tree NewRuntimeSnapshot(const TrainJob& job, const Runtime& runtime) {
  Tree config_map = NewOwnedObject("v1", "ConfigMap", RuntimeSnapshotName(job), job, kBySnapshot);
  std::string text;
  WriteYaml(RuntimeSnapshotData(runtime), text);
  config_map.Child("data", kBySnapshot)
      .Set(kRuntimeDataKey, Tree::String(std::move(text), runtime.origin), kBySnapshot);
  return config_map;
}

}  // namespace trainer
