#!/usr/bin/env bash
# The layers of lib/ (CMakeLists.txt's trainer_layer lines, cmake/Layers.cmake): a copy of the
# tree configures as it is, and fails to configure, naming the file and the layer, when a file
# includes a layer above its own or one its layer does not link.
#
#   layers_test.sh SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
src=$1

fresh_copy() {  # a copy of the sources that configure reads, without build folders
  rm -rf "$tmp/src" "$tmp/build"
  mkdir -p "$tmp/src"
  cp -r "$src"/{CMakeLists.txt,cmake,lib,app,bench,tools,fuzz,man,completions} "$tmp/src/"
}
configure() {
  cmake -S "$tmp/src" -B "$tmp/build" -DTRAINER_BUILD_TESTS=OFF >"$tmp/out" 2>&1
}
refused() {  # refused FILE LAYER: configuring failed and said that FILE includes LAYER
  ! configure && grep -q "$1 includes \"$2/\"" "$tmp/out"
}

# with LINE FILE: a fresh copy of the sources with LINE appended to FILE
with() {
  fresh_copy
  echo "$1" >>"$tmp/src/$2"
}

fresh_copy
check "the tree as it is configures" configure
with '#include "render/render.h"' lib/util/quote.cpp
check "util including render (a layer above) is refused" refused lib/util/quote.cpp render
with '#include "webhooks/trainjob.h"' lib/plugins/torch.h
check "a plugins header including webhooks (above plugins) is refused" refused lib/plugins/torch.h webhooks
with '#include "core/pipeline.h"' lib/plugins/mpi.cpp
check "plugins including core (a layer beside it, not linked) is refused" refused lib/plugins/mpi.cpp core
with '#include "webhooks/trainjob.h"' lib/input/loader.h
check "an input header including webhooks, which input links PRIVATE, is refused" refused lib/input/loader.h webhooks
with '#include "webhooks/trainjob.h"' lib/input/loader.cpp
check "an input source including webhooks, which input links PRIVATE, configures" configure

finish layers_test
