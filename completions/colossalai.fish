# fish completion for colossalai(1)
# Built from completions/colossalai.fish and the table that `colossalai --generate=
# completion-table` prints: every subcommand and option comes from the program's command line.

# Lines: command NAME HELP | option COMMAND NAMES KIND HELP | positional COMMAND NAME KIND HELP
set -g __colossalai_table @COLOSSALAI_COMPLETION_TABLE@

# The kind of value option $argv[2] of command $argv[1] takes; fails for no such option.
# A short option may carry its value (-Hnode1).
function __colossalai_kind
    for line in (string split \n -- $__colossalai_table)
        set -l f (string split \t -- $line)
        test "$f[1]" = option -a "$f[2]" = $argv[1]; or continue
        for name in (string split , -- $f[3])
            if test "$name" = "$argv[2]"
                echo $f[4]
                return 0
            end
            if not string match -q -- '--*' $name; and test "$f[4]" != flag
                and string match -q -- "$name?*" $argv[2]
                echo $f[4]
                return 0
            end
        end
    end
    return 1
end

# Candidates with descriptions: the options of command $argv[1], or the subcommands.
function __colossalai_words
    for line in (string split \n -- $__colossalai_table)
        set -l f (string split \t -- $line)
        if test $argv[1] = commands -a "$f[1]" = command
            printf '%s\t%s\n' $f[2] $f[3]
        else if test "$f[1]" = option -a "$f[2]" = $argv[1]
            for name in (string split , -- $f[3])
                printf '%s\t%s\n' $name $f[5]
            end
        end
    end
end

# Host names: the hosts of hostfile $argv[2] (if any) as `run` reads them, which the program
# being completed ($argv[1]) lists itself (one parser: ranges, user@, slots=, comments, CRLF, a
# byte-order mark; nothing from a file it refuses), then the Host entries of ~/.ssh/config that
# name one host (no patterns).
function __colossalai_hosts
    set -l program (string replace -r '^~/' "$HOME/" -- "$argv[1]")
    set -l file (string replace -r '^~/' "$HOME/" -- "$argv[2]")
    if test -n "$file"
        command $program --list-hosts $file 2>/dev/null
    end
    if test -r ~/.ssh/config
        for line in (string replace -r '#.*' '' < ~/.ssh/config)
            set -l f (string split -n ' ' -- (string replace -a \t ' ' -- (string replace '=' ' ' -- (string trim -- $line))))
            test (count $f) -gt 1; and string match -qi host -- $f[1]; or continue
            string match -rv -- '[*?!]' $f[2..-1]
        end
    end
end

# Python scripts, and directories to reach them.
function __colossalai_scripts
    __fish_complete_path $argv[1] | string match -r -- '^[^\t]*(/|\.py)(\t.*)?$'
end

function __colossalai_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l command ''
    set -l hostfile ''
    set -l value_of ''
    set -l i 2
    # The hostfile named anywhere on the line, for --host, --include and --exclude.
    set -l all (commandline -op)
    for j in (seq (count $all))
        switch $all[$j]
            case '--hostfile=*'
                set hostfile (string replace -- '--hostfile=' '' $all[$j])
            case --hostfile
                set -q all[(math $j + 1)]; and set hostfile $all[(math $j + 1)]
        end
    end
    # Walk the words before the cursor: the subcommand, options and their values.
    while test $i -le (count $words)
        set -l word $words[$i]
        set i (math $i + 1)
        if test -z "$command"
            string match -q -- '-*' $word; or set command $word
            continue
        end
        if test $command = run -a "$word" = --
            test $i -le (count $words); and return 0
            __colossalai_scripts $cur
            return 0
        end
        string match -q -- '--*=*' $word; and continue
        if string match -q -- '-*' $word
            set -l kind (__colossalai_kind $command $word); or set kind flag
            test $kind = rest; and return 0
            if test $kind != flag; and begin
                    string match -q -- '--*' $word; or test (string length -- $word) -eq 2
                end
                if test $i -le (count $words)
                    set i (math $i + 1)
                else
                    set value_of $word
                end
            end
            continue
        end
        test $command = run; and return 0
    end

    if test -z "$command"
        if string match -q -- '-*' $cur
            __colossalai_words colossalai
        else
            __colossalai_words commands
        end
        return 0
    end
    set -l prefix ''
    if test -z "$value_of"; and string match -q -- '--*=*' $cur
        set value_of (string replace -r '=.*' '' -- $cur)
        set prefix $value_of=
        set cur (string replace -r '^[^=]*=' '' -- $cur)
    end
    if test -n "$value_of"
        set -l kind (__colossalai_kind $command $value_of); or return 0
        switch $kind
            case file
                __fish_complete_path $cur | string replace -r '^' -- $prefix
            case directory
                __fish_complete_directories $cur | string replace -r '^' -- $prefix
            case hosts
                # A comma-separated list: complete its last element.
                set -l list (string replace -r '[^,]*$' '' -- $cur)
                # Hosts already in the list are not offered again.
                set -l listed (string split -n , -- $list)
                for host in (__colossalai_hosts $words[1] $hostfile | sort -u)
                    contains -- $host $listed; or echo $prefix$list$host
                end
        end
        return 0
    end
    if string match -q -- '-*' $cur; or test $command != run
        __colossalai_words $command
        return 0
    end
    __colossalai_scripts $cur
end

complete -c colossalai -f -a '(__colossalai_complete)'
