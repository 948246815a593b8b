#!/usr/bin/env bash
# trainer's growth benchmark, run by hand (not by ctest): for each input shape that once cost more
# than linear time or memory, generates inputs at doubling sizes, runs trainer on each, and prints
# the wall time, CPU time and peak RSS per size (bench/measure, fastest of R runs). A row is
# "linear" when doubling the two largest sizes multiplies both CPU time and peak RSS by at most
# 2.5, and within its bound of memory per item where it has one; the script exits 1 when any row
# is SUPER-LINEAR or over its bound (or a run fails or times out).
#
#   bench/growth.sh [--build DIR] [--repeat R] [--timeout S] [ROW...]   (default R = 3, S = 120)
#
# ROW names one of the rows below (default: all of them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
repeat=3
limit=120
rows=()
while (($#)); do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --timeout) limit="$2"; shift 2 ;;
    *) rows+=("$1"); shift ;;
  esac
done
trainer="$build/trainer"
measure="$build/bench/measure"
for tool in "$trainer" "$measure"; do
  [[ -x "$tool" ]] || { echo "growth: $tool is not built" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ---- input generators: gen_<row> N DIR writes the inputs of size N into DIR ----

# The runtime most rows use: one trainer Job whose node container gets what the row adds.
runtime_head() {
  printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: plain\n'
  printf 'spec:\n  template:\n    spec:\n      replicatedJobs:\n        - name: node\n          template:\n'
  printf '            metadata:\n              labels:\n                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n'
  printf '            spec:\n              template:\n                spec:\n'
}
node_container() { printf '                  containers:\n                    - name: node\n                      image: python:3.12\n'; }
# numbered N FORMAT: FORMAT for i = 1 to N, with i for each of its two %d.
numbered() { awk -v n="$1" -v f="$2" 'BEGIN { for (i = 1; i <= n; i++) printf f, i, i }'; }
# runtime_volumes N: the node container's volumes v0 to v(N-1), as a runtime's pod spec lists them.
runtime_volumes() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "                    - name: v%d\n                      emptyDir: {}\n", i }'; }
trainjob() { printf -- '---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job\nspec:\n  runtimeRef:\n    name: plain\n'; }

# 1. Runtime container env and volumes of N items each (Upsert, JobSet SyncContainer).
gen_runtime_env() {
  { runtime_head; node_container
    printf '                      env:\n'
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "                        - name: E%d\n                          value: \"%d\"\n", i, i }'
    printf '                  volumes:\n'
    runtime_volumes "$1"
    trainjob
    printf '  trainer:\n    env:\n      - name: E1\n        value: job\n'
  } >"$2/in.yaml"
}
# A runtime of N volumes and a TrainJob whose one runtime patch brings the volumes that `$2 N` prints.
volumes_patch() {
  runtime_head; node_container
  printf '                  volumes:\n'
  runtime_volumes "$1"
  trainjob
  printf '  runtimePatches:\n    - manager: a.example.com/x\n      trainingRuntimeSpec:\n        template:\n          spec:\n'
  printf '            replicatedJobs:\n              - name: node\n                template:\n                  spec:\n'
  printf '                    template:\n                      spec:\n                        volumes:\n'
  "$2" "$1"
}
middle_volume() { printf '                          - name: v%d\n                            emptyDir: {}\n' $(($1 / 2)); }
reversed_volumes() {
  awk -v n="$1" 'BEGIN { for (i = n - 1; i >= 0; i--) printf "                          - name: v%d\n                            emptyDir: {}\n", i }'
}
# 2. A one-volume runtime patch into N volumes (strategic merge).
gen_merge_volumes() { volumes_patch "$1" middle_volume >"$2/in.yaml"; }
# 3. A TrainJob env of N items (--validate=warn).
gen_trainjob_env() {
  { runtime_head; node_container; trainjob
    printf '  trainer:\n    env:\n'
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "      - name: E%d\n        value: \"%d\"\n", i, i }'
  } >"$2/in.yaml"
}
# 4. N TrainJobs naming N missing runtimes, among N loaded ones (each error lists some).
gen_runtime_not_found() {
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
    printf "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt-%d}\n", i
    printf "spec: {template: {spec: {replicatedJobs: [{name: node}]}}}\n"
    printf "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: job-%d}\n", i
    printf "spec: {runtimeRef: {name: missing-%d}}\n", i } }' >"$2/in.yaml"
}
# 5. `trainer diff -o unified` of two objects whose N-line string differs on every line.
gen_unified_diff() {
  for side in old new; do
    { printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  script: |\n'
      awk -v n="$1" -v s="$side" 'BEGIN { for (i = 0; i < n; i++) printf "    %s line %d\n", s, i }'
    } >"$2/$side.yaml"
  done
}
# 6. `trainer test` records a case whose rendering holds N env items, then checks it.
gen_test_expected() {
  mkdir -p "$2/suite/case"
  { runtime_head; node_container; trainjob
    printf '  trainer:\n    env:\n'
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "      - name: E%d\n        value: \"%d\"\n", i, i }'
  } >"$2/suite/case/input.yaml"
  echo "--validate=ignore" >"$2/suite/case/args"
  "$trainer" test "$2/suite" >/dev/null
}
# 7. Flow-style nesting: "[" N times (stops at the nesting limit).
gen_flow_brackets() { awk -v n="$1" 'BEGIN { printf "a: "; for (i = 0; i < n; i++) printf "["; print "" }' >"$2/in.yaml"; }
# 8. Flow-style nesting: "[a, " N times.
gen_flow_items() { awk -v n="$1" 'BEGIN { printf "a: "; for (i = 0; i < n; i++) printf "[a, "; print "" }' >"$2/in.yaml"; }
# An MPI runtime named $1, its launcher and nodes running mpi:1.
mpi_runtime() {
  printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: %s\n' "$1"
  printf 'spec:\n  mlPolicy:\n    numNodes: 1\n    mpi:\n      numProcPerNode: 1\n      sshAuthMountPath: /root/.ssh\n'
  printf '  template:\n    spec:\n      replicatedJobs:\n'
  printf '        - name: launcher\n          template:\n            metadata:\n              labels:\n'
  printf '                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n'
  printf '            spec:\n              template:\n                spec:\n'
  printf '                  containers:\n                    - name: node\n                      image: mpi:1\n'
  printf '        - name: node\n          template:\n            spec:\n              template:\n                spec:\n'
  printf '                  containers:\n                    - name: node\n                      image: mpi:1\n'
}
# 9. An MPI TrainJob of N nodes (the hostfile lists every node).
gen_mpi_nodes() {
  { mpi_runtime plain; trainjob
    printf '  trainer:\n    numNodes: %d\n' "$1"
  } >"$2/in.yaml"
}
# 10. A folder holding a DAG of symlinks N levels deep: each level holds two links to the one
# below, so 2^N paths reach the one runtime at the bottom.
gen_symlink_dag() {
  mkdir -p "$2/dag/l0"
  { runtime_head; node_container; trainjob; } >"$2/dag/l0/in.yaml"
  for ((i = 1; i <= $1; i++)); do
    mkdir "$2/dag/l$i"
    ln -s "../l$((i - 1))" "$2/dag/l$i/a"
    ln -s "../l$((i - 1))" "$2/dag/l$i/b"
  done
}
# 11. A runtime of N replicatedJobs, each with a node container (the JobSet plugin pairs PodSets
# with Jobs by name).
gen_replicated_jobs() {
  { printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: plain\n'
    printf 'spec:\n  template:\n    spec:\n      replicatedJobs:\n'
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
      printf "        - name: j%d\n          template:\n            spec:\n              template:\n                spec:\n", i
      printf "                  containers:\n                    - name: node\n                      image: python:3.12\n" } }'
    trainjob
  } >"$2/in.yaml"
}
# 12. `trainer diff --legacy` of N TrainJobs, every other one of an MPI runtime (whose nodes change
# image) and the others of a plain one (unchanged).
gen_diff_legacy() {
  { runtime_head; node_container; printf -- '---\n'; mpi_runtime mpi
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
      printf "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job-%d\n", i
      printf "spec:\n  runtimeRef:\n    name: %s\n  trainer:\n    image: train:%d\n", (i % 2 ? "mpi" : "plain"), i } }'
  } >"$2/in.yaml"
}

