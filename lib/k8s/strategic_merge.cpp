#include "k8s/strategic_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "k8s/value_key.h"

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

// The key a list item matches on; none for an item that matches nothing.
using Key = std::optional<std::string>;
// The first position of each key in a list, viewing the keys' strings.
using Positions = std::unordered_map<std::string_view, std::size_t>;

class Merger {
 public:
  explicit Merger(std::span<const MergeList> lists) : lists_(lists) {}

  void MergeMap(Tree& original, const Tree& patch, const std::string& schema_path, const std::string& path) {
    std::unordered_set<std::string_view> deleted;  // the patch's keys are unique: deleting waits
    for (std::size_t i = 0; i < patch.size(); ++i) {
      const std::string& key = patch.KeyAt(i);
      const Tree& value = patch.items()[i];
      std::string child_schema = schema_path.empty() ? key : fmt::format("{}.{}", schema_path, key);
      std::string child_path = path.empty() ? key : fmt::format("{}.{}", path, key);  // in the patch
      if (value.IsNull()) {
        deleted.insert(key);
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
    if (!deleted.empty()) EraseKeys(original, [&](std::size_t i) { return deleted.contains(original.KeyAt(i)); });
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
      EraseKeys(value, [&](std::size_t i) { return value.items()[i].IsNull(); });
      for (Tree& item : value.items()) DiscardNulls(item);
    } else if (value.IsList()) {
      for (Tree& item : value.items()) DiscardNulls(item);
    }
  }

  // Removes the entries of a map that `erased(i)` picks, in one pass (erasing them one by one costs
  // the map's size each).
  template <class Erased>
  static void EraseKeys(Tree& map, Erased erased) {
    std::vector<bool> gone(map.size());
    bool any = false;
    for (std::size_t i = 0; i < map.size(); ++i) any = (gone[i] = erased(i)) || any;
    if (!any) return;
    std::vector<Tree::MapKey> keys;
    std::vector<Tree> items;
    for (std::size_t i = 0; i < map.size(); ++i) {
      if (gone[i]) continue;
      keys.push_back(Tree::MapKey{map.KeyAt(i), map.KeyOriginAt(i)});
      items.push_back(std::move(map.items()[i]));
    }
    map.AdoptEntries(std::move(keys), std::move(items));
  }

  void MergeSlice(Tree& original, const Tree& patch, const MergeList& rule, const std::string& schema_path,
                  const std::string& path) {
    std::vector<Tree>& before = original.items();
    const std::vector<Tree>& patch_items = patch.items();
    if (before.empty() && patch_items.empty()) return;
    const bool maps = (before.empty() ? patch_items : before).front().IsMap();
    // Items match on their merge key's value (maps) or on themselves (scalars), and only when that
    // is a scalar. Each item's key is computed once; positions are looked up by key (the first
    // item holding it), not by scanning.
    auto key_of = [&](const Tree& item) -> Key {
      const Tree* k = maps ? KeyOf(item, rule.merge_key) : &item;
      if (k == nullptr || !k->IsScalar()) return std::nullopt;
      return ValueKey(*k);
    };
    auto keys_of = [&](const std::vector<Tree>& items, std::size_t room) {
      std::vector<Key> keys;
      keys.reserve(room);  // never reallocated: the positions below view its strings
      for (const Tree& item : items) keys.push_back(key_of(item));
      return keys;
    };
    auto first_positions = [](const std::vector<Key>& keys) {
      Positions first;
      first.reserve(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i]) first.emplace(*keys[i], i);
      }
      return first;
    };
    auto find = [](const Positions& positions, const Key& key) -> std::optional<std::size_t> {
      auto it = key ? positions.find(*key) : positions.end();
      return it == positions.end() ? std::nullopt : std::optional<std::size_t>(it->second);
    };
    const std::vector<Key> patch_keys = keys_of(patch_items, patch_items.size());
    const Positions in_patch_at = first_positions(patch_keys);

