#!/usr/bin/env bash
# The statically linked program (cmake/Dependencies.cmake): an executable at a fixed address, with
# no relocations to apply at start, linked with the start file that leaves the unwind tables
# unregistered (registered tables are sorted at the first exception thrown: ~4 ms on every input
# error), with the functions of the common commands together at the start of the program text
# (cmake/hot-functions.txt), and with trainer's own allocator (app/malloc.cpp) in place of glibc's.
# The benchmark's parse floor (bench/parse_floor) must be linked the same way, so that the benchmark
# compares like with like. Skips (77) for a build that links the shared libraries.
#
#   static_test.sh TRAINER [FLOOR [HOT_FUNCTIONS]]
set -uo pipefail
trainer=$1
floor=${2:-}
hot=${3:-}
# Output captured whole, not piped to grep -q: under pipefail, grep -q's early exit fails the
# writer (SIGPIPE) and with it the pipeline.
headers=$(readelf -lW "$trainer") || exit 2
if [[ $headers == *INTERP* ]]; then
  echo "SKIP: $trainer is dynamically linked (sanitizer, fuzzing or TRAINER_STATIC_DEPS=OFF build)"
  exit 77
fi
failed=0
fail() { echo "FAIL: $*"; failed=1; }

elf_type() { readelf -hW "$1" | awk '$1 == "Type:" { print $2 }'; }
type=$(elf_type "$trainer")
[[ $type == EXEC ]] || fail "ELF type is $type, not EXEC: a PIE relocates its pointers at every start"
relocations=$(readelf -rW "$trainer" | grep -c 'R_X86_64_RELATIVE')  # reads it all
((relocations == 0)) || fail "$relocations relative relocations to apply at start"
# crtbeginT.o, gcc's start file for -static, defines __EH_FRAME_BEGIN__ to register the tables.
if [[ $'\n'$(nm "$trainer")$'\n' == *" __EH_FRAME_BEGIN__"$'\n'* ]]; then
  fail "linked with crtbeginT.o, which registers the unwind tables"
fi
[[ $headers == *GNU_EH_FRAME* ]] || fail "no exception-frame index (PT_GNU_EH_FRAME)"
# The listed functions present in the program (most of the list: it is written from this code)
# lie in the first 2 MiB of its ~6 MiB of text; unordered, they spread over all of it.
if [[ -n $hot ]]; then
  text_start=$(readelf -SW "$trainer" | sed -n 's/.*\] \.text *PROGBITS *\([0-9a-f]*\) .*/\1/p')
  listed=$(grep -c . "$hot")
  # The address of each listed name the program defines (first definition of a name).
  addresses=$(nm --defined-only "$trainer" |
    awk -v list="$hot" 'BEGIN { while ((getline name < list) > 0) want[name] = 1 } ($3 in want) && !seen[$3]++ { print $1 }')
  found=0 near=0
  for address in $addresses; do
    ((found++, (16#$address - 16#$text_start) < 2 * 1024 * 1024 && near++))
  done
  if [[ -z $text_start ]] || ((listed == 0 || found * 2 < listed)); then
    fail "only $found of the $listed functions of $hot are in the program"
  elif ((near * 100 < found * 95)); then
    fail "$near of $found hot functions in the first 2 MiB of text: not linked in their order"
  fi
fi
# trainer's allocator, not glibc's: its refill function is there, glibc's malloc (which would
# define __libc_malloc) is not.
own_allocator() {
  local symbols
  symbols=$(nm -C "$1") || exit 2
  [[ $symbols == *"RefillAndTake("* ]] || fail "$1: trainer's allocator (app/malloc.cpp) is not linked"
  [[ $symbols != *" __libc_malloc"* ]] || fail "$1: glibc's malloc is linked"
}
own_allocator "$trainer"
if [[ -n $floor ]]; then
  floor_headers=$(readelf -lW "$floor") || exit 2
  [[ $floor_headers != *INTERP* ]] || fail "$floor is dynamically linked, trainer statically"
  [[ $(elf_type "$floor") == EXEC ]] || fail "$floor is not linked as trainer (ELF type)"
  own_allocator "$floor"
fi
# Exceptions still unwind: an input error is reported, not a crash.
err=$("$trainer" render /no/such/file.yaml 2>&1 >/dev/null)
rc=$?
[[ $rc -eq 2 && $err == *"no such file or directory"* ]] || fail "an input error gave exit $rc: $err"
((failed == 0)) && echo "static_test: passed"
exit "$failed"
