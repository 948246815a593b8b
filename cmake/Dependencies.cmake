# Every dependency comes from a Debian package; nothing is downloaded at build time.
#   libyaml-cpp-dev libfmt-dev libcli11-dev libdtl-dev doctest-dev libssl-dev lld
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG QUIET)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
find_path(DTL_INCLUDE_DIR dtl/dtl.hpp REQUIRED)
find_path(DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED)
# Threads: trainer's own allocator (app/malloc.cpp) and its tests.
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
  # A static program without relocations, whose start files leave the unwind tables alone. Under
  # -static, gcc links crtbeginT.o, which registers the program's unwind tables, and the first
  # exception thrown (every input error, --version, --help) then sorts all of them first, some 60
  # million instructions (~4 ms). crtbegin.o, the start file of ordinary executables, registers
  # nothing: the unwinder finds the tables through the exception-frame index (--eh-frame-hdr)
  # instead. A copy of crtbegin.o named crtbeginT.o, in a directory the compiler searches first
  # (-B), swaps them; tests/static_test.sh checks the result. (A static PIE gets the same from its
  # start file, but relocates ~450 KiB of pointers at every start: ~120 page faults, ~1.2 ms where
  # faults are slow; bench/RESULTS.md.)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=crtbegin.o
                  OUTPUT_VARIABLE TRAINER_CRTBEGIN OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${TRAINER_CRTBEGIN}" OR NOT EXISTS "${TRAINER_CRTBEGIN}")
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} has no crtbegin.o; configure with -DTRAINER_STATIC_DEPS=OFF")
  endif()
  configure_file(${TRAINER_CRTBEGIN} ${CMAKE_BINARY_DIR}/static-start/crtbeginT.o COPYONLY)
  #
  # Linked by lld, with the functions the common commands run placed together at the start of the
  # program text (cmake/hot-functions.txt, written by bench/hot-functions.sh; our code is compiled
  # with a section per function so that lld can move each). A new process faults its text in 64 KiB
  # at a time, ~14 us a fault where faults are slow: scattered over 6 MiB of text, a one-job render
  # took ~60 of them, placed together 17 (bench/RESULTS.md). GNU ld has no such ordering.
  find_program(TRAINER_LLD NAMES ld.lld)
  if(NOT TRAINER_LLD)
    message(FATAL_ERROR "the static build links with lld (Debian package lld); configure with -DTRAINER_STATIC_DEPS=OFF to link without it")
  endif()
  set(TRAINER_HOT_FUNCTIONS ${CMAKE_SOURCE_DIR}/cmake/hot-functions.txt)
  target_compile_options(trainer_deps INTERFACE -fno-pie -ffunction-sections)
  target_link_options(trainer_deps INTERFACE -static -no-pie -B${CMAKE_BINARY_DIR}/static-start/ -Wl,--eh-frame-hdr
                      -fuse-ld=lld -Wl,--symbol-ordering-file=${TRAINER_HOT_FUNCTIONS} -Wl,--no-warn-symbol-ordering)
  set(TRAINER_YAML_CPP ${TRAINER_YAML_CPP_STATIC})
  # trainer's own allocator in place of glibc's malloc (app/malloc.cpp, which says why): every
  # program linked here uses it, the unit tests and the parse floor too, so that the benchmark's
  # ratio compares like with like. Sanitizer and fuzzing builds keep their own allocators.
  add_library(trainer_malloc OBJECT ${CMAKE_SOURCE_DIR}/app/malloc.cpp)
  target_compile_options(trainer_malloc PRIVATE -fno-pie -ffunction-sections)
  target_link_libraries(trainer_malloc PRIVATE trainer_warnings trainer_settings)
  # Its object file is linked into each program (a static library's member would be ignored: libc
  # defines malloc too); the target's name orders the build, the compilation before the links.
  target_link_libraries(trainer_deps INTERFACE trainer_malloc $<TARGET_OBJECTS:trainer_malloc>)
  set(TRAINER_OWN_MALLOC ON)
else()
  target_link_libraries(trainer_deps INTERFACE fmt::fmt yaml-cpp OpenSSL::Crypto)
  set(TRAINER_YAML_CPP yaml-cpp)
  set(TRAINER_OWN_MALLOC OFF)
endif()
