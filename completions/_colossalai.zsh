#compdef colossalai
# zsh completion for colossalai(1)
# Built from completions/_colossalai.zsh and the table that `colossalai --generate=
# completion-table` prints: every subcommand and option comes from the program's command line.

# Lines: command NAME HELP | option COMMAND NAMES KIND HELP | positional COMMAND NAME KIND HELP
local table=@COLOSSALAI_COMPLETION_TABLE@
local -a rows=("${(@f)table}")

# The kind of value option $2 of command $1 takes; fails for no such option. A short option may
# carry its value (-Hnode1).
_colossalai_kind() {
  local row name
  local -a f
  for row in "${rows[@]}"; do
    f=("${(@ps:\t:)row}")
    [[ $f[1] == option && $f[2] == $1 ]] || continue
    for name in ${(s:,:)f[3]}; do
      if [[ $name == $2 ]] || [[ $name != --* && $f[4] != flag && $2 == ${name}?* ]]; then
        print -r -- $f[4]
        return 0
      fi
    done
  done
  return 1
}

# Offers the options of command $1, or the subcommands, with their help as descriptions.
_colossalai_words() {
  local row name
  local -a f candidates descriptions
  for row in "${rows[@]}"; do
    f=("${(@ps:\t:)row}")
    if [[ $1 == commands && $f[1] == command ]]; then
      candidates+=($f[2]); descriptions+=("$f[2] -- $f[3]")
    elif [[ $f[1] == option && $f[2] == $1 ]]; then
      for name in ${(s:,:)f[3]}; do
        candidates+=($name); descriptions+=("$name -- $f[5]")
      done
    fi
  done
  compadd -l -d descriptions -a candidates
}

# Host names: the hosts of hostfile $2 (if any) as `run` reads them, which the program being
# completed ($1) lists itself (one parser: ranges, user@, slots=, comments, CRLF, a byte-order
# mark; nothing from a file it refuses), then the Host entries of ~/.ssh/config that name one
# host (no patterns).
_colossalai_hosts() {
  local program=${~1} file=${~2} line
  local -a f
  if [[ -n $file ]]; then
    $program --list-hosts $file 2>/dev/null
  fi
  [[ -r ~/.ssh/config ]] || return 0
  for line in "${(@f)$(<~/.ssh/config)}"; do
    f=(${=${line%%\#*}/=/ })
    [[ ${(L)f[1]} == host ]] || continue
    print -rl -- ${f[2,-1]:#*[\*\?\!]*}
  done
}

local command= hostfile= value_of= word kind prefix=
local cur=$words[CURRENT]
local -i i=2
# The hostfile named anywhere on the line, for --host, --include and --exclude.
for (( i = 2; i <= $#words; i++ )); do
  case $words[i] in
    (--hostfile=*) hostfile=${words[i]#*=} ;;
    (--hostfile) hostfile=${words[i+1]} ;;
  esac
done
# Walk the words before the cursor: the subcommand, options and their values.
i=2
while (( i < CURRENT )); do
  word=$words[i]
  (( i++ ))
  if [[ -z $command ]]; then
    [[ $word != -* ]] && command=$word
    continue
  fi
  if [[ $command == run && $word == -- ]]; then
    (( i < CURRENT )) && return 0
    _files -g '*.py(-.)'
    return 0
  fi
  [[ $word == --*=* ]] && continue
  if [[ $word == -* ]]; then
    kind=$(_colossalai_kind $command $word) || kind=flag
    [[ $kind == rest ]] && return 0
    if [[ $kind != flag && ( $word == --* || ${#word} == 2 ) ]]; then
      if (( i < CURRENT )); then
        (( i++ ))
      else
        value_of=$word
      fi
    fi
    continue
  fi
  [[ $command == run ]] && return 0
done

if [[ -z $command ]]; then
  if [[ $cur == -* ]]; then
    _colossalai_words colossalai
  else
    _colossalai_words commands
  fi
  return 0
fi
if [[ -z $value_of && $cur == --*=* ]]; then
  value_of=${cur%%=*}
  prefix=$value_of=
  cur=${cur#*=}
fi
if [[ -n $value_of ]]; then
  kind=$(_colossalai_kind $command $value_of) || return 0
  case $kind in
    (file) _files -P "$prefix" ;;
    (directory) _files -/ -P "$prefix" ;;
    (hosts)
      # A comma-separated list: complete its last element.
      local list=${(M)cur##*,}
      local -a hosts=(${(u)${(f)"$(_colossalai_hosts $words[1] $hostfile)"}})
      local -a listed=(${(s:,:)list})
      hosts=(${hosts:|listed}) # hosts already in the list are not offered again
      compadd -P "$prefix$list" -a hosts
      ;;
  esac
  return 0
fi
if [[ $cur == -* || $command != run ]]; then
  _colossalai_words $command
  return 0
fi
_files -g '*.py(-.)'
