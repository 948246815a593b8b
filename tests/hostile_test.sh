#!/usr/bin/env bash
# Hostile inputs: each must end, within bounded memory, with exit code 2, nothing on stdout, and a
# one-line error naming the limit or the character refused (or, for large but valid inputs,
# render; for values holding line breaks, render so that PyYAML reads them back). How fast they end
# is bench/growth.sh's to measure: the one time bound here, $hang, only tells a hang from an end.
# The inputs are generated here at run time; none is committed.
#
#   tests/hostile_test.sh TRAINER
#
# Memory bounds use `ulimit -v`, which AddressSanitizer's shadow memory defeats, so they are
# skipped under it.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

trainer=$(realpath "$1")
tests=$(realpath "$(dirname "$0")")
hang=600  # seconds after which a run counts as hung
# Not `ldd | grep -q`: grep -q leaves at its first match, and under pipefail the SIGPIPE that ldd
# may then get fails the test of the whole pipeline.
if [[ $(ldd "$trainer" 2>/dev/null) == *libasan* ]]; then
  asan=1
else
  asan=0
fi

trap '[[ -n ${writer_pid:-} ]] && kill "$writer_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# check NAME MEMORY_MB EXPECTED_EXIT EXPECTED_STDERR_TEXT -- ARGS...
# Runs trainer with ARGS under `timeout $hang` and `ulimit -v MEMORY_MB`, with stdin
# from $stdin (default /dev/null), and checks its exit code, stderr and (for errors) stdout.
check() {
  local name=$1 memory_mb=$2 want_exit=$3 want_err=$4
  shift 5
  local start end rc
  start=$(date +%s.%N)
  (
    [[ $asan == 0 ]] && ulimit -v $((memory_mb * 1024))
    exec timeout -k 5 "$hang" "$trainer" "$@" <"${stdin:-/dev/null}" >out 2>err
  )
  rc=$?
  end=$(date +%s.%N)
  local problems=()
  [[ $rc == 124 || $rc == 137 ]] && problems+=("hung: did not end within ${hang}s")
  [[ $rc != "$want_exit" ]] && problems+=("exit code $rc, want $want_exit")
  [[ $want_exit != 0 && -s out ]] && problems+=("stdout not empty: $(head -c 200 out)")
  [[ -n $want_err ]] && ! grep -qF -- "$want_err" err && problems+=("stderr lacks \"$want_err\": $(head -c 300 err)")
  if [[ $want_exit != 0 ]] && [[ $(grep -c '' err) -gt 1 ]]; then
    problems+=("more than one line on stderr: $(head -c 300 err)")
  fi
  if ((${#problems[@]})); then
    fail "$name: ${problems[*]}"
  else
    printf 'ok   %-28s %6.2fs  %s\n' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$(head -c 120 err)"
    pass
  fi
}

runtime='apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: plain
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: python:3.12'
trainjob_head='apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job'
trainjob_spec='spec:
  runtimeRef:
    name: plain'

# Nesting 10,000 levels deep: flow, block lists on one line, and block maps.
awk 'BEGIN { printf "a: "; for (i = 0; i < 10000; i++) printf "["; for (i = 0; i < 10000; i++) printf "]"; print "" }' >flow.yaml
check nesting-flow-10000 200 2 "flow.yaml:1:260: nesting deeper than 256 levels (nesting limit)" -- render flow.yaml
# Flow nesting is counted in the text before yaml-cpp reads ahead: ten million "[" and a million
# "[a, " fail at the 257th level, in bounded memory.
awk 'BEGIN { for (i = 0; i < 10000000; i++) printf "["; print "" }' >brackets.yaml
check nesting-flow-brackets-10M 200 2 "brackets.yaml:1:257: nesting deeper than 256 levels (nesting limit)" -- render brackets.yaml
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "[a, "; print "" }' >items.yaml
check nesting-flow-items-1M 200 2 "items.yaml:1:1025: nesting deeper than 256 levels (nesting limit)" -- render items.yaml
awk 'BEGIN { printf "a:\n  "; for (i = 0; i < 10000; i++) printf "- "; print "x" }' >block-list.yaml
check nesting-block-list-10000 200 2 "(nesting limit)" -- render block-list.yaml
awk 'BEGIN { for (i = 0; i < 10000; i++) { printf "%*sk:\n", i, "" } }' >block-map.yaml
check nesting-block-map-10000 600 2 "block-map.yaml:257:257: nesting deeper than 256 levels (nesting limit)" -- render block-map.yaml

# Billion laughs: nine levels of nine aliases each (387M values if expanded).
{
  echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
  prev=a
  for c in b c d e f g h i; do
    printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' $c $c $prev $prev $prev $prev $prev $prev $prev $prev $prev
    prev=$c
  done
} >laughs.yaml
check billion-laughs 1000 2 "(alias expansion limit)" -- render laughs.yaml
# 250 nested anchors over a 100k-value list: each anchor would keep its own copy (25M values);
# the copies count as values too, and the value count limit stops them first.
awk 'BEGIN { printf "a: "; for (i = 0; i < 250; i++) printf "&a%d [", i; for (i = 0; i < 100000; i++) printf "x, "; printf "x"; for (i = 0; i < 250; i++) printf "]"; print "" }' >anchors.yaml
check nested-anchors 1000 2 "anchors.yaml:1:1581: more than 1000000 values in one stream (value count limit)" -- render anchors.yaml

# A 64 MiB scalar in an object without a kind.
{ printf 'a: '; head -c $((64 << 20)) /dev/zero | tr '\0' x; echo; } >scalar.yaml
check huge-scalar-64MiB 1500 2 "scalar.yaml:1:1: kind: Required value: every object needs a kind" -- render scalar.yaml

# 100 MB of list items: stops at the value count limit.
awk 'BEGIN { print "a:"; for (i = 0; i < 25000000; i++) print "- 1" }' >items.yaml
check file-100MB-items 2500 2 "more than 1000000 values in one stream (value count limit)" -- render items.yaml
rm -f items.yaml scalar.yaml

# Beyond the size limit: a sparse 300 MiB file, /dev/zero, stdin from /dev/zero, a FIFO fed forever.
truncate -s 300M sparse.yaml
check file-300MiB 1500 2 "sparse.yaml:1:1: input larger than 268435456 bytes (document size limit)" -- render sparse.yaml
rm -f sparse.yaml
check dev-zero 1500 2 "/dev/zero:1:1: input larger than 268435456 bytes (document size limit)" -- render /dev/zero
stdin=/dev/zero check stdin-dev-zero 1500 2 "<stdin>:1:1: input larger than 268435456 bytes (document size limit)" -- render -
mkfifo endless.fifo
cat /dev/zero >endless.fifo 2>/dev/null &
writer_pid=$!
check fifo-endless 1500 2 "endless.fifo:1:1: input larger than 268435456 bytes (document size limit)" -- render endless.fifo
kill "$writer_pid" 2>/dev/null
wait "$writer_pid" 2>/dev/null
writer_pid=

# A FIFO with a valid stream renders like a file.
printf '%s\n---\n%s\n%s\n' "$runtime" "$trainjob_head" "$trainjob_spec" >job.yaml
mkfifo job.fifo
cat job.yaml >job.fifo &
writer_pid=$!
check fifo-valid 200 0 "" -- render job.fifo
kill "$writer_pid" 2>/dev/null  # done if trainer read the stream; blocked in its open if not
wait "$writer_pid" 2>/dev/null
writer_pid=
if ! diff <("$trainer" render job.yaml | sed 1,2d) <(sed 1,2d out) >/dev/null; then
  fail "fifo-valid: output differs from the same stream read from a file"
fi

# Directories whose symbolic links lead back up: listed once, not forever.
mkdir -p loop/sub
cp job.yaml loop/sub/job.yaml
ln -s .. loop/sub/up
ln -s ../../loop loop/sub/top
ln -s . loop/self
check directory-symlink-loops 200 0 "" -- render loop

# On a terminal, an error shows its input line as it was read: a FIFO is not opened again (that
# hung), and control characters in the line reach the terminal as '?'.
mkfifo bad.fifo
printf '%s\n---\n%s\nspec:\n  runtimeRef:\n    name: plain\n  bogus: "\033[2J"\n' "$runtime" "$trainjob_head" >bad.fifo &
writer_pid=$!
timeout -k 5 "$hang" script -qec "$trainer render bad.fifo" /dev/null >tty.out 2>&1
rc=$?
wait "$writer_pid" 2>/dev/null
writer_pid=
if [[ $rc != 2 ]] || ! grep -qF '  bogus: "?[2J"' tty.out || ! grep -qF '  ^' tty.out; then
  fail "fifo-error-on-terminal: exit $rc, output: $(head -c 400 tty.out | cat -v)"
else
  printf 'ok   %-28s\n' fifo-error-on-terminal
  pass
fi

# Characters YAML 1.1 readers (kubectl's go-yaml v2, PyYAML) take for line breaks. Written as
# escapes in an image, they reach the output escaped in double quotes, never raw: PyYAML reads back
# the image as written, and no key injected after the break, and `-o json` escapes them too.
# $1: the image as YAML double-quoted text; $2: the file to write.
image_job() {
  printf '%s\n---\n%s\n%s\n  trainer:\n    image: "%s"\n' "$runtime" "$trainjob_head" "$trainjob_spec" "$1" >"$2"
}
# The JobSet's node container, as PyYAML reads the YAML stream $1, is {name: node, image: $2
# (YAML double-quoted text), resources: {}}, and the JobSets are the ones of the JSON List $3.
read_back='
import json, sys, yaml
image = yaml.safe_load("\"" + sys.argv[2] + "\"")
def container(jobset):
    return jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
with open(sys.argv[1], "rb") as f:
    jobsets = [d for d in yaml.safe_load_all(f) if d["kind"] == "JobSet"]
with open(sys.argv[3]) as f:
    listed = [d for d in json.load(f)["items"] if d["kind"] == "JobSet"]
sys.exit(0 if jobsets == listed and container(jobsets[0]) == {"name": "node", "image": image, "resources": {}} else 1)
'
if python3 -c 'import yaml' 2>/dev/null; then
  # The issue's injection, one that go-yaml's emitter writes plain, a literal block, NEL, PS, CR.
  images=('busybox:1\u2028securityContext: {privileged: true}' 'busybox:1\u2028securityContext:\u2028  privileged:\u2028    true'
    'busybox:1\n\u2028securityContext:\u2028  privileged: true\n' 'busybox:1\NsecurityContext: x' 'busybox:1\PsecurityContext: x'
    'busybox:1\rsecurityContext: x')
  for i in "${!images[@]}"; do
    image_job "${images[$i]}" "image-$i.yaml"
    check "line-break-in-image-$i" 200 0 "" -- render "image-$i.yaml"
    "$trainer" render -o json "image-$i.yaml" >"image-$i.json"
    # (encoding/json writes NEL raw, and JSON readers take it for no break)
    if LC_ALL=C grep -q $'\r\\|\xc2\x85\\|\xe2\x80[\xa8\xa9]' out || LC_ALL=C grep -q $'\xe2\x80[\xa8\xa9]' "image-$i.json"; then
      fail "line-break-in-image-$i: a line break other than LF is written raw: $(grep -A2 image: out | cat -v)"
    elif ! python3 -c "$read_back" out "${images[$i]}" "image-$i.json"; then
      fail "line-break-in-image-$i: PyYAML reads another container than written: $(grep -A2 image: out | cat -v)"
    fi
  done
  grep -qF '"image": "busybox:1\u2028securityContext: {privileged: true}"' image-0.json ||
    fail "line-break-in-image-0: -o json does not escape U+2028: $(grep image image-0.json | cat -v)"
else
  echo "SKIP: line-break-in-image-*: PyYAML is not installed (apt-get install python3-yaml)"
fi

# Raw, anywhere in a file (a comment too), those characters and the control characters are
# refused where they stand: kubectl would read another object, or refuse the file.
image_job 'busybox:1' comment.yaml
printf '    # pinned\xe2\x80\xa8    image: evil.example.com/miner:latest\n' >>comment.yaml
check separator-in-comment 200 2 \
  "comment.yaml:30:13: U+2028 LINE SEPARATOR, which kubectl's YAML reader takes for a line break: write it as \"\\L\" inside a double-quoted string" \
  -- render comment.yaml
printf '# a TrainJob\r%s\r' "${trainjob_head//$'\n'/$'\r'}" >cr-only.yaml
check cr-line-ends 200 2 \
  "cr-only.yaml:1:13: a lone carriage return (0x0D), which kubectl's YAML reader takes for a line break: end lines with LF or CRLF, or write it as \"\\r\" inside a double-quoted string" \
  -- render cr-only.yaml
image_job 'x' nul.yaml
sed -i 's/image: "x"/image: busybox\x00x3a1/' nul.yaml
check nul-in-plain-scalar 200 2 \
  "nul.yaml:29:19: NUL byte (0x00), which YAML does not allow in a file: write it as \"\\0\" inside a double-quoted string" \
  -- render nul.yaml

# UTF-16 with a byte order mark renders as its UTF-8 form; without one, or UTF-32, it is refused.
image_job 'busybox:1' utf8.yaml
"$trainer" render utf8.yaml >utf8.out
{ printf '\xff\xfe'; iconv -f UTF-8 -t UTF-16LE utf8.yaml; } >utf16le.yaml
check utf16le-with-bom 200 0 "" -- render utf16le.yaml
sed 's/utf8\.yaml/utf16le.yaml/' utf8.out | cmp -s - out || fail "utf16le-with-bom: renders otherwise than its UTF-8 form"
{ printf '\xfe\xff'; iconv -f UTF-8 -t UTF-16BE utf8.yaml; } >utf16be.yaml
check utf16be-with-bom 200 0 "" -- render utf16be.yaml
iconv -f UTF-8 -t UTF-16LE utf8.yaml >utf16-no-bom.yaml
check utf16-without-bom 200 2 \
  "utf16-no-bom.yaml:1:2: NUL byte (0x00), which YAML does not allow in a file: write it as \"\\0\" inside a double-quoted string; a file that starts with NUL bytes may be UTF-16 or UTF-32 text without a byte order mark: save it as UTF-8" \
  -- render utf16-no-bom.yaml
{ printf '\xff\xfe\x00\x00'; iconv -f UTF-8 -t UTF-32LE utf8.yaml; } >utf32.yaml
check utf32-with-bom 200 2 \
  "utf32.yaml:1:1: UTF-32 text (byte order mark FF FE 00 00): kubectl reads UTF-8 and UTF-16 only; save the file as UTF-8" \
  -- render utf32.yaml

# Out of memory while reading: one error naming the file and the limits, not "std::bad_alloc".
if [[ $asan == 0 ]]; then  # the bound is ulimit -v, which AddressSanitizer defeats
  awk 'BEGIN { print "a:"; for (i = 0; i < 900000; i++) printf "  k%d: v\n", i }' >big-map.yaml
  check out-of-memory-reading 100 2 \
    "trainer: error: big-map.yaml: out of memory while reading it (one stream may hold 268435456 bytes and 1000000 values)" \
    -- render big-map.yaml
fi

# Links that meet again without a loop: each level's folder links twice to the next, 2^24 paths to
# the job at the bottom. Each real folder is walked once; the job renders once.
mkdir dag
for ((level = 0; level < 24; level++)); do
  mkdir "dag/$level"
  ln -s "../$((level + 1))" "dag/$level/a"
  ln -s "../$((level + 1))" "dag/$level/b"
done
mkdir dag/24
cp job.yaml dag/24/job.yaml
check directory-symlink-dag 200 0 "" -- render dag/0
[[ $(grep -c '^kind: JobSet' out) == 1 ]] || fail "directory-symlink-dag: want one JobSet, got $(grep -c '^kind: JobSet' out)"

# Large but valid: a TrainJob with 100k labels, and 100k empty documents.
{
  printf '%s\n---\n%s\n  labels:\n' "$runtime" "$trainjob_head"
  awk 'BEGIN { for (i = 0; i < 100000; i++) printf "    key-%d: value-%d\n", i, i }'
  printf '%s\n' "$trainjob_spec"
} >labels.yaml
check map-100k-keys 1500 0 "" -- render labels.yaml
{
  awk 'BEGIN { for (i = 0; i < 100000; i++) print "---" }'
  printf '%s\n---\n%s\n%s\n' "$runtime" "$trainjob_head" "$trainjob_spec"
} >empty-docs.yaml
check empty-documents-100k 300 0 "" -- render empty-docs.yaml
# Many runtimes, each used by one TrainJob: finding a TrainJob's runtime must not scan them all
# (5,000 of each took a minute when it did).
awk 'BEGIN {
  for (i = 0; i < 5000; i++) {
    printf "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata: {name: rt-%d}\n", i
    printf "spec:\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n"
    printf "          spec: {template: {spec: {containers: [{name: node, image: img}]}}}\n"
    printf "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job-%d}\n", i
    printf "spec: {runtimeRef: {name: rt-%d, kind: TrainingRuntime}}\n", i
  }
}' >many-runtimes.yaml
check runtimes-5000-jobs-5000 600 0 "" -- render --quiet many-runtimes.yaml

# numNodes asks for an MPI hostfile line per node: past the output size limit the render fails at
# the numNodes, before the hostfile is built.
mpi_runtime=$(<"$tests/mpi_runtime.yaml")
for nodes in 10000000 2147483647; do
  printf '%s\n---\n%s\nspec:\n  runtimeRef:\n    name: openmpi\n  trainer:\n    numNodes: %d\n' \
    "$mpi_runtime" "$trainjob_head" "$nodes" >mpi-nodes.yaml
  check "mpi-num-nodes-$nodes" 200 2 \
    "mpi-nodes.yaml:41:5: TrainJob default/job: spec.trainer.numNodes: output larger than 268435456 bytes (output size limit)" \
    -- render mpi-nodes.yaml
done

finish
