// The typed round trip, driven by the table of Go struct types in go_types.cpp.
//
// The rules applied to the types come from apimachinery pkg/runtime/converter.go
// (ToUnstructured) and the apply configurations the result is decoded into (client-go v0.36.3
// applyconfigurations, jobset v0.12.0 client-go/applyconfiguration), whose fields are all
// pointers, slices or maps with omitempty. Every struct reachable from JobSetSpec is covered, so
// nothing passes through unchecked except metav1.FieldsV1 (raw JSON by design).
#include "k8s/typed_roundtrip.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "k8s/go_types.h"
#include "k8s/quantity.h"
#include "k8s/quantity_advice.h"
#include "util/rfc3339.h"
#include "util/strconv.h"
#include "util/suggest.h"

namespace trainer {
namespace {

bool IsVowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

std::string Join(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : fmt::format("{}.{}", path, name);
}

// A field path built only when an issue needs it, as most values decode without one. Each link
// lives on the caller's stack.
struct PathRef {
  const PathRef* parent = nullptr;
  const std::string* root = nullptr;  // set on the root link only
  std::string_view field;             // ".field", or the key of "[key]"
  std::size_t index = 0;
  enum class Step : std::uint8_t { kRoot, kField, kIndex, kKey } step = Step::kRoot;

  PathRef Field(std::string_view name) const { return PathRef{this, nullptr, name, 0, Step::kField}; }
  PathRef Index(std::size_t i) const { return PathRef{this, nullptr, {}, i, Step::kIndex}; }
  PathRef Key(std::string_view key) const { return PathRef{this, nullptr, key, 0, Step::kKey}; }

  std::string String() const {
    switch (step) {
      case Step::kRoot: return *root;
      case Step::kField: return Join(parent->String(), field);
      case Step::kIndex: return fmt::format("{}[{}]", parent->String(), index);
      case Step::kKey: return fmt::format("{}[{}]", parent->String(), field);
    }
    return {};
  }
};

// Walks a tree alongside the table, rewriting it in place and collecting issues.
class RoundTripper {
 public:
  explicit RoundTripper(std::vector<FieldIssue>& issues) : issues_(issues) {}

  // `object` is a map. `typed` is set below kTypedInApply.
  void Struct(Tree& object, const GoStruct& type, const PathRef& path, bool typed) {
    for (std::size_t i = 0; i < object.size(); ++i) {
      const std::string& key = object.KeyAt(i);
      if (FindField(type, key) != nullptr) continue;
      const Origin& origin = object.KeyOriginAt(i).kind != Origin::Kind::kNone
                                 ? object.KeyOriginAt(i)
                                 : object.items()[i].origin();
      std::vector<std::string_view> known;
      FieldNames(type, known);
      Report(path.Field(key), origin, UnknownFieldMessage(key, known));
    }
    Fields(object, type, path, typed);
  }

 private:
  void Fields(Tree& object, const GoStruct& type, const PathRef& path, bool typed) {
    for (const GoField& field : type.fields) {
      if (field.Has(kInline)) {
        Fields(object, TypeOf(field), path, typed);
      } else {
        OneField(object, field, path, typed);
      }
    }
  }

  void OneField(Tree& object, const GoField& field, const PathRef& parent_path, bool typed) {
    const PathRef path = parent_path.Field(field.name);
    const bool typed_below = typed || field.Has(kTypedInApply);
    Tree* value = object.Find(field.name);
    const bool absent = value == nullptr || value->IsNull();

    if (field.Has(kList) || field.Has(kMap)) {
      // Go leaves nil for absent and null; the apply configuration's omitempty drops nil and
      // empty alike. Typed JSON writes a nil field without omitempty as null.
      if (absent) {
        Absent(object, field, typed);
      } else if (field.Has(kList) ? !value->IsList() : !value->IsMap()) {
        Mismatch(path, *value, field.Has(kList) ? "array" : "object");
      } else {
        for (std::size_t i = 0; i < value->items().size(); ++i) {
          const PathRef item_path = field.Has(kList) ? path.Index(i) : path.Key(value->KeyAt(i));
          Value(value->items()[i], field, item_path, typed_below);
        }
        const bool typed_keeps_empty = typed && !field.Has(kOmitEmpty);
        if (value->items().empty() && !typed_keeps_empty) object.Erase(field.name);
      }
    } else if (field.Has(kPointer)) {
      // A nil pointer is dropped; a set one keeps even its zero value.
      if (absent) {
        Absent(object, field, typed);
      } else {
        Value(*value, field, path, typed_below);
        // A zero time becomes null on the way to JSON, and the pointer decodes from it as nil.
        if (field.kind == GoKind::kTime && value->IsNull()) object.Erase(field.name);
      }
    } else {
      // A non-pointer field always holds a value: absent and null mean the zero value.
      if (value == nullptr) {  // no input wrote it: the zero value has no origin
        if (ZeroOmitted(field)) return;  // it would be set and dropped again at once
        value = &object.Set(field.name, Tree::Null(), Origin());
      }
      Value(*value, field, path, typed_below);
      if (OmittedWhenZero(*value, field, typed)) object.Erase(field.name);
    }
    if (field.Has(kNotInApply) && !typed) object.Erase(field.name);
  }

