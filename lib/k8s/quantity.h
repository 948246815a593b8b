// Resource quantities ("500m", "1Gi", "2e3"): parsing, printing and arithmetic with exactly the
// results of Kubernetes' k8s.io/apimachinery pkg/api/resource Quantity (v0.36.3).
//
// Like the original, a value lives either in a fast form (int64 mantissa and base-10 exponent)
// or in an exact big decimal, and which form it is in shows in a few edge cases (overflowing
// Value(), negative values). Parse remembers the input text when Kubernetes does, and String()
// echoes it back ("+1", "1.500"); arithmetic drops it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

namespace quantity_detail {

// Signed arbitrary-precision integer: magnitude in base-1e9 limbs, least significant first, no
// high zero limbs; zero is no limbs and not negative.
struct BigInt {
  std::vector<std::uint32_t> limbs;
  bool negative = false;
};

// unscaled * 10^-scale, as inf.Dec; scale arithmetic wraps at 32 bits as in Go.
struct BigDec {
  BigInt unscaled;
  std::int32_t scale = 0;
};

// value * 10^scale, the fast form.
struct Int64Amount {
  std::int64_t value = 0;
  std::int32_t scale = 0;
};

}  // namespace quantity_detail

// Messages of the three errors ParseQuantity can return.
inline constexpr const char* kQuantityErrorMessage =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
inline constexpr const char* kQuantityNumericErrorMessage =
    "unable to parse numeric part of quantity";
inline constexpr const char* kQuantitySuffixErrorMessage = "unable to parse quantity's suffix";

class Quantity {
 public:
  enum class Format { kDecimalExponent, kBinarySI, kDecimalSI };

  Quantity();  // zero, DecimalSI

  // ParseQuantity: nullopt when the text is not a valid quantity (empty, bad number, bad suffix).
  // With `error_message`, it is set to the message Kubernetes would give for the failure. Inputs
  // whose exact value would need more than ten million digits are refused (Go would try to
  // build them) with the numeric error.
  static std::optional<Quantity> Parse(std::string_view text);
  static std::optional<Quantity> Parse(std::string_view text, const char** error_message);
  static Quantity FromInt(std::int64_t value, Format format = Format::kDecimalSI);

  // Go's String()/MarshalJSON text: the cached input text when Go keeps it, else canonical form.
  std::string String() const;
  // Canonical form, ignoring any cached text.
  std::string CanonicalString() const;

  // Arithmetic clears the cached text. Add and Sub on a zero receiver adopt the other's format.
  // Results too large for ten million digits throw std::overflow_error.
  void Add(const Quantity& other);
  void Sub(const Quantity& other);
  void Mul(std::int64_t factor);

  // Value rounded up (away from zero) to an integer, as Go's Value(); int64 overflow gives what
  // Go gives (0 in the fast form, the low 64 bits in the big form, as on amd64).
  std::int64_t Value() const;
  std::int64_t MilliValue() const;  // ceil(value * 1000), same caveats

  // -1, 0 or 1. Like Go, when either side is a big decimal the receiver switches to that form.
  int Cmp(const Quantity& other) const;
  int Sign() const;
  bool IsZero() const;
  Format format() const { return format_; }

 private:
  std::int64_t ScaledValue(std::int32_t scale) const;
  int CmpInt64(std::int64_t value) const;
  void ToBigInPlace() const;
  quantity_detail::BigDec AsBigDec() const;

  // The representation is mutable only so that Cmp can switch forms the way Go's does.
  mutable quantity_detail::Int64Amount small_;
  mutable quantity_detail::BigDec big_;
  mutable bool is_big_ = false;
  std::string cached_;  // Go's `s`: returned verbatim by String() when not empty
  Format format_ = Format::kDecimalSI;
};

}  // namespace trainer
