// The Flux curve certificate: a ZeroMQ CURVE key pair derived from the TrainJob's UID, as the
// controller derives it (upstream pkg/runtime/framework/plugins/flux/flux.go, buildCurveSecret).
#pragma once

#include <string>
#include <string_view>

namespace trainer::plugins {

struct CurveKeyPair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;  // Z85, 40 characters
};

// The X25519 key whose private bytes are sha256(uid) (used as given; X25519 clamps them when it
// computes), with both halves Z85-encoded. An empty UID is hashed like any other string.
CurveKeyPair CurveKeyPairFromUID(std::string_view uid);

// The curve.cert text the controller writes into the `<job>-flux-curve` Secret.
std::string CurveCertificate(std::string_view job_name, const CurveKeyPair& keys);

// Standard base64 with padding, as a Secret's data carries bytes.
std::string Base64(std::string_view data);

}  // namespace trainer::plugins