# 13. Runtime container ports and volume mounts of N items each (Upsert, JobSet SyncContainer).
gen_runtime_ports_mounts() {
  { runtime_head; node_container
    printf '                      ports:\n'
    numbered "$1" '                        - containerPort: %d\n                          name: p%d\n'
    printf '                      volumeMounts:\n'
    numbered "$1" '                        - name: v%d\n                          mountPath: /m/%d\n'
    trainjob
  } >"$2/in.yaml"
}
# 14. A runtime patch of N volumes, in reverse order, into the same N volumes (strategic merge).
gen_merge_reversed() { volumes_patch "$1" reversed_volumes >"$2/in.yaml"; }
# 15. `trainer diff --legacy` of a TrainJob whose live JobSet holds the N pod labels and N volumes
# of its runtime in reverse order, the labels with other values (server-side apply).
gen_apply_reversed() {
  { printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: plain\n'
    printf 'spec:\n  template:\n    spec:\n      replicatedJobs:\n        - name: node\n          template:\n'
    printf '            metadata:\n              labels:\n                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n'
    printf '            spec:\n              template:\n                metadata:\n                  labels:\n'
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "                    l%d: a\n", i }'
    printf '                spec:\n'
    node_container
    printf '                  volumes:\n'
    runtime_volumes "$1"
    trainjob
    printf -- '---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: job\n  namespace: default\n'
    printf 'spec:\n  replicatedJobs:\n    - name: node\n      template:\n        spec:\n          template:\n'
    printf '            metadata:\n              labels:\n'
    awk -v n="$1" 'BEGIN { for (i = n - 1; i >= 0; i--) printf "                l%d: b\n", i }'
    printf '            spec:\n              containers:\n                - name: node\n                  image: python:3.12\n'
    printf '              volumes:\n'
    awk -v n="$1" 'BEGIN { for (i = n - 1; i >= 0; i--) printf "                - name: v%d\n                  emptyDir: {}\n", i }'
  } >"$2/in.yaml"
}
# 16. `trainer diff FROM TO` of a rendering of N TrainJobs with itself: more values, from the
# largest size on, than one input may hold.
gen_read_back() {
  { runtime_head; node_container
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
      printf "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job-%d\n", i
      printf "spec:\n  runtimeRef:\n    name: plain\n" } }'
  } >"$2/in.yaml"
  "$trainer" render --validate=ignore "$2/in.yaml" >"$2/rendered.yaml"
}
# 17. `trainer diff FROM TO` of an object whose keyed list of N items and map of N keys come in
# reverse order on the other side.
gen_diff_reordered() {
  for side in old new; do
    { printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'
      awk -v n="$1" -v s="$side" 'BEGIN {
        printf "items:\n"
        for (j = 0; j < n; j++) { i = (s == "old" ? j : n - 1 - j); printf "  - name: var-%d\n    value: \"%d\"\n", i, i }
        printf "data:\n"
        for (j = 0; j < n; j++) { i = (s == "old" ? j : n - 1 - j); printf "  key-%d: \"%d\"\n", i, i } }'
    } >"$2/$side.yaml"
  done
}

