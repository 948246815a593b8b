#include "api/decode.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "api/releases.h"
#include "k8s/typed_roundtrip.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace trainer {

namespace {

std::string Path(const std::string& parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  std::string path;
  path.reserve(parent.size() + 1 + field.size());
  path.append(parent).append(1, '.').append(field);
  return path;
}

// "parent[key]": a map value's path, or a list item's with the index as key.
std::string Bracketed(const std::string& parent, std::string_view key) {
  std::string path;
  path.reserve(parent.size() + key.size() + 2);
  path.append(parent).append(1, '[').append(key).append(1, ']');
  return path;
}
std::string Bracketed(const std::string& parent, std::size_t index) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, index);
  return Bracketed(parent, std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

}  // namespace

void FieldPositions::Record(std::string_view path, const Origin& origin) {
  if (!entries_.empty() && PathOf(entries_.back()) == path) return;  // the value after its key
  entries_.push_back(Entry{static_cast<std::uint32_t>(text_.size()), static_cast<std::uint32_t>(path.size()), origin});
  text_.append(path);
  index_.clear();
}

const FieldPositions::Entry* FieldPositions::Lookup(std::string_view path) const {
  constexpr std::size_t kScanned = 64;  // fewer entries than this are scanned, not indexed
  if (entries_.size() < kScanned) {
    for (const Entry& e : entries_) {
      if (e.size == path.size() && PathOf(e) == path) return &e;
    }
    return nullptr;
  }
  auto path_of = [this](std::size_t i) { return PathOf(entries_[i]); };
  if (index_.empty()) index_.Build(entries_.size(), path_of);
  const std::size_t i = index_.Find(path, path_of);
  return i == KeyIndex::kAbsent ? nullptr : &entries_[i];
}

Origin FieldPositions::Find(std::string_view path) const {
  while (true) {
    if (const Entry* e = Lookup(path)) return e->origin;
    auto cut = path.find_last_of(".[");
    if (cut == std::string_view::npos) return {};
    path = path.substr(0, cut);
  }
}

namespace {

// How both the decoder and the typed round trip word an unknown field.
constexpr std::string_view kUnknownFieldPrefix = "unknown field \"";

// A field the schema does not know: the diagnostic's index among the errors, and the field's path
// from the document root, to prune it.
struct UnknownField {
  std::size_t error_index;
  std::string path;
};

// A field name as Object hands it to its visitor, which claims a field by comparing the name with
// the field's: `k == "image"`. With `known`, every name it is compared with is noted there.
class FieldKey {
 public:
  FieldKey(std::string_view text, std::vector<std::string_view>* known) : text_(text), known_(known) {}
  friend bool operator==(const FieldKey& key, std::string_view name) {
    if (key.known_ != nullptr) key.known_->push_back(name);
    return key.text_ == name;
  }

 private:
  std::string_view text_;
  std::vector<std::string_view>* known_;
};

class Decoder {
 public:
  Decoder(FieldPositions& positions, std::vector<Diagnostic>& errors, std::vector<UnknownField>& unknown)
      : positions_(positions), errors_(errors), unknown_(unknown) {}

  void Fail(const Tree& at, const std::string& path, std::string message) {
    errors_.push_back(
        Diagnostic{.where = at.origin(), .subject = subject_, .field = path, .message = std::move(message)});
  }
  void set_subject(std::string subject) { subject_ = std::move(subject); }
  void set_scope(SchemaScope scope) { scope_ = scope; }

  bool Expect(const Tree& t, const std::string& path, Tree::Type type) {
    positions_.Record(path, t.origin());
    if (t.type() == type) return true;
    std::string advice;
    if (type == Tree::Type::kString) {
      advice = QuoteAdvice(t);
    } else if (type == Tree::Type::kInt && t.IsString()) {  // a form an earlier Trainer release took?
      if (const ReleaseChange* change = FindStringForInteger(scope_, path, t.text())) {
        advice = StringForIntegerNote(*change, t.text());
      }
    }
    Fail(t, path, fmt::format("expected {}, got {}{}", Tree::DescribeType(type), Tree::DescribeType(t.type()), advice));
    return false;
  }

