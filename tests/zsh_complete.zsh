#!/usr/bin/env zsh
# Prints, one per line, the candidates that zsh's completion system offers for a command line with
# the cursor at its end: an interactive zsh on a pseudo-terminal (zpty) loads the completion in
# FPATH_DIR with compinit (dumped to $ZSH_COMPDUMP when set), and a wrapper around compadd records
# every candidate a completion function adds. Usage: zsh_complete.zsh FPATH_DIR 'COMMAND LINE'
emulate zsh
zmodload zsh/zpty || exit 77
fpath_dir=${1:A} line=$2
out=$(mktemp) || exit 2

zpty complete zsh -f -i
# Only now: the pseudo-terminal's process is a fork of this shell and would run the trap too.
trap 'rm -f $out; zpty -d complete 2>/dev/null' EXIT
# Set-up, line by line as a user would type it: no prompt, no listing of matches (nothing to page),
# completion from FPATH_DIR, and the recording compadd (calls with -O, -A or -D only filter: they
# pass through).
zpty -w complete "PS1='' PS2='' RPS1=''; unset zle_bracketed_paste; unsetopt auto_list list_beep beep"
dump=(-D)  # compinit's dump file, when ZSH_COMPDUMP names one, saves the next run from reading every function
[[ -n ${ZSH_COMPDUMP:-} ]] && dump=(-d ${(q)ZSH_COMPDUMP})
zpty -w complete "fpath=(${(q)fpath_dir} \$fpath); autoload -Uz compinit; compinit -u $dump"
zpty -w complete "compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi
  local -a __matches
  builtin compadd -A __matches \"\$@\"
  (( \$#__matches )) && print -rl -- \$__matches >> ${(q)out}
  builtin compadd \"\$@\"
}"
# TAB's widget, then a mark on the terminal: the line is wiped only once completion has finished
# (zle may cut a completion short when more input is already waiting).
zpty -w complete "tab-then-mark() { zle expand-or-complete; print -n -- completed-\$((6 * 7)) >/dev/tty; }; zle -N tab-then-mark; bindkey '^I' tab-then-mark"
zpty -w complete "print -- ready-\$((6 * 7))"
zpty -r complete _ '*ready-42*' || exit 2
# The line, a TAB, then wipe the line and leave.
zpty -w -n complete "$line"$'\t'
zpty -r complete _ '*completed-42*' || exit 2
zpty -w complete $'\C-u'"print -- done-\$((6 * 7)); exit"
zpty -r complete _ '*done-42*' || exit 2
sort -u $out
