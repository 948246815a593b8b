#!/usr/bin/env bash
# trainer's benchmark, run by hand (not by ctest): renders N generated TrainJobs (mixed frameworks
# over the upstream runtimes, runtime patches, gang scheduling) and measures, side by side in one
# run, alternating the two programs of each comparison and taking medians:
#   - CPU time of `trainer render` against yaml-cpp's event parse of the same files
#     (bench/parse_floor, one thread, linked to the same shared libraries): at most 2x;
#   - peak memory less the bytes of standard output, at N = 10000 against N = 1000: at most 3x;
#   - a one-job render's cold start against starting /bin/true: at most 4x.
#
#   bench/run.sh [--build DIR] [--repeat R] [N...]     (default: N = 100 1000 10000, R = 7)
#   bench/run.sh --generate N DIR                      (writes the inputs of size N to DIR, for
#                                                       profiling: DIR/jobs.yaml, DIR/runtimes/)
#
# Needs the upstream runtimes in ../shared/upstream/manifests/base/runtimes (exits 77 without).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
repeat=7
sizes=()
generate_to=""
while (($#)); do
  case "$1" in
    --generate) sizes=("$2"); generate_to="$3"; shift 3 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
((${#sizes[@]})) || sizes=(100 1000 10000)
runtimes="$root/../shared/upstream/manifests/base/runtimes"
if [[ ! -d "$runtimes" ]]; then
  echo "SKIP: $runtimes is absent; the benchmark renders TrainJobs against the upstream runtimes"
  exit 77
fi
trainer="$build/trainer"
floor="$build/bench/parse_floor"
measure="$build/bench/measure"
for tool in "$trainer" "$floor" "$measure"; do
  [[ -x "$tool" ]] || { echo "bench: $tool is not built" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A runtime of our own with gang scheduling (the upstream ones have no podGroupPolicy).
gang=0
if "$trainer" plugins | grep -q Coscheduling; then
  gang=1
  cat > "$work/gang-runtime.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: bench-torch-gang
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  podGroupPolicy:
    coscheduling:
      scheduleTimeoutSeconds: 120
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
                      image: pytorch/pytorch:2.5.0
                      resources:
                        requests:
                          cpu: "4"
                          memory: 16Gi
YAML
fi

# generate N FILE: N TrainJobs cycling through the frameworks; every third one carries a runtime
# patch.
generate() {
  local n="$1" file="$2" i runtime
  local kinds=(torch-distributed deepspeed-distributed jax-distributed xgboost-distributed mlx-distributed)
  ((gang)) && kinds+=(bench-torch-gang)
  {
    for ((i = 0; i < n; i++)); do
      runtime="${kinds[i % ${#kinds[@]}]}"
      printf -- '---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job-%d\n  namespace: team-%d\n' "$i" $((i % 7))
      printf 'spec:\n  runtimeRef:\n    name: %s\n  trainer:\n    image: registry.example.com/team/train:%d\n' "$runtime" $((i % 13))
      printf '    numNodes: %d\n    command: ["python3", "train.py", "--epochs", "%d"]\n' $((1 + i % 4)) $((i % 50))
      printf '    env:\n      - name: RUN_ID\n        value: "%d"\n      - name: LOG_LEVEL\n        value: info\n' "$i"
      printf '    resourcesPerNode:\n      requests:\n        cpu: "%d"\n        memory: %dGi\n' $((2 + i % 6)) $((4 + i % 28))
      if ((i % 3 == 0)); then
        printf '  runtimePatches:\n    - manager: platform.example.com/placement\n      trainingRuntimeSpec:\n        template:\n'
        printf '          metadata:\n            labels:\n              cost-center: c%d\n' $((i % 11))
        printf '          spec:\n            replicatedJobs:\n              - name: node\n                template:\n                  spec:\n'
        printf '                    template:\n                      spec:\n                        nodeSelector:\n                          pool: p%d\n' $((i % 5))
        printf '                        tolerations:\n                          - key: dedicated\n                            operator: Equal\n'
        printf '                            value: training\n                            effect: NoSchedule\n'
      fi
    done
  } > "$file"
}

runtime_args=(-r "$runtimes")
# The floor parses what the render reads: `-r DIR` reads DIR's YAML files recursively (torchtune/,
# data-cache/ too).
mapfile -t floor_inputs < <(find "$runtimes" -type f \( -name '*.yaml' -o -name '*.yml' \) | LC_ALL=C sort)
if ((gang)); then
  runtime_args+=(-r "$work/gang-runtime.yaml")
  floor_inputs+=("$work/gang-runtime.yaml")
fi

if [[ -n "$generate_to" ]]; then
  mkdir -p "$generate_to/runtimes"
  cp "${floor_inputs[@]}" "$generate_to/runtimes/"
  generate "${sizes[0]}" "$generate_to/jobs.yaml"
  exit 0
fi

# median FILE: the median of the numbers in FILE, one a line.
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# verdict VALUE LIMIT: "ok" when VALUE <= LIMIT, else "MISSED".
verdict() { awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "ok" : "MISSED" }'; }
# unsteady NAME FILE: a warning when the times in FILE spread by more than a third, as when a
# virtual machine changes speed in the middle of a run (the medians may then compare a slow run
# with a fast one).
unsteady() {
  sort -g "$2" | awk -v name="$1" '{ v[NR] = $1 } END {
    if (v[NR] > 1.33 * v[1]) printf "         unsteady: %s took %.1f to %.1f ms; run again\n", name, v[1], v[NR] }'
}

printf '%8s %10s %14s %14s %9s %8s %16s\n' N "input KiB" "parse CPU ms" "render CPU ms" "CPU ratio" "" "RSS-out MiB"
declare -A net_kib
for n in "${sizes[@]}"; do
  jobs="$work/jobs-$n.yaml"
  generate "$n" "$jobs"
  : >"$work/floor" ; : >"$work/render" ; : >"$work/net"
  for ((r = 0; r < repeat; r++)); do
    read -r _ _ fc < <("$measure" 1 /dev/null -- "$floor" "${floor_inputs[@]}" "$jobs")
    read -r _ k rc < <("$measure" 1 "$work/out.yaml" -- "$trainer" render "${runtime_args[@]}" "$jobs")
    echo "$fc" >>"$work/floor"
    echo "$rc" >>"$work/render"
    echo $((k - $(stat -c %s "$work/out.yaml") / 1024)) >>"$work/net"
  done
  f=$(median "$work/floor") t=$(median "$work/render") net_kib[$n]=$(median "$work/net")
  ratio=$(awk -v f="$f" -v t="$t" 'BEGIN { printf "%.2f", t / f }')
  printf '%8d %10d %14.1f %14.1f %9s %8s %16.1f\n' "$n" $(($(stat -c %s "$jobs") / 1024)) "$f" "$t" "$ratio" \
    "$(verdict "$ratio" 2)" "$(awk -v k="${net_kib[$n]}" 'BEGIN { print k / 1024 }')"
  unsteady "the floor" "$work/floor"
  unsteady "the render" "$work/render"
done
if [[ -n "${net_kib[1000]:-}" && -n "${net_kib[10000]:-}" ]]; then
  growth=$(awk -v a="${net_kib[1000]}" -v b="${net_kib[10000]}" 'BEGIN { printf "%.2f", b / a }')
  printf 'memory less output, N = 10000 / N = 1000: %s (%s, at most 3)\n' "$growth" "$(verdict "$growth" 3)"
fi

# Cold start: one Torch job and its runtime, the whole process, against /bin/true.
generate 1 "$work/one.yaml"
: >"$work/cold" ; : >"$work/true"
for ((r = 0; r < repeat * 4; r++)); do
  read -r c _ < <("$measure" 1 /dev/null -- "$trainer" render -r "$runtimes/torch_distributed.yaml" "$work/one.yaml")
  read -r b _ < <("$measure" 1 /dev/null -- /bin/true)
  echo "$c" >>"$work/cold"
  echo "$b" >>"$work/true"
done
cold=$(median "$work/cold") spawn=$(median "$work/true")
ratio=$(awk -v c="$cold" -v b="$spawn" 'BEGIN { printf "%.2f", c / b }')
printf 'cold start, one job: %.2f ms, /bin/true %.2f ms: %s (%s, at most 4)\n' "$cold" "$spawn" "$ratio" "$(verdict "$ratio" 4)"
