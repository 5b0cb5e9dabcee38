#!/usr/bin/env bash
# A real Slurm cluster for the end-to-end tests (Debian 12: slurmctld, slurmd, slurm-client, munge).
#
# A cluster is a controller namespace `cslurmI-ctl` (host name ctl, slurmctld, munged, and the
# bridge br0 at NET.1) and N nodes `cslurmI-nodeK` (eth0 at NET.(10+K), host name nodeK), each
# running its own slurmd in its own UTS and mount namespace (the cluster's /etc/hosts bound over
# /etc/hosts, so that tasks resolve node names). Everything is found through SLURM_CONF and
# `AuthInfo=socket=...`: nothing is written to /etc, nothing runs in the root network namespace.
# The only global state is /run/netns/<ours> and the owner records under $STATE_ROOT, from which
# `down` and `cleanup-stale` kill every process of the cluster by PID, each checked to still be
# in one of our namespaces. Traps found on the way are in docs/design.md ("Test Slurm cluster").
# SC2015: `valid && in_range || die` means what it says. SC2016: the inner sh script is
# single-quoted on purpose; its arguments come positionally.
# shellcheck disable=SC2015,SC2016
set -euo pipefail

readonly STATE_ROOT=/run/colossalai-slurm-cluster
readonly NAME=slurm/cluster.sh
readonly NET_BASE=10.212 # cluster ID i owns 10.212.i.0/24
readonly MAX_HOSTS=200
readonly MAX_ID=250
readonly CALLER_PATH=${PATH:-/usr/bin:/bin}
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

die() {
    echo "slurm/cluster.sh: $*" >&2
    exit 1
}

usage() {
    cat <<'EOF'
usage: cluster.sh COMMAND ...
  up DIR N [--owner PID]    bring up slurmctld and node1..nodeN; stale once PID (default: the
                            caller) dies
  down DIR                  kill every process of the cluster, delete its namespaces
  exec DIR [--] CMD...      run CMD on the controller (srun, salloc, sbatch; SLURM_CONF set)
  host-exec DIR K CMD...    run CMD in node K's network namespace
  pids DIR K|ctl            PIDs of the processes in that namespace
  list                      clusters of this fixture on this machine
  cleanup-stale             tear down clusters whose owner process is gone
EOF
    exit 2
}

# shellcheck source-path=SCRIPTDIR source=../cluster_common.sh
. "${BASH_SOURCE[0]%/*}/../cluster_common.sh"

load() {
    abs_dir "$1"
    DIR=$ABS_DIR
    [[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
    # shellcheck source=/dev/null
    . "$DIR/cluster.env"
}

ns_of() {
    case $1 in
    ctl) echo "$CLUSTER_PREFIX-ctl" ;;
    *) echo "$CLUSTER_PREFIX-node$1" ;;
    esac
}

