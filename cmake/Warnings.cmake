# Warnings for our own targets, carried by an INTERFACE target. TRAINER_DEV_MODE (on in CI) makes
# them fatal.
add_library(trainer_warnings INTERFACE)
target_compile_options(trainer_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                                                  -Wold-style-cast -Wcast-align
                                                  -Wno-missing-field-initializers)
if(TRAINER_DEV_MODE)
  target_compile_options(trainer_warnings INTERFACE -Werror)
endif()
