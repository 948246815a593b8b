// Quantity, following k8s.io/apimachinery pkg/api/resource v0.36.3 (quantity.go, amount.go,
// math.go, scale_int.go, suffix.go) and the gopkg.in/inf.v0 decimal it uses for big values.
// Every step keeps Go's choice between the int64 form and the big-decimal form, because that
// choice decides caching, capping, rounding and overflow results.
#include "k8s/quantity.h"

#include <array>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <utility>

#include "util/strconv.h"

namespace trainer {
namespace {

using quantity_detail::BigDec;
using quantity_detail::BigInt;
using quantity_detail::Int64Amount;
using Format = Quantity::Format;

constexpr std::uint32_t kLimbBase = 1'000'000'000;
constexpr std::int64_t kLimbDigits = 9;
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinInt64 = std::numeric_limits<std::int64_t>::min();
constexpr std::int32_t kNanoScale = -9;
constexpr std::int64_t kMaxDigits = 10'000'000;
constexpr std::array<std::uint32_t, 9> kSmallPow10 = {
    1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000};

// ---- Go's wrapping integer arithmetic, without C++ undefined behaviour ----

std::int32_t Add32(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
std::int32_t Sub32(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
std::int32_t Neg32(std::int32_t a) { return Sub32(0, a); }
std::int32_t Mul32(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
std::int64_t Add64(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t Neg64(std::int64_t a) {
  return static_cast<std::int64_t>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
}
std::int64_t Mul64(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// int64(math.Pow10(n)) for n >= 0; beyond 10^18 the float does not fit and amd64 yields MinInt64.
std::int64_t GoPow10AsInt64(std::int64_t n) {
  if (n > 18) return kMinInt64;
  std::int64_t result = 1;
  for (std::int64_t i = 0; i < n; ++i) result *= 10;
  return result;
}

// ---- BigInt ----

void Trim(BigInt& x) {
  while (!x.limbs.empty() && x.limbs.back() == 0) x.limbs.pop_back();
  if (x.limbs.empty()) x.negative = false;
}

bool IsZeroBig(const BigInt& x) { return x.limbs.empty(); }
int SignOf(const BigInt& x) { return x.limbs.empty() ? 0 : (x.negative ? -1 : 1); }

BigInt FromInt64(std::int64_t value) {
  BigInt x;
  std::uint64_t magnitude = value < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(value)
                                      : static_cast<std::uint64_t>(value);
  while (magnitude != 0) {
    x.limbs.push_back(static_cast<std::uint32_t>(magnitude % kLimbBase));
    magnitude /= kLimbBase;
  }
  x.negative = value < 0;
  return x;
}

// Unsigned decimal digits only.
BigInt FromDigits(std::string_view digits) {
  BigInt x;
  x.limbs.reserve(digits.size() / kLimbDigits + 1);
  for (std::size_t end = digits.size(); end > 0;) {
    std::size_t begin = end >= kLimbDigits ? end - kLimbDigits : 0;
    std::uint32_t limb = 0;
    for (std::size_t i = begin; i < end; ++i) limb = limb * 10 + (digits[i] - '0');
    x.limbs.push_back(limb);
    end = begin;
  }
  Trim(x);
  return x;
}

std::string ToString(const BigInt& x) {
  if (IsZeroBig(x)) return "0";
  std::string out = x.negative ? "-" : "";
  out += std::to_string(x.limbs.back());
  for (std::size_t i = x.limbs.size() - 1; i-- > 0;) {
    char buffer[kLimbDigits];
    std::uint32_t limb = x.limbs[i];
    for (std::int64_t d = kLimbDigits - 1; d >= 0; --d) {
      buffer[d] = static_cast<char>('0' + limb % 10);
      limb /= 10;
    }
    out.append(buffer, kLimbDigits);
  }
  return out;
}

std::int64_t DigitCount(const BigInt& x) {
  if (IsZeroBig(x)) return 0;
  std::int64_t count = static_cast<std::int64_t>(x.limbs.size() - 1) * kLimbDigits;
  for (std::uint32_t top = x.limbs.back(); top != 0; top /= 10) ++count;
  return count;
}

std::int64_t TrailingZeroDigits(const BigInt& x) {
  std::int64_t count = 0;
  for (std::uint32_t limb : x.limbs) {
    if (limb == 0) {
      count += kLimbDigits;
      continue;
    }
    for (; limb % 10 == 0; limb /= 10) ++count;
    return count;
  }
  return 0;  // zero has no factors removed, as in removeBigIntFactors
}

int CmpMagnitude(const BigInt& a, const BigInt& b) {
  if (a.limbs.size() != b.limbs.size()) return a.limbs.size() < b.limbs.size() ? -1 : 1;
  for (std::size_t i = a.limbs.size(); i-- > 0;) {
    if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i] ? -1 : 1;
  }
  return 0;
}

int Cmp(const BigInt& a, const BigInt& b) {
  int sign_a = SignOf(a);
  int sign_b = SignOf(b);
  if (sign_a != sign_b) return sign_a < sign_b ? -1 : 1;
  return sign_a >= 0 ? CmpMagnitude(a, b) : -CmpMagnitude(a, b);
}

void AddMagnitude(std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  std::uint32_t carry = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i >= b.size() && carry == 0) break;
    std::uint32_t sum = a[i] + carry + (i < b.size() ? b[i] : 0);
    carry = sum >= kLimbBase ? 1 : 0;
    a[i] = sum - carry * kLimbBase;
  }
  if (carry != 0) a.push_back(carry);
}

// a -= b where |a| >= |b|.
void SubMagnitude(std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::uint32_t borrow = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i >= b.size() && borrow == 0) break;
    std::int64_t diff = std::int64_t{a[i]} - borrow - (i < b.size() ? b[i] : 0);
    borrow = diff < 0 ? 1 : 0;
    a[i] = static_cast<std::uint32_t>(diff + borrow * std::int64_t{kLimbBase});
  }
}

BigInt Sum(const BigInt& a, const BigInt& b) {
  if (IsZeroBig(b)) return a;
  if (IsZeroBig(a)) return b;
  if (a.negative == b.negative) {
    BigInt result = a;
    AddMagnitude(result.limbs, b.limbs);
    return result;
  }
  int order = CmpMagnitude(a, b);
  if (order == 0) return BigInt{};
  BigInt result = order > 0 ? a : b;
  SubMagnitude(result.limbs, order > 0 ? b.limbs : a.limbs);
  Trim(result);
  return result;
}

BigInt Negated(BigInt x) {
  if (!IsZeroBig(x)) x.negative = !x.negative;
  return x;
}

void MulSmall(BigInt& x, std::uint32_t factor) {
  if (factor == 0) {
    x = BigInt{};
    return;
  }
  std::uint64_t carry = 0;
  for (std::uint32_t& limb : x.limbs) {
    std::uint64_t product = std::uint64_t{limb} * factor + carry;
    limb = static_cast<std::uint32_t>(product % kLimbBase);
    carry = product / kLimbBase;
  }
  for (; carry != 0; carry /= kLimbBase) {
    x.limbs.push_back(static_cast<std::uint32_t>(carry % kLimbBase));
  }
}

BigInt Product(const BigInt& a, const BigInt& b) {
  if (IsZeroBig(a) || IsZeroBig(b)) return BigInt{};
  std::vector<std::uint64_t> acc(a.limbs.size() + b.limbs.size(), 0);
  for (std::size_t i = 0; i < a.limbs.size(); ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < b.limbs.size(); ++j) {
      std::uint64_t current = acc[i + j] + std::uint64_t{a.limbs[i]} * b.limbs[j] + carry;
      acc[i + j] = current % kLimbBase;
      carry = current / kLimbBase;
    }
    acc[i + b.limbs.size()] = carry;
  }
  BigInt result;
  result.limbs.assign(acc.begin(), acc.end());
  result.negative = a.negative != b.negative;
  Trim(result);
  return result;
}

// Divides the magnitude by a small divisor, truncating; returns the remainder's magnitude.
std::uint32_t DivSmall(BigInt& x, std::uint32_t divisor) {
  std::uint64_t remainder = 0;
  for (std::size_t i = x.limbs.size(); i-- > 0;) {
    std::uint64_t current = remainder * kLimbBase + x.limbs[i];
    x.limbs[i] = static_cast<std::uint32_t>(current / divisor);
    remainder = current % divisor;
  }
  Trim(x);
  return static_cast<std::uint32_t>(remainder);
}

void MulPow10(BigInt& x, std::int64_t n) {
  if (IsZeroBig(x) || n <= 0) return;
  if (n > kMaxDigits || DigitCount(x) + n > kMaxDigits) {
    throw std::overflow_error("quantity needs more than ten million digits");
  }
  MulSmall(x, kSmallPow10[n % kLimbDigits]);
  x.limbs.insert(x.limbs.begin(), static_cast<std::size_t>(n / kLimbDigits), 0);
}

// Divides by 10^n truncating toward zero (big.Int.Quo); true when a non-zero remainder was lost.
bool DivPow10(BigInt& x, std::int64_t n) {
  if (IsZeroBig(x) || n <= 0) return false;
  std::int64_t whole = n / kLimbDigits;
  if (whole >= static_cast<std::int64_t>(x.limbs.size())) {
    x = BigInt{};
    return true;
  }
  bool lost = false;
  for (std::int64_t i = 0; i < whole; ++i) lost = lost || x.limbs[i] != 0;
  x.limbs.erase(x.limbs.begin(), x.limbs.begin() + whole);
  lost = DivSmall(x, kSmallPow10[n % kLimbDigits]) != 0 || lost;
  return lost;
}

// big.Int.Int64(): the low 64 bits of the magnitude, then the sign, wrapping.
std::int64_t Low64(const BigInt& x) {
  std::uint64_t bits = 0;
  for (std::size_t i = x.limbs.size(); i-- > 0;) bits = bits * kLimbBase + x.limbs[i];
  if (x.negative) bits = std::uint64_t{0} - bits;
  return static_cast<std::int64_t>(bits);
}

// ---- BigDec (inf.Dec) ----

BigDec ToDec(Int64Amount a) { return BigDec{FromInt64(a.value), Neg32(a.scale)}; }

// inf's rescale: the scale difference wraps at 32 bits; lowering the scale truncates.
BigDec Rescaled(const BigDec& x, std::int32_t new_scale) {
  std::int32_t shift = Sub32(new_scale, x.scale);
  BigDec result{x.unscaled, new_scale};
  if (shift > 0) {
    MulPow10(result.unscaled, shift);
  } else if (shift < 0) {
    DivPow10(result.unscaled, -std::int64_t{shift});
  }
  return result;
}

// inf.Dec.Add: the result has the larger of the two scales.
BigDec DecSum(const BigDec& x, const BigDec& y) {
  if (x.scale == y.scale) return BigDec{Sum(x.unscaled, y.unscaled), x.scale};
  if (x.scale > y.scale) return BigDec{Sum(x.unscaled, Rescaled(y, x.scale).unscaled), x.scale};
  return BigDec{Sum(Rescaled(x, y.scale).unscaled, y.unscaled), y.scale};
}

// Exact comparison; the leading digit positions decide first, so no huge power is built.
int DecCmp(const BigDec& x, const BigDec& y) {
  int sign_x = SignOf(x.unscaled);
  int sign_y = SignOf(y.unscaled);
  if (sign_x != sign_y) return sign_x < sign_y ? -1 : 1;
  if (sign_x == 0) return 0;
  std::int64_t lead_x = DigitCount(x.unscaled) - x.scale;
  std::int64_t lead_y = DigitCount(y.unscaled) - y.scale;
  if (lead_x != lead_y) return (lead_x > lead_y ? 1 : -1) * sign_x;
  BigInt a = x.unscaled;
  BigInt b = y.unscaled;
  std::int64_t gap = std::int64_t{x.scale} - y.scale;
  MulPow10(gap > 0 ? b : a, gap > 0 ? gap : -gap);
  return Cmp(a, b);
}

// inf.Dec.Round(x, scale, inf.RoundUp): to `scale` digits, a dropped remainder moving the value
// one unit away from zero.
BigDec RoundedUp(const BigDec& x, std::int32_t scale) {
  std::int32_t shift = Sub32(scale, x.scale);
  BigDec result{x.unscaled, scale};
  if (shift > 0) {
    MulPow10(result.unscaled, shift);
  } else if (shift < 0) {
    bool negative = x.unscaled.negative;
    if (DivPow10(result.unscaled, -std::int64_t{shift})) {
      result.unscaled = Sum(result.unscaled, FromInt64(negative ? -1 : 1));
    }
  }
  return result;
}

// ---- int64 helpers (math.go) ----

// base * 10^scale; false on overflow. A negative scale leaves base unchanged, as in Go.
bool PositiveScale(std::int64_t base, std::int32_t scale, std::int64_t* out) {
  std::int64_t value = base;
  for (std::int32_t i = 0; value != 0 && i < scale; ++i) {
    if (__builtin_mul_overflow(value, std::int64_t{10}, &value)) return false;
  }
  *out = value;
  return true;
}

// base / 10^scale rounded away from zero; `exact` tells whether nothing was dropped.
std::int64_t NegativeScale(std::int64_t base, std::int32_t scale, bool* exact) {
  std::int64_t value = base;
  bool fraction = false;
  for (std::int32_t i = 0; i < scale; ++i) {
    fraction = fraction || value % 10 != 0;
    value /= 10;
    if (value == 0) {
      *exact = !fraction;
      return fraction ? (base > 0 ? 1 : -1) : 0;
    }
  }
  *exact = !fraction;
  return fraction ? value + (base > 0 ? 1 : -1) : value;
}

// value == result * base^times with as many factors of base removed as divide it.
std::pair<std::int64_t, std::int32_t> RemoveInt64Factors(std::int64_t value, std::int64_t base) {
  if (value == kMinInt64) return {value, 0};  // Go negates it back to itself and stops
  std::int64_t result = value < 0 ? -value : value;
  std::int32_t times = 0;
  while (result >= base && result % base == 0) {
    ++times;
    result /= base;
  }
  return {value < 0 ? -result : result, times};
}

// int64Amount.Add: false (a untouched) when the sum does not fit.
bool AmountAdd(Int64Amount& a, Int64Amount b) {
  if (b.value == 0) return true;
  if (a.value == 0) {
    a = b;
    return true;
  }
  std::int64_t sum = 0;
  if (a.scale == b.scale) {
    if (__builtin_add_overflow(a.value, b.value, &sum)) return false;
    a.value = sum;
    return true;
  }
  std::int64_t scaled = 0;
  if (a.scale > b.scale) {
    if (!PositiveScale(a.value, Sub32(a.scale, b.scale), &scaled)) return false;
    if (__builtin_add_overflow(scaled, b.value, &sum)) return false;
    a = Int64Amount{sum, b.scale};
    return true;
  }
  if (!PositiveScale(b.value, Sub32(b.scale, a.scale), &scaled)) return false;
  if (__builtin_add_overflow(a.value, scaled, &sum)) return false;
  a.value = sum;
  return true;
}

// int64Amount.Mul: also gives up when the product at a negative scale is not a whole number.
bool AmountMul(Int64Amount& a, std::int64_t factor) {
  if (a.value == 0) return true;
  if (factor == 0) {
    a = Int64Amount{};
    return true;
  }
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a.value, factor, &product)) return false;
  if (a.scale > 0) {
    std::int64_t unused = 0;
    if (!PositiveScale(product, a.scale, &unused)) return false;
  } else if (a.scale < 0) {
    bool exact = true;
    NegativeScale(product, Neg32(a.scale), &exact);
    if (!exact) return false;
  }
  a.value = product;
  return true;
}

