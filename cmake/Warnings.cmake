# Warnings for our own targets, carried by an INTERFACE target. TRAINER_DEV_MODE (on in CI) makes
# them fatal.
add_library(trainer_warnings INTERFACE)
target_compile_options(trainer_warnings INTERFACE -Wall -Wextra -Wpedantic -Wnon-virtual-dtor
                                                  -Wold-style-cast -Wcast-align
                                                  -Wno-missing-field-initializers)
# GCC's name for shadowing among locals; clang (the fuzz build) has none of that name.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(trainer_warnings INTERFACE -Wshadow=local)
endif()
if(TRAINER_DEV_MODE)
  target_compile_options(trainer_warnings INTERFACE -Werror)
endif()