  // A nil pointer, slice or map.
  void Absent(Tree& object, const GoField& field, bool typed) {
    if (typed && !field.Has(kOmitEmpty)) {
      object.Set(field.name, Tree::Null(object.origin()), object.origin());
    } else {
      object.Erase(field.name);
    }
  }

  // Whether the zero value of a field is dropped whatever the way: an omitempty string, integer or
  // boolean.
  static bool ZeroOmitted(const GoField& field) {
    switch (field.kind) {
      case GoKind::kString:
      case GoKind::kInt32:
      case GoKind::kInt64:
      case GoKind::kBool: return field.Has(kOmitEmpty);
      default: return false;
    }
  }

  // Whether a non-pointer field holding `value` is left out of the output.
  static bool OmittedWhenZero(const Tree& value, const GoField& field, bool typed) {
    switch (field.kind) {
      case GoKind::kString: return field.Has(kOmitEmpty) && value.IsString() && value.text().empty();
      case GoKind::kInt32:
      case GoKind::kInt64: return field.Has(kOmitEmpty) && value.IsInt() && value.AsInt() == 0;
      case GoKind::kBool: return field.Has(kOmitEmpty) && value.IsBool() && !value.AsBool();
      case GoKind::kTime:
        // The zero time converts to null, which the apply configuration drops; typed JSON
        // prints it as null unless omitzero skips it (omitempty never skips a struct).
        return value.IsNull() && (!typed || field.Has(kOmitZero));
      case GoKind::kIntOrString:
      case GoKind::kQuantity:
      case GoKind::kAny:
      case GoKind::kStruct: return false;  // structs are never empty to omitempty
    }
    return false;
  }

  // Decodes one value of the field's kind in place; null becomes the Go zero value.
  void Value(Tree& value, const GoField& field, const PathRef& path, bool typed) {
    const Origin origin = value.origin();
    switch (field.kind) {
      case GoKind::kString:
        if (value.IsNull()) {
          value = Tree::String("", origin);
        } else if (!value.IsString()) {
          Mismatch(path, value, "string", QuoteAdvice(value));
        }
        return;
      case GoKind::kInt32:
        Integer(value, path, "int32", std::numeric_limits<std::int32_t>::min(),
                std::numeric_limits<std::int32_t>::max(), "integer");
        return;
      case GoKind::kInt64:
        Integer(value, path, "int64", std::numeric_limits<std::int64_t>::min(),
                std::numeric_limits<std::int64_t>::max(), "integer");
        return;
      case GoKind::kBool:
        if (value.IsNull()) {
          value = Tree::Bool(false, origin);
        } else if (!value.IsBool()) {
          Mismatch(path, value, "boolean");
        }
        return;
      case GoKind::kIntOrString:
        // The integer side is an int32; null decodes as the integer 0.
        if (!value.IsString()) {
          Integer(value, path, "int32", std::numeric_limits<std::int32_t>::min(),
                  std::numeric_limits<std::int32_t>::max(), "integer or string");
        }
        return;
      case GoKind::kQuantity: Quantity(value, path); return;
      case GoKind::kTime: Time(value, path); return;
      case GoKind::kAny: return;
      case GoKind::kStruct:
        if (value.IsNull()) value = Tree::Map(origin);
        if (!value.IsMap()) {
          Mismatch(path, value, "object");
          return;
        }
        Struct(value, TypeOf(field), path, typed);
        return;
    }
  }

