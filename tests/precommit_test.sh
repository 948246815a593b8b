#!/usr/bin/env bash
# The pre-commit hooks of .pre-commit-hooks.yaml, run by Debian's pre-commit in a scratch git
# repository of TrainJobs, runtimes, other YAML and a golden case: `pre-commit try-repo` for each
# hook, passing and failing, and `pre-commit run` with a .pre-commit-config.yaml like the README's
# (runtimes given with args). Usage: precommit_test.sh TRAINER. Exits 77 without pre-commit or git.
#
# try-repo reads the hooks from a git repository: committed files plus changes to tracked files,
# never untracked ones. Once .pre-commit-hooks.yaml is committed, the hooks come from this checkout
# itself; before that, from a scratch repository holding a copy of it. The config run always uses
# such a scratch repository, as it needs a commit (rev) that holds the working tree's hooks.
set -u
source "$(dirname "$0")/lib.sh"
trainer=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
require pre-commit
require git

# The hooks run the trainer on PATH; pre-commit and git keep to the scratch folder.
mkdir -p "$tmp/bin"
ln -s "$trainer" "$tmp/bin/trainer"
export PATH="$tmp/bin:$PATH" PRE_COMMIT_HOME="$tmp/cache" HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
mkdir -p "$HOME"
git config --global init.defaultBranch main
git config --global protocol.file.allow always

# A repository holding a copy of the working tree's hook manifest, committed.
scratch_hooks=$tmp/hooks
git init -q "$scratch_hooks"
cp "$root/.pre-commit-hooks.yaml" "$scratch_hooks/"
git -C "$scratch_hooks" add .pre-commit-hooks.yaml
git -C "$scratch_hooks" commit -q -m hooks
if git -C "$root" ls-files --error-unmatch .pre-commit-hooks.yaml >/dev/null 2>&1; then
  hooks=$root
else
  hooks=$scratch_hooks
  echo "NOTE: .pre-commit-hooks.yaml is not committed: try-repo reads a committed copy of it instead"
fi

# The project whose files the hooks check.
project=$tmp/project
mkdir -p "$project"/{runtimes,jobs,charts/web/templates,testdata/quick}
cd "$project" || exit 2
git init -q .
cat >runtimes/plain.yaml <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: plain
spec:
  mlPolicy:
    numNodes: 1
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
                      image: registry.example.com/base:1
EOF
cat >runtimes/mpi.yaml <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: mpi
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      numProcPerNode: 2
  template:
    spec:
      replicatedJobs:
        - name: launcher
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: registry.example.com/mpi/launcher:1
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: registry.example.com/mpi/sshd:1
EOF
cat >jobs/good.yaml <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: good
spec:
  runtimeRef:
    name: plain
  trainer:
    image: registry.example.com/team/train:2
    numNodes: 2
EOF
cat >jobs/typo.yaml <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: typo
spec:
  runtimeRef:
    name: plain
  trainer:
    numNode: 2
EOF
# The same typo in JSON, as the Python SDK and `kubectl get -o json` write TrainJobs.
cat >jobs/typo.json <<'EOF'
{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "typo-json"},
 "spec": {"runtimeRef": {"name": "plain"}, "trainer": {"numNode": 2}}}
EOF
cat >jobs/broken.yaml <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: broken
EOF
cat >jobs/mpi.yaml <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: pi
spec:
  runtimeRef:
    name: mpi
  trainer:
    image: registry.example.com/team/pi:3
    numNodes: 2
EOF
# YAML that holds no Trainer object: plain settings, another kind, a Helm template (not YAML).
printf 'replicas: 3\nimage:\n  tag: latest\n' >values.yaml
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: "1"\n' >configmap.yaml
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n' \
  >charts/web/templates/configmap.yaml
cat jobs/good.yaml >testdata/quick/input.yaml
printf -- '---\n' >>testdata/quick/input.yaml
cat runtimes/plain.yaml >>testdata/quick/input.yaml
trainer test testdata >/dev/null  # records the case's expected files
git add -A
git commit -q -m project

