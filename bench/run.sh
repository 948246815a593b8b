#!/usr/bin/env bash
# trainer's benchmark: renders N generated TrainJobs (mixed frameworks over the upstream runtimes,
# runtime patches, gang scheduling) and compares the time with yaml-cpp's bare parse of the same
# files (bench/parse_floor), side by side in one run. Also: single-job cold start, and an MPI job
# at 1,000 and 10,000 nodes (cost must be linear in numNodes).
#
#   bench/run.sh [--build DIR] [--repeat R] [N...]     (default: N = 100 1000 10000, R = 5)
#   bench/run.sh --smoke                               (CI: N = 20, R = 1, checks it all runs)
#   bench/run.sh --generate N DIR                      (writes the inputs of size N to DIR, for
#                                                       profiling: DIR/jobs.yaml, DIR/runtimes/)
#
# Needs the upstream runtimes in ../shared/upstream/manifests/base/runtimes (exits 77 without).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
repeat=5
sizes=()
smoke=0
generate_to=""
while (($#)); do
  case "$1" in
    --generate) sizes=("$2"); generate_to="$3"; shift 3 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --smoke) smoke=1; repeat=1; shift ;;
    *) sizes+=("$1"); shift ;;
  esac
done
if ((${#sizes[@]} == 0)); then
  if ((smoke)); then sizes=(20); else sizes=(100 1000 10000); fi
fi
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
  local n="$1" file="$2" i kind runtime
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

# ratio: wall-clock time, render / parse; "CPU ratio" is the same in CPU time.
printf '%8s %10s %12s %12s %7s %10s %9s %10s\n' N "input KiB" "parse ms" "render ms" ratio "jobs/s" "RSS MiB" "CPU ratio"
for n in "${sizes[@]}"; do
  jobs="$work/jobs-$n.yaml"
  generate "$n" "$jobs"
  # The floor and the render take turns, so that both see the machine's load alike; the fastest
  # run of each counts.
  floor_ms="" render_ms="" floor_cpu="" render_cpu="" rss_kib=0
  least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
  for ((r = 0; r < repeat; r++)); do
    read -r f _ fc < <("$measure" 1 /dev/null -- "$floor" "${floor_inputs[@]}" "$jobs")
    read -r t k tc < <("$measure" 1 "$work/out.yaml" -- "$trainer" render "${runtime_args[@]}" "$jobs")
    floor_ms=$(least "$floor_ms" "$f") render_ms=$(least "$render_ms" "$t")
    floor_cpu=$(least "$floor_cpu" "$fc") render_cpu=$(least "$render_cpu" "$tc")
    ((k > rss_kib)) && rss_kib=$k
  done
  awk -v n="$n" -v kib="$(($(stat -c %s "$jobs") / 1024))" -v f="$floor_ms" -v r="$render_ms" -v rss="$rss_kib" \
    -v fc="$floor_cpu" -v rc="$render_cpu" \
    'BEGIN { printf "%8d %10d %12.1f %12.1f %7.2f %10.0f %9.1f %10.2f\n", n, kib, f, r, r / f, n / (r / 1000), rss / 1024, rc / fc }'
done

# Cold start: one Torch job and its runtime, the whole process.
generate 1 "$work/one.yaml"
read -r cold_ms cold_rss _ < <("$measure" $((repeat * 4)) /dev/null -- "$trainer" render -r "$runtimes/torch_distributed.yaml" "$work/one.yaml")
# What starting any process costs on this machine, for scale: /bin/true through the same harness.
read -r spawn_ms _ < <("$measure" $((repeat * 4)) /dev/null -- /bin/true)
printf 'cold start, one job: %.2f ms, %.1f MiB (starting /bin/true: %.2f ms)\n' "$cold_ms" \
  "$(awk -v k="$cold_rss" 'BEGIN { print k / 1024 }')" "$spawn_ms"

# An input error: the same job with a string for numNodes, which fails with exit code 2 (the
# first exception a process throws must not cost more than the rest of its run).
sed 's/^    numNodes: [0-9]*/    numNodes: "two"/' "$work/one.yaml" > "$work/bad.yaml"
grep -q 'numNodes: "two"' "$work/bad.yaml" || { echo "run.sh: no numNodes in the generated job" >&2; exit 2; }
read -r bad_ms _ < <("$measure" $((repeat * 4)) /dev/null 2 -- "$trainer" render -r "$runtimes/torch_distributed.yaml" "$work/bad.yaml")
printf 'cold start, an input error: %.2f ms\n' "$bad_ms"

# numNodes: an MPI job's hostfile has a line per node.
for nodes in 1000 10000; do
  ((smoke)) && nodes=$((nodes / 100))
  sed "s/numNodes: 1$/numNodes: $nodes/; s/^    numNodes: [0-9]*/    numNodes: $nodes/" "$work/one.yaml" |
    sed 's/torch-distributed/deepspeed-distributed/' > "$work/mpi-$nodes.yaml"
  read -r mpi_ms _ < <("$measure" "$repeat" "$work/out.yaml" -- "$trainer" render -r "$runtimes/deepspeed_distributed.yaml" "$work/mpi-$nodes.yaml")
  printf 'MPI job, numNodes %d: %.2f ms\n' "$nodes" "$mpi_ms"
done
