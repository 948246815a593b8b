// Every JobSet we render satisfies the JobSet CRD schema (JobSet v0.12.0, in ../shared/upstream):
// the golden files and the quickstart example, checked by a small validator for the structural
// OpenAPI v3 subset that Kubernetes CRDs use. CEL rules (x-kubernetes-validations) are skipped.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "input/loader.h"
#include "render/render.h"
#include "tests/golden.h"
#include "tests/shared.h"
#include "yaml/reader.h"
#include "yaml/tree.h"

namespace trainer {

namespace {

// One problem of one value, as the API server would report it: a field path and a message.
struct SchemaViolation {
  std::string path;  // e.g. spec.replicatedJobs[0].name
  std::string message;
  Origin where;  // where the offending value was read from

  std::string Format() const { return path.empty() ? message : path + ": " + message; }
};

using SchemaViolations = std::vector<SchemaViolation>;

// Schema keywords the validator checks, and those it knowingly leaves alone.
const std::set<std::string, std::less<>> kCheckedKeywords = {"type",
                                                             "properties",
                                                             "additionalProperties",
                                                             "items",
                                                             "required",
                                                             "enum",
                                                             "format",
                                                             "minimum",
                                                             "maximum",
                                                             "minLength",
                                                             "maxLength",
                                                             "minItems",
                                                             "maxItems",
                                                             "nullable",
                                                             "anyOf",
                                                             "pattern",
                                                             "x-kubernetes-int-or-string",
                                                             "x-kubernetes-preserve-unknown-fields",
                                                             "x-kubernetes-list-type",
                                                             "x-kubernetes-list-map-keys"};
const std::set<std::string, std::less<>> kIgnoredKeywords = {"description", "default", "x-kubernetes-map-type",
                                                             "x-kubernetes-validations"};
// Formats the validator checks (integer ranges) or knowingly leaves unchecked (strings).
const std::set<std::string, std::less<>> kKnownFormats = {"int32", "int64", "date-time"};

std::string FieldPath(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}
std::string IndexPath(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }
std::string KeyPath(const std::string& path, std::string_view key) { return fmt::format("{}[{}]", path, key); }

bool Flag(const Tree& schema, std::string_view key) {
  const Tree* t = schema.Find(key);
  return t && t->IsBool() && t->AsBool();
}

// "string \"x\"", "integer 3", "object": a value as messages show it.
std::string Shown(const Tree& value) {
  switch (value.type()) {
    case Tree::Type::kString: return fmt::format("string \"{}\"", value.text());
    case Tree::Type::kInt:
    case Tree::Type::kFloat:
    case Tree::Type::kBool: return fmt::format("{} {}", Tree::TypeName(value.type()), value.text());
    default: return Tree::TypeName(value.type());
  }
}

bool HasType(const Tree& value, std::string_view type) {
  if (type == "object") return value.IsMap();
  if (type == "array") return value.IsList();
  if (type == "string") return value.IsString();
  if (type == "integer") return value.IsInt();
  if (type == "number") return value.IsInt() || value.IsFloat();
  if (type == "boolean") return value.IsBool();
  return false;
}

double NumberOf(const Tree& value) {
  return value.IsInt() ? static_cast<double>(value.AsInt()) : std::stod(value.text());
}

// Characters, as Kubernetes counts them (runes), of UTF-8 text.
std::size_t CharacterCount(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool MatchesPattern(const std::string& text, const std::string& pattern) {
  static std::map<std::string, std::regex> compiled;
  auto it = compiled.find(pattern);
  if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
  return std::regex_search(text, it->second);
}

class SchemaValidator {
 public:
  // Appends to `out` every violation of `value` (at `path`) against `schema`.
  static void Validate(const Tree& value, const Tree& schema, const std::string& path, SchemaViolations& out) {
    SchemaValidator v{out};
    v.Check(value, schema, path);
  }

 private:
  explicit SchemaValidator(SchemaViolations& out) : out_(out) {}

  void Add(const Tree& value, const std::string& path, std::string message) {
    out_.push_back(SchemaViolation{path, std::move(message), value.origin()});
  }

  void Check(const Tree& value, const Tree& schema, const std::string& path) {
    if (value.IsNull()) {
      if (!Flag(schema, "nullable")) Add(value, path, "must not be null (the schema does not say nullable)");
      return;
    }
    if (Flag(schema, "x-kubernetes-int-or-string")) {
      if (!value.IsInt() && !value.IsString()) {
        Add(value, path, fmt::format("must be an integer or a string, got {}", Shown(value)));
        return;
      }
    } else if (const std::string* type = schema.FindString("type")) {
      if (!HasType(value, *type)) {
        Add(value, path, fmt::format("must be of type {}, got {}", *type, Shown(value)));
        return;
      }
    }
    CheckEnum(value, schema, path);
    if (value.IsInt() || value.IsFloat()) CheckNumber(value, schema, path);
    if (value.IsString()) CheckString(value, schema, path);
    CheckAnyOf(value, schema, path);
    if (value.IsMap()) CheckObject(value, schema, path);
    if (value.IsList()) CheckArray(value, schema, path);
  }

  void CheckEnum(const Tree& value, const Tree& schema, const std::string& path) {
    const Tree* allowed = schema.Find("enum");
    if (!allowed || !allowed->IsList()) return;
    if (std::find(allowed->items().begin(), allowed->items().end(), value) != allowed->items().end()) return;
    std::vector<std::string> names;
    for (const Tree& a : allowed->items()) names.push_back(a.IsString() ? "\"" + a.text() + "\"" : a.text());
    Add(value, path, fmt::format("must be one of {}, got {}", fmt::join(names, ", "), Shown(value)));
  }

  void CheckNumber(const Tree& value, const Tree& schema, const std::string& path) {
    const std::string* format = schema.FindString("format");
    if (format && *format == "int32" && value.IsInt() &&
        (value.AsInt() < std::numeric_limits<std::int32_t>::min() ||
         value.AsInt() > std::numeric_limits<std::int32_t>::max())) {
      Add(value, path, fmt::format("{} does not fit format int32", value.AsInt()));
    }
    if (const Tree* minimum = schema.Find("minimum")) {
      bool exclusive = Flag(schema, "exclusiveMinimum");
      double n = NumberOf(value), m = NumberOf(*minimum);
      if (exclusive ? n <= m : n < m) {
        Add(value, path, fmt::format("must be {} {}, got {}", exclusive ? ">" : ">=", minimum->text(), value.text()));
      }
    }
    if (const Tree* maximum = schema.Find("maximum")) {
      bool exclusive = Flag(schema, "exclusiveMaximum");
      double n = NumberOf(value), m = NumberOf(*maximum);
      if (exclusive ? n >= m : n > m) {
        Add(value, path, fmt::format("must be {} {}, got {}", exclusive ? "<" : "<=", maximum->text(), value.text()));
      }
    }
  }

  void CheckString(const Tree& value, const Tree& schema, const std::string& path) {
    std::size_t length = CharacterCount(value.text());
    const Tree* min_length = schema.Find("minLength");
    if (min_length && min_length->IsInt() && static_cast<std::int64_t>(length) < min_length->AsInt()) {
      Add(value, path, fmt::format("must be at least {} characters long, got {}", min_length->AsInt(), length));
    }
    const Tree* max_length = schema.Find("maxLength");
    if (max_length && max_length->IsInt() && static_cast<std::int64_t>(length) > max_length->AsInt()) {
      Add(value, path, fmt::format("must be at most {} characters long, got {}", max_length->AsInt(), length));
    }
    const std::string* pattern = schema.FindString("pattern");
    if (pattern && !MatchesPattern(value.text(), *pattern)) {
      Add(value, path, fmt::format("{} does not match the pattern {}", Shown(value), *pattern));
    }
  }

  // Structural schemas use anyOf only for value checks (here: int-or-string's two branches).
  void CheckAnyOf(const Tree& value, const Tree& schema, const std::string& path) {
    const Tree* branches = schema.Find("anyOf");
    if (!branches || !branches->IsList() || branches->items().empty()) return;
    for (const Tree& branch : branches->items()) {
      SchemaViolations scratch;
      Validate(value, branch, path, scratch);
      if (scratch.empty()) return;
    }
    Add(value, path, fmt::format("{} matches none of the anyOf schemas", Shown(value)));
  }

  void CheckObject(const Tree& value, const Tree& schema, const std::string& path) {
    const Tree* properties = schema.Find("properties");
    const Tree* additional = schema.Find("additionalProperties");
    bool preserve = Flag(schema, "x-kubernetes-preserve-unknown-fields");
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string& key = value.KeyAt(i);
      const Tree& child = value.items()[i];
      if (const Tree* property = properties ? properties->Find(key) : nullptr) {
        Check(child, *property, FieldPath(path, key));
      } else if (additional && additional->IsMap()) {
        Check(child, *additional, KeyPath(path, key));
      } else if (!(additional && additional->IsBool() && additional->AsBool()) && !preserve) {
        out_.push_back(SchemaViolation{FieldPath(path, key), "unknown field", value.KeyOriginAt(i)});
      }
    }
    const Tree* required = schema.Find("required");
    if (!required || !required->IsList()) return;
    for (const Tree& name : required->items()) {
      if (value.Find(name.text())) continue;
      // The API server applies defaults before it validates.
      const Tree* property = properties ? properties->Find(name.text()) : nullptr;
      if (property && property->Find("default")) continue;
      Add(value, FieldPath(path, name.text()), "required field is missing");
    }
  }

  void CheckArray(const Tree& value, const Tree& schema, const std::string& path) {
    std::size_t count = value.items().size();
    const Tree* min_items = schema.Find("minItems");
    if (min_items && min_items->IsInt() && static_cast<std::int64_t>(count) < min_items->AsInt()) {
      Add(value, path, fmt::format("must have at least {} items, got {}", min_items->AsInt(), count));
    }
    const Tree* max_items = schema.Find("maxItems");
    if (max_items && max_items->IsInt() && static_cast<std::int64_t>(count) > max_items->AsInt()) {
      Add(value, path, fmt::format("must have at most {} items, got {}", max_items->AsInt(), count));
    }
    const Tree* items = schema.Find("items");
    if (items && items->IsMap()) {
      for (std::size_t i = 0; i < count; ++i) Check(value.items()[i], *items, IndexPath(path, i));
    }
    CheckListType(value, schema, items, path);
  }

  // x-kubernetes-list-type map and set: entries are unique by their keys, or by value.
  void CheckListType(const Tree& value, const Tree& schema, const Tree* items, const std::string& path) {
    const std::string* list_type = schema.FindString("x-kubernetes-list-type");
    if (!list_type) return;
    if (*list_type == "set") {
      for (std::size_t i = 0; i < value.items().size(); ++i) {
        const Tree& item = value.items()[i];
        if (std::find(value.items().begin(), value.items().begin() + static_cast<std::ptrdiff_t>(i), item) !=
            value.items().begin() + static_cast<std::ptrdiff_t>(i)) {
          Add(item, IndexPath(path, i), fmt::format("duplicate value {}", Shown(item)));
        }
      }
    } else if (*list_type == "map") {
      const Tree* map_keys = schema.Find("x-kubernetes-list-map-keys");
      const Tree* properties = items ? items->Find("properties") : nullptr;
      if (!map_keys || !map_keys->IsList()) return;
      std::set<std::string> seen;
      for (std::size_t i = 0; i < value.items().size(); ++i) {
        const Tree& item = value.items()[i];
        if (!item.IsMap()) continue;
        std::vector<std::string> parts;
        for (const Tree& key : map_keys->items()) {
          const Tree* part = item.Find(key.text());
          const Tree* property = properties ? properties->Find(key.text()) : nullptr;
          if (!part && property) part = property->Find("default");
          parts.push_back(fmt::format("{}={}", key.text(), part ? part->text() : "<unset>"));
        }
        std::string identity = fmt::format("{}", fmt::join(parts, ", "));
        if (!seen.insert(identity).second) Add(item, IndexPath(path, i), fmt::format("duplicate entry ({})", identity));
      }
    }
  }

  SchemaViolations& out_;
};

// The API server checks a custom resource's own metadata as ObjectMeta, not by the CRD schema (which
// says only `type: object`). This is a structural outline of ObjectMeta, written from the Kubernetes
// API, so that metadata is checked too.
constexpr std::string_view kObjectMetaSchema = R"(
type: object
properties:
  name: {type: string}
  generateName: {type: string}
  namespace: {type: string}
  selfLink: {type: string}
  uid: {type: string}
  resourceVersion: {type: string}
  generation: {type: integer, format: int64}
  creationTimestamp: {type: string, format: date-time, nullable: true}
  deletionTimestamp: {type: string, format: date-time}
  deletionGracePeriodSeconds: {type: integer, format: int64}
  labels: {type: object, additionalProperties: {type: string}}
  annotations: {type: object, additionalProperties: {type: string}}
  ownerReferences:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [uid]
    items:
      type: object
      required: [apiVersion, kind, name, uid]
      properties:
        apiVersion: {type: string}
        kind: {type: string}
        name: {type: string}
        uid: {type: string}
        controller: {type: boolean}
        blockOwnerDeletion: {type: boolean}
  finalizers: {type: array, items: {type: string}, x-kubernetes-list-type: set}
  managedFields: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";

const std::string kSchemaFile = "schema.yaml";
const std::string kValueFile = "value.yaml";

Tree ReadOne(std::string_view yaml, const std::string* file) {
  std::vector<Tree> docs = ReadYamlStream(yaml, file);
  REQUIRE(docs.size() == 1);
  return docs[0];
}

// The formatted violations of the `value` YAML against the `schema` YAML.
std::vector<std::string> Violations(std::string_view value, std::string_view schema) {
  SchemaViolations found;
  SchemaValidator::Validate(ReadOne(value, &kValueFile), ReadOne(schema, &kSchemaFile), "", found);
  std::vector<std::string> messages;
  for (const SchemaViolation& v : found) messages.push_back(v.Format());
  return messages;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << path.string());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// The openAPIV3Schema of JobSet v1alpha2, from the CRD, with root metadata checked as ObjectMeta.
Tree JobSetSchema(const std::string& upstream) {
  static const std::string crd_file = upstream + "/jobset/jobset.x-k8s.io_jobsets.yaml";
  static const std::string crd = ReadFile(crd_file);
  const Tree crd_tree = ReadOne(crd, &crd_file);
  const Tree* spec = crd_tree.Find("spec");
  const Tree* versions = spec ? spec->Find("versions") : nullptr;
  REQUIRE_MESSAGE(versions, crd_file << ": no spec.versions");
  for (const Tree& version : versions->items()) {
    const std::string* name = version.FindString("name");
    if (!name || *name != "v1alpha2") continue;
    const Tree* schema = version.Find("schema");
    const Tree* open_api = schema ? schema->Find("openAPIV3Schema") : nullptr;
    REQUIRE_MESSAGE(open_api, crd_file << ": v1alpha2 has no schema.openAPIV3Schema");
    Tree result = *open_api;
    result.Child("properties").Set("metadata", ReadOne(kObjectMetaSchema, &kSchemaFile));
    return result;
  }
  FAIL(crd_file << ": no version v1alpha2");
  return Tree();
}

// The JobSets of a stream: documents of kind JobSet, and the JobSets inside a kind List.
std::vector<const Tree*> JobSetsIn(const std::vector<Tree>& docs) {
  std::vector<const Tree*> job_sets;
  for (const Tree& doc : docs) {
    const std::string* kind = doc.FindString("kind");
    if (kind && *kind == "JobSet") job_sets.push_back(&doc);
    const Tree* items = doc.Find("items");
    if (kind && *kind == "List" && items) {
      for (const Tree& item : items->items()) {
        const std::string* item_kind = item.FindString("kind");
        if (item_kind && *item_kind == "JobSet") job_sets.push_back(&item);
      }
    }
  }
  return job_sets;
}

// Validates every JobSet of a YAML stream; returns how many there were, and appends each
// violation as "file:line:col: JobSet ns/name: path: message" to `report`.
std::size_t ValidateStream(const std::string& content, const std::string& file, const Tree& schema,
                           std::vector<std::string>& report) {
  std::vector<Tree> docs = ReadYamlStream(content, &file);
  std::vector<const Tree*> job_sets = JobSetsIn(docs);
  for (const Tree* job_set : job_sets) {
    const Tree* metadata = job_set->Find("metadata");
    const std::string* ns = metadata ? metadata->FindString("namespace") : nullptr;
    const std::string* name = metadata ? metadata->FindString("name") : nullptr;
    std::string subject = fmt::format("JobSet {}/{}", ns ? *ns : "?", name ? *name : "?");
    const std::string* api_version = job_set->FindString("apiVersion");
    if (!api_version || *api_version != "jobset.x-k8s.io/v1alpha2") {
      report.push_back(fmt::format("{}: {}: apiVersion: must be jobset.x-k8s.io/v1alpha2", file, subject));
    }
    SchemaViolations found;
    SchemaValidator::Validate(*job_set, schema, "", found);
    for (const SchemaViolation& v : found) {
      std::string where = v.where.Position();
      report.push_back(fmt::format("{}: {}: {}", where.empty() ? file : where, subject, v.Format()));
    }
  }
  return job_sets.size();
}

std::string Lines(const std::vector<std::string>& lines) { return fmt::format("{}", fmt::join(lines, "\n")); }

}  // namespace

TEST_CASE("the schema validator reports unknown fields with their path") {
  constexpr std::string_view schema = R"(
type: object
properties:
  spec:
    type: object
    properties:
      containers:
        type: array
        items: {type: object, properties: {name: {type: string}}}
)";
  CHECK(Violations("spec: {containers: [{name: a}, {name: b, foo: 1}]}", schema) ==
        std::vector<std::string>{"spec.containers[1].foo: unknown field"});
  CHECK(Violations("spec: {bar: x}\nbaz: true", schema) ==
        std::vector<std::string>{"spec.bar: unknown field", "baz: unknown field"});
}

