# bash completion for trainer. It asks the binary for its commands and options, so it never falls
# behind them. Install as /usr/share/bash-completion/completions/trainer.
_trainer() {
  local cur prev words cword
  _init_completion 2>/dev/null || {
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  }
  local command="" i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in -*) ;; *) command=${words[i]}; break ;; esac
  done
  if [[ -z $command ]]; then
    local commands
    commands=$("${words[0]}" --help 2>/dev/null | awk '/^Subcommands:/ {on=1; next} on && NF {print $1}')
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  case $prev in
    -o|--output) COMPREPLY=($(compgen -W "yaml json" -- "$cur")); return ;;
    -n|--namespace|-s|--show-only) return ;;
    --output-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    local options
    options=$("${words[0]}" "$command" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,')
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -X '!*.@(yaml|yml)' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _trainer trainer
