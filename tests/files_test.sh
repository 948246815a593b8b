#!/usr/bin/env bash
# The files trainer writes (render --output-dir, test --update) on hostile ground: temporary files
# no planted symbolic link can steer, destinations checked before any is replaced, and nothing
# left behind by a signal that ends trainer. Usage: files_test.sh TRAINER
set -u
source "$(dirname "$0")/lib.sh"
trainer=$1
cd "$(dirname "$0")/.."
jobset=jobset.x-k8s.io_v1alpha2_JobSet_ml-team_quickstart.yaml

run() {  # run ARGS... ; sets $rc, $out, $err
  "$trainer" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
# No temporary file in DIR: neither trainer's pattern (.NAME.trainer-XXXXXX) nor older fixed names.
no_temporaries() { [[ -z $(find "$1" \( -name '.*.trainer-*' -o -name '*.tmp' -o -name '*.trainer-tmp' \) -print) ]]; }
# The runtime of examples/quickstart.yaml and N TrainJobs job-1... in namespace default.
jobs() {
  sed -n '1,28p' examples/quickstart.yaml
  for ((i = 1; i <= $1; i++)); do
    printf -- '---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job-%d\n' "$i"
    printf 'spec:\n  runtimeRef:\n    name: python-plain\n'
  done
}
job_file() { echo "jobset.x-k8s.io_v1alpha2_JobSet_default_job-$1.yaml"; }

echo precious >"$tmp/victim"

# A symbolic link at the fixed temporary name of older versions is not written through.
mkdir "$tmp/planted" && ln -s "$tmp/victim" "$tmp/planted/$jobset.tmp"
run render examples/quickstart.yaml --output-dir "$tmp/planted"
check "--output-dir beside a planted link succeeds" test "$rc" -eq 0
check "... writes nothing through the link" test "$(cat "$tmp/victim")" = precious
check "... and writes its file" grep -q '^kind: JobSet$' "$tmp/planted/$jobset"

# A destination that is a symbolic link is refused, naming it.
mkdir "$tmp/linked" && ln -s "$tmp/victim" "$tmp/linked/$jobset"
run render examples/quickstart.yaml --output-dir "$tmp/linked"
check "--output-dir refuses a destination that is a symbolic link with exit 2" test "$rc" -eq 2
check "... naming it" test "$err" = "trainer: error: --output-dir $tmp/linked: $tmp/linked/$jobset: is a symbolic link, which trainer does not replace; no file was replaced"
check "... leaving the link and its target as they were" test -L "$tmp/linked/$jobset" -a "$(cat "$tmp/victim")" = precious
check "... and no temporary file" no_temporaries "$tmp/linked"

# A folder at the last destination: no file is replaced, not even those renamed before it once.
jobs 3 >"$tmp/three.yaml"
mkdir -p "$tmp/folder/$(job_file 3)" && echo old >"$tmp/folder/$(job_file 1)"
run render "$tmp/three.yaml" --output-dir "$tmp/folder"
check "--output-dir with a folder at a destination exits 2" test "$rc" -eq 2
check "... naming it" test "$err" = "trainer: error: --output-dir $tmp/folder: $tmp/folder/$(job_file 3): is a folder; no file was replaced"
check "... replacing no file" test "$(cat "$tmp/folder/$(job_file 1)")" = old -a ! -e "$tmp/folder/$(job_file 2)"
check "... and leaving no temporary file" no_temporaries "$tmp/folder"

# The files get what any new file gets: 0666 less the umask.
(umask 027 && "$trainer" render examples/quickstart.yaml --output-dir "$tmp/mode" 2>/dev/null)
check "--output-dir files get 0666 less the umask" test "$(stat -c %a "$tmp/mode/$jobset")" = 640

# The SSH key Secret of --generate-ssh-keys is its owner's only, also under umask 022; a file its
# user made 0600 stays so when it is rendered again.
mpi_job=$'---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job\nspec:\n  runtimeRef:\n    name: openmpi'
{ cat tests/mpi_runtime.yaml && echo "$mpi_job"; } >"$tmp/mpi.yaml"
secret="$tmp/keys/v1_Secret_default_job-mpi-ssh-auth.yaml" hostfile="$tmp/keys/v1_ConfigMap_default_job-mpi-hostfile.yaml"
(umask 022 && "$trainer" render "$tmp/mpi.yaml" --generate-ssh-keys --output-dir "$tmp/keys" 2>/dev/null)
check "--output-dir writes the SSH key Secret 0600" test "$(stat -c %a "$secret")" = 600
check "... and the other files 0644 (umask 022)" test "$(stat -c %a "$hostfile")" = 644
chmod 600 "$hostfile" && chmod 640 "$secret"
(umask 022 && "$trainer" render "$tmp/mpi.yaml" --generate-ssh-keys --output-dir "$tmp/keys" 2>/dev/null)
check "rendered again, a file its user made 0600 stays 0600" test "$(stat -c %a "$hostfile")" = 600
check "... and the Secret 0600" test "$(stat -c %a "$secret")" = 600

# test --update: a link at the fixed temporary name of older versions, then an expected file that is a link.
mkdir "$tmp/case" && cp examples/quickstart.yaml "$tmp/case/input.yaml" && echo '{}' >"$tmp/case/current.yaml"
ln -s "$tmp/victim" "$tmp/case/current.yaml.trainer-tmp"
run test --update "$tmp/case"
check "test --update beside a planted link succeeds" test "$rc" -eq 0
check "... writes nothing through the link" test "$(cat "$tmp/victim")" = precious
check "... and replaces current.yaml by a file" test ! -L "$tmp/case/current.yaml" -a -n "$(grep '^kind: JobSet$' "$tmp/case/current.yaml")"
rm -f "$tmp/case/current.yaml.trainer-tmp"
echo '{}' >"$tmp/expected" && rm "$tmp/case/current.yaml" && ln -s "$tmp/expected" "$tmp/case/current.yaml"
run test --update "$tmp/case"
check "test --update refuses an expected file that is a symbolic link with exit 2" test "$rc" -eq 2
check "... naming it" grep -qF "$tmp/case/current.yaml: is a symbolic link, which trainer does not replace; no file was replaced" "$tmp/err"
check "... leaving its target as it was" test "$(cat "$tmp/expected")" = '{}'
rm "$tmp/case/current.yaml" && "$trainer" test "$tmp/case" >/dev/null

# trainer test fails a case folder holding a temporary file of an interrupted run, naming it.
echo half >"$tmp/case/.current.yaml.trainer-Ab12cD"
run test "$tmp/case"
check "a stray temporary file in a case fails trainer test with exit 1" test "$rc" -eq 1
check "... naming it" grep -qF '.current.yaml.trainer-Ab12cD: a temporary file left by an interrupted trainer run; remove it' "$tmp/out"

# Each signal whose default action ends trainer, during a long --output-dir render: sent once its
# first files are staged, trainer removes them and the folder it made, and dies of the signal. Job control (set -m), so that
# the background trainer does not start with SIGINT and SIGQUIT ignored; no core files.
jobs 3000 >"$tmp/many.yaml"
ulimit -c 0
set -m
for signal in HUP INT QUIT PIPE ALRM TERM USR1 USR2 VTALRM PROF XCPU XFSZ IO PWR STKFLT RTMIN RTMAX; do
  number=$(kill -l "$signal")
  landed=0
  for ((attempt = 0; attempt < 5 && landed == 0; attempt++)); do
    dir="$tmp/killed-$signal-$attempt"
    "$trainer" render "$tmp/many.yaml" --output-dir "$dir" 2>/dev/null &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && [[ -z $(find "$dir" -mindepth 1 -print -quit 2>/dev/null) ]]; do :; done
    kill -s "$signal" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    status=$?
    [[ $status -eq 0 ]] && continue  # it finished first: try again
    landed=1
    check "SIG$signal: the exit status is 128+$number" test "$status" -eq $((128 + number))
    check "SIG$signal: no temporary file is left, nor the folder trainer made" test ! -e "$dir"
  done
  check "SIG$signal landed during the render (in one of 5 attempts)" test "$landed" -eq 1
done

# A signal during the renames waits for them: the folder is all new (or, before them, all old),
# never half old, half new. SIGTERM is sent once the first file is replaced.
"$trainer" render "$tmp/many.yaml" --output-dir "$tmp/renamed"
first="$tmp/renamed/$(job_file 1)"
for ((attempt = 0; attempt < 3; attempt++)); do
  for file in "$tmp/renamed"/*; do echo old >"$file"; done
  "$trainer" render "$tmp/many.yaml" --output-dir "$tmp/renamed" 2>/dev/null &
  pid=$!
  line=old
  while kill -0 "$pid" 2>/dev/null && [[ $line == old ]]; do read -r line <"$first"; done
  kill -s TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  status=$?
  check "SIGTERM during the renames: trainer finishes them, then dies of it" test "$status" -eq 143 -o "$status" -eq 0
  check "... leaving every file new" test -z "$(grep -lx old "$tmp/renamed"/*)"
  check "... and no temporary file" no_temporaries "$tmp/renamed"
done
set +m

finish files
