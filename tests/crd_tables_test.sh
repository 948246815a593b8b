#!/usr/bin/env bash
# lib/api/crd_tables.cpp is what tools/gen_crd_tables.cpp writes from the upstream CRDs, and the
# generator writes the same bytes twice. Skips (77) when the CRDs are absent (../shared is not
# beside this checkout).
#
#   crd_tables_test.sh GENERATOR CRD_DIR COMMITTED_FILE
set -uo pipefail
source "$(dirname "$0")/lib.sh"
gen=$1 crds=$2 committed=$3
[[ -d $crds ]] || skip "$crds is absent (../shared is not beside this checkout)"
"$gen" "$crds" "$tmp/first.cpp" || { echo "FAIL: $gen $crds failed"; exit 1; }
"$gen" "$crds" "$tmp/second.cpp" || { echo "FAIL: $gen $crds failed the second time"; exit 1; }
if ! cmp -s "$tmp/first.cpp" "$tmp/second.cpp"; then
  echo "FAIL: two runs of $gen wrote different files:"
  diff -u "$tmp/first.cpp" "$tmp/second.cpp" | head -40
  exit 1
fi
if ! cmp -s "$committed" "$tmp/first.cpp"; then
  echo "FAIL: $committed is not what the generator writes from $crds (- committed, + generated):"
  diff -u "$committed" "$tmp/first.cpp" | head -60
  echo "Regenerate it with: cmake --build BUILD_DIR --target update-crd-tables"
  echo "  (which runs: $gen $crds $committed)"
  exit 1
fi
echo "crd_tables_test: passed ($committed is current)"
