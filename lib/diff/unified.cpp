#include "diff/unified.h"

#include <fmt/format.h>

#include <algorithm>
#include <dtl/dtl.hpp>
#include <sstream>
#include <string_view>

namespace trainer {

namespace {

struct Op {
  char type;  // ' ', '-' or '+'
  std::string line;
};

// "a" for one line, "a,b" otherwise; an empty range is named by the line before it.
std::string Range(std::size_t before, std::size_t count) {
  if (count == 1) return std::to_string(before + 1);
  return fmt::format("{},{}", count == 0 ? before : before + 1, count);
}

// The item of `list` whose `field` reads `value`; list.items().size() when there is none.
std::size_t FindItem(const Tree& list, std::string_view field, std::string_view value) {
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    const Tree& item = list.items()[i];
    const Tree* key = item.IsMap() ? item.Find(field) : nullptr;
    if (key && key->IsScalar() && key->text() == value) return i;
  }
  return list.items().size();
}

// The value `segment` names inside `t`, or null.
Tree* Step(Tree* t, const PathSegment& segment) {
  if (t == nullptr) return nullptr;
  switch (segment.kind) {
    case PathSegment::Kind::kKey: return t->IsMap() ? t->Find(segment.name) : nullptr;
    case PathSegment::Kind::kIndex:
      return t->IsList() && segment.to_index < t->items().size() ? &t->items()[segment.to_index] : nullptr;
    case PathSegment::Kind::kItem: {
      if (!t->IsList()) return nullptr;
      std::size_t i = FindItem(*t, segment.name, segment.value);
      return i < t->items().size() ? &t->items()[i] : nullptr;
    }
    case PathSegment::Kind::kAnyItem: return nullptr;
  }
  return nullptr;
}

// The list-map key fields DiffTrees may have matched a reordered list by.
constexpr std::string_view kKeyFields[] = {"name", "mountPath", "containerPort", "devicePath"};

// Puts the items of a reordered keyed list back in their old order, in the places they hold now.
void UndoReorder(Tree& list, const Tree& old_order, const Tree& new_order) {
  for (std::string_view field : kKeyFields) {
    std::vector<std::size_t> places;
    for (const Tree& key : new_order.items()) {
      std::size_t i = FindItem(list, field, key.text());
      if (i == list.items().size()) break;
      places.push_back(i);
    }
    if (places.size() != new_order.items().size()) continue;
    std::vector<Tree> items = list.items();
    for (std::size_t k = 0; k < places.size(); ++k) {
      std::size_t from = FindItem(list, field, old_order.items()[k].text());
      if (from == list.items().size()) return;
      items[places[k]] = list.items()[from];
    }
    list.items() = std::move(items);
    return;
  }
}

void Undo(Tree& root, const FieldChange& change) {
  if (change.path.empty()) {
    if (change.kind == FieldChange::Kind::kModified && change.from) root = *change.from;
    return;
  }
  Tree* parent = &root;
  for (std::size_t i = 0; i + 1 < change.path.size(); ++i) parent = Step(parent, change.path[i]);
  if (parent == nullptr) return;
  const PathSegment& last = change.path.back();
  switch (change.kind) {
    case FieldChange::Kind::kModified:
      if (Tree* target = Step(parent, last)) *target = *change.from;
      return;
    case FieldChange::Kind::kReordered:
      if (Tree* target = Step(parent, last); target && target->IsList()) UndoReorder(*target, *change.from, *change.to);
      return;
    case FieldChange::Kind::kAdded:
      if (last.kind == PathSegment::Kind::kKey) {
        if (parent->IsMap()) parent->Erase(last.name);
      } else if (Tree* target = Step(parent, last)) {
        parent->items().erase(parent->items().begin() + (target - parent->items().data()));
      }
      return;
    case FieldChange::Kind::kRemoved:
      if (last.kind == PathSegment::Kind::kKey) {
        if (parent->IsMap()) parent->Set(last.name, *change.from);
      } else if (parent->IsList()) {
        std::size_t at = std::min(last.from_index, parent->items().size());
        parent->items().insert(parent->items().begin() + static_cast<std::ptrdiff_t>(at), *change.from);
      }
      return;
  }
}

}  // namespace

DiffColors DiffColors::On() { return DiffColors{"\x1b[1m", "\x1b[36m", "\x1b[31m", "\x1b[32m", "\x1b[m"}; }

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string UnifiedHunks(const std::vector<std::string>& from, const std::vector<std::string>& to, std::size_t context,
                         const DiffColors& colors) {
  if (from == to) return "";
  dtl::Diff<std::string, std::vector<std::string>> diff(from, to, /*deletesFirst=*/true);
  diff.compose();
  std::vector<Op> ops;
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    ops.push_back({info.type == dtl::SES_COMMON ? ' ' : info.type == dtl::SES_DELETE ? '-' : '+', line});
  }
  // Lines of each side before each op, for the hunk headers.
  std::vector<std::size_t> from_before(ops.size() + 1, 0), to_before(ops.size() + 1, 0);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    from_before[i + 1] = from_before[i] + (ops[i].type != '+');
    to_before[i + 1] = to_before[i] + (ops[i].type != '-');
  }

  std::string out;
  const std::size_t n = ops.size();
  std::size_t i = 0;
  while (i < n) {
    if (ops[i].type == ' ') {
      ++i;
      continue;
    }
    std::size_t begin = i >= context ? i - context : 0;
    std::size_t end = i;  // one past the last change of the hunk
    while (true) {
      while (end < n && ops[end].type != ' ') ++end;
      std::size_t next = end;
      while (next < n && ops[next].type == ' ') ++next;
      // Changes closer than twice the context share one hunk.
      if (next < n && next - end <= 2 * context) {
        end = next;
        continue;
      }
      break;
    }
    std::size_t stop = std::min(n, end + context);
    out += fmt::format("{}@@ -{} +{} @@{}\n", colors.hunk,
                       Range(from_before[begin], from_before[stop] - from_before[begin]),
                       Range(to_before[begin], to_before[stop] - to_before[begin]), colors.reset);
    for (std::size_t k = begin; k < stop; ++k) {
      const char* color = ops[k].type == '-' ? colors.removed : ops[k].type == '+' ? colors.added : "";
      const char* reset = ops[k].type == ' ' ? "" : colors.reset;
      out += fmt::format("{}{}{}{}\n", color, ops[k].type, ops[k].line, reset);
    }
    i = stop;
  }
  return out;
}

Tree UndoChanges(const Tree& to, const std::vector<FieldChange>& changes) {
  Tree out = to;
  // Back to front, so that removing items added at the end of a list keeps the indices of the
  // others; then put removed items back front to back, so that each lands at its old index.
  for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
    if (it->kind != FieldChange::Kind::kRemoved) Undo(out, *it);
  }
  for (const FieldChange& change : changes) {
    if (change.kind == FieldChange::Kind::kRemoved) Undo(out, change);
  }
  return out;
}

}  // namespace trainer
