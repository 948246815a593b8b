#!/usr/bin/env bash
# bench/hot-functions.sh still profiles the common commands, and cmake/hot-functions.txt, the
# order the static build links the text in, is not stale: most functions the commands run now are
# on it. Skips (77) without valgrind or the upstream runtimes, and for a build that links the shared
# libraries (sanitizer builds: valgrind cannot run them).
#
#   hot_functions_test.sh BUILD_DIR
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build=$1
headers=$(readelf -lW "$build/trainer") || exit 2
if [[ $headers == *INTERP* ]]; then
  echo "SKIP: $build/trainer is dynamically linked (sanitizer, fuzzing or TRAINER_STATIC_DEPS=OFF build)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/bench/hot-functions.sh" --build "$build" --output "$tmp/fresh.txt"
rc=$?
((rc == 0)) || exit "$rc"  # 77: skipped

failed=0
fail() { echo "FAIL: $*"; failed=1; }
fresh=$(grep -c . "$tmp/fresh.txt")
((fresh > 500)) || fail "only $fresh functions profiled"
# The one-job render's functions come first: main before anything only diff --legacy runs.
main_at=$(grep -nxF main "$tmp/fresh.txt" | cut -d: -f1)
diff_at=$(grep -n '^_ZN7trainer.*Diff' "$tmp/fresh.txt" | head -1 | cut -d: -f1)
[[ -n $main_at && -n $diff_at ]] || fail "main or a diff function is missing from the profile"
[[ -z $main_at || -z $diff_at ]] || ((main_at < diff_at)) || fail "main ($main_at) after a diff function ($diff_at)"
# Staleness: the committed list holds at least 90% of what the commands run now.
known=$(grep -cxFf "$root/cmake/hot-functions.txt" "$tmp/fresh.txt")
((known * 10 >= fresh * 9)) ||
  fail "cmake/hot-functions.txt holds $known of the $fresh functions the commands run: rerun bench/hot-functions.sh"
((failed == 0)) && echo "hot_functions_test: passed ($known of $fresh functions listed)"
exit "$failed"
