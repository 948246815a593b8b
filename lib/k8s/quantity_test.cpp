// Tests of Quantity against the behaviour of apimachinery pkg/api/resource (v0.36.3). Expected
// texts come from kubectl v1.32.4 (same quantity code) where it can show them, else from the
// Go source read line by line.
#include "k8s/quantity.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer {
namespace {

using Format = Quantity::Format;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Quantity Q(std::string_view text) {
  std::optional<Quantity> parsed = Quantity::Parse(text);
  REQUIRE_MESSAGE(parsed.has_value(), "failed to parse " << text);
  return *parsed;
}

// Each pair is input text and the text Go's MarshalJSON gives after ParseQuantity.
void CheckPrints(const std::vector<std::pair<std::string_view, std::string_view>>& cases) {
  for (const auto& [text, expected] : cases) {
    std::string_view input = text;  // a plain variable, which CAPTURE can hold
    CAPTURE(input);
    CHECK(Q(input).String() == expected);
  }
}

TEST_CASE("1000m prints as 1") { CHECK(Q("1000m").String() == "1"); }

TEST_CASE("Decimal values print with the largest suffix that keeps them whole") {
  CheckPrints({{"1000", "1k"},
               {"1000k", "1M"},
               {"100k", "100k"},
               {"1.5k", "1500"},
               {"1.5M", "1500k"},
               {"0.5", "500m"},
               {"100m", "100m"},
               {"-1.5", "-1500m"},
               {"1000P", "1E"},
               {"0.01u", "10n"},
               {"999999999999999999000", "999999999999999999k"},
               {"123456789012345678.9", "123456789012345678900m"}});
}

TEST_CASE("Binary values print with the largest exact power of 1024") {
  CheckPrints({{"1024Mi", "1Gi"},
               {"1.5Gi", "1536Mi"},
               {"0.5Mi", "512Ki"},
               {"1024Ki", "1Mi"},
               {"8Ki", "8Ki"},
               {"-8Ki", "-8Ki"},
               {"100000000000Ki", "97656250Mi"}});
}

TEST_CASE("Binary values below 1024 or with a fraction print as decimal") {
  CheckPrints({{"1.5Ki", "1536"},
               {"0.5Ki", "512"},
               {"-0.5Ki", "-512"},
               {"1.1Ki", "1126400m"},
               {"0.9Ki", "921600m"}});
}

TEST_CASE("Decimal exponents move down to a multiple of three") {
  CheckPrints({{"12e-1", "1200e-3"},
               {"1.5e3", "1500"},
               {"1e19", "10e18"},
               {"1e-10", "1e-9"},
               {"15e-10", "2e-9"}});
}

TEST_CASE("Values finer than 1n round up away from zero and coarser ones stay exact") {
  CheckPrints({{"1.2345n", "2n"},
               {"-1.2345n", "-2n"},
               {"0.0000000001", "1n"},
               {"0.001n", "1n"},
               {"1e-21", "1e-9"},
               {"0.0000000001Ki", "103n"},
               {"0.1m", "100u"}});
}

TEST_CASE("Input text Kubernetes keeps is echoed verbatim but canonical form ignores it") {
  std::vector<std::pair<std::string_view, std::string_view>> kept = {
      {"1.500", "1500m"}, {"+1", "1"},    {"01", "1"},       {"1E3", "1e3"},
      {"5.", "5"},        {"1e+09", "1e9"}, {"1e0", "1"},    {"1.000001", "1000001u"},
      {"2e3", "2e3"},     {"+1Ki", "1Ki"}, {"-0001Ki", "-1Ki"}, {"1025Ki", "1025Ki"}};
  for (const auto& [text, canonical] : kept) {
    std::string_view input = text;
    CAPTURE(input);
    Quantity quantity = Q(input);
    CHECK(quantity.String() == input);
    CHECK(quantity.CanonicalString() == canonical);
  }
}

TEST_CASE("Input text that ends in 000, starts with 0 or has an odd scale is not kept") {
  CheckPrints({{"+1000", "1k"}, {"0.50", "500m"}, {"-1.50", "-1500m"}, {"1.0", "1"}});
}

TEST_CASE("Zero prints as 0 however it is spelled") {
  for (std::string_view input : {"0", "0.0", "-0", "+0", "00", "0Ki", "0e5", ".", "+", "-", "Ki",
                                 "m", "0.", "0.0000000000000000000000"}) {
    CAPTURE(input);
    Quantity quantity = Q(input);
    CHECK(quantity.IsZero());
    CHECK(quantity.Sign() == 0);
    CHECK(quantity.String() == "0");
  }
  CHECK(Quantity().String() == "0");
  CHECK(Quantity().format() == Format::kDecimalSI);
  CHECK(Q("0Ki").format() == Format::kBinarySI);
}

TEST_CASE("The suffix decides the format") {
  CHECK(Q("1").format() == Format::kDecimalSI);
  CHECK(Q("1m").format() == Format::kDecimalSI);
  CHECK(Q("1E").format() == Format::kDecimalSI);
  CHECK(Q("1Gi").format() == Format::kBinarySI);
  CHECK(Q("0.5Ki").format() == Format::kBinarySI);
  CHECK(Q("1e3").format() == Format::kDecimalExponent);
  CHECK(Q("1E3").format() == Format::kDecimalExponent);
}

TEST_CASE("Values beyond int64 keep every digit") {
  CheckPrints({{"123456789012345678901234567890", "123456789012345678901234567890"},
               {"123456789012345678901234567890m", "123456789012345678901234567890m"},
               {"0.123456789012345678901234567890", "123456790n"},
               {"9223372036854775808", "9223372036854775808"},
               {"-9223372036854775809", "-9223372036854775809"},
               {"18446744073709551616", "18446744073709551616"},
               {"9.223372036854775808E", "9223372036854775808"},
               {"1234567890123456789e3", "1234567890123456789e3"},
               {"0.999999999999999999", "1"}});
}

TEST_CASE("Decimal exponents past E print without a suffix, as upstream does") {
  CheckPrints({{"1000E", "1"}, {"1000000E", "1"}, {"1000000000000000000000000", "1"},
               {"1000000000000000000000000n", "1P"}});
}

TEST_CASE("Binary values are capped at 2^63-1 and decimal values are not") {
  CheckPrints({{"8Ei", "9223372036854775807"},
               {"-8Ei", "-9223372036854775807"},
               {"8192Pi", "9223372036854775807"},
               {"18446744073709551616Ki", "9223372036854775807"},
               {"7.99999999999999999999Ei", "9223372036854775807"},
               {"9E", "9E"},
               {"10E", "10E"}});
  CHECK(Q("8Ei").format() == Format::kBinarySI);
}

TEST_CASE("1Pi and 1Ei take the exact path and still print with their suffix") {
  CheckPrints({{"1Pi", "1Pi"}, {"1023Pi", "1023Pi"}, {"1Ei", "1Ei"}, {"4Ei", "4Ei"}});
}

TEST_CASE("A binary value between 0 and 1 becomes decimal") {
  Quantity tiny = Q("0.000000000000000000001Ei");
  CHECK(tiny.format() == Format::kDecimalSI);
  CHECK(tiny.String() == "1152922n");
}

TEST_CASE("Exponent suffixes keep only the low 32 bits, like Go's int32") {
  Quantity wrapped_to_zero = Q("1e4294967296");
  CHECK(wrapped_to_zero.String() == "1e4294967296");
  CHECK(wrapped_to_zero.CanonicalString() == "1");
  CHECK(Q("1e99999999999").String() == "10e1215752190");
  CHECK(Q("1e9223372036854775807").String() == "100e-3");
}

TEST_CASE("Invalid quantities are rejected") {
  for (std::string_view input :
       {"", "1e", "1e-", "1E+", "1ee3", "1.2.3", "abc", "1K", "1i", "1KiB", "1 k", " 1", "1 ",
        "1e3e3", "1e3i", "Ei", ".Ei", "+Ei", "--1", "+-1", "1-", "1e9223372036854775808", "1mm",
        "0x10", "1,5", "1_000", "1Ki5", "e"}) {
    CAPTURE(input);
    CHECK_FALSE(Quantity::Parse(input).has_value());
  }
}

TEST_CASE("Parse reports the message Kubernetes gives for each kind of failure") {
  auto message_for = [](std::string_view input) {
    const char* message = nullptr;
    CHECK_FALSE(Quantity::Parse(input, &message).has_value());
    return std::string(message == nullptr ? "" : message);
  };
  CHECK(message_for("") == kQuantityErrorMessage);
  CHECK(message_for("1.2.3") == kQuantityErrorMessage);
  CHECK(message_for("1e3i") == kQuantityErrorMessage);
  CHECK(message_for("1K") == kQuantitySuffixErrorMessage);
  CHECK(message_for("1e") == kQuantitySuffixErrorMessage);
  CHECK(message_for("Ei") == kQuantityNumericErrorMessage);
  CHECK(std::string(kQuantityErrorMessage) ==
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

TEST_CASE("Quantities that would need more than ten million digits are refused") {
  CHECK(Q("1234567890123456789e5000000").String() == "123456789012345678900e4999998");
  const char* message = nullptr;
  CHECK_FALSE(Quantity::Parse("1234567890123456789e20000000", &message).has_value());
  CHECK(std::string(message) == kQuantityNumericErrorMessage);
  // A tiny exponent needs no big power: Go would try to build 10^2147483639 here.
  CHECK(Q("1e-2147483648").String() == "1e-9");
}

TEST_CASE("Printing is stable after one round trip") {
  for (std::string_view input :
       {"1.5Ki", "1.1Ki", "12e-1", "1.5e3", "+1", "1.500", "8Ei", "1000E", "0.1m", "1.2345n",
        "123456789012345678901234567890m", "0.5Mi", "1e+09", "1e19", "-1.5", "1025Ki"}) {
    CAPTURE(input);
    std::string once = Q(input).String();
    CHECK(Q(once).String() == once);
    CHECK(Q(once).CanonicalString() == Q(input).CanonicalString());
  }
}

TEST_CASE("A round trip turns a binary value printed without suffix into a decimal one") {
  Quantity original = Q("1.5Ki");
  Quantity reparsed = Q(original.String());
  CHECK(original.format() == Format::kBinarySI);
  CHECK(reparsed.format() == Format::kDecimalSI);
  original.Mul(2);
  reparsed.Mul(2);
  CHECK(original.String() == "3Ki");
  CHECK(reparsed.String() == "3072");
  CHECK(Q(Q("1.5e3").String()).format() == Format::kDecimalSI);
}

TEST_CASE("Value rounds up to a whole number, away from zero") {
  CHECK(Q("500m").Value() == 1);
  CHECK(Q("1500m").Value() == 2);
  CHECK(Q("0.5").Value() == 1);
  CHECK(Q("2.1").Value() == 3);
  CHECK(Q("2").Value() == 2);
  CHECK(Q("1.1Ki").Value() == 1127);
  CHECK(Q("1n").Value() == 1);
  CHECK(Q("1e-10").Value() == 1);
  CHECK(Q("1Gi").Value() == 1073741824);
  CHECK(Q("1Ei").Value() == 1152921504606846976);
  CHECK(Q("8Ei").Value() == kMax);
  CHECK(Q("-1.5").Value() == -2);
  CHECK(Q("-1500m").Value() == -2);
}

TEST_CASE("MilliValue rounds up to a whole thousandth") {
  CHECK(Q("1").MilliValue() == 1000);
  CHECK(Q("1.0001").MilliValue() == 1001);
  CHECK(Q("100m").MilliValue() == 100);
  CHECK(Q("1n").MilliValue() == 1);
  CHECK(Q("1Ki").MilliValue() == 1024000);
  CHECK(Q("1.1Ki").MilliValue() == 1126400);
  CHECK(Q("-1.5u").MilliValue() == -1);
  CHECK(Q("-1.5m").MilliValue() == -2);
}

TEST_CASE("Value past int64 gives Go's results for each form") {
  CHECK(Q("10E").Value() == 0);                       // int64 form: overflow gives 0
  CHECK(Q("10000000000000000000").Value() == -8446744073709551616);  // big form: low 64 bits
  CHECK(Q("9223372036854775807").MilliValue() == -1000);
  Quantity moved = Q("10E");
  moved.Mul(1);  // does not fit the int64 form, so Go switches to the big one
  CHECK(moved.String() == "10E");
  CHECK(moved.Value() == -8446744073709551616);
  Quantity far = Q("1e19");
  far.Mul(1);  // 1 * int64(math.Pow10(19)), which is MinInt64 on amd64
  CHECK(far.Value() == kMin);
}

TEST_CASE("Value of a big value with over 18 fraction digits floors, then adds one") {
  auto value_at_scale_22 = [](std::string_view text) {
    Quantity quantity = Q("0.0000000000000000000000");  // zero kept at scale 22
    quantity.Add(Q(text));
    return quantity.Value();
  };
  CHECK(value_at_scale_22("-1.5") == -1);
  CHECK(value_at_scale_22("1.5") == 2);
  CHECK(value_at_scale_22("-2") == -2);
  CHECK(value_at_scale_22("1n") == 1);
}

TEST_CASE("Add keeps the receiver's format") {
  Quantity binary_first = Q("512Mi");
  binary_first.Add(Q("512M"));
  CHECK(binary_first.String() == "1024288Ki");
  CHECK(binary_first.format() == Format::kBinarySI);
  Quantity decimal_first = Q("512M");
  decimal_first.Add(Q("512Mi"));
  CHECK(decimal_first.String() == "1048870912");
  Quantity exponent = Q("1e3");
  exponent.Add(Q("1e3"));
  CHECK(exponent.String() == "2e3");
  Quantity milli = Q("500m");
  milli.Add(Q("500m"));
  CHECK(milli.String() == "1");
}

TEST_CASE("A zero receiver takes the format of the first non-zero addend") {
  Quantity total;
  total.Add(Q("0"));
  total.Add(Q("1Gi"));
  CHECK(total.format() == Format::kBinarySI);
  CHECK(total.String() == "1Gi");
  Quantity from_int = Quantity::FromInt(0);
  from_int.Add(Q("1Ki"));
  CHECK(from_int.String() == "1Ki");
  Quantity big_zero = Q("0.0000000000000000000000");  // zero in the big form
  big_zero.Add(Q("123456789012345678901234567890Ki"));
  CHECK(big_zero.format() == Format::kBinarySI);
}

TEST_CASE("Arithmetic drops the kept input text") {
  Quantity plus_one = Q("+1");
  plus_one.Add(Q("0"));
  CHECK(plus_one.String() == "1");
  Quantity padded = Q("1.500");
  padded.Mul(1);
  CHECK(padded.String() == "1500m");
  Quantity exponent = Q("2e3");
  exponent.Sub(Q("1e3"));
  CHECK(exponent.String() == "1e3");
}

TEST_CASE("Sums past int64 continue exactly in the big form") {
  Quantity sum = Quantity::FromInt(kMax);
  sum.Add(Quantity::FromInt(1));
  CHECK(sum.String() == "9223372036854775808");
  CHECK(sum.Value() == kMin);
  Quantity mixed = Q("123456789012345678901234567890");
  mixed.Add(Q("1m"));
  CHECK(mixed.String() == "123456789012345678901234567890001m");
  Quantity halves = Q("4Ei");
  halves.Add(Q("4Ei"));
  CHECK(halves.String() == "8Ei");  // only parsing caps binary values
}

TEST_CASE("Sub subtracts and a zero receiver takes the other's format") {
  Quantity memory = Q("1Gi");
  memory.Sub(Q("512Mi"));
  CHECK(memory.String() == "512Mi");
  Quantity negative;
  negative.Sub(Q("1Gi"));
  CHECK(negative.String() == "-1Gi");
  CHECK(negative.format() == Format::kBinarySI);
  CHECK(negative.Sign() == -1);
  Quantity to_zero = Q("1");
  to_zero.Sub(Q("1000m"));
  CHECK(to_zero.IsZero());
  CHECK(to_zero.String() == "0");
  Quantity below = Q("100m");
  below.Sub(Q("1"));
  CHECK(below.String() == "-900m");
  Quantity big = Q("123456789012345678901234567890");
  big.Sub(Q("123456789012345678901234567889"));
  CHECK(big.String() == "1");
}

TEST_CASE("Subtracting MinInt64 from zero gives MinInt64, as Go's wrapping negation does") {
  Quantity zero;
  zero.Sub(Quantity::FromInt(kMin));
  CHECK(zero.String() == "-9223372036854775808");
}

TEST_CASE("Mul keeps the format") {
  Quantity memory = Q("1536Mi");
  memory.Mul(3);
  CHECK(memory.String() == "4608Mi");
  Quantity cpu = Q("500m");
  cpu.Mul(3);
  CHECK(cpu.String() == "1500m");
  CHECK(cpu.Value() == 2);
  Quantity kibi = Q("1Ki");
  kibi.Mul(1000);
  CHECK(kibi.String() == "1000Ki");
  Quantity negated = Q("1Gi");
  negated.Mul(-1);
  CHECK(negated.String() == "-1Gi");
  Quantity zeroed = Q("1Gi");
  zeroed.Mul(0);
  CHECK(zeroed.IsZero());
  CHECK(zeroed.String() == "0");
}

TEST_CASE("Products past int64 continue exactly in the big form") {
  Quantity doubled = Quantity::FromInt(kMax);
  doubled.Mul(2);
  CHECK(doubled.String() == "18446744073709551614");
  CHECK(doubled.Value() == -2);
  Quantity exbi = Q("1Ei");
  exbi.Mul(8);
  CHECK(exbi.String() == "8Ei");
  Quantity past_ei = Q("1Ei");
  past_ei.Mul(1024);
  CHECK(past_ei.String() == "1");  // 1024^7 has no binary suffix, as upstream
  CHECK(past_ei.Cmp(Q("1180591620717411303424")) == 0);
}

TEST_CASE("A negative milli value multiplied into the big form rounds its Value toward zero") {
  Quantity quantity = Q("-1.5");
  CHECK(quantity.Value() == -2);
  quantity.Mul(1);  // -15 at scale -1 is not whole, so Go moves to the big form
  CHECK(quantity.String() == "-1500m");
  CHECK(quantity.Value() == 0);
}

TEST_CASE("PodGroup totals follow the format of the first PodSet") {
  auto total_of = [](std::vector<std::pair<std::string_view, std::int64_t>> pod_sets) {
    Quantity total;
    for (const auto& [request, count] : pod_sets) {
      Quantity each = Q(request);
      each.Mul(count);
      total.Add(each);
    }
    return total.String();
  };
  CHECK(total_of({{"1Gi", 1}, {"2G", 2}}) == "4954826Ki");
  CHECK(total_of({{"2G", 2}, {"1Gi", 1}}) == "5073741824");
  CHECK(total_of({{"1", 1}, {"1", 1}, {"1", 30}}) == "32");
}

TEST_CASE("Cmp compares exact values across suffixes and forms") {
  CHECK(Q("1").Cmp(Q("1000m")) == 0);
  CHECK(Q("1Ki").Cmp(Q("1024")) == 0);
  CHECK(Q("1Ki").Cmp(Q("1k")) == 1);
  CHECK(Q("1k").Cmp(Q("1Ki")) == -1);
  CHECK(Q("999m").Cmp(Q("1")) == -1);
  CHECK(Q("1001m").Cmp(Q("1")) == 1);
  CHECK(Q("-1").Cmp(Q("1m")) == -1);
  CHECK(Q("-1").Cmp(Q("-1001m")) == 1);
  CHECK(Q("1e30").Cmp(Q("1n")) == 1);
  CHECK(Q("1n").Cmp(Q("1e30")) == -1);
  CHECK(Q("1.2345n").Cmp(Q("2n")) == 0);
  CHECK(Q("123456789012345678901234567890").Cmp(Q("123456789012345678901234567891")) == -1);
  CHECK(Q("10000000000000000000").Cmp(Quantity::FromInt(kMax)) == 1);
  CHECK(Quantity::FromInt(kMax).Cmp(Q("10000000000000000000")) == -1);
  CHECK(Q("8Ei").Cmp(Quantity::FromInt(kMax)) == 0);
}

TEST_CASE("Comparing with a big value moves the receiver to the big form, as Go does") {
  Quantity quantity = Q("-1.5");
  CHECK(quantity.Value() == -2);
  CHECK(quantity.Cmp(Q("123456789012345678901234567890")) == -1);
  CHECK(quantity.String() == "-1500m");
  CHECK(quantity.Value() == 0);
}

TEST_CASE("FromInt values print in the chosen format") {
  CHECK(Quantity::FromInt(1024, Format::kBinarySI).String() == "1Ki");
  CHECK(Quantity::FromInt(1023, Format::kBinarySI).String() == "1023");
  CHECK(Quantity::FromInt(-2048, Format::kBinarySI).String() == "-2Ki");
  CHECK(Quantity::FromInt(5000, Format::kDecimalExponent).String() == "5e3");
  CHECK(Quantity::FromInt(5, Format::kDecimalExponent).String() == "5");
  CHECK(Quantity::FromInt(2000).String() == "2k");
  CHECK(Quantity::FromInt(1500).String() == "1500");
  CHECK(Quantity::FromInt(kMin).String() == "-9223372036854775808");
  CHECK(Quantity::FromInt(7).Value() == 7);
}

}  // namespace
}  // namespace trainer
