#include "diff/stream.h"

#include <fmt/format.h>

#include "util/error.h"
#include "yaml/reader.h"

namespace trainer {

namespace {

// Unwraps lists the way the input loader does: a kind ending in "List" with an `items` field.
void Add(Tree&& doc, std::vector<Tree>& out) {
  if (!doc.IsMap()) {
    throw Error(Diagnostic{.where = doc.origin(),
                           .message = fmt::format("expected an object, got {}", Tree::DescribeType(doc.type()))});
  }
  const std::string* kind = doc.FindString("kind");
  if (Tree* items = doc.Find("items"); items && kind && kind->ends_with("List")) {
    if (!items->IsList())
      throw Error(Diagnostic{.where = items->origin(), .field = "items", .message = "expected an array"});
    for (Tree& item : items->items()) Add(std::move(item), out);
    return;
  }
  out.push_back(std::move(doc));
}

}  // namespace

std::vector<Tree> ReadObjectStream(std::string_view content, const std::string* file) {
  std::vector<Tree> objects;
  // Whatever `trainer render` may print, however many values (yaml/reader.h: kMaxRenderedValues).
  for (Tree& doc : ReadYamlStream(content, file, RenderingLimits())) Add(std::move(doc), objects);
  return objects;
}

}  // namespace trainer
