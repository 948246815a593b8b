#!/usr/bin/env bash
# Writes cmake/hot-functions.txt: the functions (linker symbol names) that trainer runs in the
# common commands, as callgrind sees them. The static build links them first, together, so that a
# process faults in a few 64 KiB windows of program text instead of some 60 scattered over 6 MiB
# (cmake/Dependencies.cmake, bench/RESULTS.md). Run it again after large changes to what a render
# runs; a function missing from the list still works, it only sits elsewhere in the text.
#
#   bench/hot-functions.sh [--build DIR] [--output FILE]
#
# Needs valgrind, and ../shared/upstream for inputs (exits 77 without either, as a skipped test).
# FILE is cmake/hot-functions.txt unless given.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
output="$root/cmake/hot-functions.txt"
while (($#)); do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --output) output="$2"; shift 2 ;;
    *) echo "hot-functions: unknown argument $1" >&2; exit 2 ;;
  esac
done
trainer="$build/trainer"
[[ -x $trainer ]] || { echo "hot-functions: $trainer is not built" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "SKIP: hot-functions needs valgrind"; exit 77; }
runtimes="$root/../shared/upstream/manifests/base/runtimes"
[[ -d $runtimes ]] || { echo "SKIP: $runtimes is absent; the profiles render against the upstream runtimes"; exit 77; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bash "$here/run.sh" --build "$build" --generate 100 "$work/b100" > /dev/null
awk '/^---$/ && n++ {exit} {print}' "$work/b100/jobs.yaml" > "$work/one.yaml"
sed 's/^    numNodes: [0-9]*/    numNodes: "two"/' "$work/one.yaml" > "$work/bad.yaml"

# The commands people run most, each in a cold process: a one-job render, a render of 100 mixed
# TrainJobs, an input error, the migration check, and the help.
i=0
profile() {
  local status=0
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$((i++)).cg" "$trainer" "$@" \
    > /dev/null 2>&1 || status=$?
  ((status <= 2)) || { echo "hot-functions: trainer $* exited $status" >&2; exit 2; }
}
profile render -r "$runtimes/torch_distributed.yaml" "$work/one.yaml"
profile render -r "$work/b100/runtimes" "$work/b100/jobs.yaml"
profile render -r "$runtimes/torch_distributed.yaml" "$work/bad.yaml"
profile diff --legacy -r "$work/b100/runtimes" "$work/b100/jobs.yaml"
profile --help

# Every function callgrind named (fn= and cfn= lines, "'N" recursion marks dropped), those of the
# one-job render first, then those each later command adds: the one-job render's text is the
# smallest, then, and a cold start faults in the fewest windows of it.
for ((j = 0; j < i; j++)); do
  sed -n "s/^c\{0,1\}fn=([0-9]*) \([^']*\).*$/\1/p" "$work/$j.cg" | grep -v -e '^0x' -e '^(below main)$' | LC_ALL=C sort -u
done | awk '!seen[$0]++' > "$work/list"
mv "$work/list" "$output"
echo "hot-functions: $(wc -l < "$output") functions in $output"
