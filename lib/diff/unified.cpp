#include "diff/unified.h"

#include <fmt/format.h>

#include <algorithm>
#include <dtl/dtl.hpp>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "util/quote.h"
#include "yaml/writer.h"

namespace trainer {

namespace {

struct Op {
  char type;  // ' ', '-' or '+'
  const std::string* line;
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

namespace {

// The lines of a string as a literal block holds them.
std::size_t LineCount(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + (text.empty() || text.back() != '\n');
}

void FindLongValues(const Tree& value, std::vector<const Tree*>& out) {
  if (IsLongValue(&value)) out.push_back(&value);
  for (const Tree& item : value.items()) FindLongValues(item, out);
}

// The edit script of `from` into `to`, each long value compared as one line.
std::vector<Op> EditScript(const YamlLines& from, const YamlLines& to) {
  // One line per run: a token that no YAML line can be (a control character), the same for the
  // same content on either side.
  std::unordered_map<std::string, std::size_t> tokens;
  struct Collapsed {
    std::vector<std::string> lines;
    std::vector<YamlLines::Run> spans;  // the lines of `side` each collapsed line stands for
  };
  auto collapse = [&](const YamlLines& side) {
    Collapsed c;
    std::size_t run = 0;
    for (std::size_t i = 0; i < side.lines.size();) {
      if (run < side.long_values.size() && side.long_values[run].begin == i) {
        const YamlLines::Run& r = side.long_values[run++];
        std::string content;
        for (std::size_t k = r.begin; k < r.begin + r.count; ++k) content.append(side.lines[k]).push_back('\n');
        std::size_t id = tokens.emplace(std::move(content), tokens.size()).first->second;
        c.lines.push_back(fmt::format("\x01{}", id));
        c.spans.push_back(r);
        i += r.count;
      } else {
        c.lines.push_back(side.lines[i]);
        c.spans.push_back({i, 1});
        ++i;
      }
    }
    return c;
  };
  const Collapsed a = collapse(from);
  const Collapsed b = collapse(to);
  dtl::Diff<std::string, std::vector<std::string>> diff(a.lines, b.lines, /*deletesFirst=*/true);
  diff.compose();
  std::vector<Op> ops;
  std::size_t i = 0;
  std::size_t j = 0;
  auto expand = [&](char type, const YamlLines& side, const YamlLines::Run& span) {
    for (std::size_t k = span.begin; k < span.begin + span.count; ++k) ops.push_back({type, &side.lines[k]});
  };
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    if (info.type == dtl::SES_COMMON) {
      expand(' ', from, a.spans[i++]);
      ++j;
    } else if (info.type == dtl::SES_DELETE) {
      expand('-', from, a.spans[i++]);
    } else {
      expand('+', to, b.spans[j++]);
    }
  }
  return ops;
}

}  // namespace

bool IsLongValue(const Tree* value) {
  if (value == nullptr || !value->IsString() || value->text().size() <= kWholeValueLines) return false;
  return LineCount(value->text()) > kWholeValueLines;
}

YamlLines WriteYamlLines(const Tree& value) {
  YamlLines out;
  std::vector<const Tree*> long_values;
  FindLongValues(value, long_values);
  std::string text;
  if (long_values.empty()) {
    WriteYaml(value, text);
    out.lines = SplitLines(text);
    return out;
  }
  // The writer explains a value by its origin, on the first line it writes for it (a literal
  // block's "key: |" line): the origin's address names the value, and the explanation marks the
  // line, to be taken off again. The writer escapes explanations as Go quotes strings: the mark
  // "\x01" arrives as those four characters, then the value's number, at the end of the line.
  std::unordered_map<const Origin*, std::size_t> index;
  for (std::size_t k = 0; k < long_values.size(); ++k) index.emplace(&long_values[k]->origin(), k);
  const Explain mark = [&](const Origin& origin) {
    auto it = index.find(&origin);
    return it == index.end() ? std::string() : fmt::format("\x01{}", it->second);
  };
  WriteYaml(value, text, &mark);
  out.lines = SplitLines(text);
  for (std::size_t i = 0; i < out.lines.size(); ++i) {
    std::string& line = out.lines[i];
    constexpr std::string_view kMark = "  # \\x01";
    std::size_t at = line.rfind(kMark);
    if (at == std::string::npos || at + kMark.size() == line.size() ||
        line.find_first_not_of("0123456789", at + kMark.size()) != std::string::npos) {
      continue;
    }
    std::size_t k = std::stoul(line.substr(at + kMark.size()));
    if (k >= long_values.size()) continue;
    line.resize(at);
    // A literal block: the marked line, then one line per line of the value. A quoted string is
    // one line, and needs no run.
    if (line.empty() || line.back() == '"') continue;
    std::size_t count = 1 + LineCount(long_values[k]->text());
    out.long_values.push_back({i, std::min(count, out.lines.size() - i)});
  }
  return out;
}

std::string UnifiedHunks(const std::vector<std::string>& from, const std::vector<std::string>& to, std::size_t context,
                         const DiffColors& colors) {
  if (from == to) return "";
  YamlLines a;
  YamlLines b;
  a.lines = from;
  b.lines = to;
  return UnifiedHunks(a, b, context, colors);
}

std::string UnifiedHunks(const YamlLines& from, const YamlLines& to, std::size_t context, const DiffColors& colors) {
  if (from.lines == to.lines) return "";
  std::vector<Op> ops = EditScript(from, to);
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
      out += color;
      out += ops[k].type;
      AppendPrintable(*ops[k].line, out);  // a line of a value holds no break, nothing for a terminal
      out += reset;
      out += '\n';
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

std::vector<std::string> StringLineDiff(const FieldChange& change, std::size_t context, const DiffColors& colors) {
  if (change.kind != FieldChange::Kind::kModified || !change.from || !change.to) return {};
  if (!change.from->IsString() || !change.to->IsString()) return {};
  const std::string& from = change.from->text();
  const std::string& to = change.to->text();
  if (from.find('\n') == std::string::npos && to.find('\n') == std::string::npos) return {};
  if (IsLongValue(&*change.from) || IsLongValue(&*change.to)) return {};
  std::string hunks = UnifiedHunks(SplitLines(from), SplitLines(to), context, colors);
  return hunks.empty() ? std::vector<std::string>() : SplitLines(hunks);
}

}  // namespace trainer
