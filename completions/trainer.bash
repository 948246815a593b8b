# bash completion for trainer. It reads the commands, options and option values from the binary's
# --help, so it never falls behind them. Install as share/bash-completion/completions/trainer.

# The options that `PROGRAM [COMMAND] --help` lists, one line each: NAMES<tab>ARGUMENT. CLI11 writes
# each option as "  -o,--output FORMAT:{yaml,json}=yaml" in a 30-column field, the description after
# it or, when the field is full, on the next line.
_trainer_options() {
  "$@" --help 2>/dev/null | awk '
    /^Options:/ { on = 1; next }
    /^[^ ]/ { on = 0 }
    on && /^  -/ {
      field = length($0) > 30 && substr($0, 30, 1) == " " ? substr($0, 1, 30) : $0
      n = split(field, words, " ")
      argument = words[2]
      if (argument == "Excludes:" || argument == "Needs:" || argument == "REQUIRED") argument = ""
      print words[1] "\t" argument
    }'
}

# Files named *.yaml, *.yml or *.json, and directories; any file (all); directories (dirs).
_trainer_files() {
  compopt -o filenames 2>/dev/null
  case $1 in
    yaml) COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -f -X '!*.yml' -- "$cur") $(compgen -f -X '!*.json' -- "$cur")
          $(compgen -d -- "$cur")) ;;
    all) COMPREPLY=($(compgen -f -- "$cur")) ;;
    dirs) COMPREPLY=($(compgen -d -- "$cur")) ;;
  esac
}

_trainer() {
  local cur prev words cword split
  # -s: in --output=j, prev is --output and cur is j, as readline completes the text after '='.
  _init_completion -s 2>/dev/null || {
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    if [[ $cur == = ]]; then
      cur=""
    elif [[ $prev == = ]]; then
      prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
  }
  local program=${words[0]/#\~/$HOME} command="" i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in -*) ;; *) command=${words[i]}; break ;; esac
  done
  local names argument option
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$(_trainer_options "$program" | cut -f1 | tr , ' ')" -- "$cur"))
    else
      # "  render                      Print every object ..." under Subcommands:
      COMPREPLY=($(compgen -W "$("$program" --help 2>/dev/null | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF {print $1}')" -- "$cur"))
    fi
    return
  fi
  # The value of the option before the cursor.
  if [[ $prev == -* && $cword -gt 1 ]]; then
    while IFS=$'\t' read -r names argument; do
      [[ ,$names, == *,"$prev",* ]] || continue
      [[ -n $argument ]] || break  # a flag
      if [[ $argument == *'{'*'}'* ]]; then
        option=${argument#*\{}
        option=${option%%\}*}
        COMPREPLY=($(compgen -W "${option//,/ }" -- "$cur"))
      elif [[ $prev == --ignore ]]; then
        :  # a field path, not a file
      elif [[ $argument == DIR* ]]; then
        _trainer_files dirs
      elif [[ $argument == PATH* ]]; then
        _trainer_files yaml
      fi
      return
    done < <(_trainer_options "$program" "$command")
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_trainer_options "$program" "$command" | cut -f1 | tr , ' ')" -- "$cur"))
    return
  fi
  case $command in
    render) _trainer_files yaml ;;
    diff) _trainer_files all ;;  # kubectl diff's files have no extension
    test) _trainer_files dirs ;;
  esac
}
complete -F _trainer trainer kubectl-trainer
