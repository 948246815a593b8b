# Sourced by the script tests (tests/*_test.sh): a scratch folder $tmp removed on exit, the pass and
# fail counts with `check`, `skip` and `require` (exit 77, which ctest counts as a skip through
# SKIP_RETURN_CODE), and `finish`, the closing line and exit status.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass; else fail "$name"; fi
}

skip() {  # skip REASON: the whole test is skipped
  echo "SKIP: $*"
  exit 77
}

require() {  # require TOOL [PACKAGES]: skips the test unless TOOL is on PATH
  command -v "$1" >/dev/null || skip "$1 is not installed (apt-get install ${2:-$1})"
}

counts() { echo "${1:+$1: }$passed passed, $failed failed"; }

finish() {  # finish [LABEL]: prints the counts and exits 1 when a check failed
  counts "$@"
  [[ $failed -eq 0 ]] || exit 1
  exit 0
}