TEST_CASE("the schema validator accepts any key under additionalProperties or preserve-unknown-fields") {
  constexpr std::string_view schema = R"(
type: object
properties:
  labels: {type: object, additionalProperties: {type: string}}
  free: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";
  CHECK(Violations("labels: {a: x, b: 'y'}\nfree: {anything: [1, 2]}", schema).empty());
  CHECK(Violations("labels: {a: x, b: 2}", schema) ==
        std::vector<std::string>{"labels[b]: must be of type string, got integer 2"});
}

TEST_CASE("the schema validator reports values of the wrong type") {
  constexpr std::string_view schema = R"(
type: object
properties:
  name: {type: string}
  replicas: {type: integer}
  weight: {type: number}
  suspend: {type: boolean}
  args: {type: array, items: {type: string}}
  template: {type: object}
)";
  CHECK(Violations("{name: x, replicas: 2, weight: 0.5, suspend: false, args: [a], template: {}}", schema).empty());
  CHECK(Violations("weight: 3", schema).empty());
  CHECK(Violations("{name: 1, replicas: '2', weight: x, suspend: 'yes', args: [a, 3], template: []}", schema) ==
        std::vector<std::string>{
            "name: must be of type string, got integer 1",
            "replicas: must be of type integer, got string \"2\"",
            "weight: must be of type number, got string \"x\"",
            "suspend: must be of type boolean, got string \"yes\"",
            "args[1]: must be of type string, got integer 3",
            "template: must be of type object, got array",
        });
}

