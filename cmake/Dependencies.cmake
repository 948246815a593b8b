# Every dependency comes from a Debian package; nothing is downloaded at build time.
#   libyaml-cpp-dev libfmt-dev libcli11-dev libdtl-dev libssl-dev, and doctest-dev for the tests
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG QUIET)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
find_path(DTL_INCLUDE_DIR dtl/dtl.hpp REQUIRED)
if(TRAINER_BUILD_TESTS)
  find_path(DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED)
endif()

# TRAINER_STATIC: trainer as one self-contained file, as kubectl and helm ship theirs, linked with
# -static-pie. It takes the static archives of yaml-cpp and libcrypto (in Debian's -dev packages)
# and fmt header-only (Debian ships no libfmt.a). Off by default: the ordinary build is a
# dynamically linked PIE.
option(TRAINER_STATIC "Link build/trainer as a static PIE (a single-file release binary)" OFF)
if(TRAINER_STATIC)
  set(OPENSSL_USE_STATIC_LIBS TRUE)
  find_library(TRAINER_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a REQUIRED)
endif()
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)

# trainer_deps: what every target built on the library links.
add_library(trainer_deps INTERFACE)
if(TRAINER_STATIC)
  target_link_libraries(trainer_deps INTERFACE fmt::fmt-header-only ${TRAINER_YAML_CPP_ARCHIVE} OpenSSL::Crypto)
else()
  target_link_libraries(trainer_deps INTERFACE fmt::fmt yaml-cpp OpenSSL::Crypto)
endif()
