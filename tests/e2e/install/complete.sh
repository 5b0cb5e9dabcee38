#!/bin/sh
# Drives one shell's completion of colossalai non-interactively and prints the candidates, one
# per line (fish adds a tab and the description).
#   complete.sh bash|zsh|fish COMPLETION_FILE WORD... ''
# The words are the command line up to the cursor; the last is the word being completed ('' for
# a new one). Runs in the current directory, with $HOME as it is.
set -eu
shell=$1 file=$2
shift 2
case $shell in
bash)
    # bash-completion's own functions (_init_completion, _filedir) as an interactive shell has.
    exec bash --norc --noprofile -c '
        file=$1; shift
        . /usr/share/bash-completion/bash_completion
        . "$file"
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _colossalai colossalai "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' complete "$file" "$@"
    ;;
zsh)
    # Outside a completion widget compadd and _files do not exist: these stand-ins print what
    # would be offered (_files: the names its glob matches, as zsh would offer them).
    exec zsh -f -c '
        file=$1; shift
        compadd() {
            local prefix= array=
            while (( $# )); do
                case $1 in
                (-P) prefix=$2; shift 2 ;;
                (-a) array=$2; shift 2 ;;
                (-d) shift 2 ;;
                (-l) shift ;;
                (--) shift; break ;;
                (*) break ;;
                esac
            done
            local word
            for word in ${(P)array} "$@"; do
                [[ $prefix$word == ${words[CURRENT]}* ]] && print -r -- "$prefix$word"
            done
        }
        _files() {
            local prefix= glob="*" dirs_only=
            while (( $# )); do
                case $1 in
                (-P) prefix=$2; shift 2 ;;
                (-g) glob=${2%%\(*}; shift 2 ;;
                (-/) dirs_only=1; shift ;;
                (*) shift ;;
                esac
            done
            local cur=${words[CURRENT]#$prefix} name
            for name in ${cur}*(N); do
                if [[ -d $name ]]; then print -r -- "$prefix$name/"
                elif [[ -z $dirs_only && $name == ${~glob} ]]; then print -r -- "$prefix$name"
                fi
            done
        }
        words=("$@")
        CURRENT=$#
        . "$file"' complete "$file" "$@"
    ;;
fish)
    # complete -C completes a whole command line as the user typed it.
    line=""
    for word in "$@"; do
        line="$line${line:+ }$word"
    done
    [ -n "${line##* }" ] || line="$line "
    exec fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$file" "$line"
    ;;
*)
    echo "complete.sh: unknown shell '$shell'" >&2
    exit 2
    ;;
esac
