#!/usr/bin/env bash
# The man page, man/trainer.1. Usage: man_test.sh MODE TRAINER
#   options: it documents what `trainer [COMMAND] --help` says at run time, and nothing else: every
#            command has an entry under COMMANDS and every entry is a command; every option of every
#            command has a tagged paragraph (.TP) and every option tagged there exists; its title
#            line carries the binary's version; the sections a user looks for are there.
#   render:  groff -ww formats it without a warning, and man -l renders it (exit 77 without them).
set -u
source "$(dirname "$0")/lib.sh"
mode=$1 trainer=$2
cd "$(dirname "$0")/.." || exit 2
page=man/trainer.1

case $mode in
  options)
    commands=$("$trainer" --help | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF {print $1}')
    # Option names as --help lists them: the first word of each line under Options:.
    help_options() {
      "$trainer" "$@" --help | awk '/^Options:/ {on = 1; next} /^[^ ]/ {on = 0} on && /^  -/ {print $1}' | tr , '\n'
    }
    # The page without font escapes, "\-" as "-": each .TP tag line, and the COMMANDS entries.
    plain() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\(..//g' "$page"; }
    tags=$(plain | awk 'previous == ".TP" {print} {previous = $1}')
    documented_options=$(grep -oE -- '(^|[ "])--?[A-Za-z][A-Za-z-]*' <<<"$tags" | tr -d ' "' | sort -u)
    documented_commands=$(plain | awk '/^\.SH/ {on = ($2 == "COMMANDS")} on && previous == ".TP" && $2 !~ /^-/ {print $2}
                                       {previous = $1}' | sort -u)

    [[ -n $commands ]] || { echo "FAIL: trainer --help lists no commands"; exit 1; }
    check "COMMANDS has an entry for each command and nothing else" \
      test "$(sort -u <<<"$commands")" = "$documented_commands"
    [[ "$(sort -u <<<"$commands")" == "$documented_commands" ]] ||
      diff <(sort -u <<<"$commands") <(echo "$documented_commands") | sed -n 's/^</  undocumented:/p; s/^>/  not a command:/p'
    all_options=$(help_options | sort -u)
    for option in $(help_options); do
      check "the man page documents trainer $option" grep -qxF -- "$option" <<<"$documented_options"
    done
    for command in $commands; do
      for option in $(help_options "$command"); do
        check "the man page documents trainer $command $option" grep -qxF -- "$option" <<<"$documented_options"
      done
      all_options+=$'\n'$(help_options "$command")
    done
    for option in $documented_options; do
      check "the man page's $option is an option of trainer" grep -qxF -- "$option" <<<"$all_options"
    done

    version=$("$trainer" --version | awk '{print $2}')
    check "the title line carries version $version" grep -qE "^\.TH TRAINER 1 .* \"trainer $version\"" "$page"
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES \
      "THE IMAGE BEHAVIOUR CHANGE" "WHAT OFFLINE RENDERING CANNOT KNOW" "SEE ALSO"; do
      check "section $section" grep -qxF ".SH $section" "$page"
    done
    for variable in NO_COLOR TRAINER_UPDATE_GOLDEN TRAINER_PLUGIN_ORDER; do
      check "ENVIRONMENT names $variable" grep -qxF ".B $variable" "$page"
    done ;;

  render)
    require groff
    require man man-db
    warnings=$(groff -man -ww -z "$page" 2>&1)
    check "groff -ww formats the page without warnings" test -z "$warnings"
    [[ -z $warnings ]] || echo "$warnings" | sed 's/^/  /'
    # man as a user runs it, on an 80-column terminal, with groff's warnings on.
    MANWIDTH=80 man --warnings -l "$page" >"$tmp/man" 2>"$tmp/man-err"
    rc=$?
    text=$(cat "$tmp/man")
    warnings=$(cat "$tmp/man-err")
    check "man -l renders the page (exit $rc)" test "$rc" -eq 0
    check "man -l prints no warnings" test -z "$warnings"
    [[ -z $warnings ]] || echo "$warnings" | sed 's/^/  /'
    check "the rendered page has its sections" grep -q '^WHAT OFFLINE RENDERING CANNOT KNOW' <<<"$text"
    check "the rendered page has no unexpanded requests" test -z "$(grep -E '^\.[A-Z]' <<<"$text")" ;;

  *) echo "usage: man_test.sh options|render TRAINER" >&2; exit 2 ;;
esac

finish
