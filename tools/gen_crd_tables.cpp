// gen_crd_tables: writes lib/api/crd_tables.cpp, the two tables trainer reads the Trainer CRDs
// from: the schema rules CheckSchema checks (SchemaRule, api/schema.h) and the defaults
// ApplyDefaults sets (DefaultRule, api/defaults.h).
//
//   gen_crd_tables CRD_DIR [OUTPUT]
//
// CRD_DIR holds upstream Kubeflow Trainer's manifests/base/crds: trainer.kubeflow.org_trainjobs.yaml,
// _trainingruntimes.yaml and _clustertrainingruntimes.yaml. OUTPUT (standard output when absent)
// is written only when the generator succeeds. The output depends on the CRDs' content alone, byte for
// byte. `cmake --build build --target update-crd-tables` runs it on ../shared/upstream; the ctest
// test crd-tables checks that the committed file is what it writes.
//
// What the tables hold follows from the CRDs' openAPIV3Schema, walked in tree order (a schema's own
// constraints, then its properties in the CRD's order, then its items or additionalProperties,
// "[*]" in paths), with these rules of trainer's own:
//
//  1. Scopes. TrainJob rows come from the TrainJob CRD; runtime rows from the TrainingRuntime CRD.
//     The ClusterTrainingRuntime CRD must give the same rows (trainer checks both kinds alike):
//     the generator fails when it does not.
//  2. Left out of the schema rules: `status` at the root (the API server drops it on create),
//     transition rules (x-kubernetes-validations whose rule uses oldSelf: they need an update), and
//     the int32 and int64 formats (decoding checks integer widths). A constraint the checker has no
//     check for (maxProperties, multipleOf, another format, a constraint inside anyOf, ...) stops
//     the generator rather than being left out unnoticed.
//  3. Groups. Types the CRDs embed in many places (EnvVar, Container, Volume, ...) are written once,
//     as a group of rows with paths relative to the type, and used by path with a kUse row. kGroups
//     below names each group and the place in a CRD that defines it; any other schema whose rules
//     (its own and all those below it, as this list leaves them) are the group's becomes one kUse
//     row of the group. Rules, not text: EphemeralContainer has Container's rules and so uses
//     Container; the TrainJob's pod patch has a securityContext that differs from PodSpec's by a
//     transition rule only, and so uses PodSecurityContext. Groups are written in kGroups' order,
//     the two roots among them; every group must be used.
//  4. Order at one path: the constraints sorted by keyword (required, maxItems, x-kubernetes-list-type
//     as listMap or listSet, x-kubernetes-validations as rule, ...) and then argument. The keys of a
//     list-type map are sorted (the checker prints them as Go's encoding/json does, sorted).
//  5. Defaults: every `default:`, TrainJob rows then runtime rows, typed by the schema's `type`
//     (string, integer or boolean). A default ApplyDefaults cannot place (below additionalProperties,
//     or not a scalar) stops the generator.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

// Rule 3: the groups, in the table's order: name, the CRD that defines it, and where in that CRD.
struct Group {
  const char* name;
  const char* crd;   // "trainjobs" or "trainingruntimes"
  const char* path;  // "" for a CRD's root
};