TEST_CASE("the schema validator reports missing required fields, unless the schema defaults them") {
  constexpr std::string_view schema = R"(
type: object
required: [name, image]
properties:
  name: {type: string}
  image: {type: string}
  protocol: {type: string, default: TCP}
  ports:
    type: array
    items: {type: object, required: [containerPort, protocol], properties: {containerPort: {type: integer}, protocol: {type: string, default: TCP}}}
)";
  CHECK(Violations("{name: a, image: b, ports: [{containerPort: 80}]}", schema).empty());
  CHECK(
      Violations("{image: b, ports: [{protocol: UDP}]}", schema) ==
      std::vector<std::string>{"ports[0].containerPort: required field is missing", "name: required field is missing"});
}

TEST_CASE("the schema validator accepts an integer or a string where the schema says int-or-string") {
  constexpr std::string_view schema = R"(
type: object
properties:
  port:
    anyOf: [{type: integer}, {type: string}]
    x-kubernetes-int-or-string: true
  cpu:
    anyOf: [{type: integer}, {type: string}]
    pattern: ^[0-9]+m?$
    x-kubernetes-int-or-string: true
)";
  CHECK(Violations("{port: 8080, cpu: 2}", schema).empty());
  CHECK(Violations("{port: http, cpu: 500m}", schema).empty());
  CHECK(Violations("{port: true, cpu: [1]}", schema) ==
        std::vector<std::string>{"port: must be an integer or a string, got boolean true",
                                 "cpu: must be an integer or a string, got array"});
  CHECK(Violations("cpu: 1 core", schema) ==
        std::vector<std::string>{"cpu: string \"1 core\" does not match the pattern ^[0-9]+m?$"});
}

