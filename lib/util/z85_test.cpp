#include "util/z85.h"

#include <doctest/doctest.h>

#include <array>
#include <vector>

namespace trainer {

TEST_CASE("Z85 encodes the RFC 32 test vector as HelloWorld") {
  const std::array<std::uint8_t, 8> hello = {0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B};
  CHECK(EncodeZ85(hello) == "HelloWorld");
}

// The cases of upstream's TestEncodeZ85.
TEST_CASE("Z85: 32 bytes produces 40 characters") { CHECK(EncodeZ85(std::vector<std::uint8_t>(32)).size() == 40); }

TEST_CASE("Z85: invalid length returns empty string") {
  const std::array<std::uint8_t, 3> odd = {1, 2, 3};
  CHECK(EncodeZ85(odd).empty());
}

TEST_CASE("Z85: all zeros produces zeros in Z85") { CHECK(EncodeZ85(std::vector<std::uint8_t>(4)) == "00000"); }

TEST_CASE("Z85 encodes all ones with the last digits of the alphabet") {
  CHECK(EncodeZ85(std::vector<std::uint8_t>(4, 0xFF)) == "%nSc0");
}

TEST_CASE("Z85 encodes nothing as nothing") { CHECK(EncodeZ85(std::span<const std::uint8_t>()).empty()); }

}  // namespace trainer