  void Read(const Tree& t, const std::string& path, std::string& out) {
    if (Expect(t, path, Tree::Type::kString)) out = t.text();
  }
  void Read(const Tree& t, const std::string& path, bool& out) {
    if (Expect(t, path, Tree::Type::kBool)) out = t.AsBool();
  }
  // An integer, or a number with an integral value: kubectl's YAML-to-JSON conversion writes 2.0
  // as 2, which Go decodes into an integer field.
  bool Integer(const Tree& t, const std::string& path, std::int64_t& out) {
    if (t.IsFloat()) {
      positions_.Record(path, t.origin());
      const std::string& text = t.text();
      char* end = nullptr;
      const double number = std::strtod(text.c_str(), &end);
      const bool parsed = end == text.c_str() + text.size() && std::isfinite(number);
      if (parsed && std::trunc(number) == number) {
        if (std::fabs(number) < 0x1p63) {
          out = static_cast<std::int64_t>(number);
          return true;
        }
        Fail(t, path, fmt::format("{} does not fit a 64-bit integer", text));
        return false;
      }
    }
    if (!Expect(t, path, Tree::Type::kInt)) return false;
    out = t.AsInt();
    return true;
  }
  void Read(const Tree& t, const std::string& path, std::int64_t& out) { Integer(t, path, out); }
  void Read(const Tree& t, const std::string& path, std::int32_t& out) {
    std::int64_t value = 0;
    if (!Integer(t, path, value)) return;
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max()) {
      Fail(t, path, fmt::format("{} does not fit a 32-bit integer", value));
      return;
    }
    out = static_cast<std::int32_t>(value);
  }
  void Read(const Tree& t, const std::string& path, StringMap& out) {
    if (!Expect(t, path, Tree::Type::kMap)) return;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const Tree& v = t.items()[i];
      std::string child = Bracketed(path, t.KeyAt(i));
      if (v.IsNull()) continue;
      std::string value;
      Read(v, child, value);
      out[t.KeyAt(i)] = value;
    }
  }
  template <class T>
  void Read(const Tree& t, const std::string& path, std::vector<T>& out) {
    if (!Expect(t, path, Tree::Type::kList)) return;
    for (std::size_t i = 0; i < t.items().size(); ++i) {
      T item{};
      Read(t.items()[i], Bracketed(path, i), item);
      out.push_back(std::move(item));
    }
  }
  template <class T>
  void Read(const Tree& t, const std::string& path, std::optional<T>& out) {
    if (t.IsNull()) {
      positions_.Record(path, t.origin());
      return;
    }
    T value{};
    Read(t, path, value);
    out = std::move(value);
  }

  // A Kubernetes core type kept as a Tree, checked and normalised by its round-trip table.
  void ReadCore(const Tree& t, const std::string& path, std::string_view type_name, Tree& out) {
    positions_.Record(path, t.origin());
    out = t;
    std::vector<FieldIssue> issues;
    RoundTrip(out, type_name, path, issues);
    for (auto& issue : issues) {
      if (issue.message.rfind(kUnknownFieldPrefix, 0) == 0) {
        unknown_.push_back(UnknownField{errors_.size(), issue.path});
        if (const ReleaseChange* change = FindRemovedField(scope_, issue.path)) {
          issue.message = RemovedFieldMessage(*change);
        }
      }
      errors_.push_back(Diagnostic{.where = issue.origin.HasPosition() ? issue.origin : t.origin(),
                                   .subject = subject_,
                                   .field = issue.path,
                                   .message = issue.message});
    }
  }
  void ReadCoreList(const Tree& t, const std::string& path, std::string_view type_name, std::vector<Tree>& out) {
    if (t.IsNull() || !Expect(t, path, Tree::Type::kList)) return;
    for (std::size_t i = 0; i < t.items().size(); ++i) {
      Tree item;
      ReadCore(t.items()[i], Bracketed(path, i), type_name, item);
      out.push_back(std::move(item));
    }
  }
  void ReadCoreOptional(const Tree& t, const std::string& path, std::string_view type_name, std::optional<Tree>& out) {
    if (t.IsNull()) return;
    Tree value;
    ReadCore(t, path, type_name, value);
    out = std::move(value);
  }

  // Walks the fields of a map, strictly: fields not claimed by `visit` are errors.
  // visit(key, value, field_path) says whether it knows the field.
  template <class Visit>
  void Object(const Tree& t, const std::string& path, const Visit& visit) {
    if (!Expect(t, path, Tree::Type::kMap)) return;
    for (std::size_t i = 0; i < t.size(); ++i) {
      std::string field_path = Path(path, t.KeyAt(i));
      positions_.Record(field_path, t.KeyOriginAt(i));
      if (!visit(FieldKey(t.KeyAt(i), nullptr), t.items()[i], field_path)) {
        unknown_.push_back(UnknownField{errors_.size(), field_path});
        if (const ReleaseChange* change = FindRemovedField(scope_, field_path)) {
          Fail(t.items()[i], path, RemovedFieldMessage(*change));
        } else {
          // A visitor that claims nothing does nothing: visiting again only notes the names it
          // compared the key with, which are the fields it accepts here.
          std::vector<std::string_view> known;
          visit(FieldKey(t.KeyAt(i), &known), t.items()[i], field_path);
          Fail(t.items()[i], path, UnknownFieldMessage(t.KeyAt(i), known));
        }
        errors_.back().where = t.KeyOriginAt(i);
      }
    }
  }

  // ---- Shared types ----

  // ObjectMeta; `embedded` keeps only the fields the CRDs allow in templates.
  void ReadMeta(const Tree& t, const std::string& path, ObjectMeta& m, bool embedded) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "name") return Read(v, p, m.name), true;
      if (k == "namespace") return Read(v, p, m.namespace_), true;
      if (k == "labels") return ReadOptionalMap(v, p, m.labels), true;
      if (k == "annotations") return ReadOptionalMap(v, p, m.annotations), true;
      if (k == "finalizers") return ReadNullable(v, p, m.finalizers), true;
      if (embedded) return false;
      if (k == "uid") return Read(v, p, m.uid), true;
      // Fields the server sets; accepted and not used.
      static constexpr std::string_view kServerFields[] = {
          "generateName", "selfLink", "resourceVersion", "generation", "creationTimestamp",
          "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "managedFields"};
      for (auto f : kServerFields) {
        if (k == f) return true;
      }
      return false;
    });
  }
  void ReadOptionalMap(const Tree& v, const std::string& p, std::optional<StringMap>& out) {
    if (v.IsNull()) return;
    StringMap m;
    Read(v, p, m);
    out = std::move(m);
  }
  template <class T>
  void ReadNullable(const Tree& v, const std::string& p, std::vector<T>& out) {
    if (!v.IsNull()) Read(v, p, out);
  }
  void Read(const Tree& t, const std::string& path, LocalObjectReference& r) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "name") return Read(v, p, r.name), true;
      return false;
    });
  }

  // ---- TrainJob ----

  void Read(const Tree& t, const std::string& path, RuntimeRef& r) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "name") return Read(v, p, r.name), true;
      if (k == "apiGroup") return Read(v, p, r.api_group), true;
      if (k == "kind") return Read(v, p, r.kind), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, InitializerSource& s) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "storageUri") return Read(v, p, s.storage_uri), true;
      if (k == "env") return ReadCoreList(v, p, "EnvVar", s.env), true;
      if (k == "secretRef") return Read(v, p, s.secret_ref), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, Initializer& i) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "dataset") return Read(v, p, i.dataset), true;
      if (k == "model") return Read(v, p, i.model), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, TrainerSpec& s) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "image") return Read(v, p, s.image), true;
      if (k == "command") return Read(v, p, s.command), true;
      if (k == "args") return Read(v, p, s.args), true;
      if (k == "env") return ReadCoreList(v, p, "EnvVar", s.env), true;
      if (k == "numNodes") return Read(v, p, s.num_nodes), true;
      if (k == "resourcesPerNode") return ReadCoreOptional(v, p, "ResourceRequirements", s.resources_per_node), true;
      if (k == "numProcPerNode") return Read(v, p, s.num_proc_per_node), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, ContainerPatch& c) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "name") return Read(v, p, c.name), true;
      if (k == "env") return ReadCoreList(v, p, "EnvVar", c.env), true;
      if (k == "volumeMounts") return ReadCoreList(v, p, "VolumeMount", c.volume_mounts), true;
      if (k == "securityContext") return ReadCoreOptional(v, p, "SecurityContext", c.security_context), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, PodSpecPatch& s) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "serviceAccountName") return Read(v, p, s.service_account_name), true;
      if (k == "volumes") return ReadCoreList(v, p, "Volume", s.volumes), true;
      if (k == "initContainers") return ReadNullable(v, p, s.init_containers), true;
      if (k == "containers") return ReadNullable(v, p, s.containers), true;
      if (k == "imagePullSecrets") return ReadNullable(v, p, s.image_pull_secrets), true;
      if (k == "securityContext") return ReadCoreOptional(v, p, "PodSecurityContext", s.security_context), true;
      if (k == "nodeSelector") return ReadOptionalMap(v, p, s.node_selector), true;
      if (k == "affinity") return ReadCoreOptional(v, p, "Affinity", s.affinity), true;
      if (k == "tolerations") return ReadCoreList(v, p, "Toleration", s.tolerations), true;
      if (k == "schedulingGates") {
        if (v.IsNull() || !Expect(v, p, Tree::Type::kList)) return true;
        for (std::size_t i = 0; i < v.items().size(); ++i) {
          LocalObjectReference gate;  // PodSchedulingGate has the same single field
          Read(v.items()[i], Bracketed(p, i), gate);
          s.scheduling_gates.push_back(gate.name);
        }
        return true;
      }
      if (k == "terminationGracePeriodSeconds") return Read(v, p, s.termination_grace_period_seconds), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, PodTemplatePatch& pt) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "metadata") return ReadEmbeddedMeta(v, p, pt.metadata), true;
      if (k == "spec") return Read(v, p, pt.spec), true;
      return false;
    });
  }
  void ReadEmbeddedMeta(const Tree& v, const std::string& p, std::optional<ObjectMeta>& out) {
    if (v.IsNull()) return;
    ObjectMeta m;
    ReadMeta(v, p, m, true);
    out = std::move(m);
  }
  void Read(const Tree& t, const std::string& path, ReplicatedJobPatch& r) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "name") return Read(v, p, r.name), true;
      if (k != "template") return false;
      if (v.IsNull()) return true;
      Object(v, p, [&](const FieldKey& k2, const Tree& v2, const std::string& p2) {
        if (k2 == "metadata") return ReadEmbeddedMeta(v2, p2, r.job_metadata), true;
        if (k2 != "spec") return false;
        if (v2.IsNull()) return true;
        Object(v2, p2, [&](const FieldKey& k3, const Tree& v3, const std::string& p3) {
          if (k3 == "template") return Read(v3, p3, r.pod_template), true;
          return false;
        });
        return true;
      });
      return true;
    });
  }
  void Read(const Tree& t, const std::string& path, RuntimePatch& r) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "manager") return Read(v, p, r.manager), true;
      if (k == "time") return Read(v, p, r.time), true;
      if (k != "trainingRuntimeSpec") return false;
      if (v.IsNull()) return true;
      Object(v, p, [&](const FieldKey& k2, const Tree& v2, const std::string& p2) {
        if (k2 != "template") return false;
        if (v2.IsNull()) return true;
        JobSetTemplatePatch patch;
        Object(v2, p2, [&](const FieldKey& k3, const Tree& v3, const std::string& p3) {
          if (k3 == "metadata") return ReadEmbeddedMeta(v3, p3, patch.metadata), true;
          if (k3 != "spec") return false;
          if (v3.IsNull()) return true;
          patch.spec_tree = v3;
          std::vector<ReplicatedJobPatch> jobs;
          Object(v3, p3, [&](const FieldKey& k4, const Tree& v4, const std::string& p4) {
            if (k4 == "replicatedJobs") return ReadNullable(v4, p4, jobs), true;
            return false;
          });
          patch.replicated_jobs = std::move(jobs);
          return true;
        });
        r.template_ = std::move(patch);
        return true;
      });
      return true;
    });
  }
  void Read(const Tree& t, const std::string& path, TrainJobSpec& s) {
    bool has_runtime_ref = false;
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "runtimeRef") return has_runtime_ref = !v.IsNull(), Read(v, p, s.runtime_ref), true;
      if (k == "initializer") return Read(v, p, s.initializer), true;
      if (k == "trainer") return Read(v, p, s.trainer), true;
      if (k == "runtimePatches") return ReadNullable(v, p, s.runtime_patches), true;
      if (k == "suspend") return Read(v, p, s.suspend), true;
      if (k == "activeDeadlineSeconds") return v.IsNull() || (Read(v, p, s.active_deadline_seconds), true);
      if (k == "managedBy") return Read(v, p, s.managed_by), true;
      return false;
    });
    if (!has_runtime_ref && t.IsMap()) Fail(t, Path(path, "runtimeRef"), "Required value");
    else if (has_runtime_ref && s.runtime_ref.name.empty()) {
      Fail(t, Path(path, "runtimeRef.name"), "Required value");
      errors_.back().where = positions_.Find(Path(path, "runtimeRef"));
    }
  }

  // ---- Runtimes ----

  void Read(const Tree& t, const std::string& path, EnvInjectionTarget& e) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "jobName") return Read(v, p, e.job_name), true;
      if (k == "containerNames") return ReadNullable(v, p, e.container_names), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, TorchPolicy& torch) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k != "envInjection") return false;
      if (v.IsNull()) return true;
      std::vector<EnvInjectionTarget> targets;
      Object(v, p, [&](const FieldKey& k2, const Tree& v2, const std::string& p2) {
        if (k2 == "targets") return ReadNullable(v2, p2, targets), true;
        return false;
      });
      torch.env_injection_targets = std::move(targets);
      return true;
    });
  }
  void Read(const Tree& t, const std::string& path, MPIPolicy& mpi) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "numProcPerNode") return Read(v, p, mpi.num_proc_per_node), true;
      if (k == "mpiImplementation") return Read(v, p, mpi.mpi_implementation), true;
      if (k == "sshAuthMountPath") return Read(v, p, mpi.ssh_auth_mount_path), true;
      if (k == "runLauncherAsNode") return Read(v, p, mpi.run_launcher_as_node), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, FluxPolicy& flux) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "numProcPerNode") return Read(v, p, flux.num_proc_per_node), true;
      return false;
    });
  }
  // JAX and XGBoost policies have no fields.
  void ReadEmptyPolicy(const Tree& t, const std::string& path, bool& present) {
    if (t.IsNull()) return;
    present = true;
    Object(t, path, [](const FieldKey&, const Tree&, const std::string&) { return false; });
  }
  void Read(const Tree& t, const std::string& path, MLPolicy& ml) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "numNodes") return Read(v, p, ml.num_nodes), true;
      if (k == "torch") return Read(v, p, ml.torch), true;
      if (k == "mpi") return Read(v, p, ml.mpi), true;
      if (k == "flux") return Read(v, p, ml.flux), true;
      if (k == "jax") return ReadEmptyPolicy(v, p, ml.jax), true;
      if (k == "xgboost") return ReadEmptyPolicy(v, p, ml.xgboost), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, NetworkTopology& n) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "mode") return Read(v, p, n.mode), true;
      if (k == "highestTierAllowed") return Read(v, p, n.highest_tier_allowed), true;
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, PodGroupPolicy& pg) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "coscheduling") {
        if (v.IsNull()) return true;
        CoschedulingPolicy c;
        Object(v, p, [&](const FieldKey& k2, const Tree& v2, const std::string& p2) {
          if (k2 == "scheduleTimeoutSeconds") return Read(v2, p2, c.schedule_timeout_seconds), true;
          return false;
        });
        pg.coscheduling = c;
        return true;
      }
      if (k == "volcano") {
        if (v.IsNull()) return true;
        VolcanoPolicy vp;
        Object(v, p, [&](const FieldKey& k2, const Tree& v2, const std::string& p2) {
          if (k2 == "networkTopology") return Read(v2, p2, vp.network_topology), true;
          return false;
        });
        pg.volcano = vp;
        return true;
      }
      return false;
    });
  }
  void Read(const Tree& t, const std::string& path, TrainingRuntimeSpec& s) {
    Object(t, path, [&](const FieldKey& k, const Tree& v, const std::string& p) {
      if (k == "mlPolicy") return Read(v, p, s.ml_policy), true;
      if (k == "podGroupPolicy") return Read(v, p, s.pod_group_policy), true;
      if (k != "template") return false;
      if (v.IsNull()) return true;
      Object(v, p, [&](const FieldKey& k2, const Tree& v2, const std::string& p2) {
        if (k2 == "metadata") {
          std::optional<ObjectMeta> meta;
          ReadEmbeddedMeta(v2, p2, meta);
          if (meta) {
            s.template_.labels = meta->labels;
            s.template_.annotations = meta->annotations;
          }
          return true;
        }
        if (k2 == "spec") {
          if (!v2.IsNull()) ReadCore(v2, p2, "JobSetSpec", s.template_.spec);
          return true;
        }
        return false;
      });
      return true;
    });
    if (!s.template_.spec.IsMap()) s.template_.spec = Tree::Map();
  }

 private:
  FieldPositions& positions_;
  std::vector<Diagnostic>& errors_;
  std::vector<UnknownField>& unknown_;
  std::string subject_;
  SchemaScope scope_ = SchemaScope::kTrainJob;  // which rows of the release table apply
};