int AmountCmp(Int64Amount a, Int64Amount b) {
  if (a.scale != b.scale) {
    bool a_coarser = a.scale > b.scale;
    Int64Amount& coarse = a_coarser ? a : b;
    Int64Amount& fine = a_coarser ? b : a;
    std::int64_t gap = std::int64_t{coarse.scale} - fine.scale;
    if (gap >= 18) return DecCmp(ToDec(a), ToDec(b));
    std::int64_t divisor = GoPow10AsInt64(gap);
    std::int64_t quotient = fine.value / divisor;
    std::int64_t remainder = fine.value % divisor;
    if (quotient == coarse.value) {
      // Equal whole parts: the finer side's remainder decides.
      int fine_order = remainder == 0 ? 0 : (remainder > 0 ? 1 : -1);
      return a_coarser ? -fine_order : fine_order;
    }
    fine.value = quotient;
  }
  return a.value == b.value ? 0 : (a.value < b.value ? -1 : 1);
}

// ---- parsing (parseQuantityString, suffix.go) ----

struct Pieces {
  bool positive = true;
  std::string_view value;  // sign and number as written, for the big-decimal path
  std::string_view num;    // integer digits without leading zeros, "0" when there are none
  std::string_view denom;  // fraction digits
  std::string_view suffix;
};

