#!/usr/bin/env bash
# trainer diff --legacy --update-baseline: writes the baseline of a run, a file that the next run
# leaves byte for byte as it is, whose changes then pass; and never half-writes or overwrites what
# is not a baseline. Usage: baseline_test.sh TRAINER
set -u
source "$(dirname "$0")/lib.sh"
trainer=$1
cd "$(dirname "$0")/.."
input=tests/cases/render-mpi-launcher-and-nodes/input.yaml
dump=(tests/dumps/status-only -r tests/dumps/runtimes.yaml)

run() {  # run ARGS... ; sets $rc, $out, $err
  "$trainer" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# A missing baseline is created, with every change of the run, and the run exits 0.
run diff --legacy "$input" --baseline "$tmp/b.yaml" --update-baseline
check "update creates the baseline and exits 0" [ "$rc" -eq 0 ]
check "update says what it recorded" [ "$err" = "trainer: $tmp/b.yaml: 1 change recorded" ]
check "update prints the report" grep -q "TrainJob hpc/pi on openmpi (ClusterTrainingRuntime) changes now$" "$tmp/out"
check "the baseline is the one expected" cmp -s "$tmp/b.yaml" tests/cases/diff-baseline-acknowledged/baseline.yaml
cp "$tmp/b.yaml" "$tmp/first.yaml"
touch -d '2000-01-01' "$tmp/b.yaml"

# A second run changes nothing: the file is not even rewritten.
run diff --legacy "$input" --baseline "$tmp/b.yaml" --update-baseline
check "a second update exits 0" [ "$rc" -eq 0 ]
check "a second update is byte-identical" cmp -s "$tmp/b.yaml" "$tmp/first.yaml"
check "a second update leaves the file untouched" [ "$(stat -c %Y "$tmp/b.yaml")" = "$(date -d '2000-01-01' +%s)" ]
check "a second update says so" [ "$err" = "trainer: $tmp/b.yaml: 1 change recorded (unchanged)" ]

# The recorded change now passes.
run diff --legacy "$input" --baseline "$tmp/b.yaml"
check "the acknowledged change exits 0" [ "$rc" -eq 0 ]

# Blocked TrainJobs are recorded but still fail; the update itself exits 0.
run diff --legacy "${dump[@]}" --baseline "$tmp/dump.yaml" --update-baseline
check "an update with blocked TrainJobs exits 0" [ "$rc" -eq 0 ]
check "blocked changes are recorded" [ "$(grep -c '^- trainJob:' "$tmp/dump.yaml")" -eq 6 ]
run diff --legacy "${dump[@]}" --baseline "$tmp/dump.yaml"
check "blocked changes are never acknowledged" [ "$rc" -eq 1 ]
run diff --legacy "${dump[@]}" --baseline "$tmp/dump.yaml" -q
check "-q keeps the exit status" [ "$rc" -eq 1 ] && check "-q prints nothing" [ -z "$out$err" ]

# TrainJobs that could not be checked (a foreign snapshot, a missing runtime): the report and the
# errors as without --update-baseline, exit 2, the baseline written with their old entries kept.
{
  cat "$tmp/first.yaml"
  printf '%s\n' "- trainJob: research/orphan" "  object: JobSet/research/orphan" "  path: spec.suspend" "  newValue: false"
} >"$tmp/c.yaml"
run diff --legacy tests/dumps/cluster.yaml -r tests/dumps/runtimes.yaml --baseline "$tmp/c.yaml" --update-baseline
check "an update with TrainJobs that could not be checked exits 2" [ "$rc" -eq 2 ]
check "... prints the report" grep -q "TrainJob ml/new-run on mpi-cluster (ClusterTrainingRuntime) changes now$" "$tmp/out"
check "... names what could not be checked" grep -qF 'TrainJob research/orphan: spec.runtimeRef: ClusterTrainingRuntime "mpi-old" not found' "$tmp/err"
check "... says what it kept" grep -qxF "trainer: $tmp/c.yaml: 4 changes recorded; the entries of the 2 TrainJobs that could not be checked kept as they were" "$tmp/err"
check "... keeps the entry of the TrainJob that could not be checked" grep -qx -- "- trainJob: research/orphan" "$tmp/c.yaml"
check "... drops the entries of a TrainJob not in this run" [ -z "$(grep -x -- "- trainJob: hpc/pi" "$tmp/c.yaml")" ]
check "... records the changes of the others" [ "$(grep -c '^- trainJob: ml/' "$tmp/c.yaml")" -eq 3 ]

# A TrainJob that did not load has no name to keep entries by: exit 2, the baseline as it was.
cp "$tmp/first.yaml" "$tmp/d.yaml"
run diff --legacy "$input" tests/cases/badinput-missing-spec/input.yaml --baseline "$tmp/d.yaml" --update-baseline
check "an update with an input that did not load exits 2" [ "$rc" -eq 2 ]
check "... and leaves the baseline as it was" cmp -s "$tmp/d.yaml" "$tmp/first.yaml"
check "... and says why" grep -qF "$tmp/d.yaml: not updated, as not every input loaded" "$tmp/err"
check "... and prints nothing" [ -z "$out" ]

# A file that is not a baseline is never overwritten.
cp "$input" "$tmp/input.yaml"
run diff --legacy "$input" --baseline "$tmp/input.yaml" --update-baseline
check "an update of a file that is not a baseline exits 2" [ "$rc" -eq 2 ]
check "... and leaves it as it was" cmp -s "$tmp/input.yaml" "$input"
check "... naming the place" grep -qF "$tmp/input.yaml:4:1: unknown field \"apiVersion\"" "$tmp/err"
check "no temporary file is left" [ -z "$(find "$tmp" -name '.*.trainer-*' -print)" ]

finish baseline