// The state a TrainJob's status records, read as meta.IsStatusConditionTrue reads conditions: the
// first condition of a type decides, and only the status "True" counts. Anything malformed reads
// as absent.
TrainJobStatus ReadTrainJobStatus(const Tree& status) {
  TrainJobStatus out;
  if (!status.IsMap()) return out;
  if (const Tree* jobs = status.Find("jobsStatus"); jobs && jobs->IsList()) out.has_jobs_status = !jobs->items().empty();
  const Tree* conditions = status.Find("conditions");
  if (conditions == nullptr || !conditions->IsList()) return out;
  bool seen_complete = false, seen_failed = false, seen_suspended = false;
  for (const Tree& c : conditions->items()) {
    if (!c.IsMap()) continue;
    const std::string* type = c.FindString("type");
    const std::string* value = c.FindString("status");
    if (type == nullptr) continue;
    const bool is_true = value != nullptr && *value == "True";
    auto take = [&](std::string_view name, bool& seen, bool& flag) {
      if (*type != name || seen) return;
      seen = true;
      flag = is_true;
    };
    take("Complete", seen_complete, out.complete);
    take("Failed", seen_failed, out.failed);
    take("Suspended", seen_suspended, out.suspended);
  }
  return out;
}

// Decodes the top level shared by all three kinds: apiVersion, kind, metadata, spec, status. Every
// problem goes to `errors`, in document order; `unknown` says which of them are unknown fields.
template <class Object, class Spec>
void DecodeTopLevel(const Tree& document, Object& object, Spec& spec, const char* kind, std::vector<Diagnostic>& errors,
                    std::vector<UnknownField>& unknown) {
  Decoder d(object.positions, errors, unknown);
  object.origin = document.origin();
  d.set_subject(DocumentSubject(document, kind));
  d.set_scope(std::string_view(kind) == kTrainJobKind ? SchemaScope::kTrainJob : SchemaScope::kRuntime);
  bool has_metadata = false;
  bool has_spec = false;
  d.Object(document, "", [&](const FieldKey& k, const Tree& v, const std::string& p) {
    if (k == "apiVersion" || k == "kind") return true;
    if (k == "metadata") return has_metadata = true, d.ReadMeta(v, p, object.metadata, false), true;
    if (k == "spec") return has_spec = !v.IsNull(), d.Read(v, p, spec), true;
    if (k == "status") {  // written by the controller: read for the migration check, not checked
      if constexpr (std::is_same_v<Object, TrainJob>) object.status = ReadTrainJobStatus(v);
      return true;
    }
    return false;
  });
  if (!has_metadata || object.metadata.name.empty()) {
    const Tree* meta = document.IsMap() ? document.Find("metadata") : nullptr;
    const std::string* generate_name = meta && meta->IsMap() ? meta->FindString("generateName") : nullptr;
    if (generate_name && !generate_name->empty()) {
      d.Fail(document, "metadata.name",
             "Required value: the controller needs a name, and generateName is only turned into one by the API "
             "server on create (kubectl create); to render the file offline, give it a metadata.name");
      errors.back().where = object.positions.Find("metadata.generateName");
    } else {
      d.Fail(document, "metadata.name", "Required value");
    }
  }
  if (!has_spec && std::string_view(kind) == kTrainJobKind) d.Fail(document, "spec.runtimeRef", "Required value");
}