bool IsSuffixLetter(char c) { return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos; }

// false means the text does not have the shape of a quantity.
bool SplitQuantity(std::string_view text, Pieces& out) {
  std::size_t pos = 0;
  const std::size_t end = text.size();
  if (text[0] == '-' || text[0] == '+') {
    out.positive = text[0] == '+';
    ++pos;
  }
  while (pos < end && text[pos] == '0') ++pos;
  if (pos == end) {
    out.num = out.value = "0";
    return true;
  }
  std::size_t num_begin = pos;
  while (pos < end && IsDigit(text[pos])) ++pos;
  out.num = text.substr(num_begin, pos - num_begin);
  if (pos == end) {
    out.value = text;
    return true;
  }
  if (out.num.empty()) out.num = "0";
  if (text[pos] == '.') {
    std::size_t denom_begin = ++pos;
    while (pos < end && IsDigit(text[pos])) ++pos;
    out.denom = text.substr(denom_begin, pos - denom_begin);
    if (pos == end) {
      out.value = text;
      return true;
    }
  }
  out.value = text.substr(0, pos);
  std::size_t suffix_begin = pos;
  while (pos < end && IsSuffixLetter(text[pos])) ++pos;
  if (pos < end && (text[pos] == '-' || text[pos] == '+')) ++pos;
  while (pos < end && IsDigit(text[pos])) ++pos;
  out.suffix = text.substr(suffix_begin);
  return pos == end;
}

