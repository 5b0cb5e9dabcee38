# Shared by the test-cluster scripts (ssh/cluster.sh, slurm/cluster.sh), sourced: processes,
# namespaces and the owner records under $STATE_ROOT. The sourcing script defines STATE_ROOT,
# NAME (for messages) and teardown_id ID.
# shellcheck shell=bash

# Fields of /proc/PID/stat after the command name: $1 is the state, $20 the start time.
# (Builtins only: a fork costs 10-20 ms on the 2-core test machines and these run in loops.)
stat_fields() {
    local stat
    { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
    FIELDS=${stat##*) }
}

# A zombie counts as gone: PID 1 on some test machines never reaps orphans.
alive() {
    stat_fields "$1" && [[ ${FIELDS%% *} != [ZX] ]]
}

start_time() {
    local -a fields
    stat_fields "$1" || return 1
    read -r -a fields <<<"$FIELDS"
    echo "${fields[19]}"
}

# True when PID lives in network namespace NS (guards every kill of a PID read from a file).
pid_in_ns() { [[ /proc/$1/ns/net -ef /run/netns/$2 ]]; }

ns_pids() { ip netns pids "$1" 2>/dev/null || true; }

# Kills every process in the network namespaces given, by PID, in rounds (a process may fork
# while we kill); each PID is checked to still be in the namespace right before the kill, so a
# PID reused meanwhile is left alone.
kill_namespaces() {
    local ns pid round left
    for ((round = 0; round < 250; round++)); do
        left=0
        for ns in "$@"; do
            for pid in $(ns_pids "$ns"); do
                left=1
                if pid_in_ns "$pid" "$ns"; then kill -KILL "$pid" 2>/dev/null || true; fi
            done
        done
        ((left)) || break
        sleep 0.02
    done
}

owner_alive() {
    local state=$1 pid start
    read -r pid start <"$state/owner" 2>/dev/null || return 1
    alive "$pid" && [[ $(start_time "$pid") == "$start" ]]
}

lock_state() {
    mkdir -p "$STATE_ROOT"
    exec 9>"$STATE_ROOT/.lock"
    flock 9
}

cleanup_stale_locked() {
    local state
    for state in "$STATE_ROOT"/*/; do
        [[ -d $state ]] || continue
        state=${state%/}
        [[ ${state##*/} =~ ^[0-9]+$ ]] || continue
        if ! owner_alive "$state"; then
            echo "$NAME: removing stale cluster ${state##*/} ($(cat "$state/dir" 2>/dev/null))" >&2
            teardown_id "${state##*/}"
        fi
    done
}

# Sets ABS_DIR to DIR made absolute and canonical, as `realpath -m` would: a path that already is
# (absolute, plain names, no symbolic link on the way) is taken as it is, without starting realpath:
# every step of every test runs the scripts, and a program started costs a few ms of CPU.
abs_dir() {
    local dir=$1 part path='' canonical=0
    if [[ $dir =~ ^(/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$ ]]; then
        canonical=1
        local IFS=/
        for part in ${dir#/}; do
            path+=/$part
            if [[ -L $path ]]; then canonical=0 && break; fi
        done
    fi
    ((canonical)) || dir=$(realpath -m -- "$1")
    [[ $dir =~ ^/[A-Za-z0-9._/-]+$ ]] || die "DIR must be a plain absolute path: $1"
    # shellcheck disable=SC2034 # the result, read by the sourcing script
    ABS_DIR=$dir
}