// Removes the field at `path` ("spec.trainer.foo", "spec.x[0].y", "a[key].b") below `node`. Keys may
// hold dots, so every key that fits the path is tried.
bool EraseAtPath(Tree& node, std::string_view path) {
  if (!path.empty() && path.front() == '.') path.remove_prefix(1);
  if (node.IsList()) {
    if (path.empty() || path.front() != '[') return false;
    std::size_t close = path.find(']');
    if (close == std::string_view::npos) return false;
    std::size_t index = 0;
    auto [end, ec] = std::from_chars(path.data() + 1, path.data() + close, index);
    if (ec != std::errc() || end != path.data() + close || index >= node.items().size()) return false;
    return EraseAtPath(node.items()[index], path.substr(close + 1));
  }
  if (!node.IsMap()) return false;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string& key = node.KeyAt(i);
    for (bool bracketed : {false, true}) {
      std::string form = bracketed ? "[" + key + "]" : key;
      if (path.substr(0, form.size()) != form) continue;
      std::string_view rest = path.substr(form.size());
      if (rest.empty()) {
        std::string erased = key;  // Erase shifts the keys
        return node.Erase(erased);
      }
      if ((rest.front() == '.' || rest.front() == '[') && EraseAtPath(node.items()[i], rest)) return true;
    }
  }
  return false;
}

