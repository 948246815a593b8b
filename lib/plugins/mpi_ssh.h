// The SSH key pair in the MPI plugin's `<job>-mpi-ssh-auth` Secret, behind a small interface: the
// controller makes a fresh random key per TrainJob, which output meant to be compared cannot carry.
//
// The real keys are ECDSA P-521, encoded as upstream's mpi.go does with Go's x509 and x/crypto/ssh:
// the private key as a SEC1 "EC PRIVATE KEY" PEM block, the public key as an OpenSSH
// authorized_keys line ("ecdsa-sha2-nistp521 <base64>\n", no comment).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace trainer {

// The two values of the Secret's data, before base64.
struct SSHAuthKeys {
  std::string private_key;   // ssh-privatekey
  std::string public_key;    // ssh-publickey
  bool placeholder = false;  // fixed text standing in for a key the controller would generate
};

// Where the MPI plugin gets the keys of one TrainJob's Secret.
class SSHKeySource {
 public:
  virtual ~SSHKeySource() = default;
  virtual SSHAuthKeys Generate() = 0;
};

// Fixed placeholder text, the same on every call, marked as such.
std::unique_ptr<SSHKeySource> NewPlaceholderSSHKeys();
// A fresh ECDSA P-521 key pair from OpenSSL's random generator on every call.
std::unique_ptr<SSHKeySource> NewECDSAP521SSHKeys();

// Re-encodes a P-521 private key given as PEM (SEC1 or PKCS#8) the way upstream encodes a
// generated one; throws Error when it is not a P-521 EC private key. Deterministic, for tests.
SSHAuthKeys EncodeSSHAuthKeys(std::string_view private_key_pem);

// Standard base64 with padding and no line breaks, as Go's encoding/json writes []byte.
std::string Base64Encode(std::string_view bytes);

}  // namespace trainer
