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

# Names in reports and diagnostics, in every format: printed as they are when printable, otherwise
# escaped as Go escapes them (Printable in lib/util/quote.h), so that none starts a line, forges
# a GitHub workflow command or reaches the terminal as a control. `printable FILE` checks that FILE
# is UTF-8 with no control character but LF and tab, no NEL, LS or PS, and no line starting
# "::error" (the forged command; these runs report no error of their own).
printable() {
  python3 - "$1" <<'EOF'
import sys
try:
    text = open(sys.argv[1], "rb").read().decode("utf-8")
except UnicodeDecodeError:
    sys.exit(1)
bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029"]
sys.exit(1 if bad or any(line.startswith("::error") for line in text.split("\n")) else 0)
EOF
}
forged='job\n::error file=x::forged\e[31m\a\u2028'  # YAML double-quoted text
shown='job\n::error file=x::forged\x1b[31m\a\u2028'  # as printed

# trainer diff FROM TO reads any name; the files' names hold a line break and a byte that is no UTF-8.
from=$'from\n::error ::x\xff.yaml' to=$'to\n::error ::x\xff.yaml'
meta="kind: ConfigMap
metadata: {name: \"$forged\", namespace: \"ml\\u0085\"}"
printf '%s\nscript: "a\\nb\\e[2J\\nc\\n"\n' "$meta" >"$from"
# (U+202E, a format character, stays raw in the YAML block; U+2028 would make it double-quoted)
printf '%s\nscript: "a\\nB\\e[2J\\nc\\n"\nnotes: "one\\u202etwo\\nthree\\n"\n' "$meta" >"$to"
heading='to\n::error ::x\xff.yaml:1: ConfigMap ml\u0085/'$shown
for format in human brief unified github; do
  "$trainer" diff -o $format "$from" "$to" >diff.$format 2>err
  check "diff -o $format of hostile names reports a difference" test $? = 1 -a ! -s err
  check "diff -o $format prints no raw control, break or forged command" printable diff.$format
done
check "human: the heading" grep -qxF "$heading" diff.human
check "human: each line of the line diff" grep -qxF -e '    -b\x1b[2J' diff.human
check "human: each line of a YAML block" grep -qxF -e '      one\u202etwo' diff.human
check "brief: the heading" grep -qxF "$heading changes 2 fields" diff.brief
check "unified: the header" grep -qxF -- "+++ ConfigMap ml\\u0085/$shown (to\\n::error ::x\\xff.yaml)" diff.unified
check "github: the annotation" grep -qF "::warning file=to\\n%3A%3Aerror %3A%3Ax\\xff.yaml,line=1,title=trainer diff::ConfigMap ml\\u0085/$shown changes" diff.github

# The migration check names the TrainJob in its headings; diagnostics name it as their subject.
input rt ml "$forged" | sed 's/^spec: {runtimeRef: {name: "rt"}}$/spec: {runtimeRef: {name: "rt"}, trainer: {image: app}}/' >job.yaml
for format in human brief unified github; do
  "$trainer" diff --legacy --validate=ignore -o $format job.yaml >legacy.$format 2>err
  check "diff --legacy -o $format of a hostile TrainJob name reports a change" test $? = 1 -a ! -s err
  check "diff --legacy -o $format prints no raw control, break or forged command" printable legacy.$format
done
check "diff --legacy: the heading" grep -qxF "job.yaml:19: TrainJob ml/$shown on rt (ClusterTrainingRuntime) changes now" legacy.human
"$trainer" render job.yaml >out 2>err
check "a hostile TrainJob name fails validation" test $? = 2 -a ! -s out
check "with one diagnostic a line, each naming the TrainJob escaped" test "$(grep -cF "job.yaml:21:12: TrainJob ml/$shown: metadata.name: Invalid value: " err)" = 2 -a "$(wc -l <err)" = 2
check "diagnostics print no raw control, break or forged command" printable err

# trainer test: a case folder whose name holds them and a byte that is no UTF-8, in every format.
case=$'suite/c\n::error file=x::forged\e[31m\a\u2028\xff'
mkdir -p "$case"
input rt ml "$forged" >"$case/input.yaml"
"$trainer" test suite >test.text 2>err
check "trainer test of a hostile folder name fails its case" test $? = 1 -a ! -s err
check "the text report prints no raw control, break or forged command" printable test.text
check "the text report names the case escaped" grep -qxF 'FAIL suite/c\n::error file=x::forged\x1b[31m\a\u2028\xff' test.text
"$trainer" test -o junit suite >test.xml 2>err
check "trainer test -o junit of a hostile folder name fails its case" test $? = 1 -a ! -s err
check "the JUnit report prints no raw control, break or forged command" printable test.xml
python3 -c '
import sys, xml.dom.minidom, xml.etree.ElementTree as ET
want = r"c\n::error file=x::forged\x1b[31m\a\u2028\xff"
names = [t.get("name") for t in ET.parse("test.xml").getroot().iter("testcase")]
dom = [t.getAttribute("name") for t in xml.dom.minidom.parse("test.xml").getElementsByTagName("testcase")]
sys.exit(0 if names == dom == [want] else 1)
'
check "the JUnit report is well-formed XML naming the case escaped" test $? = 0

finish hostile-names
