# The library's layers, one static library each: lib/NAME/*.cpp (tests excluded) become
# trainer_NAME, which links the layers it names and nothing else. A layer declares what its headers
# include as PUBLIC and what only its sources include as PRIVATE, as CMake's usage requirements
# mean them.
#
# trainer_layer also reads every file of the layer and fails the configuration when one includes a
# layer it may not see: its own, the layers it links, and those layers' PUBLIC layers, transitively
# (a header only the PUBLIC ones). So an include that points up the stack, or past a layer's
# declared needs, stops the build before anything compiles; tests/layers_test.sh shows it.
#
#   trainer_layer(NAME [PUBLIC LAYER...] [PRIVATE LAYER...])
#
# Layers must be declared below the layers they name. The global property TRAINER_LAYERS lists
# them all, for the targets that reach into every layer (the tests, the fuzz target).

# The layers LAYER's users see through it: itself and, transitively, its PUBLIC layers.
function(_trainer_layer_seen layer out)
  set(seen ${layer})
  foreach(dep IN LISTS TRAINER_LAYER_PUBLIC_${layer})
    _trainer_layer_seen(${dep} more)
    list(APPEND seen ${more})
  endforeach()
  list(REMOVE_DUPLICATES seen)
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Fails the configuration when a file of lib/NAME includes "LAYER/..." for a LAYER of the library
# (a folder of lib/) outside `allowed`.
function(_trainer_check_includes name root files allowed kind)
  foreach(file IN LISTS files)
    file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z0-9_]+/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([a-z0-9_]+)/.*" "\\1" target "${line}")
      if(IS_DIRECTORY "${root}/${target}" AND NOT target IN_LIST allowed)
        file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${file}")
        string(REPLACE ";" ", " allowed_text "${allowed}")
        message(FATAL_ERROR "${shown} includes \"${target}/\": layer ${name}'s ${kind} may include "
                            "${allowed_text} only (cmake/Layers.cmake; CMakeLists.txt declares the layers)")
      endif()
    endforeach()
  endforeach()
endfunction()

function(trainer_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PUBLIC;PRIVATE")
  set(root "${CMAKE_SOURCE_DIR}/lib")
  foreach(dep IN LISTS arg_PUBLIC arg_PRIVATE)
    if(NOT TARGET trainer_${dep})
      message(FATAL_ERROR "layer ${name} names layer ${dep}, which is not declared before it")
    endif()
  endforeach()
  set(TRAINER_LAYER_PUBLIC_${name} ${arg_PUBLIC} CACHE INTERNAL "")

  set(for_headers ${name})
  foreach(dep IN LISTS arg_PUBLIC)
    _trainer_layer_seen(${dep} seen)
    list(APPEND for_headers ${seen})
  endforeach()
  set(for_sources ${for_headers})
  foreach(dep IN LISTS arg_PRIVATE)
    _trainer_layer_seen(${dep} seen)
    list(APPEND for_sources ${seen})
  endforeach()
  list(REMOVE_DUPLICATES for_headers)
  list(REMOVE_DUPLICATES for_sources)

  file(GLOB headers CONFIGURE_DEPENDS "${root}/${name}/*.h")
  file(GLOB sources CONFIGURE_DEPENDS "${root}/${name}/*.cpp")
  list(FILTER headers EXCLUDE REGEX "_test\\.h$")
  list(FILTER sources EXCLUDE REGEX "_test\\.cpp$")
  _trainer_check_includes(${name} "${root}" "${headers}" "${for_headers}" "headers")
  _trainer_check_includes(${name} "${root}" "${sources}" "${for_sources}" "sources")

  add_library(trainer_${name} STATIC ${sources} ${headers})
  target_include_directories(trainer_${name} PUBLIC "${root}")
  target_link_libraries(trainer_${name} PUBLIC trainer_deps trainer_settings PRIVATE trainer_warnings)
  foreach(dep IN LISTS arg_PUBLIC)
    target_link_libraries(trainer_${name} PUBLIC trainer_${dep})
  endforeach()
  foreach(dep IN LISTS arg_PRIVATE)
    target_link_libraries(trainer_${name} PRIVATE trainer_${dep})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY TRAINER_LAYERS trainer_${name})
endfunction()