# ---- rows: name, sizes, expected exit status, command (DIR stands for the inputs' folder) ----
# Sizes double, the largest taking about a second once the row is linear. A row may also bound the
# memory each item adds: the peak RSS's growth from the smallest size to the largest, per item.
declare -A sizes status command kib_per_item
row() { sizes[$1]="$2"; status[$1]="$3"; command[$1]="$4"; }
row runtime_env "12500 25000 50000" 0 "render --validate=ignore DIR/in.yaml"
row merge_volumes "7500 15000 30000" 0 "render --validate=ignore DIR/in.yaml"
row trainjob_env "12500 25000 50000" 0 "render --validate=warn DIR/in.yaml"
row runtime_not_found "500 1000 2000" 2 "render --validate=ignore DIR/in.yaml"
row unified_diff "75000 150000 300000" 1 "diff -o unified DIR/old.yaml DIR/new.yaml"
row test_expected "12500 25000 50000" 0 "test --check DIR/suite"
row flow_brackets "25000 50000 100000" 2 "render DIR/in.yaml"
row flow_items "25000 50000 100000" 2 "render DIR/in.yaml"
row mpi_nodes "40000 80000 160000" 0 "render --validate=ignore DIR/in.yaml"
row symlink_dag "4 8 16" 0 "render --validate=ignore DIR/dag"
row replicated_jobs "4000 8000 16000" 0 "render --validate=ignore DIR/in.yaml"
row diff_legacy "5000 10000 20000" 1 "diff --legacy DIR/in.yaml"
row runtime_ports_mounts "12500 25000 50000" 0 "render --validate=ignore DIR/in.yaml"
row merge_reversed "7500 15000 30000" 0 "render --validate=ignore DIR/in.yaml"
row apply_reversed "7500 15000 30000" 1 "diff --legacy DIR/in.yaml"
row read_back "5000 10000 20000" 0 "diff DIR/rendered.yaml DIR/rendered.yaml"
row diff_reordered "12500 25000 50000" 1 "diff DIR/old.yaml DIR/new.yaml"
kib_per_item[diff_legacy]=6
order=(runtime_env merge_volumes trainjob_env runtime_not_found unified_diff test_expected
       flow_brackets flow_items mpi_nodes symlink_dag replicated_jobs diff_legacy runtime_ports_mounts merge_reversed
       apply_reversed read_back diff_reordered)