# try HOOK EXPECTED_EXIT NAME FILE... : runs HOOK through try-repo on FILEs (--all-files when none).
try() {
  local hook=$1 want=$2 name=$3 rc
  shift 3
  if (($#)); then set -- --files "$@"; else set -- --all-files; fi
  pre-commit try-repo --verbose "$hook_repo" "$hook" "$@" >"$tmp/out" 2>&1
  rc=$?
  check "$hook: $name (exit $rc, want $want)" test "$rc" -eq "$want"
  [[ $rc -eq $want ]] || sed 's/^/  | /' "$tmp/out"
}
output_has() { grep -qF -- "$1" "$tmp/out"; }
hook_repo=$hooks

hook_output() { sed -n '/^- duration:/,$p' "$tmp/out" | tail -n +2; }  # what the hook printed
try trainer-render 0 "a TrainJob with its runtime renders" jobs/good.yaml runtimes/plain.yaml
check "trainer-render: prints nothing when all is well" test -z "$(hook_output)"
try trainer-render 0 "YAML without Trainer objects passes" values.yaml configmap.yaml charts/web/templates/configmap.yaml
check "trainer-render: says nothing about YAML without Trainer objects" test -z "$(hook_output)"
try trainer-render 0 "runtimes alone pass (--allow-empty)" runtimes/plain.yaml runtimes/mpi.yaml
check "trainer-render: says nothing about runtimes alone" test -z "$(hook_output)"
try trainer-render 1 "an unknown field fails" jobs/typo.yaml runtimes/plain.yaml values.yaml
check "trainer-render: names the file, line and field" output_has 'jobs/typo.yaml:9:5: TrainJob default/typo: spec.trainer: unknown field "numNode"'
try trainer-render 1 "a JSON TrainJob is checked too" jobs/typo.json runtimes/plain.yaml
check "trainer-render: names the JSON file, line and field" output_has 'jobs/typo.json:2:56: TrainJob default/typo-json: spec.trainer: unknown field "numNode"'
try trainer-render 1 "a TrainJob whose runtime is not given fails" jobs/good.yaml
check "trainer-render: says which runtime is missing" output_has 'ClusterTrainingRuntime "plain" not found'
try trainer-render 1 "a TrainJob that is not valid YAML fails" jobs/broken.yaml
check "trainer-render: names the broken file" output_has 'jobs/broken.yaml:4:1: malformed YAML'

try trainer-migration-check 0 "an unchanged TrainJob passes" jobs/good.yaml runtimes/plain.yaml values.yaml charts/web/templates/configmap.yaml
try trainer-migration-check 1 "an MPI TrainJob fails: its nodes change image" jobs/mpi.yaml runtimes/mpi.yaml
check "trainer-migration-check: reports the reason" output_has 'MPI nodes now run the TrainJob image'
check "trainer-migration-check: reports old and new image" output_has 'registry.example.com/mpi/sshd:1 → registry.example.com/team/pi:3'
try trainer-migration-check 0 "runtimes and other YAML without a TrainJob pass" runtimes/plain.yaml values.yaml
try trainer-migration-check 1 "a JSON TrainJob is checked too" jobs/typo.json runtimes/plain.yaml
check "trainer-migration-check: names the JSON file, line and field" output_has 'jobs/typo.json:2:56: TrainJob default/typo-json: spec.trainer: unknown field "numNode"'

try trainer-test 0 "recorded golden cases pass (default args: testdata)" testdata/quick/input.yaml
sed -i 's/train:2/train:3/' testdata/quick/input.yaml
try trainer-test 1 "a case that renders differently fails" testdata/quick/input.yaml
check "trainer-test: names the case" output_has 'FAIL testdata/quick'
git checkout -q -- testdata/quick/input.yaml
mkdir testdata/new && cp testdata/quick/input.yaml testdata/new/
try trainer-test 1 "a new case without expected files fails" testdata/new/input.yaml
check "trainer-test: writes nothing" test ! -e testdata/new/current.yaml
rm -rf testdata/new

# As users set it up: a .pre-commit-config.yaml, runtimes from args, the hooks on every commit.
cat >.pre-commit-config.yaml <<EOF
repos:
- repo: $scratch_hooks
  rev: $(git -C "$scratch_hooks" rev-parse HEAD)
  hooks:
  - id: trainer-render
    args: [--runtime, runtimes/]
  - id: trainer-migration-check
    args: [--runtime, runtimes/]
  - id: trainer-test
    args: [testdata/]
EOF
git add .pre-commit-config.yaml
git rm -q jobs/typo.yaml jobs/typo.json jobs/broken.yaml jobs/mpi.yaml
git commit -q -m 'only good jobs'
pre-commit install -q >/dev/null 2>&1 || pre-commit install >/dev/null
printf '    env:\n      - name: EPOCHS\n        value: "3"\n' >>jobs/good.yaml
git add jobs/good.yaml
git commit -q -m 'a TrainJob change, its runtime elsewhere' >"$tmp/out" 2>&1
rc=$?
check "config: a commit whose TrainJob renders with a runtime from args goes through (exit $rc)" test $rc -eq 0
check "config: trainer-render ran and passed" grep -q 'trainer render\.*Passed' "$tmp/out"
printf '    numNode: 2\n' >>jobs/good.yaml
git add jobs/good.yaml
git commit -q -m 'a typo' >"$tmp/out" 2>&1
rc=$?
check "config: a commit with a typo in a TrainJob is refused (exit $rc)" test $rc -ne 0
check "config: trainer-render failed" grep -q 'trainer render\.*Failed' "$tmp/out"
git reset -q --hard HEAD

# The README's snippet as pasted, with its repository URL pointing at this clone: its rev is a
# commit the clone has, and with it the hooks pass a golden case whose input is invalid on purpose
# and a Helm template, and still refuse a broken TrainJob.
readme_config=$(awk '/^## pre-commit/ {on = 1} on && /^```yaml$/ {in_block = 1; next} in_block && /^```$/ {exit} in_block' \
  "$root/README.md")
rev=$(sed -n 's/^ *rev: *//p' <<<"$readme_config")
check "README: the snippet names a rev" test -n "$rev"
if [[ $(git -C "$root" rev-parse --is-shallow-repository 2>/dev/null) == true ]]; then
  skip_note="a shallow clone may lack the README's rev"
  echo "NOTE: $skip_note: its snippet is not run"
else
  check "README: the snippet's rev $rev is a commit of this repository" git -C "$root" rev-parse -q --verify "$rev^{commit}"
  check "README: the hooks at that rev are the hooks of .pre-commit-hooks.yaml" \
    test "$(git -C "$root" show "$rev:.pre-commit-hooks.yaml" | grep '^- id:')" = "$(grep '^- id:' "$root/.pre-commit-hooks.yaml")"
  sed "s|^- repo: .*|- repo: $root|" <<<"$readme_config" >.pre-commit-config.yaml
  mkdir -p tests/golden/quick tests/golden/invalid
  cp testdata/quick/* tests/golden/quick/
  printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: bad}\nspec: {runtimeRef: {name: plain}, trainer: {numNode: 2}}\n' \
    >tests/golden/invalid/input.yaml
  printf 'unknown field "numNode"\n' >tests/golden/invalid/error
  git add .pre-commit-config.yaml tests/golden charts
  git commit -q -m 'the README snippet, a golden case invalid on purpose' >"$tmp/out" 2>&1
  rc=$?
  check "README snippet: golden inputs and Helm templates are left to trainer-test (exit $rc)" test $rc -eq 0
  [[ $rc -eq 0 ]] || sed 's/^/  | /' "$tmp/out"
  printf '    numNode: 2\n' >>jobs/good.yaml
  git add jobs/good.yaml
  git commit -q -m 'a typo' >"$tmp/out" 2>&1
  rc=$?
  check "README snippet: a typo in a TrainJob is refused (exit $rc)" test $rc -ne 0
fi

finish
