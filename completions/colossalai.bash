# bash completion for colossalai(1)                              -*- shell-script -*-
# Built from completions/colossalai.bash and the table that `colossalai --generate=
# completion-table` prints: every subcommand and option comes from the program's command line.
# Needs bash-completion (it installs this file in its completions directory).

# Lines: command NAME HELP | option COMMAND NAMES KIND HELP | positional COMMAND NAME KIND HELP
_colossalai_table=@COLOSSALAI_COMPLETION_TABLE@

# The kind of value option $2 of command $1 takes (flag, text, file, directory, hosts, rest);
# fails when the command has no such option. A short option may carry its value (-Hnode1).
_colossalai_kind() {
    local type command names kind help name
    while IFS=$'\t' read -r type command names kind help; do
        [[ $type == option && $command == "$1" ]] || continue
        for name in ${names//,/ }; do
            if [[ $name == "$2" ]] || [[ $name != --* && $kind != flag && $2 == "$name"?* ]]; then
                printf '%s\n' "$kind"
                return 0
            fi
        done
    done <<<"$_colossalai_table"
    return 1
}

# The names of the options of command $1, or of the subcommands when $1 is `commands`.
_colossalai_words() {
    local type command names kind help
    while IFS=$'\t' read -r type command names kind help; do
        if [[ $1 == commands && $type == command ]]; then
            printf '%s\n' "$command"
        elif [[ $type == option && $command == "$1" ]]; then
            printf '%s\n' ${names//,/ }
        fi
    done <<<"$_colossalai_table"
}

# Host names: the hosts of hostfile $2 (if any) as `run` reads them, which the program being
# completed ($1) lists itself (one parser: ranges, user@, slots=, comments, CRLF, a byte-order
# mark; nothing from a file it refuses), then the Host entries of ~/.ssh/config that name one
# host (no patterns).
_colossalai_hosts() {
    local program=$1 file=$2 line word key IFS=$' \t\n'
    [[ $program == "~/"* ]] && program=$HOME/${program#"~/"}
    [[ $file == "~/"* ]] && file=$HOME/${file#"~/"}
    if [[ -n $file ]]; then
        "$program" --list-hosts "$file" 2>/dev/null
    fi
    [[ -r ~/.ssh/config ]] || return 0
    while IFS= read -r line || [[ -n $line ]]; do
        line=${line%%#*}
        read -r key line <<<"${line/=/ }"
        [[ ${key,,} == host ]] || continue
        for word in $line; do
            [[ $word == *[\*\?\!]* ]] || printf '%s\n' "$word"
        done
    done <~/.ssh/config
}

_colossalai() {
    local cur prev words cword split
    _init_completion -s || return

    local command="" hostfile="" kind="" word i=1
    # Walk the words before the cursor: the subcommand, options and their values, the hostfile.
    while ((i < cword)); do
        word=${words[i]}
        if [[ -z $command ]]; then
            [[ $word != -* ]] && command=$word
            ((i++))
            continue
        fi
        if [[ $command == run && $word == -- ]]; then
            # The next word is the script; after it, every word is the script's own.
            ((i + 1 < cword)) && return 0
            _filedir py
            return 0
        fi
        if [[ $word == --*=* ]]; then
            ((i++))
            continue
        fi
        if [[ $word == -* ]]; then
            kind=$(_colossalai_kind "$command" "$word") || kind=flag
            if [[ $kind == rest ]]; then
                return 0 # -m MODULE: every later word is the module's
            fi
            if [[ $kind != flag && $word == --* || $kind != flag && ${#word} -eq 2 ]]; then
                ((i += 2))
            else
                ((i++))
            fi
            continue
        fi
        # A word that is no option nor value: the script of `run`, whose words follow.
        [[ $command == run ]] && return 0
        ((i++))
    done
    # The hostfile named anywhere on the line, for --host, --include and --exclude.
    for ((word = 1; word < ${#words[@]}; word++)); do
        case ${words[word]} in
        --hostfile=*) hostfile=${words[word]#*=} ;;
        --hostfile) hostfile=${words[word + 1]-} ;;
        esac
    done
    # i passed cword: the current word is the value of the option before it.
    if ((i > cword)); then
        split=true
    fi

    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$(_colossalai_words colossalai)" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_colossalai_words commands)" -- "$cur")
        fi
        return 0
    fi

    if [[ $split == true ]]; then
        kind=$(_colossalai_kind "$command" "$prev") || return 0
        case $kind in
        file) _filedir ;;
        directory) _filedir -d ;;
        hosts)
            # A comma-separated list: complete its last element.
            local prefix="" last=$cur
            if [[ $cur == *,* ]]; then
                prefix=${cur%,*},
                last=${cur##*,}
            fi
            local IFS=$'\n'
            # Hosts already in the list are not offered again.
            mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$(_colossalai_hosts "${words[0]}" "$hostfile" |
                sort -u | grep -vxF -f <(tr , '\n' <<<"${prefix%,}"))" -- "$last")
            ;;
        esac
        return 0
    fi
    if [[ $cur == -* || $command != run ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_colossalai_words "$command")" -- "$cur")
        return 0
    fi
    _filedir py
} &&
    complete -F _colossalai colossalai