((${#rows[@]})) || rows=("${order[@]}")

# grew A B: the factor from A to B.
grew() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }'; }

failed=0
printf '%-18s %8s %10s %10s %10s\n' row size "wall ms" "CPU ms" "RSS MiB"
for name in "${rows[@]}"; do
  [[ -n "${sizes[$name]:-}" ]] || { echo "growth: no row $name" >&2; exit 2; }
  cpu=() rss=() ns=() verdict=""
  for n in ${sizes[$name]}; do
    dir="$work/$name-$n"
    mkdir -p "$dir"
    "gen_$name" "$n" "$dir"
    read -ra args <<<"${command[$name]//DIR/$dir}"
    want=(); [[ ${status[$name]} != 0 ]] && want=("${status[$name]}")
    if out=$("$measure" "$repeat" /dev/null "${want[@]}" -- timeout "$limit" "$trainer" "${args[@]}" 2>"$work/err"); then
      read -r wall kib c <<<"$out"
      printf '%-18s %8d %10.1f %10.1f %10.1f\n' "$name" "$n" "$wall" "$c" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')"
      cpu+=("$c") rss+=("$kib") ns+=("$n")
    else
      printf '%-18s %8d %10s  (failed or over %ss: %s)\n' "$name" "$n" "-" "$limit" "$(head -c 100 "$work/err")"
      verdict="SUPER-LINEAR"
      break
    fi
    rm -rf "$dir"
  done
  if [[ -z $verdict ]]; then
    k=${#cpu[@]}
    t=$(grew "${cpu[k - 2]}" "${cpu[k - 1]}") m=$(grew "${rss[k - 2]}" "${rss[k - 1]}")
    verdict=$(awk -v t="$t" -v m="$m" 'BEGIN { print (t <= 2.5 && m <= 2.5) ? "linear" : "SUPER-LINEAR" }')
    verdict="$verdict (doubling: CPU x$t, RSS x$m)"
    if [[ -n "${kib_per_item[$name]:-}" ]]; then
      per=$(awk -v a="${rss[0]}" -v b="${rss[k - 1]}" -v n="${ns[0]}" -v m="${ns[k - 1]}" 'BEGIN { printf "%.2f", (b - a) / (m - n) }')
      if awk -v p="$per" -v max="${kib_per_item[$name]}" 'BEGIN { exit !(p > max) }'; then
        verdict="TOO MUCH MEMORY ($per KiB per item, at most ${kib_per_item[$name]})"
      else
        verdict="$verdict, $per KiB per item (at most ${kib_per_item[$name]})"
      fi
    fi
  fi
  printf '%-18s %s\n' "$name" "$verdict"
  [[ $verdict == linear* ]] || failed=1
done
exit "$failed"
