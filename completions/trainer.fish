# fish completion for trainer. Like the bash one, it reads the commands, options and option values
# from the binary's --help, so it never falls behind them. Install in a directory of
# $fish_complete_path (share/fish/vendor_completions.d).

# The options that `PROGRAM [COMMAND] --help` lists, one line each: NAMES<tab>ARGUMENT<tab>DESCRIPTION.
# CLI11 writes each option as "  -o,--output FORMAT:{yaml,json}=yaml" in a 30-column field, the
# description after it or, when the field is full, on the next line.
function __trainer_options --argument-names program command
    set -l help ($program $command --help 2>/dev/null)
    set -l in_options 0
    for i in (seq (count $help))
        set -l line $help[$i]
        switch $line
            case 'Options:'
                set in_options 1
                continue
            case '[! ]*'
                set in_options 0
                continue
        end
        test $in_options = 1; and string match -q -- '  -*' $line; or continue
        set -l field $line
        set -l description
        if test (string length -- $line) -gt 30; and test (string sub -s 30 -l 1 -- $line) = ' '
            set field (string sub -l 30 -- $line)
            set description (string sub -s 31 -- $line)
        else if test $i -lt (count $help)
            set description (string trim -- $help[(math $i + 1)])
        end
        set -l words (string split -n ' ' -- (string trim -- $field))
        set -l argument $words[2]
        if contains -- "$argument" Excludes: Needs: REQUIRED
            set argument ''
        end
        printf '%s\t%s\t%s\n' $words[1] "$argument" "$description"
    end
end

# Files and directories completing the current token: yaml (*.yaml, *.yml, *.json, and
# directories), dir, or any.
function __trainer_files --argument-names kind
    set -l token (commandline -ct)
    # Plain file completion, as for a command that has none of its own.
    set -l paths (complete -C"__trainer_no_such_command "(string escape -- $token) | string replace -r '\t.*' '')
    switch $kind
        case yaml
            string match -r -- '.*(?:\.ya?ml|\.json|/)$' $paths
        case dir
            string match -r -- '.*/$' $paths
        case '*'
            printf '%s\n' $paths
    end
end

# Every option name with its description.
function __trainer_option_names --argument-names program command
    for option in (__trainer_options $program $command)
        set -l parts (string split \t -- $option)
        for name in (string split , -- $parts[1])
            printf '%s\t%s\n' $name $parts[3]
        end
    end
end

function __trainer_complete
    set -l tokens (commandline -opc)
    set -l token (commandline -ct)
    set -l program (string replace -r '^~' $HOME -- $tokens[1])
    set -l command
    for word in $tokens[2..-1]
        if not string match -q -- '-*' $word
            set command $word
            break
        end
    end
    if test -z "$command"
        if string match -q -- '-*' $token
            __trainer_option_names $program
        else
            # "  render                      Print every object ..." under Subcommands:
            $program --help 2>/dev/null | string match -r -- '^  [a-z].*' | string replace -r '^  (\S+)\s+' '$1\t'
        end
        return
    end
    # The value of the option before the cursor, or of the token's own in --output=j, whose
    # candidates keep the "--output=" (fish's file completion keeps it too).
    set -l previous $tokens[-1]
    set -l prefix
    if string match -qr -- '^--[^=]+=' $token
        set previous (string replace -r -- '=.*' '' $token)
        set prefix $previous=
    end
    if test (count $tokens) -gt 1; and string match -q -- '-*' $previous
        for option in (__trainer_options $program $command)
            set -l parts (string split \t -- $option)
            contains -- $previous (string split , -- $parts[1]); or continue
            test -n "$parts[2]"; or break  # a flag
            set -l choices (string match -r -- '\{([^}]*)\}' $parts[2])
            if set -q choices[2]
                string split , -- $choices[2] | string replace -r -- '^' "$prefix"
            else if test $previous = --ignore
                # a field path, not a file
            else if string match -q -- 'DIR*' $parts[2]
                __trainer_files dir
            else if string match -q -- 'PATH*' $parts[2]
                __trainer_files yaml
            end
            return
        end
    end
    if string match -q -- '-*' $token
        __trainer_option_names $program $command
        return
    end
    switch $command
        case render
            __trainer_files yaml
        case diff
            __trainer_files any  # kubectl diff's files have no extension
        case test
            __trainer_files dir
    end
end

complete -c trainer -f -a '(__trainer_complete)'
complete -c kubectl-trainer -f -a '(__trainer_complete)'
