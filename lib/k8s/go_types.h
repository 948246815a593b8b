// The Go struct types the typed round trip (typed_roundtrip.h) follows, one table of them: every
// struct reachable from JobSetSpec, one row per field, in Go declaration order, as
//   sigs.k8s.io/jobset v0.12.0       api/jobset/v1alpha2/jobset_types.go
//   k8s.io/api v0.36.3               batch/v1/types.go, core/v1/types.go
//   k8s.io/apimachinery v0.36.3      pkg/apis/meta/v1/types.go
// declare them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace trainer {

// What a Go field holds once pointers, slices and maps are peeled off.
enum class GoKind : std::uint8_t {
  kString,       // string and named string types (enums, types.UID)
  kInt32,        // int32
  kInt64,        // int64 and int
  kBool,         // bool
  kIntOrString,  // intstr.IntOrString
  kQuantity,     // resource.Quantity
  kTime,         // metav1.Time, RFC 3339 text
  kAny,          // metav1.FieldsV1: any JSON, kept as is
  kStruct,       // another type of the table
};

// How a Go field is declared; combine with |.
enum GoTrait : unsigned {
  kOmitEmpty = 1U << 0,  // json:",omitempty"
  kOmitZero = 1U << 1,   // json:",omitzero"
  kPointer = 1U << 2,    // *T
  kList = 1U << 3,       // []T
  kMap = 1U << 4,        // map[string]T
  kInline = 1U << 5,     // embedded struct: its fields sit in the parent object
  // The apply configuration has no such field: decoded (and checked), then dropped.
  kNotInApply = 1U << 6,
  // The apply configuration holds the typed Go value here, so everything below is printed by
  // encoding/json from the Go struct rather than from an apply configuration.
  kTypedInApply = 1U << 7,
};

struct GoField {
  constexpr GoField() = default;
  constexpr GoField(std::string_view name, GoKind kind, unsigned traits = 0) : name(name), kind(kind), traits(traits) {}
  constexpr GoField(std::string_view name, std::string_view type, unsigned traits = 0)
      : name(name), kind(GoKind::kStruct), type(type), traits(traits) {}

  bool Has(GoTrait trait) const { return (traits & trait) != 0; }

  std::string_view name;  // JSON name; empty for kInline
  GoKind kind = GoKind::kAny;
  std::string_view type;  // struct type name when kind is kStruct
  unsigned traits = 0;
  std::uint16_t type_index = 0;  // kTypes[type_index] is `type`; set by FreezeFields
};

struct GoStruct {
  std::string_view name;
  std::span<const GoField> fields;
};

// The type named `name` ("JobSetSpec", "PodSpec", "Container", ...), or nullptr.
const GoStruct* FindType(std::string_view name);

// The type of a field of kind kStruct.
const GoStruct& TypeOf(const GoField& field);

// Looks `name` up among the fields of `type`, including those of its inline structs.
const GoField* FindField(const GoStruct& type, std::string_view name);

// The JSON names of the fields of `type`, those of its inline structs included.
void FieldNames(const GoStruct& type, std::vector<std::string_view>& out);

}  // namespace trainer
