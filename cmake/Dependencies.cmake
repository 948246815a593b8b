# Every dependency comes from a Debian package; nothing is downloaded at build time.
#   libyaml-cpp-dev libfmt-dev libcli11-dev libdtl-dev doctest-dev libssl-dev libjemalloc-dev
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG QUIET)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
find_path(DTL_INCLUDE_DIR dtl/dtl.hpp REQUIRED)
find_path(DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED)
# The YAML reader parses long streams on a second thread (lib/yaml/reader.h, ParseAhead).
find_package(Threads REQUIRED)

# Link the executables fully statically (yaml-cpp, libcrypto, the C++ runtime and libc) and fmt
# header-only: the dynamic loader's relocations and page faults were most of a one-job render's
# start-up (bench/RESULTS.md). Sanitizer and fuzzing builds keep the shared libraries.
option(TRAINER_STATIC_DEPS "Link statically (libc included), fmt header-only" ON)
if(TRAINER_STATIC_DEPS AND NOT TRAINER_SANITIZE AND NOT TRAINER_FUZZ)
  set(TRAINER_LINK_STATIC ON)
  find_library(TRAINER_YAML_CPP_STATIC NAMES libyaml-cpp.a REQUIRED)
  set(OPENSSL_USE_STATIC_LIBS TRUE)
else()
  set(TRAINER_LINK_STATIC OFF)
endif()
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)

# trainer_deps: what every target built on the library links.
add_library(trainer_deps INTERFACE)
target_link_libraries(trainer_deps INTERFACE Threads::Threads)
if(TRAINER_LINK_STATIC)
  target_link_libraries(trainer_deps INTERFACE fmt::fmt-header-only ${TRAINER_YAML_CPP_STATIC} OpenSSL::Crypto)
  # libcrypto.a holds network and dlopen code trainer never calls; the linker's warnings about
  # them under -static are expected.
  #
  # A static PIE with an exception-frame index: under plain -static, the C runtime registers the
  # program's unwind tables, and the first exception thrown (every input error, --version, --help)
  # sorts all of them first, some 60 million instructions (~4 ms); with the index the unwinder
  # searches it instead. The price is the start-up relocations of a PIE: ~0.3 ms, mostly copying
  # the pages of pointers they write (bench/RESULTS.md, "Two findings on the way").
  target_compile_options(trainer_deps INTERFACE -fPIE)
  target_link_options(trainer_deps INTERFACE -static-pie -Wl,--eh-frame-hdr)
  set(TRAINER_YAML_CPP ${TRAINER_YAML_CPP_STATIC})
  # jemalloc in place of glibc's malloc: rendering builds, copies and frees many small trees, and
  # jemalloc renders 10,000 TrainJobs about 15% faster (bench/RESULTS.md). The parse floor links it
  # too, so that the benchmark's ratio compares like with like. Sanitizer and fuzzing builds keep
  # their own allocator.
  find_library(TRAINER_JEMALLOC_STATIC NAMES libjemalloc.a REQUIRED)
  set(TRAINER_ALLOCATOR ${TRAINER_JEMALLOC_STATIC})
  target_link_libraries(trainer_deps INTERFACE ${TRAINER_ALLOCATOR})
else()
  target_link_libraries(trainer_deps INTERFACE fmt::fmt yaml-cpp OpenSSL::Crypto)
  set(TRAINER_YAML_CPP yaml-cpp)
  set(TRAINER_ALLOCATOR "")
endif()
