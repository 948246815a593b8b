#include "diff/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "util/error.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

constexpr std::int64_t kVersion = 1;

// The YAML of a value, for ordering entries whose other fields are equal (map keys sorted).
std::string SortKey(const std::optional<Tree>& value) {
  if (!value) return "";
  std::string out = "=";
  WriteYaml(*value, out);
  return out;
}

// By TrainJob, object and path, then (rarely needed) by the value.
bool Less(const BaselineEntry& a, const BaselineEntry& b) {
  auto key = [](const BaselineEntry& e) { return std::tie(e.train_job, e.object, e.path); };
  if (key(a) != key(b)) return key(a) < key(b);
  return SortKey(a.new_value) < SortKey(b.new_value);
}

bool SameChange(const BaselineEntry& a, const BaselineEntry& b) {
  return a.train_job == b.train_job && a.object == b.object && a.path == b.path && a.new_value == b.new_value;
}

// The trainJob of the entries of `group`'s TrainJob: NAMESPACE/NAME.
std::string TrainJobOf(const ReportGroup& group) {
  return group.job->metadata.namespace_ + "/" + group.job->metadata.name;
}

// The entry of the i-th change of `o` (of the object itself when it is added or removed).
BaselineEntry EntryOf(const ReportGroup& group, const ReportObject& o, std::size_t i) {
  BaselineEntry e;
  e.train_job = TrainJobOf(group);
  e.object = o.diff.id.kind + "/" + o.diff.id.ns + "/" + o.diff.id.name;
  if (o.diff.type == ChangeType::kModify) {
    const FieldChange& change = o.diff.changes[i];
    e.path = FormatPath(change.path);
    if (change.kind != FieldChange::Kind::kRemoved) e.new_value = change.to;
  }
  return e;
}

// How many entries an object's changes make: one per field, or one for an object added or removed.
std::size_t EntryCount(const ReportObject& o) { return o.diff.type == ChangeType::kModify ? o.diff.changes.size() : 1; }

// "key: value" lines of YAML, each line after the first indented by two spaces, the first by `lead`.
void AppendField(std::string_view lead, std::string_view key, const Tree& value, std::string& out) {
  Tree one = Tree::Map();
  one.Set(key, value);
  std::string yaml;
  WriteYaml(one, yaml);
  std::string_view rest = yaml;
  bool first = true;
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
    out += first ? lead : std::string_view("  ");
    out += line;
    rest.remove_prefix(line.size());
    first = false;
  }
}

// A string field of an entry, or a diagnostic.
const std::string* StringField(const Tree& entry, std::string_view key, const std::string& field, Diagnostics& errors) {
  const Tree* value = entry.Find(key);
  if (value == nullptr) {
    errors.Add(entry.origin(), field, fmt::format("missing field \"{}\"", key));
    return nullptr;
  }
  if (!value->IsString()) {
    errors.Add(value->origin(), field + "." + std::string(key),
               fmt::format("expected a string, got {}", Tree::TypeName(value->type())));
    return nullptr;
  }
  return &value->text();
}

}  // namespace

