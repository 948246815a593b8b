#include "util/origin.h"

#include <fmt/format.h>

#include "util/quote.h"

namespace trainer {

std::string Origin::Position() const {
  if (!HasPosition()) return "";
  return fmt::format("{}:{}:{}", Printable(*file), line, column);
}

std::string Origin::Source() const {
  switch (kind) {
    case Kind::kInput: return by ? fmt::format("{}, set by {}", Position(), by) : Position();
    case Kind::kDefault: return "CRD default";
    case Kind::kPlugin: return fmt::format("plugin {}", by ? by : "?");
    case Kind::kCommandLine: return by ? by : "";
    case Kind::kNone: break;
  }
  return "";
}

}  // namespace trainer
