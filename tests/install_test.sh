#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the binary, the man page, the three shell completions in
# the places their shells look, bin/kubectl-trainer, a relative link that survives moving the
# prefix, and bin/kubectl_complete-trainer, which completes `kubectl trainer`; then kubectl runs it as its plugin `kubectl trainer`, for real. The version comes from
# CMake's project(). Usage: install_test.sh BUILD_DIR. Exits 77 when kubectl is absent (after the
# install checks).
set -u
source "$(dirname "$0")/lib.sh"
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1
rc=$?
check "cmake --install succeeds (exit $rc)" test "$rc" -eq 0
[[ $rc -eq 0 ]] || sed 's/^/  | /' "$tmp/install.log"

check "bin/trainer is executable" test -x "$prefix/bin/trainer"
check "bin/trainer is stripped of its debug information and symbols" \
  test -z "$(readelf -S --wide "$prefix/bin/trainer" | grep -E ' \.(debug_[a-z]+|symtab) ')"
for pair in man/trainer.1:share/man/man1/trainer.1 \
  completions/trainer.bash:share/bash-completion/completions/trainer \
  completions/_trainer:share/zsh/site-functions/_trainer \
  completions/trainer.fish:share/fish/vendor_completions.d/trainer.fish; do
  check "${pair#*:} is ${pair%%:*}" cmp -s "$root/${pair%%:*}" "$prefix/${pair#*:}"
done
check "bin/kubectl-trainer is a relative link to trainer" test "$(readlink "$prefix/bin/kubectl-trainer")" = trainer
check "the install manifest lists bin/kubectl-trainer" grep -qx "$prefix/bin/kubectl-trainer" "$build/install_manifest.txt"
check "bin/kubectl_complete-trainer is executable" test -x "$prefix/bin/kubectl_complete-trainer"
# kubectl runs it with the words after `trainer`, the last being completed, and reads candidates and
# then cobra's directive (:4 no file names, :0 the shell's file names). PATH holds no trainer here.
complete() { PATH=/usr/bin:/bin "$prefix/bin/kubectl_complete-trainer" "$@" | tr '\n' ' '; }
check "kubectl trainer <TAB> completes the commands" test "$(complete '')" = "render diff plugins test version :4 "
check "kubectl trainer ren<TAB> completes render" test "$(complete ren)" = "render :4 "
check "kubectl trainer render --out<TAB> completes its options" test "$(complete render --out)" = "--output --output-dir :4 "
check "kubectl trainer diff --legacy --ru<TAB> completes its options" \
  test "$(complete diff --legacy --ru)" = "--runtime --runtimes-only :4 "
check "kubectl trainer render jo<TAB> leaves file names to the shell" test "$(complete render jo)" = ":0 "
check "kubectl trainer render -o <TAB> completes the formats" test "$(complete render -o '')" = "yaml json name :4 "
check "kubectl trainer render --output j<TAB> completes json" test "$(complete render jobs.yaml --output j)" = "json :4 "
check "kubectl trainer diff --color <TAB> completes when" test "$(complete diff --color '')" = "auto always never :4 "
# --output=j: the values alone, as cobra prints them (the shell keeps "--output=").
check "kubectl trainer render --output=<TAB> completes the formats" test "$(complete render --output=)" = "yaml json name :4 "
check "kubectl trainer render --output=j<TAB> completes json" test "$(complete render jobs.yaml --output=j)" = "json :4 "
check "kubectl trainer diff --color=<TAB> completes when" test "$(complete diff --color=)" = "auto always never :4 "
check "kubectl trainer render --output-dir=<TAB> completes directories" test "$(complete render --output-dir=)" = ":16 "
check "kubectl trainer diff --ignore=<TAB> completes no file name" test "$(complete diff --ignore=)" = ":4 "
check "kubectl trainer render --quiet=<TAB> completes nothing" test "$(complete render --quiet=)" = ":4 "
check "kubectl trainer render -r <TAB> leaves file names to the shell" test "$(complete render -r '')" = ":0 "
check "kubectl trainer render --output-dir <TAB> completes directories" test "$(complete render --output-dir '')" = ":16 "
check "kubectl trainer diff --ignore <TAB> completes no file name" test "$(complete diff --ignore '')" = ":4 "
check "kubectl trainer render -n <TAB> completes no file name" test "$(complete render -n '')" = ":4 "
check "kubectl trainer render --legacy <TAB> leaves file names to the shell" test "$(complete render --legacy '')" = ":0 "