Baseline Baseline::Parse(std::string_view content, const std::string* file) {
  std::vector<Tree> docs = ReadYamlStream(content, file);
  Diagnostics errors;
  Baseline baseline;
  if (docs.empty()) {
    errors.Add(Origin::Input(file, 1, 1), "",
               "an empty baseline: expected \"version: 1\" and \"changes\" (--update-baseline writes one)");
    errors.Checkpoint();
  }
  if (docs.size() > 1) errors.Add(docs[1].origin(), "", "a baseline is one YAML document");
  const Tree& root = docs[0];
  if (!root.IsMap()) {
    errors.Add(root.origin(), "",
               fmt::format("expected a map with \"version\" and \"changes\", got {}", Tree::TypeName(root.type())));
    errors.Checkpoint();
  }
  for (std::size_t i = 0; i < root.size(); ++i) {
    const std::string& key = root.KeyAt(i);
    if (key != "version" && key != "changes") {
      errors.Add(root.KeyOriginAt(i), "", fmt::format("unknown field \"{}\" (expected version and changes)", key));
    }
  }
  const Tree* version = root.Find("version");
  if (version == nullptr) {
    errors.Add(root.origin(), "", "missing field \"version\" (expected version: 1)");
  } else if (!version->IsInt() || version->AsInt() != kVersion) {
    errors.Add(version->origin(), "version",
               "unsupported baseline version (this trainer reads version 1; --update-baseline rewrites the file)");
  }
  const Tree* changes = root.Find("changes");
  if (changes == nullptr) {
    errors.Add(root.origin(), "", "missing field \"changes\" (a list, [] when empty)");
  } else if (!changes->IsList()) {
    errors.Add(changes->origin(), "changes", fmt::format("expected a list, got {}", Tree::TypeName(changes->type())));
  } else {
    for (std::size_t i = 0; i < changes->size(); ++i) {
      const Tree& item = changes->items()[i];
      const std::string field = fmt::format("changes[{}]", i);
      if (!item.IsMap()) {
        errors.Add(item.origin(), field, fmt::format("expected a map, got {}", Tree::TypeName(item.type())));
        continue;
      }
      for (std::size_t k = 0; k < item.size(); ++k) {
        const std::string& key = item.KeyAt(k);
        if (key != "trainJob" && key != "object" && key != "path" && key != "newValue") {
          errors.Add(item.KeyOriginAt(k), field,
                     fmt::format("unknown field \"{}\" (expected trainJob, object, path and newValue)", key));
        }
      }
      const std::string* train_job = StringField(item, "trainJob", field, errors);
      const std::string* object = StringField(item, "object", field, errors);
      const std::string* path = StringField(item, "path", field, errors);
      if (train_job == nullptr || object == nullptr || path == nullptr) continue;
      BaselineEntry entry{*train_job, *object, *path, std::nullopt};
      if (const Tree* value = item.Find("newValue")) entry.new_value = *value;
      baseline.entries_.push_back(std::move(entry));
    }
  }
  errors.Checkpoint();
  baseline.Sort();
  return baseline;
}

Baseline Baseline::Of(const Report& report, const Baseline* old) {
  Baseline baseline;
  for (const ReportGroup& group : report.groups) {
    if (group.job == nullptr) continue;
    if (!group.Checked()) {
      if (old == nullptr) continue;
      const std::string train_job = TrainJobOf(group);
      for (const BaselineEntry& e : old->entries_) {
        if (e.train_job == train_job) baseline.entries_.push_back(e);
      }
      continue;
    }
    for (const ReportObject& o : group.objects) {
      if (o.diff.type == ChangeType::kUnchanged) continue;
      for (std::size_t i = 0; i < EntryCount(o); ++i) baseline.entries_.push_back(EntryOf(group, o, i));
    }
  }
  baseline.Sort();
  return baseline;
}

void Baseline::Sort() {
  std::sort(entries_.begin(), entries_.end(), Less);
  entries_.erase(std::unique(entries_.begin(), entries_.end(), SameChange), entries_.end());
}

std::string Baseline::Format() const {
  std::string out =
      "# trainer diff --legacy --baseline: the changes of the upgrade reviewed and acknowledged.\n"
      "# Written by --update-baseline; sorted.\n";
  out += fmt::format("version: {}\n", kVersion);
  if (entries_.empty()) return out + "changes: []\n";
  out += "changes:\n";
  for (const BaselineEntry& e : entries_) {
    AppendField("- ", "trainJob", Tree::String(e.train_job), out);
    AppendField("  ", "object", Tree::String(e.object), out);
    AppendField("  ", "path", Tree::String(e.path), out);
    if (e.new_value) AppendField("  ", "newValue", *e.new_value, out);
  }
  return out;
}

bool Baseline::Contains(const BaselineEntry& entry) const {
  auto key = [](const BaselineEntry& e) { return std::tie(e.train_job, e.object, e.path); };
  auto [first, last] =
      std::equal_range(entries_.begin(), entries_.end(), entry,
                       [&](const BaselineEntry& a, const BaselineEntry& b) { return key(a) < key(b); });
  return std::any_of(first, last, [&](const BaselineEntry& e) { return e.new_value == entry.new_value; });
}

void Acknowledge(Report& report, const Baseline& baseline) {
  report.with_baseline = true;
  for (ReportGroup& group : report.groups) {
    if (group.job == nullptr || Blocked(group.reach)) continue;
    for (ReportObject& o : group.objects) {
      if (o.diff.type == ChangeType::kUnchanged) continue;
      o.acknowledged.clear();
      for (std::size_t i = 0; i < EntryCount(o); ++i) o.acknowledged.push_back(baseline.Contains(EntryOf(group, o, i)));
    }
  }
}

}  // namespace trainer
