// SSH keys for the MPI SSH auth Secret, through OpenSSL 3's EVP, encoder and decoder APIs.
#include "plugins/mpi_ssh.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>

#include "util/error.h"

namespace trainer {

namespace {

constexpr const char* kPlaceholderPrivateKey =
    "PLACEHOLDER: the controller generates a fresh ECDSA P-521 private key (PEM \"EC PRIVATE KEY\") for each "
    "TrainJob; trainer render --generate-ssh-keys writes a real one\n";
constexpr const char* kPlaceholderPublicKey =
    "PLACEHOLDER: the controller writes the matching OpenSSH public key (ecdsa-sha2-nistp521) here\n";

constexpr std::string_view kSSHKeyType = "ecdsa-sha2-nistp521";
constexpr std::string_view kSSHCurve = "nistp521";
// 0x04 || X || Y, each coordinate 66 bytes.
constexpr std::size_t kP521PointSize = 133;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct EncoderFree {
  void operator()(OSSL_ENCODER_CTX* p) const { OSSL_ENCODER_CTX_free(p); }
};
struct DecoderFree {
  void operator()(OSSL_DECODER_CTX* p) const { OSSL_DECODER_CTX_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

[[noreturn]] void Fail(std::string_view what) {
  std::string reason;
  if (unsigned long code = ERR_get_error(); code != 0) {
    std::array<char, 256> buffer{};
    ERR_error_string_n(code, buffer.data(), buffer.size());
    reason = fmt::format(": {}", buffer.data());
  }
  ERR_clear_error();
  throw Error(fmt::format("MPI SSH key: {}{}", what, reason));
}

// An SSH wire-format string: a 32-bit big-endian length, then the bytes.
void AppendSSHString(std::string& out, std::string_view bytes) {
  auto n = static_cast<std::uint32_t>(bytes.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xff));
  out.append(bytes);
}

std::string AuthorizedKey(std::string_view point) {
  std::string blob;
  AppendSSHString(blob, kSSHKeyType);
  AppendSSHString(blob, kSSHCurve);
  AppendSSHString(blob, point);
  return fmt::format("{} {}\n", kSSHKeyType, Base64Encode(blob));
}

std::string PrivateKeyPEM(EVP_PKEY* key) {
  // "type-specific" is SEC1 for EC keys: the "EC PRIVATE KEY" block Go's x509.MarshalECPrivateKey
  // and pem.EncodeToMemory write, with the named curve and the public key included.
  std::unique_ptr<OSSL_ENCODER_CTX, EncoderFree> ctx(
      OSSL_ENCODER_CTX_new_for_pkey(key, EVP_PKEY_KEYPAIR, "PEM", "type-specific", nullptr));
  if (!ctx || OSSL_ENCODER_CTX_get_num_encoders(ctx.get()) == 0) Fail("no PEM encoder for EC private keys");
  unsigned char* data = nullptr;
  std::size_t length = 0;
  if (OSSL_ENCODER_to_data(ctx.get(), &data, &length) != 1) Fail("encoding the private key");
  std::string pem(reinterpret_cast<const char*>(data), length);
  OPENSSL_free(data);
  return pem;
}

SSHAuthKeys Encode(EVP_PKEY* key) {
  std::array<char, 64> group{};
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group.data(), group.size(), nullptr) != 1) {
    Fail("the key is not an EC key");
  }
  std::string_view name(group.data());
  if (name != "secp521r1" && name != "P-521") Fail(fmt::format("the key is on curve {}, not P-521", name));
  // The encoded public key follows the key's point format; ask for the uncompressed form SSH uses.
  OSSL_PARAM format[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                                                          const_cast<char*>("uncompressed"), 0),
                         OSSL_PARAM_construct_end()};
  if (EVP_PKEY_set_params(key, format) != 1) Fail("setting the point format");
  std::array<unsigned char, kP521PointSize + 1> point{};
  std::size_t point_size = 0;
  if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size(), &point_size) != 1 ||
      point_size != kP521PointSize || point[0] != 0x04) {
    Fail("reading the public key");
  }
  SSHAuthKeys keys;
  keys.private_key = PrivateKeyPEM(key);
  keys.public_key = AuthorizedKey(std::string_view(reinterpret_cast<const char*>(point.data()), point_size));
  return keys;
}

class PlaceholderSSHKeys : public SSHKeySource {
 public:
  SSHAuthKeys Generate() override { return SSHAuthKeys{kPlaceholderPrivateKey, kPlaceholderPublicKey, true}; }
};

class ECDSAP521SSHKeys : public SSHKeySource {
 public:
  SSHAuthKeys Generate() override {
    std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1) Fail("setting up key generation");
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, const_cast<char*>("P-521"), 0),
                           OSSL_PARAM_construct_end()};
    if (EVP_PKEY_CTX_set_params(ctx.get(), params) != 1) Fail("selecting curve P-521");
    EVP_PKEY* raw = nullptr;
    if (EVP_PKEY_generate(ctx.get(), &raw) != 1) Fail("generating the key");
    Pkey key(raw);
    return Encode(key.get());
  }
};

}  // namespace

std::unique_ptr<SSHKeySource> NewPlaceholderSSHKeys() { return std::make_unique<PlaceholderSSHKeys>(); }

std::unique_ptr<SSHKeySource> NewECDSAP521SSHKeys() { return std::make_unique<ECDSAP521SSHKeys>(); }

SSHAuthKeys EncodeSSHAuthKeys(std::string_view private_key_pem) {
  EVP_PKEY* raw = nullptr;
  std::unique_ptr<OSSL_DECODER_CTX, DecoderFree> ctx(
      OSSL_DECODER_CTX_new_for_pkey(&raw, "PEM", nullptr, "EC", EVP_PKEY_KEYPAIR, nullptr, nullptr));
  if (!ctx) Fail("no PEM decoder for EC private keys");
  const auto* data = reinterpret_cast<const unsigned char*>(private_key_pem.data());
  std::size_t length = private_key_pem.size();
  if (OSSL_DECODER_from_data(ctx.get(), &data, &length) != 1 || raw == nullptr) Fail("decoding the private key");
  Pkey key(raw);
  return Encode(key.get());
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace trainer
