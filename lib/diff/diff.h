// The engine of `trainer diff`: pairs the objects of two renderings by identity, diffs each pair
// structurally, names every difference by a field path, and filters differences by ignore rules.
//
// Paths have two renderings. The report form reads like kubectl's field paths:
//   spec.replicatedJobs[name=node].template.spec.template.spec.containers[name=node].image
//   metadata.labels["app.kubernetes.io/name"]     (a key that is not [A-Za-z0-9_-]+ is quoted, as
//                                                  Go's %q quotes it; patterns take strconv.Unquote's
//                                                  escapes, so a printed path reads back)
//   spec.containers[name=node].args[2]            (a list compared by position)
// and is also the syntax of ignore patterns. The JSON form is an RFC 6901 pointer for --json.
//
// Lists are matched the way Kubernetes merges them: by a list-map key when every item on both
// sides has a unique value for it (see kListMapKeys in diff.cpp), otherwise by position. List order
// matters: the same keyed items in another order are reported as one kReordered change at the list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

// One step of a path: a map key, a list item by position, or a list item by its list-map key.
struct PathSegment {
  enum class Kind : std::uint8_t {
    kKey,      // map key `name`
    kIndex,    // list item by position: [2]
    kItem,     // list item by list-map key: [name=node]
    kAnyItem,  // [*], in ignore patterns only: any kIndex or kItem
  };
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

  Kind kind = Kind::kKey;
  std::string name;   // kKey: the map key; kItem: the key field, e.g. "name" or "mountPath"
  std::string value;  // kItem: the key value as text, e.g. "node" or "8080"
  // kIndex and kItem: the item's position in the old and in the new list (for JSON Pointers);
  // kNoIndex on a side where the item is absent, and in patterns. Equal for kIndex.
  std::size_t from_index = kNoIndex;
  std::size_t to_index = kNoIndex;

  static PathSegment Key(std::string key);
  static PathSegment Index(std::size_t index);
  static PathSegment Item(std::string field, std::string value, std::size_t from_index, std::size_t to_index);
  static PathSegment AnyItem();

  friend bool operator==(const PathSegment&, const PathSegment&) = default;
};

using Path = std::vector<PathSegment>;

// Which document a JSON Pointer addresses.
enum class Side : std::uint8_t { kFrom, kTo };

// The report form (see the top of this file); "" for the root.
std::string FormatPath(const Path& path);

// The one-line form of a value in `trainer diff` and `trainer test` reports: YAML flow style with
// map keys in the writer's order, strings plain unless they would read back as something else or
// hold a character GoQuote escapes, and then quoted by GoQuote.
void AppendFlow(const Tree& value, std::string& out);
std::string FlowValue(const Tree& value);

// An RFC 6901 pointer into the `side` document ("/spec/replicatedJobs/0/name"; "" for the root):
// keyed items by their index on that side (the other side's when absent there), `~` and `/`
// escaped as ~0 and ~1.
std::string FormatJsonPointer(const Path& path, Side side);

// One difference between two trees. `from` and `to` are copies that keep their origins, so that
// a reporter can say where the new value came from.
struct FieldChange {
  enum class Kind : std::uint8_t {
    kAdded,      // `from` is empty
    kRemoved,    // `to` is empty
    kModified,   // another value, or the same value with another type (1 vs "1")
    kReordered,  // a keyed list holds the same keys in another order: `from` and `to` are lists
                 // of the key values of the items present on both sides, in each side's order
  };
  Kind kind = Kind::kModified;
  Path path;
  std::optional<Tree> from;
  std::optional<Tree> to;

  // The JSON Pointer into the document where the change is visible: the old one for kRemoved,
  // the new one otherwise.
  std::string Pointer() const { return FormatJsonPointer(path, kind == Kind::kRemoved ? Side::kFrom : Side::kTo); }
};

// Every difference between `from` and `to`, in the order of the printed YAML: map keys in the
// writer's key order, keyed list items in `from` order then additions in `to` order, a kReordered
// change before the changes inside its list. An added or removed subtree is one change.
std::vector<FieldChange> DiffTrees(const Tree& from, const Tree& to);

// What identifies an object across two renderings. Missing fields are empty.
struct ObjectId {
  std::string api_version;
  std::string kind;
  std::string ns;  // metadata.namespace
  std::string name;

  static ObjectId Of(const Tree& object);
  // "JobSet default/job", or "ClusterTrainingRuntime torch" without a namespace; Printable
  // (util/quote.h) as a whole.
  std::string Label() const;
  friend bool operator==(const ObjectId&, const ObjectId&) = default;
};

enum class ChangeType : std::uint8_t { kUnchanged, kAdd, kModify, kRemove };

// "UNCHANGED", "ADD", "MODIFY", "REMOVE".
const char* ChangeTypeName(ChangeType type);

struct ObjectDiff {
  ChangeType type = ChangeType::kUnchanged;
  ObjectId id;
  const Tree* from = nullptr;        // into DiffObjects' `from`; null for kAdd
  const Tree* to = nullptr;          // into DiffObjects' `to`; null for kRemove
  std::vector<FieldChange> changes;  // kModify only: never empty there
  std::size_t ignored = 0;           // changes dropped by ApplyIgnoreRules
};

// Pairs the objects of two renderings by ObjectId, never by position, and diffs each pair. Every
// object appears once, unchanged ones too, in the order of `from`, then the additions in the order
// of `to`. Objects sharing one identity pair up in order of occurrence. The result points into
// `from` and `to`, which must outlive it.
std::vector<ObjectDiff> DiffObjects(const std::vector<Tree>& from, const std::vector<Tree>& to);

// A pattern of `trainer diff --ignore`: an optional `Kind:` and a path in the report form, where
// [*] matches any list item (by position or by key). It matches a change at its path or below
// (prefix semantics), but not a change above it: removing a whole container is still reported when
// only its image is ignored.
struct IgnoreRule {
  std::string pattern;  // as written
  std::string kind;     // "" for any kind
  Path path;            // never empty

  // Throws Error `invalid ignore pattern "<pattern>": <reason> at column <n>`.
  static IgnoreRule Parse(std::string_view pattern);
};

bool Matches(const IgnoreRule& rule, std::string_view kind, const Path& path);

// Drops the field changes of kModify objects that a rule matches, counting them in `ignored`; an
// object left without changes becomes kUnchanged. Added and removed objects are kept whole.
void ApplyIgnoreRules(const std::vector<IgnoreRule>& rules, std::vector<ObjectDiff>& diffs);

}  // namespace trainer
