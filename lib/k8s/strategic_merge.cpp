#include "k8s/strategic_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace trainer {

namespace {

// Rows below a pod template; JobSetSpec rows put the pod template path in front.
constexpr std::array<MergeList, 13> kPodTemplateLists = {{
    {"metadata.finalizers", ""},
    {"spec.volumes", "name"},  // also retainKeys, which only acts on a $retainKeys directive
    {"spec.initContainers", "name"},
    {"spec.initContainers[].env", "name"},
    {"spec.initContainers[].volumeMounts", "mountPath"},
    {"spec.containers", "name"},
    {"spec.containers[].env", "name"},
    {"spec.containers[].volumeMounts", "mountPath"},
    {"spec.imagePullSecrets", "name"},
    {"spec.schedulingGates", "name"},
    // Reached only through items a patch adds whole, kept for completeness of the Container rows.
    {"spec.containers[].ports", "containerPort"},
    {"spec.initContainers[].ports", "containerPort"},
    {"spec.containers[].volumeDevices", "devicePath"},
}};

constexpr std::string_view kJobSetPodTemplate = "replicatedJobs[].template.spec.template.";

std::vector<MergeList> BuildJobSetSpecLists() {
  static std::vector<std::string> paths;  // owns the joined paths for the string_views below
  std::vector<MergeList> lists = {{"replicatedJobs", "name"}, {"replicatedJobs[].template.metadata.finalizers", ""}};
  paths.reserve(kPodTemplateLists.size());
  for (const MergeList& row : kPodTemplateLists) paths.push_back(fmt::format("{}{}", kJobSetPodTemplate, row.path));
  for (std::size_t i = 0; i < kPodTemplateLists.size(); ++i) lists.push_back({paths[i], kPodTemplateLists[i].merge_key});
  return lists;
}

bool SameScalar(const Tree& a, const Tree& b) { return a.IsScalar() && b.IsScalar() && a == b; }

// The merge key's value of a list item, or nullptr when the item has none.
const Tree* KeyOf(const Tree& item, std::string_view key) { return item.IsMap() ? item.Find(key) : nullptr; }

[[noreturn]] void NoMergeKey(const std::string& path, const Tree& item, std::string_view key) {
  throw StrategicMergeError(path, fmt::format("map: {} does not contain declared merge key: {}", GoValueString(item), key));
}

class Merger {
 public:
  explicit Merger(std::span<const MergeList> lists) : lists_(lists) {}

  void MergeMap(Tree& original, const Tree& patch, const std::string& schema_path, const std::string& path) {
    for (std::size_t i = 0; i < patch.size(); ++i) {
      const std::string& key = patch.KeyAt(i);
      const Tree& value = patch.items()[i];
      std::string child_schema = schema_path.empty() ? key : fmt::format("{}.{}", schema_path, key);
      std::string child_path = path.empty() ? key : fmt::format("{}.{}", path, key);  // in the patch
      if (value.IsNull()) {
        original.Erase(key);
        continue;
      }
      Tree* current = original.Find(key);
      if (current != nullptr && SameScalar(*current, value)) continue;  // unchanged: keeps its origin
      if (current == nullptr || current->type() != value.type() || current->IsScalar()) {
        original.Set(key, WithoutNulls(value), patch.KeyOriginAt(i));
      } else if (current->IsMap()) {
        MergeMap(*current, value, child_schema, child_path);
      } else if (const MergeList* rule = Rule(child_schema)) {
        MergeSlice(*current, value, *rule, child_schema, child_path);
      } else {
        *current = value;  // no merge strategy: the patch list replaces the original
      }
    }
  }

 private:
  const MergeList* Rule(std::string_view schema_path) const {
    for (const MergeList& row : lists_) {
      if (row.path == schema_path) return &row;
    }
    return nullptr;
  }

  // A value taken whole from the patch loses its nested null map entries, as
  // discardNullValuesFromPatch does.
  static Tree WithoutNulls(const Tree& value) {
    Tree out = value;
    DiscardNulls(out);
    return out;
  }
  static void DiscardNulls(Tree& value) {
    if (value.IsMap()) {
      for (std::size_t i = value.size(); i-- > 0;) {
        if (value.items()[i].IsNull()) {
          value.Erase(value.KeyAt(i));
        } else {
          DiscardNulls(value.items()[i]);
        }
      }
    } else if (value.IsList()) {
      for (Tree& item : value.items()) DiscardNulls(item);
    }
  }