TEST_CASE("the schema validator checks enums, int32 ranges, bounds, lengths and item counts") {
  constexpr std::string_view schema = R"(
type: object
properties:
  policy: {type: string, enum: [Recreate, BlockingRecreate]}
  replicas: {type: integer, format: int32, minimum: 0}
  seconds: {type: integer, format: int64, maximum: 10}
  message: {type: string, minLength: 1, maxLength: 3}
  groups: {type: array, items: {type: string}, minItems: 1, maxItems: 2}
)";
  CHECK(
      Violations("{policy: Recreate, replicas: 2147483647, seconds: 10, message: aé, groups: [a, b]}", schema).empty());
  CHECK(Violations("{policy: Never, replicas: 2147483648, seconds: 11, message: abcd, groups: [a, b, c]}", schema) ==
        std::vector<std::string>{
            "policy: must be one of \"Recreate\", \"BlockingRecreate\", got string \"Never\"",
            "replicas: 2147483648 does not fit format int32",
            "seconds: must be <= 10, got 11",
            "message: must be at most 3 characters long, got 4",
            "groups: must have at most 2 items, got 3",
        });
  CHECK(Violations("{replicas: -1, message: '', groups: []}", schema) ==
        std::vector<std::string>{"replicas: must be >= 0, got -1", "message: must be at least 1 characters long, got 0",
                                 "groups: must have at least 1 items, got 0"});
}