struct SuffixMeaning {
  int base;
  std::int32_t exponent;
  Format format;
};

struct NamedSuffix {
  std::string_view text;
  std::int32_t exponent;
};

constexpr std::array<NamedSuffix, 10> kDecimalSuffixes = {{{"n", -9},
                                                            {"u", -6},
                                                            {"m", -3},
                                                            {"", 0},
                                                            {"k", 3},
                                                            {"M", 6},
                                                            {"G", 9},
                                                            {"T", 12},
                                                            {"P", 15},
                                                            {"E", 18}}};
constexpr std::array<NamedSuffix, 6> kBinarySuffixes = {
    {{"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}}};

std::optional<SuffixMeaning> InterpretSuffix(std::string_view suffix) {
  for (const NamedSuffix& named : kDecimalSuffixes) {
    if (named.text == suffix) return SuffixMeaning{10, named.exponent, Format::kDecimalSI};
  }
  for (const NamedSuffix& named : kBinarySuffixes) {
    if (named.text == suffix) return SuffixMeaning{2, named.exponent, Format::kBinarySI};
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::optional<std::int64_t> exponent = ParseGoInt64(suffix.substr(1));
    if (!exponent) return std::nullopt;
    // Go keeps only the low 32 bits of the exponent.
    return SuffixMeaning{10, static_cast<std::int32_t>(*exponent), Format::kDecimalExponent};
  }
  return std::nullopt;
}

// inf.Dec.SetString: optional leading sign, digits with at most one '.', at least one digit.
bool ParseDecimal(std::string_view text, BigDec& out) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::size_t dot = text.find('.');
  std::string digits(text.substr(0, dot));
  if (dot != std::string_view::npos) digits.append(text.substr(dot + 1));
  if (!IsDigits(digits)) return false;
  out.unscaled = FromDigits(digits);
  out.unscaled.negative = negative && !IsZeroBig(out.unscaled);
  out.scale = dot == std::string_view::npos ? 0 : static_cast<std::int32_t>(text.size() - dot - 1);
  return true;
}

// The character `back` places from the end of first+second.
char FromEnd(std::string_view first, std::string_view second, std::size_t back) {
  if (back < second.size()) return second[second.size() - 1 - back];
  back -= second.size();
  return back < first.size() ? first[first.size() - 1 - back] : '\0';
}

// ---- printing (CanonicalizeBytes and friends) ----

struct Mantissa {
  std::string digits;
  std::int32_t exponent;  // base 10, or base 1024 for the binary form
};

// Trailing zeros move into the exponent, which is then lowered to a multiple of 3.
Mantissa DecimalMantissa(const BigDec& amount) {
  BigInt mantissa = amount.unscaled;
  std::int32_t exponent = Neg32(amount.scale);
  std::int64_t zeros = TrailingZeroDigits(mantissa);
  DivPow10(mantissa, zeros);
  exponent = Add32(exponent, static_cast<std::int32_t>(zeros));
  while (exponent % 3 != 0) {
    MulSmall(mantissa, 10);
    exponent = Sub32(exponent, 1);
  }
  return Mantissa{ToString(mantissa), exponent};
}

Mantissa DecimalMantissa(Int64Amount amount) {
  auto [mantissa, times] = RemoveInt64Factors(amount.value, 10);
  std::int32_t exponent = Add32(amount.scale, times);
  std::int32_t lower = 0;
  switch (exponent % 3) {
    case 1:
    case -2:
      lower = 1;
      break;
    case 2:
    case -1:
      lower = 2;
      break;
    default:
      break;
  }
  if (lower != 0) {
    std::int64_t widened = 0;
    if (__builtin_mul_overflow(mantissa, lower == 1 ? 10 : 100, &widened)) {
      return DecimalMantissa(ToDec(amount));
    }
    mantissa = widened;
    exponent = Sub32(exponent, lower);
  }
  return Mantissa{std::to_string(mantissa), exponent};
}

// Rounds up to a whole number first, as AsCanonicalBase1024Bytes does.
Mantissa BinaryMantissa(const BigDec& amount) {
  BigInt mantissa = RoundedUp(amount, 0).unscaled;
  std::int32_t exponent = 0;
  while (!IsZeroBig(mantissa)) {
    BigInt quotient = mantissa;
    if (DivSmall(quotient, 1024) != 0) break;
    mantissa = std::move(quotient);
    ++exponent;
  }
  return Mantissa{ToString(mantissa), exponent};
}

Mantissa BinaryMantissa(Int64Amount amount) {
  std::int64_t whole = 0;
  if (amount.scale < 0) {
    bool exact = true;
    whole = NegativeScale(amount.value, Neg32(amount.scale), &exact);
  } else if (!PositiveScale(amount.value, amount.scale, &whole)) {
    return BinaryMantissa(ToDec(amount));
  }
  auto [mantissa, exponent] = RemoveInt64Factors(whole, 1024);
  return Mantissa{std::to_string(mantissa), exponent};
}

// An exponent without a suffix of its own prints bare, as upstream does ("1000E" -> "1").
std::string_view SuffixFor(Format format, std::int32_t exponent) {
  if (format == Format::kBinarySI) {
    for (const NamedSuffix& named : kBinarySuffixes) {
      if (named.exponent == exponent) return named.text;
    }
    return "";
  }
  for (const NamedSuffix& named : kDecimalSuffixes) {
    if (named.exponent == exponent) return named.text;
  }
  return "";
}

// scale_int.go scaledValue: unscaled * 10^-scale at new_scale, rounded up, overflow unchecked.
std::int64_t ScaledBigValue(const BigInt& unscaled, std::int64_t scale, std::int64_t new_scale) {
  std::int64_t gap = scale - new_scale;
  if (gap == 0) return Low64(unscaled);
  if (gap < 0) return Mul64(Low64(unscaled), GoPow10AsInt64(-gap));
  // Go's shortcut also catches every negative value, whatever its size.
  if (Cmp(unscaled, FromInt64(kMaxInt64)) < 0 && gap < 19) {
    std::int64_t value = Low64(unscaled);
    std::int64_t divisor = GoPow10AsInt64(gap);
    return value / divisor + (value % divisor != 0 ? 1 : 0);
  }
  // big.Int.DivMod is Euclidean: the quotient is floored before the +1.
  BigInt quotient = unscaled;
  bool lost = DivPow10(quotient, gap);
  if (lost && unscaled.negative) quotient = Sum(quotient, FromInt64(-1));
  return lost ? Add64(Low64(quotient), 1) : Low64(quotient);
}

}  // namespace

Quantity::Quantity() = default;

std::optional<Quantity> Quantity::Parse(std::string_view text) { return Parse(text, nullptr); }

std::optional<Quantity> Quantity::Parse(std::string_view text, const char** error_message) {
  auto fail = [error_message](const char* message) -> std::optional<Quantity> {
    if (error_message != nullptr) *error_message = message;
    return std::nullopt;
  };
  if (text.empty()) return fail(kQuantityErrorMessage);
  Quantity quantity;
  if (text == "0") {
    quantity.cached_ = "0";
    return quantity;
  }
  Pieces pieces;
  if (!SplitQuantity(text, pieces)) return fail(kQuantityErrorMessage);
  std::optional<SuffixMeaning> suffix = InterpretSuffix(pieces.suffix);
  if (!suffix) return fail(kQuantitySuffixErrorMessage);
  Format format = suffix->format;
  quantity.format_ = format;

  // Fast path: the value fits an int64 mantissa at a scale of at least 10^-9.
  std::int64_t precision = -1;
  std::int32_t scale = 0;
  std::int64_t multiplier = 1;
  const auto digit_count = static_cast<std::int64_t>(pieces.num.size() + pieces.denom.size());
  if (format != Format::kBinarySI) {
    scale = suffix->exponent;
    precision = 18 - digit_count;
  } else if (pieces.denom.empty()) {
    multiplier = std::int64_t{1} << suffix->exponent;
    precision = 15 - static_cast<std::int64_t>(pieces.num.size()) - suffix->exponent * 3 / 10 - 1;
  }
  if (precision >= 0) {
    scale = Sub32(scale, static_cast<std::int32_t>(pieces.denom.size()));
    std::int64_t digits = 0;
    for (char c : pieces.num) digits = digits * 10 + (c - '0');
    for (char c : pieces.denom) digits = digits * 10 + (c - '0');
    std::int64_t result = 0;
    if (scale >= kNanoScale && !__builtin_mul_overflow(digits, multiplier, &result)) {
      quantity.small_ = Int64Amount{pieces.positive ? result : -result, scale};
      // Go keeps the input text when it already looks canonical enough.
      bool keep_text = false;
      if (format == Format::kBinarySI) {
        keep_text = suffix->exponent % 10 == 0 && (digits & 7) != 0;
      } else {
        bool ends_in_000 = FromEnd(pieces.num, pieces.denom, 0) == '0' &&
                           FromEnd(pieces.num, pieces.denom, 1) == '0' &&
                           FromEnd(pieces.num, pieces.denom, 2) == '0';
        keep_text = scale % 3 == 0 && !ends_in_000 && pieces.num[0] != '0';
      }
      if (keep_text) quantity.cached_ = std::string(text);
      return quantity;
    }
  }

  // Slow path: exact decimal, rounded up to 1n, BinarySI capped at 2^63-1.
  BigDec amount;
  if (!ParseDecimal(pieces.value, amount)) return fail(kQuantityNumericErrorMessage);
  try {
    if (suffix->base == 10) {
      amount.scale = Add32(amount.scale, Neg32(suffix->exponent));
    } else {
      for (std::int32_t left = suffix->exponent; left > 0; left -= 30) {
        MulSmall(amount.unscaled, std::uint32_t{1} << (left < 30 ? left : 30));
      }
    }
    bool negative = amount.unscaled.negative;
    amount.unscaled.negative = false;
    if (!IsZeroBig(amount.unscaled)) amount = RoundedUp(amount, -kNanoScale);
    if (format == Format::kBinarySI) {
      if (DecCmp(amount, BigDec{FromInt64(kMaxInt64), 0}) > 0) {
        amount = BigDec{FromInt64(kMaxInt64), 0};
      }
      if (!IsZeroBig(amount.unscaled) && DecCmp(amount, BigDec{FromInt64(1), 0}) < 0) {
        quantity.format_ = Format::kDecimalSI;
      }
    }
    amount.unscaled.negative = negative && !IsZeroBig(amount.unscaled);
  } catch (const std::overflow_error&) {
    return fail(kQuantityNumericErrorMessage);
  }
  quantity.big_ = std::move(amount);
  quantity.is_big_ = true;
  return quantity;
}

Quantity Quantity::FromInt(std::int64_t value, Format format) {
  Quantity quantity;
  quantity.small_ = Int64Amount{value, 0};
  quantity.format_ = format;
  return quantity;
}

std::string Quantity::String() const { return cached_.empty() ? CanonicalString() : cached_; }

std::string Quantity::CanonicalString() const {
  if (IsZero()) return "0";
  Format format = format_;
  if (format == Format::kBinarySI) {
    // Small or fractional binary values print in decimal rather than lose precision.
    if (CmpInt64(-1024) > 0 && CmpInt64(1024) < 0) {
      format = Format::kDecimalSI;
    } else if (is_big_) {
      BigDec whole = RoundedUp(big_, 0);
      if (DecCmp(whole, big_) != 0) {
        format = Format::kDecimalSI;
      } else {
        Mantissa binary = BinaryMantissa(whole);
        return binary.digits.append(SuffixFor(format, Mul32(binary.exponent, 10)));
      }
    } else {
      bool exact = true;
      if (small_.scale < 0) NegativeScale(small_.value, Neg32(small_.scale), &exact);
      if (!exact) {
        format = Format::kDecimalSI;
      } else {
        Mantissa binary = BinaryMantissa(small_);
        return binary.digits.append(SuffixFor(format, Mul32(binary.exponent, 10)));
      }
    }
  }
  Mantissa decimal = is_big_ ? DecimalMantissa(big_) : DecimalMantissa(small_);
  if (format == Format::kDecimalSI) return decimal.digits.append(SuffixFor(format, decimal.exponent));
  if (decimal.exponent == 0) return decimal.digits;
  return decimal.digits + "e" + std::to_string(decimal.exponent);
}

void Quantity::Add(const Quantity& other) {
  cached_.clear();
  if (!is_big_ && !other.is_big_) {
    if (small_.value == 0) format_ = other.format_;
    if (AmountAdd(small_, other.small_)) return;
  } else if (IsZero()) {
    format_ = other.format_;
  }
  BigDec addend = other.AsBigDec();
  ToBigInPlace();
  big_ = DecSum(big_, addend);
}

void Quantity::Sub(const Quantity& other) {
  cached_.clear();
  if (IsZero()) format_ = other.format_;
  if (!is_big_ && !other.is_big_ &&
      AmountAdd(small_, Int64Amount{Neg64(other.small_.value), other.small_.scale})) {
    return;
  }
  BigDec subtrahend = other.AsBigDec();
  subtrahend.unscaled = Negated(std::move(subtrahend.unscaled));
  ToBigInPlace();
  big_ = DecSum(big_, subtrahend);
}

void Quantity::Mul(std::int64_t factor) {
  cached_.clear();
  if (!is_big_ && AmountMul(small_, factor)) return;
  ToBigInPlace();
  big_.unscaled = Product(big_.unscaled, FromInt64(factor));
}

std::int64_t Quantity::Value() const { return ScaledValue(0); }
std::int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

std::int64_t Quantity::ScaledValue(std::int32_t scale) const {
  if (is_big_) return ScaledBigValue(big_.unscaled, big_.scale, -std::int64_t{scale});
  std::int64_t result = 0;
  if (small_.scale < scale) {
    bool exact = true;
    return NegativeScale(small_.value, Sub32(scale, small_.scale), &exact);
  }
  return PositiveScale(small_.value, Sub32(small_.scale, scale), &result) ? result : 0;
}

int Quantity::Cmp(const Quantity& other) const {
  if (!is_big_ && !other.is_big_) return AmountCmp(small_, other.small_);
  BigDec theirs = other.AsBigDec();
  ToBigInPlace();
  return DecCmp(big_, theirs);
}

int Quantity::CmpInt64(std::int64_t value) const {
  if (!is_big_) return AmountCmp(small_, Int64Amount{value, 0});
  return DecCmp(big_, BigDec{FromInt64(value), 0});
}

int Quantity::Sign() const {
  if (is_big_) return SignOf(big_.unscaled);
  return small_.value == 0 ? 0 : (small_.value > 0 ? 1 : -1);
}

bool Quantity::IsZero() const { return is_big_ ? IsZeroBig(big_.unscaled) : small_.value == 0; }

void Quantity::ToBigInPlace() const {
  if (is_big_) return;
  big_ = ToDec(small_);
  small_ = Int64Amount{};
  is_big_ = true;
}

BigDec Quantity::AsBigDec() const { return is_big_ ? big_ : ToDec(small_); }

}  // namespace trainer
