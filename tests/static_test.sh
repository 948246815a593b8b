#!/usr/bin/env bash
# The statically linked program (cmake/Dependencies.cmake): an executable at a fixed address, with
# no relocations to apply at start, linked with the start file that leaves the unwind tables
# unregistered (registered tables are sorted at the first exception thrown: ~4 ms on every input
# error), and with jemalloc set up as app/jemalloc_conf.cpp says. Skips (77) for a build that links
# the shared libraries.
set -uo pipefail
trainer=$1
# Output captured whole, not piped to grep -q: under pipefail, grep -q's early exit fails the
# writer (SIGPIPE) and with it the pipeline.
headers=$(readelf -lW "$trainer") || exit 2
if [[ $headers == *INTERP* ]]; then
  echo "SKIP: $trainer is dynamically linked (sanitizer, fuzzing or TRAINER_STATIC_DEPS=OFF build)"
  exit 77
fi
failed=0
fail() { echo "FAIL: $*"; failed=1; }

type=$(readelf -hW "$trainer" | awk '$1 == "Type:" { print $2 }')
[[ $type == EXEC ]] || fail "ELF type is $type, not EXEC: a PIE relocates its pointers at every start"
relocations=$(readelf -rW "$trainer" | grep -c 'R_X86_64_RELATIVE')  # reads it all
((relocations == 0)) || fail "$relocations relative relocations to apply at start"
# crtbeginT.o, gcc's start file for -static, defines __EH_FRAME_BEGIN__ to register the tables.
if [[ $'\n'$(nm "$trainer")$'\n' == *" __EH_FRAME_BEGIN__"$'\n'* ]]; then
  fail "linked with crtbeginT.o, which registers the unwind tables"
fi
[[ $headers == *GNU_EH_FRAME* ]] || fail "no exception-frame index (PT_GNU_EH_FRAME)"
# jemalloc's compiled-in options (app/jemalloc_conf.cpp): one arena for all threads.
stats=$(MALLOC_CONF=stats_print:true "$trainer" --version 2>&1 >/dev/null)
[[ $stats == *"opt.narenas: 1"* ]] || fail "jemalloc does not run with one arena (opt.narenas)"
# Exceptions still unwind: an input error is reported, not a crash.
err=$("$trainer" render /no/such/file.yaml 2>&1 >/dev/null)
rc=$?
[[ $rc -eq 2 && $err == *"no such file or directory"* ]] || fail "an input error gave exit $rc: $err"
((failed == 0)) && echo "static_test: passed"
exit "$failed"