template <class Object, class Spec>
Object DecodeStrict(const Tree& document, Object object, Spec Object::*spec, const char* kind) {
  std::vector<Diagnostic> errors;
  std::vector<UnknownField> unknown;
  DecodeTopLevel(document, object, object.*spec, kind, errors, unknown);
  if (!errors.empty()) throw Error(std::move(errors));
  return object;
}

// Decodes once to find the unknown fields, prunes them, and decodes the pruned document strictly.
template <class Decode>
auto DecodePruned(Tree& document, std::vector<Diagnostic>& unknown_fields, const char* kind, Decode decode) {
  decltype(decode(document)) probe;
  std::vector<Diagnostic> errors;
  std::vector<UnknownField> unknown;
  DecodeTopLevel(document, probe, probe.spec, kind, errors, unknown);
  for (const UnknownField& u : unknown) {
    unknown_fields.push_back(errors[u.error_index]);
    EraseAtPath(document, u.path);
  }
  return decode(document);
}

}  // namespace

TypeMeta ReadTypeMeta(const Tree& document) {
  TypeMeta tm;
  if (!document.IsMap()) return tm;
  if (const std::string* v = document.FindString("apiVersion")) tm.api_version = *v;
  if (const std::string* k = document.FindString("kind")) tm.kind = *k;
  return tm;
}