// clang-format off
constexpr Group kGroups[] = {
    {"TrainJob", "trainjobs", ""},
    {"PodSpecPatch", "trainjobs", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec"},
    {"ContainerPatch", "trainjobs", "spec.runtimePatches[*].trainingRuntimeSpec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*]"},
    {"TrainingRuntime", "trainingruntimes", ""},
    {"PodSpec", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec"},
    {"Container", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*]"},
    {"EnvVar", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].env[*]"},
    {"ResourceRequirements", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].resources"},
    {"SecurityContext", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].securityContext"},
    {"PodSecurityContext", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.securityContext"},
    {"Affinity", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.affinity"},
    {"LabelSelector", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.selector"},
    {"Volume", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.volumes[*]"},
    {"PersistentVolumeClaimSpec", "trainingruntimes", "spec.template.spec.volumeClaimPolicies[*].templates[*].spec"},
    {"LifecycleHandler", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].lifecycle.postStart"},
    {"Probe", "trainingruntimes", "spec.template.spec.replicatedJobs[*].template.spec.template.spec.containers[*].livenessProbe"},
};
// clang-format on

[[noreturn]] void Fail(const std::string& message) { throw std::runtime_error(message); }

// ---- Paths ---------------------------------------------------------------------------------------

std::string JoinPath(const std::string& base, const std::string& rel) {
  if (base.empty()) return rel;
  if (rel.empty()) return base;
  return rel.front() == '[' ? base + rel : base + "." + rel;
}

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  std::string segment;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path.compare(i, 3, "[*]") == 0) {
      if (!segment.empty()) out.push_back(segment);
      segment.clear();
      out.emplace_back("[*]");
      i += 2;
    } else if (path[i] == '.') {
      if (!segment.empty()) out.push_back(segment);
      segment.clear();
    } else {
      segment.push_back(path[i]);
    }
  }
  if (!segment.empty()) out.push_back(segment);
  return out;
}

// Whether `node` is there and a map. (A const node's operator[] gives an invalid node for a key that
// is absent: false here, where IsMap() would throw.)
bool IsMap(const YAML::Node& node) { return node && node.IsMap(); }

// The schema of the values "[*]" stands for: a list's items, or a map's additionalProperties; a
// null node (not a map) when there is none.
YAML::Node ItemsOf(const YAML::Node& schema) {
  for (const char* key : {"items", "additionalProperties"}) {
    if (const YAML::Node items = schema[key]; IsMap(items)) return items;
  }
  return YAML::Node();
}

// (YAML::Node's operator= writes into the node it refers to; reset() makes it refer elsewhere.)
YAML::Node SchemaAt(const YAML::Node& root, const std::string& path) {
  YAML::Node schema = root;
  for (const std::string& segment : Segments(path)) {
    const YAML::Node next = segment == "[*]" ? ItemsOf(schema) : schema["properties"][segment];
    if (!IsMap(next)) Fail("no schema at " + path);
    schema.reset(next);
  }
  return schema;
}

// ---- Schema rules ------------------------------------------------------------------------------

// A row of the schema table, its check named by the CRD's keyword ("use" for kUse).
struct Row {
  std::string path;
  std::string keyword;
  std::string arg;
  std::string message;

  bool operator==(const Row&) const = default;
};

std::string Join(const YAML::Node& list, const char* separator, bool sorted = false) {
  std::vector<std::string> items;
  for (const YAML::Node& item : list) items.push_back(item.Scalar());
  if (sorted) std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// Keywords that constrain a value but have no check in api/schema.cpp (rule 2).
constexpr const char* kUnchecked[] = {"maxProperties", "exclusiveMinimum", "exclusiveMaximum",
                                      "multipleOf",    "uniqueItems",      "not"};

// The constraints of `schema` itself, sorted (rule 4).
std::vector<Row> OwnRows(const YAML::Node& schema, const std::string& where) {
  std::vector<Row> out;
  if (const YAML::Node required = schema["required"]) {
    for (const YAML::Node& field : required) out.push_back({"", "required", field.Scalar(), ""});
  }
  for (const char* keyword :
       {"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties"}) {
    if (const YAML::Node v = schema[keyword]) out.push_back({"", keyword, v.Scalar(), ""});
  }
  for (const char* keyword : kUnchecked) {
    if (schema[keyword]) Fail(where + ": " + keyword + " has no check in api/schema.cpp");
  }
  if (const YAML::Node e = schema["enum"]) out.push_back({"", "enum", Join(e, "|"), ""});
  if (const YAML::Node p = schema["pattern"]) out.push_back({"", "pattern", p.Scalar(), ""});
  if (const YAML::Node f = schema["format"]) {
    const std::string format = f.Scalar();
    if (format == "date-time") {
      out.push_back({"", "format", format, ""});
    } else if (format != "int32" && format != "int64") {
      Fail(where + ": format " + format + " has no check in api/schema.cpp");
    }
  }
  if (const YAML::Node rules = schema["x-kubernetes-validations"]) {
    for (const YAML::Node& r : rules) {
      const std::string rule = r["rule"].Scalar();
      if (rule.find("oldSelf") != std::string::npos) continue;
      if (r["messageExpression"] || r["fieldPath"] || r["reason"]) {
        Fail(where + ": the rule " + rule + " has a messageExpression, fieldPath or reason, which the checker lacks");
      }
      out.push_back({"", "rule", rule, r["message"] ? r["message"].Scalar() : ""});
    }
  }
  if (const YAML::Node type = schema["x-kubernetes-list-type"]) {
    if (type.Scalar() == "map") {
      out.push_back({"", "listMap", Join(schema["x-kubernetes-list-map-keys"], ",", true), ""});
    }
    if (type.Scalar() == "set") out.push_back({"", "listSet", "", ""});
  }
  for (const char* keyword : {"anyOf", "allOf", "oneOf"}) {
    for (const YAML::Node& branch : schema[keyword]) {
      for (const auto& entry : branch) {
        const std::string key = entry.first.Scalar();
        if (key != "type" && key != "description") {
          Fail(where + ": " + keyword + " holds " + key + ", which the checker lacks");
        }
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) {
    return std::tie(a.keyword, a.arg, a.message) < std::tie(b.keyword, b.arg, b.message);
  });
  return out;
}

// The rules of one schema: `flat` all of them, groups expanded (what the API server checks);
// `rows` as the table writes them, a kUse row in place of every schema that is a group's.
struct Rules {
  std::vector<Row> flat;
  std::vector<Row> rows;
};

struct GroupRules {
  std::string name;
  std::vector<Row> flat;
};

class SchemaTable {
 public:
  // The groups' flat rules are defined first (Walk's `flat` does not depend on them), then the
  // groups' rows walked with all of them known.
  void Define(const std::string& name, std::vector<Row> flat) {
    if (flat.empty()) Fail("the group " + name + " has no rules");
    for (const GroupRules& g : groups_) {
      if (g.flat == flat) Fail("the groups " + g.name + " and " + name + " have the same rules");
    }
    groups_.push_back({name, std::move(flat)});
  }

  Rules Walk(const YAML::Node& schema, const std::string& where, bool root) {
    Rules out;
    out.flat = OwnRows(schema, where);
    out.rows = out.flat;
    auto add = [&](const std::string& step, const YAML::Node& child) {
      Rules c = Walk(child, JoinPath(where, step), false);
      for (const Row& r : c.flat) out.flat.push_back({JoinPath(step, r.path), r.keyword, r.arg, r.message});
      if (const GroupRules* g = GroupOf(c.flat)) {
        out.rows.push_back({step, "use", g->name, ""});
        return;
      }
      for (const Row& r : c.rows) out.rows.push_back({JoinPath(step, r.path), r.keyword, r.arg, r.message});
    };
    if (const YAML::Node props = schema["properties"]) {
      for (const auto& prop : props) {
        const std::string name = prop.first.Scalar();
        if (root && name == "status") continue;  // rule 2
        add(name, prop.second);
      }
    }
    if (const YAML::Node items = ItemsOf(schema); IsMap(items)) add("[*]", items);
    return out;
  }

 private:
  const GroupRules* GroupOf(const std::vector<Row>& flat) const {
    if (flat.empty()) return nullptr;
    for (const GroupRules& g : groups_) {
      if (g.flat == flat) return &g;
    }
    return nullptr;
  }

  std::vector<GroupRules> groups_;
};

// ---- Defaults ----------------------------------------------------------------------------------

struct Default {
  std::string path;
  const char* type;  // Tree::Type's enumerator
  std::string value;

  bool operator==(const Default&) const = default;
};

void CollectDefaults(const YAML::Node& schema, const std::string& path, bool below_map, std::vector<Default>& out) {
  if (const YAML::Node d = schema["default"]) {
    if (below_map) Fail(path + ": a default below additionalProperties, which ApplyDefaults cannot place");
    if (!d.IsScalar()) Fail(path + ": a default that is not a scalar");
    const std::string type = schema["type"] ? schema["type"].Scalar() : "";
    const std::string value = d.Scalar();
    if (type == "string") {
      out.push_back({path, "kString", value});
    } else if (type == "boolean" && (value == "true" || value == "false")) {
      out.push_back({path, "kBool", value});
    } else if (type == "integer" && !value.empty() &&
               value.find_first_not_of("0123456789", value[0] == '-' ? 1 : 0) == std::string::npos) {
      out.push_back({path, "kInt", value});
    } else {
      Fail(path + ": a default of type " + type + " (" + value + "), which ApplyDefaults cannot set");
    }
  }
  if (const YAML::Node props = schema["properties"]) {
    for (const auto& prop : props) CollectDefaults(prop.second, JoinPath(path, prop.first.Scalar()), below_map, out);
  }
  if (const YAML::Node items = schema["items"]; IsMap(items)) CollectDefaults(items, path + "[*]", below_map, out);
  if (const YAML::Node more = schema["additionalProperties"]; IsMap(more)) {
    CollectDefaults(more, path + "[*]", true, out);
  }
}

// ---- Output ------------------------------------------------------------------------------------

// A C++ string literal of `s`.
std::string Literal(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char octal[8];
          std::snprintf(octal, sizeof octal, "\\%03o", c);
          out += octal;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

std::string CheckOf(const std::string& keyword) {
  static const std::pair<const char*, const char*> kChecks[] = {
      {"required", "kRequired"},
      {"minimum", "kMinimum"},
      {"maximum", "kMaximum"},
      {"minLength", "kMinLength"},
      {"maxLength", "kMaxLength"},
      {"minItems", "kMinItems"},
      {"maxItems", "kMaxItems"},
      {"minProperties", "kMinProperties"},
      {"enum", "kEnum"},
      {"pattern", "kPattern"},
      {"format", "kFormat"},
      {"listMap", "kListMap"},
      {"listSet", "kListSet"},
      {"rule", "kRule"},
      {"use", "kUse"},
  };
  for (const auto& [name, check] : kChecks) {
    if (keyword == name) return std::string("Check::") + check;
  }
  Fail("no check for " + keyword);
}

constexpr const char* kFiles[] = {"trainjobs", "trainingruntimes", "clustertrainingruntimes"};

std::string FileName(const std::string& crd) { return "trainer.kubeflow.org_" + crd + ".yaml"; }

YAML::Node LoadSchema(const std::string& dir, const std::string& crd) {
  const std::string file = dir + "/" + FileName(crd);
  std::ifstream in(file);
  if (!in) Fail("cannot read " + file);
  const YAML::Node doc = [&] {
    try {
      return YAML::Load(in);
    } catch (const YAML::Exception& e) {
      Fail(file + ": " + e.what());
    }
  }();
  const YAML::Node versions = doc["spec"]["versions"];
  if (!versions || versions.size() != 1) Fail(file + ": not one version (the tables hold one)");
  const YAML::Node schema = versions[0]["schema"]["openAPIV3Schema"];
  if (!IsMap(schema)) Fail(file + ": no openAPIV3Schema");
  return schema;
}

std::string Generate(const std::string& dir) {
  std::vector<YAML::Node> schemas;
  for (const char* crd : kFiles) schemas.push_back(LoadSchema(dir, crd));
  auto schema_of = [&](const std::string& crd) { return crd == "trainjobs" ? schemas[0] : schemas[1]; };

  // Schema rules (rules 1 to 4).
  SchemaTable table;
  for (const Group& g : kGroups) {
    if (*g.path != '\0') table.Define(g.name, table.Walk(SchemaAt(schema_of(g.crd), g.path), g.path, false).flat);
  }
  std::vector<std::pair<std::string, std::vector<Row>>> groups;
  for (const Group& g : kGroups) {
    const bool root = *g.path == '\0';
    groups.emplace_back(g.name, table.Walk(SchemaAt(schema_of(g.crd), g.path), g.path, root).rows);
  }
  if (table.Walk(schemas[2], "", true).flat != table.Walk(schemas[1], "", true).flat) {
    Fail("the ClusterTrainingRuntime and TrainingRuntime CRDs differ in their rules");
  }
  for (const Group& g : kGroups) {
    if (*g.path == '\0') continue;
    const bool used = std::any_of(groups.begin(), groups.end(), [&](const auto& group) {
      return std::any_of(group.second.begin(), group.second.end(),
                         [&](const Row& r) { return r.keyword == "use" && r.arg == g.name; });
    });
    if (!used) Fail(std::string("the group ") + g.name + " is used nowhere");
  }

  // Defaults (rules 1 and 5).
  std::vector<Default> job_defaults, runtime_defaults, cluster_defaults;
  CollectDefaults(schemas[0], "", false, job_defaults);
  CollectDefaults(schemas[1], "", false, runtime_defaults);
  CollectDefaults(schemas[2], "", false, cluster_defaults);
  if (cluster_defaults != runtime_defaults) {
    Fail("the ClusterTrainingRuntime and TrainingRuntime CRDs differ in their defaults");
  }

  std::ostringstream out;
  out << "// Generated by tools/gen_crd_tables.cpp, whose top lists the rules it follows, from upstream\n"
         "// Kubeflow Trainer's CRDs (manifests/base/crds):\n";
  for (const char* crd : kFiles) out << "//   " << FileName(crd) << "\n";
  out << "// Do not edit: regenerate, with ../shared beside the checkout, by\n"
         "//   cmake --build build --target update-crd-tables\n"
         "// which runs build/tools/gen_crd_tables ../shared/upstream/manifests/base/crds lib/api/crd_tables.cpp.\n"
         "// ctest's crd-tables test fails while this file differs from what the generator writes.\n"
         "#include <span>\n"
         "\n"
         "#include \"api/defaults.h\"\n"
         "#include \"api/schema.h\"\n"
         "\n"
         "namespace trainer {\n"
         "\n"
         "namespace {\n"
         "\n"
         "using Check = SchemaRule::Check;\n"
         "using Scope = DefaultRule::Scope;\n"
         "\n"
         "// clang-format off\n"
         "constexpr SchemaRule kSchemaRules[] = {\n";
  for (const auto& [name, rows] : groups) {
    out << "    // " << name << "\n";
    for (const Row& r : rows) {
      out << "    {" << Literal(name) << ", " << Literal(r.path) << ", " << CheckOf(r.keyword) << ", "
          << Literal(r.arg);
      if (!r.message.empty()) out << ", " << Literal(r.message);
      out << "},\n";
    }
  }
  out << "};\n"
         "\n"
         "constexpr DefaultRule kDefaultRules[] = {\n";
  for (const auto& [scope, defaults] :
       {std::pair{"kTrainJob", &job_defaults}, std::pair{"kRuntime", &runtime_defaults}}) {
    for (const Default& d : *defaults) {
      out << "    {Scope::" << scope << ", " << Literal(d.path) << ", Tree::Type::" << d.type << ", "
          << Literal(d.value) << "},\n";
    }
  }
  out << "};\n"
         "// clang-format on\n"
         "\n"
         "}  // namespace\n"
         "\n"
         "std::span<const SchemaRule> SchemaRules() { return kSchemaRules; }\n"
         "\n"
         "std::span<const DefaultRule> DefaultRules() { return kDefaultRules; }\n"
         "\n"
         "}  // namespace trainer\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: gen_crd_tables CRD_DIR [OUTPUT]\n";
    return 2;
  }
  std::string text;
  try {
    text = Generate(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "gen_crd_tables: " << e.what() << '\n';
    return 1;
  }
  if (argc == 2) {
    std::cout << text;
    return std::cout.flush() ? 0 : 1;
  }
  std::ofstream file(argv[2], std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    std::cerr << "gen_crd_tables: cannot write " << argv[2] << '\n';
    return 1;
  }
  return 0;
}