TEST_CASE("the schema validator accepts null only where the schema is nullable") {
  constexpr std::string_view schema = R"(
type: object
properties:
  creationTimestamp: {type: string, nullable: true}
  name: {type: string}
)";
  CHECK(Violations("creationTimestamp: null", schema).empty());
  CHECK(Violations("name: null", schema) ==
        std::vector<std::string>{"name: must not be null (the schema does not say nullable)"});
}

TEST_CASE("the schema validator reports duplicate entries of map and set lists") {
  constexpr std::string_view schema = R"(
type: object
properties:
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [containerPort, protocol]
    items: {type: object, properties: {containerPort: {type: integer}, protocol: {type: string, default: TCP}}}
  finalizers: {type: array, items: {type: string}, x-kubernetes-list-type: set}
)";
  CHECK(Violations("{ports: [{containerPort: 80}, {containerPort: 80, protocol: UDP}], finalizers: [a, b]}", schema)
            .empty());
  CHECK(Violations("{ports: [{containerPort: 80}, {containerPort: 80, protocol: TCP}], finalizers: [a, a]}", schema) ==
        std::vector<std::string>{"ports[1]: duplicate entry (containerPort=80, protocol=TCP)",
                                 "finalizers[1]: duplicate value string \"a\""});
}

TEST_CASE("the JobSet CRD schema uses only keywords and formats the schema validator understands" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  Tree schema = JobSetSchema(upstream);
  std::vector<std::string> unknown;
  std::size_t schemas = 0;
  // Walks every schema node: properties, additionalProperties, items and anyOf branches.
  auto walk = [&](auto& self, const Tree& node, const std::string& path) -> void {
    ++schemas;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string& key = node.KeyAt(i);
      if (!kCheckedKeywords.count(key) && !kIgnoredKeywords.count(key)) unknown.push_back(FieldPath(path, key));
    }
    const std::string* format = node.FindString("format");
    if (format && !kKnownFormats.count(*format)) unknown.push_back(fmt::format("{}: format {}", path, *format));
    if (const Tree* properties = node.Find("properties")) {
      for (std::size_t i = 0; i < properties->size(); ++i) {
        self(self, properties->items()[i], FieldPath(path, properties->KeyAt(i)));
      }
    }
    const Tree* additional = node.Find("additionalProperties");
    if (additional && additional->IsMap()) self(self, *additional, path + "[*]");
    if (const Tree* items = node.Find("items")) self(self, *items, path + "[]");
    if (const Tree* branches = node.Find("anyOf")) {
      for (const Tree& branch : branches->items()) self(self, branch, path + "|anyOf");
    }
  };
  walk(walk, schema, "");
  CHECK(schemas > 1000);
  CHECK_MESSAGE(unknown.empty(), "schema keywords the validator does not know:\n" << Lines(unknown));
}

