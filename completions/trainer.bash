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
    -o|--output)
      # The allowed values, as the command's --help lists them: FORMAT:{a,b,c}
      local formats
      formats=$("${words[0]}" "$command" --help 2>/dev/null | grep -oE -- '--output [A-Z]+:\{[^}]*\}' | sed 's/.*{//; s/}//; s/,/ /g')
      COMPREPLY=($(compgen -W "$formats" -- "$cur"))
      return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    -n|--namespace|-s|--show-only|--ignore|-C|--context) return ;;
    --output-dir|--flux-templates) COMPREPLY=($(compgen -d -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    local options
    options=$("${words[0]}" "$command" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,')
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  case $command in
    diff) COMPREPLY=($(compgen -f -- "$cur")) ;;  # kubectl's rendered files have no extension
    test) COMPREPLY=($(compgen -d -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -X '!*.@(yaml|yml)' -- "$cur") $(compgen -d -- "$cur")) ;;
  esac
}
complete -F _trainer trainer
