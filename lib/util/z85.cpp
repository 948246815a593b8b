#include "util/z85.h"

namespace trainer {

namespace {

// RFC 32's alphabet, digit value 0 first.
constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
static_assert(sizeof(kAlphabet) == 86);

}  // namespace

std::string EncodeZ85(std::span<const std::uint8_t> data) {
  if (data.size() % 4 != 0) return {};
  std::string out;
  out.reserve(data.size() / 4 * 5);
  for (std::size_t i = 0; i < data.size(); i += 4) {
    std::uint32_t word = 0;
    for (std::size_t j = 0; j < 4; ++j) word = word << 8 | data[i + j];
    char digits[5];
    for (int d = 4; d >= 0; --d) {
      digits[d] = kAlphabet[word % 85];
      word /= 85;
    }
    out.append(digits, 5);
  }
  return out;
}

}  // namespace trainer