version=$(sed -n 's/^project(trainer VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
check "CMakeLists.txt sets a project() VERSION" test -n "$version"
check "trainer version prints the project() version" test "$("$prefix/bin/trainer" version | head -n 1)" = "trainer $version"
check "trainer --version prints the project() version" test "$("$prefix/bin/trainer" --version)" = "trainer $version"

mv "$prefix" "$tmp/moved"
prefix=$tmp/moved
check "kubectl-trainer still runs after the prefix moved" test "$("$prefix/bin/kubectl-trainer" --version)" = "trainer $version"
check "as kubectl-trainer, usage says kubectl trainer" grep -q '^Usage: kubectl trainer \[OPTIONS\] SUBCOMMAND' \
  <<<"$("$prefix/bin/kubectl-trainer" --help)"
check "as kubectl-trainer, a command's usage says kubectl trainer render" \
  grep -q '^Usage: kubectl trainer render ' <<<"$("$prefix/bin/kubectl-trainer" render --help)"
check "as kubectl-trainer, a command's errors point to kubectl trainer render --help" \
  grep -q "Run 'kubectl trainer render --help'" <<<"$("$prefix/bin/kubectl-trainer" render --no-such-option 2>&1)"
check "as kubectl-trainer, an unknown command points to kubectl trainer --help" \
  grep -q "Run 'kubectl trainer --help'" <<<"$("$prefix/bin/kubectl-trainer" rendr 2>&1)"

if ! command -v kubectl >/dev/null; then
  counts
  [[ $failed -eq 0 ]] || exit 1
  skip "kubectl is not installed: kubectl trainer not run"
fi
# kubectl finds plugins on PATH; it needs no cluster for them.
export PATH="$prefix/bin:$PATH" KUBECONFIG="$tmp/no-kubeconfig" HOME="$tmp/home"
cd "$root" || exit 2
kubectl trainer render examples/quickstart.yaml >"$tmp/kubectl.out" 2>"$tmp/kubectl.err"
rc=$?
check "kubectl trainer render succeeds (exit $rc)" test "$rc" -eq 0
[[ $rc -eq 0 ]] || sed 's/^/  | /' "$tmp/kubectl.err"
"$prefix/bin/trainer" render examples/quickstart.yaml >"$tmp/trainer.out"
check "kubectl trainer render prints what trainer render prints" cmp -s "$tmp/kubectl.out" "$tmp/trainer.out"
check "kubectl trainer render prints the JobSet" grep -q '^kind: JobSet$' "$tmp/kubectl.out"
kubectl trainer render tests/cases/render-unknown-field/input.yaml >/dev/null 2>&1
rc=$?
check "kubectl trainer passes the exit status through (exit $rc, want 2)" test "$rc" -eq 2
check "kubectl trainer --help says kubectl trainer" grep -q '^Usage: kubectl trainer ' <<<"$(kubectl trainer --help)"
check "kubectl completes kubectl trainer render -o <TAB> with the formats" \
  test "$(kubectl __complete trainer render -o '' 2>/dev/null | tr '\n' ' ')" = "yaml json name :4 "
check "kubectl plugin list finds kubectl-trainer" grep -q "$prefix/bin/kubectl-trainer" <<<"$(kubectl plugin list 2>/dev/null)"

finish