TEST_CASE("the JobSet CRD schema rejects an unknown container field, through the schema validator" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  constexpr std::string_view job_set = R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: job, namespace: default, labels: {app: x}}
spec:
  replicatedJobs:
  - name: node
    replicas: 1
    template:
      spec:
        template:
          spec:
            containers:
            - {name: node, image: busybox, foo: 1, ports: [{containerPort: http}]}
  suspend: maybe
)";
  Tree schema = JobSetSchema(upstream);
  SchemaViolations found;
  SchemaValidator::Validate(ReadOne(job_set, &kValueFile), schema, "", found);
  std::vector<std::string> messages;
  for (const SchemaViolation& v : found) messages.push_back(v.Format());
  CHECK(messages == std::vector<std::string>{
                        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo: unknown field",
                        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].ports[0].containerPort: "
                        "must be of type integer, got string \"http\"",
                        "spec.suspend: must be of type boolean, got string \"maybe\"",
                    });
}

TEST_CASE("every JobSet in the golden files satisfies the JobSet CRD schema" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  Tree schema = JobSetSchema(upstream);
  std::vector<std::filesystem::path> files;
  for (const auto& dir : testing::RenderCases(std::filesystem::path(TRAINER_SOURCE_DIR) / "tests" / "cases")) {
    for (const char* name : {"current.yaml", "legacy.yaml"}) {
      if (std::filesystem::is_regular_file(dir / name)) files.push_back(dir / name);
    }
  }
  REQUIRE(!files.empty());
  std::size_t job_sets = 0;
  for (const std::filesystem::path& path : files) {
    const std::string file = std::filesystem::relative(path, TRAINER_SOURCE_DIR).string();
    std::vector<std::string> report;
    job_sets += ValidateStream(ReadFile(path), file, schema, report);
    if (!report.empty()) FAIL_CHECK(file << ": " << report.size() << " schema violations:\n" << Lines(report));
  }
  MESSAGE(job_sets << " JobSets in " << files.size() << " golden files");
  REQUIRE(job_sets > 0);
}

TEST_CASE("the JobSets rendered from examples/quickstart.yaml satisfy the JobSet CRD schema" * doctest::test_suite("upstream")) {
  std::string upstream = testing::RequireSharedUpstreamDir();
  Tree schema = JobSetSchema(upstream);
  auto fs = NewRealFileSystem();
  std::size_t job_sets = 0;
  for (bool legacy : {false, true}) {
    CAPTURE(legacy);
    RenderRequest request;
    request.load.paths = {std::string(TRAINER_SOURCE_DIR) + "/examples/quickstart.yaml"};
    request.render.legacy_image = legacy;
    StringSink sink;
    RenderTo(request, *fs, sink);
    const std::string file = legacy ? "render --legacy examples/quickstart.yaml" : "render examples/quickstart.yaml";
    std::vector<std::string> report;
    job_sets += ValidateStream(sink.text(), file, schema, report);
    if (!report.empty()) FAIL_CHECK(file << ": " << report.size() << " schema violations:\n" << Lines(report));
  }
  REQUIRE(job_sets > 0);
}

}  // namespace trainer
