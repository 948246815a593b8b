#!/usr/bin/env bash
# Names, namespaces and file names that try to forge the output: under --validate=ignore the YAML
# stream must read back, with PyYAML, to exactly the objects rendered (the same as `-o json`), one
# document per object; --output-dir must refuse names that are no DNS names, under every mode,
# and write every file it writes directly in its directory. The inputs are generated here.
#
#   tests/hostile_names_test.sh TRAINER
set -uo pipefail
source "$(dirname "$0")/lib.sh"

trainer=$(realpath "$1")
python3 -c 'import yaml' 2>/dev/null || skip "PyYAML is not installed (apt-get install python3-yaml)"
template=$(<"$(dirname "$0")/hostile_names.yaml.in")
cd "$tmp" || exit 1

# The template ($template) with $1 as the runtime's name, $2 as the TrainJob's namespace and $3
# as its name (YAML double-quoted text).
input() {
  local text=${template//RUNTIME_NAME/"$1"}
  text=${text//NAMESPACE/"$2"}
  printf '%s\n' "${text//JOB_NAME/"$3"}"
}

# The forged Secret of the namespace, a runtime name with line and paragraph separators, NEL and a
# backslash, a TrainJob name with CR LF and controls, in a file whose name holds a line break, a
# document marker and a byte that is no UTF-8.
hostile=$'in\n---\nkind: Secret\n\xff\\.yaml'
input 'rt\n---\nkind: Secret\L\P\N\\' 'ml\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: forged}\r\n# \x7f\_' \
  'job\r\n- x\u2029\t\x01' >"$hostile"
"$trainer" render --validate=ignore "$hostile" >stream.yaml 2>err
check "hostile names render under --validate=ignore" test $? = 0 -a ! -s err
"$trainer" render --validate=ignore -o json "$hostile" >list.json
# The YAML documents, as PyYAML reads the bytes, are the JSON List's items; every comment is one line.
python3 -c '
import json, sys, yaml
with open("stream.yaml", "rb") as f:
    documents = list(yaml.safe_load_all(f))
with open("list.json") as f:
    items = json.load(f)["items"]
with open("stream.yaml", "rb") as f:
    comments = [line for line in f if line.startswith(b"#")]
sys.exit(0 if documents == items and len(items) == 3 and len(comments) == 3 else 1)
'
check "PyYAML reads the stream back to exactly the rendered objects" test $? = 0
grep -q '^# Source: in\\n---\\nkind: Secret\\n\\xff\\\\.yaml: TrainJob ml\\n---\\napiVersion: v1\\nkind: Secret' stream.yaml
check "the Source comment escapes the file name and the namespace" test $? = 0

# --output-dir: a namespace, a name or a -n that is no DNS name fails under every mode, before
# anything is written, with the API server's message.
label_message="a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
input rt '../../escape' job >up.yaml
input rt ml '..' >dots.yaml
input rt '' job >default.yaml
for mode in ignore warn strict; do
  mkdir -p "$mode"
  "$trainer" render --validate=$mode --output-dir "$mode/out" up.yaml >out 2>err
  check "$mode: a namespace ../../escape is refused" test $? = 2 -a ! -s out
  check "$mode: with the API server's message" grep -qF "up.yaml:21:25: TrainJob ../../escape/job: metadata.namespace: Invalid value: \"../../escape\": $label_message" err
  "$trainer" render --validate=$mode --output-dir "$mode/out" dots.yaml >out 2>err
  check "$mode: a name .. is refused" test $? = 2 -a ! -s out
  "$trainer" render --validate=$mode --output-dir "$mode/out" -n ../x default.yaml >out 2>err
  check "$mode: -n ../x is refused" test $? = 2 -a ! -s out
  check "$mode: with the API server's message" grep -qFx "trainer: error: --namespace: Invalid value: \"../x\": $label_message" err
  check "$mode: nothing is written" test -z "$(find . -newer up.yaml -path '*escape*' -o -newer up.yaml -path "./$mode/*")"
done

# Every file --output-dir writes is a plain name directly in the directory.
input rt ml-team job >good.yaml
"$trainer" render --output-dir dir good.yaml
check "--output-dir renders" test $? = 0
check "three files, all directly in the directory" test "$(find dir -mindepth 1 -maxdepth 1 -type f -name '*.yaml' | wc -l)" = 3 -a \
  "$(find dir -mindepth 1 | wc -l)" = 3

finish hostile-names