host_arg() {
    [[ $1 =~ ^[1-9][0-9]*$ ]] && ((10#$1 <= CLUSTER_HOSTS)) ||
        die "no node $1 (nodes are 1..$CLUSTER_HOSTS)"
    echo "$((10#$1))"
}

# Replaces this shell with CMD in namespace NS, with host name NAME and the cluster's
# /etc/hosts (call it in a subshell to go on). exec all the way down, so that a signal to this
# PID reaches CMD. `nsenter --net`, not `ip netns exec`: the latter remounts /sys and hides the
# cgroup mounts slurmd needs.
in_host() {
    local ns=$1 name=$2
    shift 2
    exec nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation slave -- /bin/sh -c '
        echo "$1" >/proc/sys/kernel/hostname && mount --bind "$2" /etc/hosts || exit 125
        PATH=$3 && shift 3 && exec "$@"' sh "$name" "$DIR/etc/hosts" "$CALLER_PATH" "$@"
}

# ---- ownership and teardown ---------------------------------------------------------------------

teardown_id() {
    local id=$1 state=$STATE_ROOT/$1 dir ns
    [[ -d $state ]] || return 0
    dir=$(cat "$state/dir" 2>/dev/null || true)
    local -a namespaces
    mapfile -t namespaces <"$state/namespaces" 2>/dev/null || namespaces=()
    kill_namespaces "${namespaces[@]}"
    for ns in "${namespaces[@]}"; do
        if [[ -e /run/netns/$ns ]]; then
            ip netns del "$ns" 2>/dev/null || echo "slurm/cluster.sh: cannot delete $ns" >&2
        fi
    done
    [[ -n $dir ]] && rm -f "$dir/cluster.env"
    rm -rf "$state"
}

# ---- bring-up -----------------------------------------------------------------------------------

write_config() {
    local hosts=$1 addrs k
    addrs=$(for ((k = 1; k <= hosts; k++)); do printf '%s.%d,' "$CLUSTER_NET" $((10 + k)); done)
    cat >"$DIR/slurm.conf" <<EOF
# Test cluster $CLUSTER_ID (tests/e2e/slurm/cluster.sh)
ClusterName=test$CLUSTER_ID
SlurmctldHost=ctl($CLUSTER_NET.1)
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool-%n
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd-%n.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
KillWait=5
InactiveLimit=0
NodeName=node[1-$hosts] NodeAddr=${addrs%,} CPUs=2 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

wait_idle() {
    local hosts=$1 i count
    for ((i = 0; i < 300; i++)); do # 30 s: these machines can be very busy
        count=$( (cmd_exec_loaded sinfo -h -t idle -o %D) 2>/dev/null | awk '{n += $1} END {print n + 0}')
        ((count == hosts)) && return 0
        sleep 0.1
    done
    echo "slurm/cluster.sh: only $count of $hosts nodes idle; slurmctld log ends with:" >&2
    tail -n 5 "$DIR/slurmctld.log" >&2 || true
    return 1
}

cmd_up() {
    (($# >= 2)) || usage
    abs_dir "$1"
    DIR=$ABS_DIR
    local hosts=$2 owner=$PPID
    shift 2
    while (($#)); do
        case $1 in
        --owner) owner=${2:-} && shift 2 ;;
        *) die "unknown option for up: $1" ;;
        esac
    done
    [[ $hosts =~ ^[1-9][0-9]*$ ]] && ((hosts <= MAX_HOSTS)) || die "N must be 1..$MAX_HOSTS: $hosts"
    [[ $owner =~ ^[0-9]+$ ]] && alive "$owner" || die "--owner is not a live process: $owner"
    ((EUID == 0)) || die "must run as root (network namespaces, slurmd)"
    local tool
    for tool in slurmctld slurmd munged srun sinfo; do
        command -v "$tool" >/dev/null || die "$tool not found (.ci/install-deps slurm)"
    done
    [[ ! -e $DIR/cluster.env ]] || die "$DIR already holds a cluster; run down first"
    mkdir -p "$DIR"

    lock_state
    cleanup_stale_locked
    local id first=$((owner % MAX_ID + 1)) i k
    for ((i = 0; i < MAX_ID; i++)); do
        id=$(((first - 1 + i) % MAX_ID + 1))
        compgen -G "/run/netns/cslurm$id-*" >/dev/null && continue
        mkdir "$STATE_ROOT/$id" 2>/dev/null && break
        id=
    done
    [[ -n $id ]] || die "no free cluster ID (see cluster.sh list)"
    local state=$STATE_ROOT/$id
    echo "$owner $(start_time "$owner")" >"$state/owner"
    echo "$DIR" >"$state/dir"
    CLUSTER_ID=$id CLUSTER_NET=$NET_BASE.$id CLUSTER_PREFIX=cslurm$id CLUSTER_HOSTS=$hosts
    {
        for ((k = 1; k <= hosts; k++)); do ns_of "$k"; done
        ns_of ctl
    } >"$state/namespaces"
    printf '%s\n' "CLUSTER_ID=$id" "CLUSTER_NET=$CLUSTER_NET" "CLUSTER_PREFIX=$CLUSTER_PREFIX" \
        "CLUSTER_HOSTS=$hosts" >"$DIR/cluster.env"
    exec 9>&-
    trap 'teardown_id "$CLUSTER_ID"' EXIT

    # munged runs as user munge: DIR and every folder above it must be searchable by it.
    rm -rf "${DIR:?}/munge" "$DIR/state" "$DIR"/spool-* "$DIR"/*.log "$DIR"/*.pid "${DIR:?}/etc"
    mkdir -p "$DIR/munge" "$DIR/state" "$DIR/etc"
    chmod 0755 "$DIR"
    {
        echo "127.0.0.1 localhost"
        echo "$CLUSTER_NET.1 ctl"
        for ((k = 1; k <= hosts; k++)); do echo "$CLUSTER_NET.$((10 + k)) node$k"; done
    } >"$DIR/etc/hosts"
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
    chown -R munge:munge "$DIR/munge"
    chmod 0700 "$DIR/munge"
    chmod 0400 "$DIR/munge/munge.key"
    write_config "$hosts"

    local ctl
    ctl=$(ns_of ctl)
    ip netns add "$ctl"
    ip -n "$ctl" link set lo up
    ip -n "$ctl" link add br0 type bridge
    ip -n "$ctl" addr add "$CLUSTER_NET.1/24" dev br0
    ip -n "$ctl" link set br0 up
    for ((k = 1; k <= hosts; k++)); do
        local ns
        ns=$(ns_of "$k")
        ip netns add "$ns"
        ip -n "$ctl" link add "v$k" type veth peer name eth0 netns "$ns"
        ip -n "$ctl" link set "v$k" master br0 up
        ip -n "$ns" addr add "$CLUSTER_NET.$((10 + k))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        mkdir -p "$DIR/spool-node$k"
    done
    export SLURM_CONF=$DIR/slurm.conf
    # --force: DIR may sit below a world-writable sticky folder such as /tmp.
    (in_host "$ctl" ctl runuser -u munge -- munged --force --socket="$DIR/munge/munge.socket" \
        --key-file="$DIR/munge/munge.key" --pid-file="$DIR/munge/munged.pid" \
        --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/seed") ||
        die "munged did not start: $(tail -n 3 "$DIR/munge/munged.log" 2>/dev/null)"
    (in_host "$ctl" ctl slurmctld -i) || die "slurmctld did not start"
    for ((k = 1; k <= hosts; k++)); do
        (in_host "$(ns_of "$k")" "node$k" slurmd -N "node$k") || die "slurmd of node$k did not start"
    done
    wait_idle "$hosts" || exit 1
    trap - EXIT
}

# Replaces this shell with CMD on the controller.
cmd_exec_loaded() {
    in_host "$(ns_of ctl)" ctl env SLURM_CONF="$DIR/slurm.conf" "$@"
}

cmd_down() {
    (($# == 1)) || usage
    abs_dir "$1"
    DIR=$ABS_DIR
    [[ -f $DIR/cluster.env ]] || return 0
    load "$DIR"
    lock_state
    teardown_id "$CLUSTER_ID"
}

cmd_list() {
    local state
    for state in "$STATE_ROOT"/*/; do
        [[ -d $state ]] || continue
        state=${state%/}
        echo "${state##*/} $(cat "$state/dir" 2>/dev/null) owner $(cat "$state/owner" 2>/dev/null)"
    done
}

main() {
    (($# >= 1)) || usage
    local command=$1
    shift
    case $command in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    exec)
        (($# >= 2)) || usage
        load "$1"
        shift
        [[ ${1:-} == -- ]] && shift
        (($# >= 1)) || usage
        cmd_exec_loaded "$@"
        ;;
    host-exec)
        (($# >= 3)) || usage
        load "$1"
        local k
        k=$(host_arg "$2")
        shift 2
        in_host "$(ns_of "$k")" "node$k" "$@"
        ;;
    pids)
        (($# == 2)) || usage
        load "$1"
        if [[ $2 == ctl ]]; then ns_pids "$(ns_of ctl)"; else ns_pids "$(ns_of "$(host_arg "$2")")"; fi
        ;;
    list) cmd_list ;;
    cleanup-stale)
        lock_state
        cleanup_stale_locked
        ;;
    help | -h | --help) usage ;;
    *) usage ;;
    esac
}

main "$@"
