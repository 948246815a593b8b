#!/usr/bin/env bash
# Command-line behaviour of the trainer binary: exit codes, all-or-nothing output, --output-dir,
# --show-only, stdin, and that the docs and CI agree with the binary. Usage: cli_test.sh TRAINER
set -u
source "$(dirname "$0")/lib.sh"
trainer=$1
cd "$(dirname "$0")/.."

run() {  # run ARGS... ; sets $rc, $out, $err
  "$trainer" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

run render examples/quickstart.yaml
check "render succeeds with exit 0" test "$rc" -eq 0
check "render prints the JobSet" grep -q '^kind: JobSet$' "$tmp/out"

run render --no-such-flag examples/quickstart.yaml
check "an unknown flag exits 2" test "$rc" -eq 2
check "an unknown flag prints nothing on stdout" test -z "$out"

run
check "no command exits 2" test "$rc" -eq 2

run render examples/quickstart.yaml tests/cases/render-unknown-field/input.yaml
check "one bad TrainJob fails the whole run with exit 2" test "$rc" -eq 2
check "a failed run prints nothing on stdout" test -z "$out"
check "the error names file:line:col" grep -q '^tests/cases/render-unknown-field/input.yaml:9:5: ' "$tmp/err"

run render examples/quickstart.yaml -s jobset/quickstart
check "--show-only selects by kind and name" test "$rc" -eq 0 -a -n "$out"
run render examples/quickstart.yaml -s ConfigMap
check "--show-only that matches nothing exits 2" test "$rc" -eq 2

"$trainer" render - <examples/quickstart.yaml >"$tmp/stdin.yaml" 2>/dev/null
check "stdin is read with -" grep -q '^# Source: <stdin>: TrainJob ml-team/quickstart' "$tmp/stdin.yaml"
for command in render "diff --legacy"; do
  # shellcheck disable=SC2086 # the command and its flag
  "$trainer" $command -r - - <examples/quickstart.yaml >"$tmp/out" 2>"$tmp/err"
  check "$command -r - - (stdin named twice) exits 2, as diff - - does" test "$?" -eq 2 -a ! -s "$tmp/out"
  check "... saying why" test "$(cat "$tmp/err")" = \
    "trainer: error: standard input (-) can be only one of the inputs: give - once, as PATH, -f or -r"
done

run render examples/quickstart.yaml --output-dir "$tmp/dir"
check "--output-dir writes one file per object" test -f "$tmp/dir/jobset.x-k8s.io_v1alpha2_JobSet_ml-team_quickstart.yaml"
check "--output-dir prints nothing on stdout" test -z "$out"
run render --snapshots --legacy tests/dumps/snapshots.yaml -r tests/dumps/snapshot-runtime.yaml --output-dir "$tmp/snap"
check "--snapshots --output-dir writes the snapshot a TrainJob lacks, not the one the input holds" \
  test "$(ls "$tmp/snap" | tr '\n' ' ')" = "jobset.x-k8s.io_v1alpha2_JobSet_ml_fresh.yaml \
jobset.x-k8s.io_v1alpha2_JobSet_ml_pinned.yaml v1_ConfigMap_ml_fresh-runtime-snapshot.yaml "
run render --snapshots --legacy tests/dumps/snapshots.yaml -r tests/dumps/snapshot-runtime.yaml -s cm
check "... as it prints it" test "$out" = "$(cat "$tmp/snap/v1_ConfigMap_ml_fresh-runtime-snapshot.yaml")"
run render examples/quickstart.yaml tests/cases/render-unknown-field/input.yaml --output-dir "$tmp/dir2"
check "a failed run writes no files" test ! -e "$tmp/dir2"
# Objects are staged as their TrainJob renders; a TrainJob failing after one that rendered must
# still leave nothing behind, in a new directory or in one that exists.
run render examples/quickstart.yaml tests/cases/render-runtime-not-found/input.yaml --output-dir "$tmp/dir3"
check "a TrainJob failing after one that rendered exits 2" test "$rc" -eq 2
check "... and leaves no new directory" test ! -e "$tmp/dir3"
mkdir "$tmp/dir4" && echo keep >"$tmp/dir4/mine.txt"
run render examples/quickstart.yaml tests/cases/render-runtime-not-found/input.yaml --output-dir "$tmp/dir4"
check "... and in an existing directory touches nothing" test "$(ls -A "$tmp/dir4")" = mine.txt
run render tests/cases/render-runtime-not-found/input.yaml examples/quickstart.yaml
check "a failed run prints nothing on stdout, whichever TrainJob fails" test "$rc" -eq 2 -a -z "$out"

# The output is kept in memory and written at the end: TMPDIR does not matter.
TMPDIR="$tmp/no-such-dir" run render examples/quickstart.yaml
check "a render with an unusable TMPDIR succeeds" test "$rc" -eq 0 -a -n "$out"

# A large output (an MPI job whose hostfile has 200,000 lines) comes out whole, whichever way standard
# output is opened, and is what --output-dir writes.
sed 's/numNodes: [0-9]*/numNodes: 200000/' tests/cases/render-mpi-launcher-and-nodes/input.yaml >"$tmp/big.yaml"
before=$(ls -A "$tmp")
TMPDIR="$tmp/no-such-dir" run render "$tmp/big.yaml"
check "a render of over 4 MiB succeeds" test "$rc" -eq 0 -a "$(stat -c %s "$tmp/out")" -gt $((4 << 20))
check "... and leaves no file behind" test "$(ls -A "$tmp")" = "$before"
mv "$tmp/out" "$tmp/big.out"
echo "# kept" >"$tmp/appended"
"$trainer" render "$tmp/big.yaml" >>"$tmp/appended" 2>"$tmp/err"
check "... appended to a file, follows what it holds" cmp -s <(tail -n +2 "$tmp/appended") "$tmp/big.out"
check "... through a pipe, the same" cmp -s <("$trainer" render "$tmp/big.yaml" | cat) "$tmp/big.out"
for input in examples/quickstart.yaml "$tmp/big.yaml"; do
  "$trainer" render "$input" >/dev/full 2>"$tmp/err"
  rc=$?
  check "standard output that cannot be written is an error, exit 2 ($(basename "$input"))" \
    test "$rc" -eq 2 -a "$(cat "$tmp/err")" = "trainer: error: cannot write to standard output: No space left on device"
done
# Every command that prints fails with exit 2 when standard output cannot be written.
for args in "diff --legacy tests/cases/render-mpi-launcher-and-nodes/input.yaml" "test --check tests/cases/render-no-mlpolicy" \
            version plugins --help --version "render --help"; do
  # shellcheck disable=SC2086
  "$trainer" $args >/dev/full 2>"$tmp/err"
  rc=$?
  check "trainer $args to a full device exits 2 with the reason" \
    test "$rc" -eq 2 -a "$(tail -n 1 "$tmp/err")" = "trainer: error: cannot write to standard output: No space left on device"
done

# A closed standard output (>&-): nothing lands in a file opened later, and commands that print fail.
for args in "render examples/quickstart.yaml" version plugins --help; do
  # shellcheck disable=SC2086
  "$trainer" $args >&- 2>"$tmp/err"
  rc=$?
  check "trainer $args with standard output closed exits 2 with EBADF" \
    test "$rc" -eq 2 -a "$(cat "$tmp/err")" = "trainer: error: cannot write to standard output: Bad file descriptor"
done
"$trainer" render examples/quickstart.yaml --output-dir "$tmp/closed-out" >&- 2>"$tmp/err"
rc=$?
check "--output-dir with standard output closed still writes its files, exit 0" \
  test "$rc" -eq 0 -a -n "$(ls "$tmp/closed-out")" -a ! -s "$tmp/err"
"$trainer" render examples/quickstart.yaml --output-dir "$tmp/closed-err" 2>&- >"$tmp/out"
check "a closed standard error changes nothing" test "$?" -eq 0 -a ! -s "$tmp/out"
"$trainer" render examples/quickstart.yaml <&- >"$tmp/out" 2>"$tmp/err"
check "a closed standard input changes nothing" test "$?" -eq 0 -a -s "$tmp/out" -a ! -s "$tmp/err"
"$trainer" render tests/cases/render-runtime-not-found/input.yaml --output-dir "$tmp/closed-both" >&- 2>&-
check "... nor a closed standard error when the run fails: exit 2, no files" test "$?" -eq 2 -a ! -e "$tmp/closed-both"

# TRAINER_PLUGIN_ORDER: one message for any value but reversed and rotated:N.
for order in rotated:x rotated:-1 rotated: sideways; do
  TRAINER_PLUGIN_ORDER=$order run render examples/quickstart.yaml
  check "TRAINER_PLUGIN_ORDER=$order is refused, exit 2" test "$rc" -eq 2 -a -z "$out" -a "$err" = \
    "trainer: error: unknown plugin order \"$order\": expected reversed or rotated:N, N a number of 0 or more"
done

run render "$tmp/big.yaml" --output-dir "$tmp/big-dir"
run diff "$tmp/big.out" "$tmp/big-dir"
check "... and prints what --output-dir writes" test "$rc" -eq 0 -a "$(grep -c ' slots=' "$tmp/big.out")" -eq 200000
rm -rf "$tmp/big.yaml" "$tmp/big.out" "$tmp/big-dir" "$tmp/appended"

run render examples/quickstart.yaml -o json
check "-o json prints a v1 List" grep -q '"kind": "List"' "$tmp/out"

run render tests/cases/render-mpi-launcher-and-nodes/input.yaml -s Secret --generate-ssh-keys
key=$(grep 'ssh-privatekey:' "$tmp/out" | head -n 1 | awk '{print $2}' | base64 -d 2>/dev/null)
check "--generate-ssh-keys writes a real EC private key" grep -q 'BEGIN EC PRIVATE KEY' <<<"$key"
check "--generate-ssh-keys drops the placeholder annotation" test -z "$(grep placeholder "$tmp/out")"
run render tests/cases/render-mpi-launcher-and-nodes/input.yaml -s Secret
check "without --generate-ssh-keys the Secret is a marked placeholder" grep -q 'trainer-render.local/placeholder' "$tmp/out"

# The options --help lists are checked against the man page and the completions by man_test.sh and
# completion_test.sh.

# Checking, as pre-commit does: --quiet prints nothing, --skip-non-trainer looks only at files that
# hold a Trainer object.
run render --quiet examples/quickstart.yaml
check "--quiet exits 0 and prints nothing" test "$rc" -eq 0 -a -z "$out" -a -z "$err"
printf 'replicas: 3\n' >"$tmp/values.yaml"
printf -- '- a\n- b\n' >"$tmp/list.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n' >"$tmp/helm.yaml"
printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: x\n' >"$tmp/broken-job.yaml"
run render "$tmp/values.yaml"
check "YAML without a kind is an error by default" test "$rc" -eq 2
run render --skip-non-trainer "$tmp/values.yaml" "$tmp/list.yaml" "$tmp/helm.yaml" examples/quickstart.yaml
check "--skip-non-trainer skips YAML that is no Trainer object" test "$rc" -eq 0
check "--skip-non-trainer still renders the TrainJobs" grep -q '^kind: JobSet$' "$tmp/out"
check "--skip-non-trainer says nothing about what it skips" test -z "$err"
run render --quiet --skip-non-trainer "$tmp/broken-job.yaml"
check "--skip-non-trainer still fails a broken TrainJob file" test "$rc" -eq 2
run render --quiet --skip-non-trainer "$tmp"
check "--skip-non-trainer searches directories" test "$rc" -eq 2 -a -n "$(grep broken-job.yaml "$tmp/err")"
run diff --legacy --skip-non-trainer "$tmp/values.yaml" "$tmp/helm.yaml" examples/quickstart.yaml
check "diff --legacy --skip-non-trainer checks the TrainJobs only" test "$rc" -eq 0
check "diff --legacy --skip-non-trainer counts one TrainJob" grep -q '^1 TrainJob checked' "$tmp/out"
run diff --skip-non-trainer "$tmp/values.yaml" "$tmp/values.yaml"
check "diff --skip-non-trainer without --legacy is a usage error" test "$rc" -eq 2

# diff and test take -q as render does: the exit status alone, with errors and warnings on stderr.
# (Its JobSet, a bare suspended one, blocks the TrainJob's resume: a difference, exit 1.)
run diff -q --legacy tests/cases/diff-skipped-summary/input.yaml
check "diff -q exits 1 and prints nothing, not even the skipped objects" test "$rc" -eq 1 -a -z "$out" -a -z "$err"
run diff --quiet --legacy tests/cases/render-mpi-launcher-and-nodes/input.yaml
check "diff --quiet exits 1 on changes and prints nothing" test "$rc" -eq 1 -a -z "$out" -a -z "$err"
run diff -q tests/cases/diff-files-human/from.json tests/cases/diff-missing/to.yaml
check "diff -q still prints errors" test "$rc" -eq 2 -a -z "$out" -a -n "$err"
run diff -q --legacy tests/cases/diff-empty-input/input.yaml
check "diff -q says why an input without TrainJobs fails" \
  test "$rc" -eq 2 -a -z "$out" -a "$err" = "trainer: error: no TrainJob in the inputs: the migration check checked nothing (--allow-empty lets an input without TrainJobs pass)"
run test -q --check tests/cases/render-no-mlpolicy
check "test -q exits 0 and prints nothing" test "$rc" -eq 0 -a -z "$out" -a -z "$err"
run test --quiet --check tests/cases/test-fail/01-no-mlpolicy-altered
check "test --quiet exits 1 on a failing case and prints nothing" test "$rc" -eq 1 -a -z "$out" -a -z "$err"

# A case's args that is a FIFO is refused before any case runs (never opened: the read would block),
# and the case is not rendered without it.
mkdir -p "$tmp/fifo-case" && cp examples/quickstart.yaml "$tmp/fifo-case/input.yaml" && mkfifo "$tmp/fifo-case/args"
run test "$tmp/fifo-case"
check "test refuses a case whose args is a FIFO with exit 2, naming it" test "$rc" -eq 2 -a -z "$out" -a \
  "$err" = "trainer: error: $tmp/fifo-case/args: is a FIFO (named pipe); a test case's args must be a file"
check "... writing no expected file" test ! -e "$tmp/fifo-case/current.yaml"

# A cluster dump: the JobSets beside the TrainJobs are read as state, never reported as skipped.
mkdir -p "$tmp/dump"
printf 'apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: quickstart, namespace: ml-team}\n' \
  >"$tmp/dump/jobsets.yaml"
run diff --legacy "$tmp/dump" examples/quickstart.yaml
# (A JobSet without a spec: the controller's suspend apply onto it is refused, exit 1.)
check "a JobSet is not reported as skipped" test "$rc" -eq 1 -a -z "$err"

(cd "$tmp" && "$trainer" test "$OLDPWD/tests/cases/render-explain-mpi" "$OLDPWD/tests/cases/render-flux-templates" >"$tmp/out" 2>&1)
rc=$?
check "a case's args paths are relative to the case folder: its suite passes from another folder (exit $rc)" \
  test "$rc" -eq 0
[[ $rc -eq 0 ]] || sed 's/^/  | /' "$tmp/out"

# A new case gets legacy.yaml only where the rendering with --legacy differs (MPI's nodes take the
# TrainJob image there); one that repeats current.yaml (as earlier versions wrote for every case)
# passes with a note, and --update removes it.
mkdir -p "$tmp/suite/plain" "$tmp/suite/mpi"
cp tests/cases/render-plainml-numnodes-from-runtime/input.yaml "$tmp/suite/plain/"
cp tests/cases/render-mpi-launcher-and-nodes/input.yaml "$tmp/suite/mpi/"
run test "$tmp/suite"
check "trainer test records a new case (exit $rc)" test "$rc" -eq 0 -a -f "$tmp/suite/plain/current.yaml"
check "... without a legacy.yaml where the rendering with --legacy is the same" test ! -e "$tmp/suite/plain/legacy.yaml"
check "... with legacy.yaml where it differs" grep -q 'image: registry.example.com/mpi/worker:1' "$tmp/suite/mpi/legacy.yaml"
run test --check "$tmp/suite"
check "... and the recorded suite passes --check (exit $rc)" test "$rc" -eq 0
cp "$tmp/suite/plain/current.yaml" "$tmp/suite/plain/legacy.yaml"
run test --check "$tmp/suite"
check "a legacy.yaml the same as current.yaml passes --check (exit $rc)" test "$rc" -eq 0 -a "$out" = "2 passed, 0 failed"
check "... with a note saying --update removes it" test "$err" = 'trainer: 1 case holds a legacy.yaml that repeats current.yaml (the rendering with --legacy is the same as without); trainer test --update removes it'
run test --quiet "$tmp/suite"
check "... which --quiet leaves out (exit $rc)" test "$rc" -eq 0 -a -z "$out" -a -z "$err" -a -f "$tmp/suite/plain/legacy.yaml"
run test --update "$tmp/suite"
check "... and --update removes it (exit $rc)" test "$rc" -eq 0 -a ! -e "$tmp/suite/plain/legacy.yaml" -a -f "$tmp/suite/mpi/legacy.yaml"
check "... saying so" grep -qxF "UPDATED $tmp/suite/plain: removed legacy.yaml" <<<"$out"

version=$(sed -n 's/^project(trainer VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
run version
check "trainer version prints the version of CMake's project() first" test "$rc" -eq 0 -a "$(head -n 1 <<<"$out")" = "trainer $version"
check "trainer version names the Trainer release it follows" test "$(sed -n 2p <<<"$out")" = \
  "Follows: Trainer main at 8c0f505, August 2026, after the v2.3.0 release, with PR #4301"
check "trainer version names the upstream commit it follows" grep -q "^Kubeflow Trainer controller: github.com/kubeflow/trainer at commit [0-9a-f]\{40\}$" <<<"$out"
check "trainer version names the image behaviour change" grep -q "^Image behaviour: https://github.com/kubeflow/trainer/pull/4301 " <<<"$out"
run version -o json
check "trainer version -o json is JSON with the version and the commit" \
  python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["version"] == sys.argv[1] and len(d["upstream"]["commit"]) == 40 and d["upstream"]["follows"].startswith("Trainer main at 8c0f505, ")' "$version" <<<"$out"
run --version
check "trainer --version prints the same" test "$rc" -eq 0 -a "$out" = "trainer $version"

# .ci/run's steps after install run the README's set-up commands 3 to 6, in order, one line each.
readme_test=$(grep -A1 -e '^# [3-6]\.' README.md | grep -v -e '^#' -e '^--$')
ci_test=$(grep -E '^step (build|test|sanitizers|fuzz-replay) ' .ci/run | sed -E "s/^step [a-z-]+ +[a-z-]+ +'//; s/'\$//")
check "the README's set-up commands 3 to 6 are the ones .ci/run's steps run" test "$readme_test" = "$ci_test"
check "the README's set-up commands 3 to 6 are four lines" test "$(printf '%s\n' "$readme_test" | wc -l)" -eq 4
check ".ci/run has the steps install, build, test, sanitizers and fuzz-replay, in order" \
  test "$(grep -oE '^step [a-z-]+' .ci/run | cut -d' ' -f2 | tr '\n' ' ')" = "install build test sanitizers fuzz-replay "
# The words after "apt-get install" up to the end of the command, options left out.
packages() { tr '\\\n' '  ' | sed 's/.*apt-get install//; s/&&.*//; s/>.*//' | tr ' ' '\n' | grep -E '^[a-z0-9]' | sort -u; }
readme_build_packages=$(grep -A1 '^# 1\.' README.md | tail -n 1 | packages)
readme_test_packages=$(grep -A1 '^# 2\.' README.md | tail -n 1 | packages)
readme_packages=$(printf '%s\n%s\n' "$readme_build_packages" "$readme_test_packages" | sort -u)
for tool in doctest-dev pre-commit zsh fish groff man-db clang; do
  check "the README's first command leaves the test tool $tool to the second" \
    test -z "$(grep -x -- "$tool" <<<"$readme_build_packages")"
done
# .ci/run's install command as bash reads it: a stray backslash or quote changes the words apt-get gets.
ci_install=$(bash -c 'step() { [[ $1 == install ]] && printf "%s" "$3"; }; eval "$(grep "^step install " .ci/run)"')
ci_packages=$(bash -c 'apt-get() { [[ $1 == install ]] && printf "%s\n" "${@:2}" >&3; return 0; }; '"$ci_install" 3>&1 | grep -v '^-' | sort -u)
check "every package .ci/run installs is a Debian package name" \
  test -z "$(grep -vxE '[a-z0-9][a-z0-9.+-]+' <<<"$ci_packages")"
check "the README and .ci/run install packages" test -n "$readme_packages"
check "the README's first two commands install the packages .ci/run installs" test "$readme_packages" = "$ci_packages"

finish