    std::vector<Tree> merged;
    std::vector<Key> keys;         // of `merged`
    std::vector<Key> before_keys;  // of the original list, when `keys` are not
    Positions in_before_at;
    if (!maps) {
      before_keys = keys_of(before, before.size());
      in_before_at = first_positions(before_keys);
      merged = before;
      merged.insert(merged.end(), patch_items.begin(), patch_items.end());
      DeduplicateScalars(merged);
      keys = keys_of(merged, merged.size());
    } else {
      keys = keys_of(before, before.size() + patch_items.size());
      in_before_at = first_positions(keys);
      merged = std::move(before);
      Positions added;  // the first position of each key a patch item appended
      const std::string item_schema = schema_path + "[]";
      for (std::size_t p = 0; p < patch_items.size(); ++p) {
        const Tree& item = patch_items[p];
        if (KeyOf(item, rule.merge_key) == nullptr) NoMergeKey(fmt::format("{}[{}]", path, p), item, rule.merge_key);
        std::optional<std::size_t> found = find(in_before_at, patch_keys[p]);
        if (!found) found = find(added, patch_keys[p]);
        if (!found) {
          keys.push_back(patch_keys[p]);
          if (keys.back()) added.emplace(*keys.back(), merged.size());
          merged.push_back(item);
        } else {
          // The patch item has the found item's key, so merging keeps that key.
          MergeMap(merged[*found], item, item_schema, fmt::format("{}[{}]", path, p));
        }
      }
      for (const Tree& item : merged) {
        if (KeyOf(item, rule.merge_key) == nullptr) NoMergeKey(path, item, rule.merge_key);
      }
    }
    // The merged items in the patch, then the others (positions in `merged`), each with its
    // position in the patch and in the original list.
    struct Entry {
      std::size_t at;
      std::optional<std::size_t> in_patch;
      std::optional<std::size_t> in_before;
    };
    std::vector<Entry> in_patch;
    std::vector<Entry> server_only;
    for (std::size_t m = 0; m < merged.size(); ++m) {
      Entry e{m, find(in_patch_at, keys[m]), find(in_before_at, keys[m])};
      (e.in_patch ? in_patch : server_only).push_back(e);
    }
    // Stable sorts by position, an item without one comparing as neither before nor after any
    // other, as upstream's.
    auto by = [](std::optional<std::size_t> Entry::*position) {
      return [position](const Entry& a, const Entry& b) {
        return a.*position && b.*position && *(a.*position) < *(b.*position);
      };
    };
    std::stable_sort(in_patch.begin(), in_patch.end(), by(&Entry::in_patch));
    std::stable_sort(server_only.begin(), server_only.end(), by(&Entry::in_before));
    // mergeSortedSlice: a server-only item goes first only when both it and the next patch item
    // stand in the original list and it stood before that item there.
    std::vector<Tree> result;
    result.reserve(merged.size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < server_only.size() || j < in_patch.size()) {
      bool server_first =
          j >= in_patch.size() || (i < server_only.size() && server_only[i].in_before && in_patch[j].in_before &&
                                   *server_only[i].in_before < *in_patch[j].in_before);
      result.push_back(std::move(merged[server_first ? server_only[i++].at : in_patch[j++].at]));
    }
    before = std::move(result);
  }

  // deduplicateScalars: for each item in turn, each later duplicate is overwritten by the current
  // last item, and the list shrinks by one; the order that leaves is upstream's. The positions of
  // each scalar are kept ordered, so that each removal costs a lookup rather than a scan.
  static void DeduplicateScalars(std::vector<Tree>& s) {
    if (s.empty()) return;
    std::unordered_map<std::string, std::set<std::size_t>> at;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i].IsScalar()) at[ValueKey(s[i])].insert(i);
    }
    std::size_t length = s.size() - 1;
    for (std::size_t i = 0; i < length; ++i) {
      if (!s[i].IsScalar()) continue;
      std::set<std::size_t>& same = at[ValueKey(s[i])];
      // Upstream scans j upwards from i + 1 and looks at j again after each overwrite: the next
      // duplicate is always the first one after i.
      for (auto j = same.upper_bound(i); j != same.end(); j = same.upper_bound(i)) {
        std::size_t to = *j;
        same.erase(j);
        if (to != length) {
          if (s[length].IsScalar()) {
            std::set<std::size_t>& moved = at[ValueKey(s[length])];
            moved.erase(length);
            moved.insert(to);
          }
          s[to] = std::move(s[length]);
        }
        s.pop_back();
        --length;
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