std::string DocumentSubject(const Tree& document, std::string_view kind) {
  const Tree* meta = document.IsMap() ? document.Find("metadata") : nullptr;
  const std::string* name = meta && meta->IsMap() ? meta->FindString("name") : nullptr;
  if (name == nullptr) return Printable(kind);
  const std::string* ns = meta->FindString("namespace");
  return Printable(ns && !ns->empty() ? fmt::format("{} {}/{}", kind, *ns, *name) : fmt::format("{} {}", kind, *name));
}

std::string Subject(const TrainJob& job) {
  return Printable(fmt::format("{} {}/{}", kTrainJobKind, job.metadata.namespace_, job.metadata.name));
}

std::string Subject(const Runtime& runtime) {
  if (runtime.kind == kClusterTrainingRuntimeKind || runtime.metadata.namespace_.empty()) {
    return Printable(fmt::format("{} {}", runtime.kind, runtime.metadata.name));
  }
  return Printable(fmt::format("{} {}/{}", runtime.kind, runtime.metadata.namespace_, runtime.metadata.name));
}

TrainJob DecodeTrainJob(const Tree& document) {
  return DecodeStrict(document, TrainJob{}, &TrainJob::spec, kTrainJobKind);
}

Runtime DecodeRuntime(const Tree& document) {
  std::string kind = ReadTypeMeta(document).kind;
  Runtime runtime;
  runtime.kind = kind;
  runtime.source = document;
  runtime = DecodeStrict(document, std::move(runtime), &Runtime::spec, kind.c_str());
  if (!runtime.spec.template_.spec.IsMap()) runtime.spec.template_.spec = Tree::Map();
  return runtime;
}

TrainJob DecodeTrainJobPruned(Tree& document, std::vector<Diagnostic>& unknown_fields) {
  return DecodePruned(document, unknown_fields, kTrainJobKind, [](const Tree& d) { return DecodeTrainJob(d); });
}

Runtime DecodeRuntimePruned(Tree& document, std::vector<Diagnostic>& unknown_fields) {
  std::string kind = ReadTypeMeta(document).kind;
  return DecodePruned(document, unknown_fields, kind.c_str(), [](const Tree& d) { return DecodeRuntime(d); });
}

}  // namespace trainer
