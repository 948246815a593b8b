// The parse floor: what yaml-cpp alone needs to read the same files `trainer render` reads.
// Each file is read into memory and run through yaml-cpp's event parser with a handler that does
// nothing, the least work any YAML-reading tool built on yaml-cpp can do. bench/run.sh compares
// `trainer render` with it. It loads the shared libraries trainer loads (the linker keeps only
// those a program calls into, so it calls fmt and libcrypto once), so that the comparison pays the
// same start-up.
#include <fmt/core.h>
#include <openssl/crypto.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

class Discard : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { ++scalars; }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  std::size_t scalars = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Discard handler;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "parse_floor: cannot read " << argv[i] << "\n";
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::istringstream stream(text.str());
    try {
      YAML::Parser parser(stream);
      while (parser.HandleNextDocument(handler)) {
      }
    } catch (const YAML::Exception& e) {
      std::cerr << "parse_floor: " << argv[i] << ": " << e.what() << "\n";
      return 2;
    }
  }
  // Printed so that the parse cannot be optimised away.
  fmt::print("{} scalars ({})\n", handler.scalars, OpenSSL_version(OPENSSL_VERSION));
  return 0;
}