  // An integer in [min, max]. A YAML float with an integral value is accepted: kubectl's
  // YAML-to-JSON conversion writes 2.0 as 2, which Go decodes into an integer field.
  void Integer(Tree& value, const PathRef& path, std::string_view go_type, std::int64_t min,
               std::int64_t max, std::string_view expected) {
    if (value.IsNull()) {
      value = Tree::Int(0, value.origin());
      return;
    }
    if (value.IsFloat()) {
      const std::optional<double> number = ParseFloat64(value.text());
      if (!number || std::trunc(*number) != *number || std::fabs(*number) >= 0x1p63) {
        Mismatch(path, value, expected);
        return;
      }
      value = Tree::Int(static_cast<std::int64_t>(*number), value.origin());
    }
    if (!value.IsInt()) {
      Mismatch(path, value, expected);
    } else if (value.AsInt() < min || value.AsInt() > max) {
      Report(path, value.origin(),
             fmt::format("{} is out of range for {}", value.AsInt(), go_type));
    }
  }

  // resource.Quantity: a string or a JSON number, printed back with Quantity.String(). The
  // value goes through String() twice (ToUnstructured, then the apply configuration's JSON);
  // the second pass matters when the first one changed the format.
  void Quantity(Tree& value, const PathRef& path) {
    const std::optional<std::string> text = QuantityText(value);
    if (!text) {
      Mismatch(path, value, "quantity (string or number)");
      return;
    }
    const char* error = kQuantityErrorMessage;
    const std::optional<trainer::Quantity> parsed = trainer::Quantity::Parse(*text, &error);
    if (!parsed) {
      // For the commonest error, what was likely meant rather than Go's regular expression.
      Report(path, value.origin(),
             std::string_view(error) == kQuantityErrorMessage ? QuantityAdvice(*text) : fmt::format("invalid quantity \"{}\": {}", *text, error));
      return;
    }
    std::string canonical = parsed->String();
    if (const std::optional<trainer::Quantity> again = trainer::Quantity::Parse(canonical)) {
      canonical = again->String();
    }
    value = Tree::String(std::move(canonical), value.origin());
  }

  // metav1.Time: RFC 3339 text, printed back in UTC without fractional seconds; the zero time
  // becomes null.
  void Time(Tree& value, const PathRef& path) {
    if (value.IsNull()) return;
    if (!value.IsString()) {
      Mismatch(path, value, "string");
      return;
    }
    const std::optional<Rfc3339Time> parsed = ParseRfc3339(value.text(), Rfc3339Reader::kGoTime);
    if (!parsed) {
      Report(path, value.origin(),
             fmt::format("invalid time \"{}\": expected RFC 3339, e.g. 2006-01-02T15:04:05Z",
                         value.text()));
      return;
    }
    // Go's zero time.Time serialises as null.
    const bool zero = parsed->fraction_is_zero && parsed->utc == std::chrono::sys_days{std::chrono::year{1} / 1 / 1};
    value = zero ? Tree::Null(value.origin()) : Tree::String(FormatRfc3339Utc(parsed->utc), value.origin());
  }

  // `advice` follows the message: what to do about it, if anything.
  void Mismatch(const PathRef& path, const Tree& value, std::string_view expected, std::string_view advice = {}) {
    Report(path, value.origin(),
           fmt::format("expected {} {}, got {}{}", IsVowel(expected.front()) ? "an" : "a", expected,
                       Tree::DescribeType(value.type()), advice));
  }

  void Report(const PathRef& path, const Origin& origin, std::string message) {
    issues_.push_back(FieldIssue{path.String(), origin, std::move(message)});
  }

  std::vector<FieldIssue>& issues_;
};

}  // namespace

std::optional<std::string> QuantityText(const Tree& value) {
  if (value.IsNull()) return std::string(1, '0');  // not "0": GCC 12 -Wrestrict false positive under the sanitizers
  if (value.IsInt()) return value.text();
  if (value.IsFloat()) {
    const std::optional<double> number = ParseFloat64(value.text());
    return number ? GoFloatText(*number) : value.text();
  }
  if (!value.IsString()) return std::nullopt;
  const std::string& text = value.text();
  const std::size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return std::string();
  const std::size_t last = text.find_last_not_of(" \t\n\r\f\v");
  return text.substr(first, last - first + 1);
}

void RoundTrip(Tree& value, std::string_view type_name, const std::string& path,
               std::vector<FieldIssue>& issues) {
  const GoStruct* type = FindType(type_name);
  if (type == nullptr) {
    throw std::logic_error(fmt::format("typed round trip: no table for Go type {}", type_name));
  }
  if (value.IsNull()) value = Tree::Map(value.origin());
  if (!value.IsMap()) {
    issues.push_back(
        FieldIssue{path, value.origin(),
                   fmt::format("expected an object, got {}", Tree::DescribeType(value.type()))});
    return;
  }
  PathRef root;
  root.root = &path;
  RoundTripper(issues).Struct(value, *type, root, false);
}

}  // namespace trainer
