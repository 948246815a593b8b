// Z85, the printable encoding of ZeroMQ RFC 32 (rfc.zeromq.org/spec/32), as CURVE certificates use.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace trainer {

// Five characters for every four bytes, big-endian. Data whose length is not a multiple of four
// gives "", as upstream's encoder in the Flux plugin does.
std::string EncodeZ85(std::span<const std::uint8_t> data);

}  // namespace trainer
