# Every dependency comes from a Debian package; nothing is downloaded at build time.
#   libyaml-cpp-dev libfmt-dev libcli11-dev libdtl-dev doctest-dev libssl-dev
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG QUIET)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
find_path(DTL_INCLUDE_DIR dtl/dtl.hpp REQUIRED)
find_path(DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED)
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)
