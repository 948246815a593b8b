#!/usr/bin/env bash
# Shell completion, run for real: loads completions/ into SHELL (bash, zsh or fish), completes
# command lines and compares the candidates with what `trainer [COMMAND] --help` says at run time:
# the commands, every option of every command and nothing else, the values of every option that
# lists them (-o, --color), and files or directories for file arguments.
# Usage: completion_test.sh SHELL TRAINER. Exits 77 when SHELL is not installed.
set -u
source "$(dirname "$0")/lib.sh"
shell=$1
trainer=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
require "$shell"

# trainer on PATH under its own name, as users run it; a folder with a bit of everything.
mkdir -p "$tmp/bin" "$tmp/work/jobs" "$tmp/work/runtimes"
ln -s "$trainer" "$tmp/bin/trainer"
export PATH="$tmp/bin:$PATH" HOME="$tmp/home"  # fish keeps history and variables under HOME
export ZSH_COMPDUMP="$tmp/zcompdump"
mkdir -p "$HOME"
cd "$tmp/work" || exit 2
touch job.yaml runtime.yml dump.json notes.txt rendered-jobset

# Prints the candidates SHELL offers for LINE (cursor at the end), sorted, directories without
# their trailing slash. A shell that hangs is stopped after a minute.
candidates() {
  local line=$1
  case $shell in
    bash)
      timeout 60 bash --norc --noprofile -c '
        if [[ -r /usr/share/bash-completion/bash_completion ]]; then source /usr/share/bash-completion/bash_completion; fi
        source "$1"
        COMP_LINE=$2 COMP_POINT=${#2}
        # Words as readline splits them: "=" is a word of its own (COMP_WORDBREAKS).
        read -ra COMP_WORDS <<<"${2//=/ = }"
        if [[ $2 == *" " ]]; then COMP_WORDS+=(""); fi
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        # The function that `complete -F` registered for the command, called as readline would.
        spec=$(complete -p "${COMP_WORDS[0]}") || exit 1
        function=${spec#*-F }
        function=${function%% *}
        "$function" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$root/completions/trainer.bash" "$line" ;;
    zsh)
      timeout 60 zsh -f "$root/tests/zsh_complete.zsh" "$root/completions" "$line" ;;
    fish)
      timeout 60 fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$root/completions/trainer.fish" "$line" | cut -f1 ;;
  esac | sed 's:/$::' | grep -v '^$' | sort -u
}

# expect NAME LINE WORD... : the candidates for LINE are exactly WORD... With expect_arguments,
# options do not count (zsh offers them wherever no argument can go).
expect() { compare "$1" "$2" cat "${@:3}"; }
expect_arguments() { compare "$1" "$2" "grep -v ^-" "${@:3}"; }
compare() {
  local name=$1 line=$2 filter=$3 got want
  shift 3
  got=$(candidates "$line" | $filter)
  want=$(printf '%s\n' "$@" | grep -v '^$' | sort -u)
  if [[ $got == "$want" ]]; then
    pass
  else
    fail "$shell: $name: completing '$line'"
    diff <(printf '%s' "${want:+$want$'\n'}") <(printf '%s' "${got:+$got$'\n'}") | sed -n 's/^</  missing:/p; s/^>/  unexpected:/p'
  fi
}

# What --help says: the commands, and each command's options as "NAMES<tab>ARGUMENT" (the option
# field of CLI11's help is 30 columns wide; the description follows or goes to the next line).
commands=$(trainer --help | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF {print $1}')
options() {
  trainer "$@" --help | awk '
    /^Options:/ { on = 1; next }
    /^[^ ]/ { on = 0 }
    on && /^  -/ {
      field = length($0) > 30 && substr($0, 30, 1) == " " ? substr($0, 1, 30) : $0
      split(field, words, " ")
      argument = words[2]
      if (argument == "Excludes:" || argument == "Needs:" || argument == "REQUIRED") argument = ""
      print words[1] "\t" argument
    }'
}
names() { cut -f1 | tr , '\n'; }

[[ -n $commands ]] || { echo "FAIL: trainer --help lists no commands"; exit 1; }
expect "every command" "trainer " $commands
expect "top-level options" "trainer -" $(options | names)
expect "long options of render that start with --o" "trainer render --o" $(options render | names | grep '^--o')

for command in $commands; do
  expect "every option of $command" "trainer $command -" $(options "$command" | names)
  while IFS=$'\t' read -r option_names argument; do
    [[ -n $argument ]] || continue
    for option in $(tr , ' ' <<<"$option_names"); do
      if [[ $argument == *'{'*'}'* ]]; then
        choices=${argument#*\{}
        choices=${choices%%\}*}
        expect "values of $command $option" "trainer $command $option " ${choices//,/ }
        # --output=: the values after '='; fish offers whole words, the option included.
        prefix=
        [[ $shell == fish ]] && prefix=$option=
        [[ $option == --* ]] && expect "values of $command $option=" "trainer $command $option=" \
          $(tr , '\n' <<<"$choices" | sed "s/^/$prefix/")
      elif [[ $option == --ignore ]]; then
        expect "$command $option takes a field path, not a file" "trainer $command $option "
      elif [[ $argument == DIR* ]]; then
        expect "$command $option takes a directory" "trainer $command $option " jobs runtimes
      elif [[ $argument == PATH* ]]; then
        expect "$command $option takes YAML and JSON files and directories" "trainer $command $option " \
          job.yaml runtime.yml dump.json jobs runtimes
      else
        expect "$command $option takes a value that is no file" "trainer $command $option "
      fi
    done
  done < <(options "$command")
done

expect "render reads YAML and JSON files and directories" "trainer render " job.yaml runtime.yml dump.json jobs runtimes
expect "render completes a file name" "trainer render -r runtimes jo" job.yaml jobs
expect "render --output=j completes json" "trainer render job.yaml --output=j" "$([[ $shell == fish ]] && echo --output=)json"
expect "the value of an option before the last word does not count" "trainer render -o json " \
  job.yaml runtime.yml dump.json jobs runtimes
expect "diff reads any file (kubectl diff's have no extension)" "trainer diff " \
  job.yaml runtime.yml dump.json notes.txt rendered-jobset jobs runtimes
expect "test reads case folders" "trainer test " jobs runtimes
expect "diff --legacy can let an input without TrainJobs pass" "trainer diff --legacy --a" --allow-empty
expect "diff can be quiet" "trainer diff --q" --quiet
expect "test can be quiet" "trainer test --q" --quiet
expect "diff --legacy sums up or probes runtimes" "trainer diff --legacy --ru" --runtime --runtimes-only
expect "diff --legacy can print the summary alone" "trainer diff --legacy --su" --summary
expect_arguments "plugins takes no file" "trainer plugins "

finish "$shell"