  void MergeSlice(Tree& original, const Tree& patch, const MergeList& rule, const std::string& schema_path,
                  const std::string& path) {
    std::vector<Tree>& before = original.items();
    const std::vector<Tree>& patch_items = patch.items();
    if (before.empty() && patch_items.empty()) return;
    const bool maps = (before.empty() ? patch_items : before).front().IsMap();
    std::vector<Tree> merged;
    std::vector<Tree> in_patch;
    std::vector<Tree> server_only;
    if (!maps) {
      merged = before;
      merged.insert(merged.end(), patch_items.begin(), patch_items.end());
      DeduplicateScalars(merged);
      for (Tree& item : merged) {
        bool listed = std::any_of(patch_items.begin(), patch_items.end(), [&](const Tree& p) { return SameScalar(p, item); });
        (listed ? in_patch : server_only).push_back(std::move(item));
      }
    } else {
      merged = before;
      const std::string item_schema = schema_path + "[]";
      for (std::size_t p = 0; p < patch_items.size(); ++p) {
        const Tree& item = patch_items[p];
        const Tree* key = KeyOf(item, rule.merge_key);
        if (key == nullptr) NoMergeKey(fmt::format("{}[{}]", path, p), item, rule.merge_key);
        auto found = std::find_if(merged.begin(), merged.end(), [&](const Tree& m) {
          const Tree* k = KeyOf(m, rule.merge_key);
          return k && SameScalar(*k, *key);
        });
        if (found == merged.end()) {
          merged.push_back(item);
        } else {
          MergeMap(*found, item, item_schema, fmt::format("{}[{}]", path, p));
        }
      }
      for (std::size_t m = 0; m < merged.size(); ++m) {
        const Tree* key = KeyOf(merged[m], rule.merge_key);
        if (key == nullptr) NoMergeKey(path, merged[m], rule.merge_key);
        bool listed = std::any_of(patch_items.begin(), patch_items.end(), [&](const Tree& p) {
          const Tree* k = KeyOf(p, rule.merge_key);
          return k && SameScalar(*k, *key);
        });
        (listed ? in_patch : server_only).push_back(std::move(merged[m]));
      }
    }
    auto index_in = [&](const std::vector<Tree>& order, const Tree& item) -> std::optional<std::size_t> {
      const Tree* key = maps ? KeyOf(item, rule.merge_key) : &item;
      for (std::size_t i = 0; i < order.size(); ++i) {
        const Tree* k = maps ? KeyOf(order[i], rule.merge_key) : &order[i];
        if (key && k && SameScalar(*k, *key)) return i;
      }
      return std::nullopt;
    };
    auto sort_by = [&](std::vector<Tree>& items, const std::vector<Tree>& order) {
      std::stable_sort(items.begin(), items.end(), [&](const Tree& a, const Tree& b) {
        auto ia = index_in(order, a);
        auto ib = index_in(order, b);
        return ia && ib && *ia < *ib;
      });
    };
    sort_by(in_patch, patch_items);
    sort_by(server_only, before);
    // mergeSortedSlice: a server-only item goes first only when both it and the next patch item
    // stand in the original list and it stood before that item there.
    std::vector<Tree> result;
    result.reserve(in_patch.size() + server_only.size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < server_only.size() || j < in_patch.size()) {
      if (j >= in_patch.size()) {
        result.push_back(std::move(server_only[i++]));
      } else if (i >= server_only.size()) {
        result.push_back(std::move(in_patch[j++]));
      } else {
        auto li = index_in(before, server_only[i]);
        auto ri = index_in(before, in_patch[j]);
        if (li && ri && *li < *ri) {
          result.push_back(std::move(server_only[i++]));
        } else {
          result.push_back(std::move(in_patch[j++]));
        }
      }
    }
    before = std::move(result);
  }

  // deduplicateScalars: a later duplicate is overwritten by the current last item, and the list
  // shrinks by one; the order that leaves is upstream's.
  static void DeduplicateScalars(std::vector<Tree>& s) {
    if (s.empty()) return;
    std::size_t length = s.size() - 1;
    for (std::size_t i = 0; i < length; ++i) {
      for (std::size_t j = i + 1; j <= length; ++j) {
        if (SameScalar(s[i], s[j])) {
          s[j] = s[length];
          s.resize(length);
          --length;
          --j;
        }
      }
    }
  }

  std::span<const MergeList> lists_;
};

}  // namespace

std::span<const MergeList> JobSetSpecMergeLists() {
  static const std::vector<MergeList> kLists = BuildJobSetSpecLists();
  return kLists;
}

std::span<const MergeList> PodTemplateSpecMergeLists() { return kPodTemplateLists; }

void StrategicMerge(Tree& original, const Tree& patch, std::span<const MergeList> lists) {
  Merger(lists).MergeMap(original, patch, "", "");
}

std::string GoValueString(const Tree& value) {
  switch (value.type()) {
    case Tree::Type::kNull: return "<nil>";
    case Tree::Type::kMap: {
      std::vector<std::size_t> order(value.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return value.KeyAt(a) < value.KeyAt(b); });
      std::string out = "map[";
      for (std::size_t n = 0; n < order.size(); ++n) {
        if (n > 0) out += ' ';
        out += fmt::format("{}:{}", value.KeyAt(order[n]), GoValueString(value.items()[order[n]]));
      }
      return out + "]";
    }
    case Tree::Type::kList: {
      std::string out = "[";
      for (std::size_t n = 0; n < value.items().size(); ++n) {
        if (n > 0) out += ' ';
        out += GoValueString(value.items()[n]);
      }
      return out + "]";
    }
    default: return value.text();
  }
}

}  // namespace trainer
