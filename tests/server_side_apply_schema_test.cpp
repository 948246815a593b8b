// The JobSet rules of server_side_apply.cpp are the CRD's (JobSet v0.12.0, in ../shared/upstream):
// every x-kubernetes-list-type other than atomic with its map keys and their defaults, and every
// x-kubernetes-map-type: atomic, at the same paths.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "k8s/server_side_apply.h"
#include "tests/shared.h"

namespace trainer {

namespace {

std::string Row(const ApplyRule& rule) {
  std::string out = rule.path;
  out += rule.kind == ApplyKind::kAtomicMap ? " atomic map" : rule.kind == ApplyKind::kSetList ? " set" : " map";
  for (const ListKey& key : rule.keys) out += " " + key.name + (key.default_value ? "=" + *key.default_value : "");
  return out;
}

void Collect(const Tree& schema, const std::string& path, std::vector<std::string>& rows) {
  const std::string* list_type = schema.FindString("x-kubernetes-list-type");
  const std::string* map_type = schema.FindString("x-kubernetes-map-type");
  if (map_type && *map_type == "atomic") rows.push_back(Row({path, ApplyKind::kAtomicMap, {}}));
  if (list_type && *list_type == "set") rows.push_back(Row({path, ApplyKind::kSetList, {}}));
  if (list_type && *list_type == "map") {
    ApplyRule rule{path, ApplyKind::kMapList, {}};
    for (const Tree& name : schema.Find("x-kubernetes-list-map-keys")->items()) {
      const Tree* field = schema.Find("items")->Find("properties")->Find(name.text());
      const Tree* fallback = field->Find("default");
      REQUIRE((fallback == nullptr || fallback->IsString()));
      rule.keys.push_back({name.text(), fallback ? std::optional(fallback->text()) : std::nullopt});
    }
    rows.push_back(Row(rule));
  }
  if (const Tree* items = schema.Find("items")) Collect(*items, path + "[]", rows);
  if (const Tree* properties = schema.Find("properties")) {
    for (std::size_t i = 0; i < properties->size(); ++i) {
      const std::string& key = properties->KeyAt(i);
      Collect(properties->items()[i], path.empty() ? key : path + "." + key, rows);
    }
  }
  const Tree* values = schema.Find("additionalProperties");
  REQUIRE_MESSAGE((values == nullptr || !values->IsMap() || values->Find("properties") == nullptr),
                  path);  // a rule below a map of any keys would need a wildcard in the table
}

std::string Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const std::string& row : rows) out += row + "\n";
  return out;
}

}  // namespace

TEST_CASE("the server-side apply rules of a JobSet are those the JobSet CRD declares" *
          doctest::test_suite("upstream")) {
  const std::string upstream = testing::RequireSharedUpstreamDir();
  const std::string file = upstream + "/jobset/jobset.x-k8s.io_jobsets.yaml";
  const Tree schema = testing::CrdSchema(file);
  std::vector<std::string> from_crd;
  Collect(schema, "", from_crd);

  std::span<const ApplyRule> rules = JobSetApplyRules();
  REQUIRE(rules.size() > kObjectMetaApplyRules);
  std::vector<std::string> from_table;
  for (const ApplyRule& rule : rules.first(rules.size() - kObjectMetaApplyRules)) from_table.push_back(Row(rule));
  CHECK(Sorted(from_table) == Sorted(from_crd));

  // The root metadata is ObjectMeta's: the CRD leaves it a bare object, and the table's last rows
  // are ObjectMeta's rules.
  CHECK(schema.Find("properties")->Find("metadata")->Find("properties") == nullptr);
  for (const ApplyRule& rule : rules.last(kObjectMetaApplyRules)) CHECK(rule.path.starts_with("metadata."));
}

}  // namespace trainer
