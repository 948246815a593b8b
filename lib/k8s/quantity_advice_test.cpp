#include "k8s/quantity_advice.h"

#include <doctest/doctest.h>

namespace trainer {
namespace {

const std::string kSuffixes = "Suffixes: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent e3";

TEST_CASE("QuantityAdvice names the quantity likely meant, and the suffixes") {
  CHECK(QuantityAdvice("16GB") == "\"16GB\" is not a quantity: did you mean \"16G\" (10^9) or \"16Gi\" (2^30)? " + kSuffixes);
  CHECK(QuantityAdvice("16gi") == "\"16gi\" is not a quantity: did you mean \"16Gi\" (2^30)? " + kSuffixes);
  CHECK(QuantityAdvice("16GiB") == "\"16GiB\" is not a quantity: did you mean \"16Gi\" (2^30)? " + kSuffixes);
  CHECK(QuantityAdvice("16 Gi") == "\"16 Gi\" is not a quantity: did you mean \"16Gi\"? " + kSuffixes);
  CHECK(QuantityAdvice("512 MB") == "\"512 MB\" is not a quantity: did you mean \"512M\" (10^6) or \"512Mi\" (2^20)? " + kSuffixes);
  CHECK(QuantityAdvice("2KB") == "\"2KB\" is not a quantity: did you mean \"2k\" (10^3) or \"2Ki\" (2^10)? " + kSuffixes);
  CHECK(QuantityAdvice("1.5tb") == "\"1.5tb\" is not a quantity: did you mean \"1.5T\" (10^12) or \"1.5Ti\" (2^40)? " + kSuffixes);
  CHECK(QuantityAdvice("4 cpu") == "\"4 cpu\" is not a quantity: did you mean \"4\"? " + kSuffixes);
  CHECK(QuantityAdvice("2GPUs") == "\"2GPUs\" is not a quantity: did you mean \"2\"? " + kSuffixes);
  CHECK(QuantityAdvice(" 2") == "\" 2\" is not a quantity: did you mean \"2\"? " + kSuffixes);
}

TEST_CASE("QuantityAdvice without a likely quantity gives the form and the suffixes") {
  const std::string no_guess = " is not a quantity: write a number with an optional suffix. " + kSuffixes;
  CHECK(QuantityAdvice("two") == "\"two\"" + no_guess);
  CHECK(QuantityAdvice("") == "\"\"" + no_guess);
  CHECK(QuantityAdvice("16XB") == "\"16XB\"" + no_guess);
  CHECK(QuantityAdvice("1e") == "\"1e\"" + no_guess);  // an exponent without digits, not exa
  CHECK(QuantityAdvice("Gi") == "\"Gi\"" + no_guess);
}

}  // namespace
}  // namespace trainer
