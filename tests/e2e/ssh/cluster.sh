#!/usr/bin/env bash
# Test hosts for the end-to-end tests of `colossalai run` over SSH.
#
# A cluster is N hosts node1..nodeN plus a client, each a network namespace of its own with one
# interface `eth0` on a private /24, all joined by a bridge that lives in a "switch" namespace.
# Every host runs its own sshd in its own UTS namespace (host name nodeK) and mount namespace
# (its own copy of the cluster's /etc/hosts, root's ~/.bashrc and ~/.profile masked by an empty
# file, and an /etc/passwd with the login-shell users below). The launcher runs in the client
# namespace with the cluster's client home bind-mounted over /root, so OpenSSH and libssh (both
# read the passwd home, not only $HOME) see the test identity.
# Nothing is created in the root network namespace and nothing is written to /etc; the only
# global state is /run/netns/<ours>, /run/sshd and the owner records under $STATE_ROOT.
#
# Run `cluster.sh help` for the commands; docs/design.md ("## Test hosts") has the reasons.
# SC2015: `valid && in_range || die` means what it says. SC2016: the inner sh scripts are
# single-quoted on purpose; their arguments come positionally.
# shellcheck disable=SC2015,SC2016
set -euo pipefail

readonly STATE_ROOT=/run/colossalai-ssh-cluster
readonly NAME=cluster.sh
readonly SSHD=/usr/sbin/sshd
readonly NET_BASE=10.211 # cluster ID i owns 10.211.i.0/24
readonly CLIENT_OCTET=254
readonly MAX_HOSTS=250
readonly MAX_ALIASES=1024
readonly MAX_ID=250
# Users of every host, one per login shell a user may have, for the tests of login shells
# (sh-bash ... sh-false): UID 0 like root, so that the tests' files (fake torchrun, records) are
# theirs too, each with a home of its own under DIR/users. A shell not installed here
# (.ci/packages, group test) gets its user all the same: sshd then refuses the login.
readonly LOGIN_SHELLS="bash:/bin/bash dash:/bin/dash zsh:/usr/bin/zsh ksh:/usr/bin/ksh fish:/usr/bin/fish tcsh:/usr/bin/tcsh csh:/usr/bin/csh nologin:/usr/sbin/nologin false:/bin/false"
# The tools below are called by name; a caller's PATH (pyenv shims...) is restored for `exec`.
readonly CALLER_PATH=${PATH:-/usr/bin:/bin}
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

usage() {
    cat <<'EOF'
usage: cluster.sh COMMAND ...
  up DIR N [--aliases M] [--owner PID] [--sshd-rexec]
                                        bring up node1..nodeN (+ ssh aliases a001..aM on node1);
                                        the cluster is stale once PID (default: the caller) dies;
                                        --sshd-rexec: each sshd re-executes itself for every
                                        connection, as a production one does (the benchmarks)
  down DIR                              kill every process of the cluster, delete its namespaces
  exec DIR [--home H] [--] CMD...       run CMD in the client namespace (HOME=H, default DIR/home)
  host-exec DIR K CMD...                run CMD on host K (its network, host name and mounts)
  stop-sshd DIR K | start-sshd DIR K    stop / start host K's sshd listener (sessions survive)
  host-key DIR K own|spare              restart host K's sshd with its own or the spare host key
  sshd-extra DIR K LINES                restart host K's sshd (own host key) with LINES (sshd_config
                                        keywords; empty: none) before its usual configuration
  kill-sessions DIR K [SIG]             send SIG (KILL, the default, STOP or CONT) to host K's
                                        per-connection sshd processes
  link DIR K up|down                    host K's network cable: down, its packets vanish (no
                                        reset: open connections hang, new ones time out)
  pids DIR K|client                     PIDs of the processes in that namespace
  home DIR NAME [--key authorized|wrong|none] [--known all|none|K,K...] [--changed K,K...]
                                        make DIR/homes/NAME, a client home variant; prints it
  list                                  clusters of this fixture on this machine
  cleanup-stale                         tear down clusters whose owner process is gone
EOF
    exit 2
}

# ---- processes ----------------------------------------------------------------------------------

# (Without dirname: this script runs for every step of every SSH test, and each program it starts
# costs a few ms of CPU in this VM.)
# shellcheck source-path=SCRIPTDIR source=../cluster_common.sh
. "${BASH_SOURCE[0]%/*}/../cluster_common.sh"

# ---- cluster description ------------------------------------------------------------------------

# abs_dir (cluster_common.sh), and not under /root: the client binds its home over /root.
cluster_abs_dir() {
    abs_dir "$1"
    case $ABS_DIR/ in
    /root/*) die "DIR must not be under /root (the client binds its home over /root): $ABS_DIR" ;;
    esac
}

# Loads DIR/cluster.env (written by `up`): CLUSTER_ID, CLUSTER_NET, CLUSTER_HOSTS, ...
load() {
    cluster_abs_dir "$1"
    DIR=$ABS_DIR
    [[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
    # shellcheck source=/dev/null
    . "$DIR/cluster.env"
}

ns_of() {
    case $1 in
    client) echo "$CLUSTER_PREFIX-client" ;;
    switch) echo "$CLUSTER_PREFIX-sw" ;;
    *) echo "$CLUSTER_PREFIX-node$1" ;;
    esac
}

host_arg() {
    [[ $1 =~ ^[1-9][0-9]*$ ]] && ((10#$1 <= CLUSTER_HOSTS)) ||
        die "no host $1 (hosts are 1..$CLUSTER_HOSTS)"
    echo "$((10#$1))"
}

# ---- namespaces of one host ---------------------------------------------------------------------

# Sets HOST_CMD to the command prefix that runs a program on host K: its network namespace, a
# UTS namespace named nodeK and a mount namespace with the mounts of DIR/nodeK/fstab (the
# cluster's /etc/hosts, /etc/hostname, root's shell start-up files masked). Slave propagation
# lets the removal of other clusters' /run/netns mounts reach the copies this namespace holds.
# The host name is written by the shell into /proc/sys/kernel/hostname (the UTS namespace's own),
# not by hostname(1): one program fewer for each command run on a host.
host_command() {
    local k=$1
    HOST_CMD=(ip netns exec "$(ns_of "$k")" unshare --uts --mount --propagation slave -- /bin/sh -c '
        echo "$1" >/proc/sys/kernel/hostname && mount -a -T "$2" || exit 125
        PATH=$3 && shift 3 && exec "$@"' sh "node$k" "$DIR/node$k/fstab" "$CALLER_PATH")
}

write_fstab() {
    local k=$1 f
    {
        echo "$DIR/node$k/hosts /etc/hosts none bind 0 0"
        echo "$DIR/etc/passwd /etc/passwd none bind 0 0"
        echo "$DIR/node$k/hostname /etc/hostname none bind 0 0"
        for f in /root/.bashrc /root/.profile; do
            if [[ -f $f ]]; then echo "$DIR/empty $f none bind 0 0"; fi
        done
    } >"$DIR/node$k/fstab"
}

sshd_pid() {
    local k=$1 pid
    { read -r pid <"$DIR/node$k/sshd.pid"; } 2>/dev/null || return 1
    [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && pid_in_ns "$pid" "$(ns_of "$k")" && echo "$pid"
}

# sshd_config of host K with host key KEY; the lines of DIR/nodeK/sshd_extra (see `sshd-extra`)
# come first, so that they win (sshd takes the first value of a keyword).
write_sshd_config() {
    local k=$1 key=$2
    local -a extra=()
    if [[ -f $DIR/node$k/sshd_extra ]]; then mapfile -t extra <"$DIR/node$k/sshd_extra"; fi
    {
        echo "# sshd of test host node$k (tests/e2e/ssh/cluster.sh)"
        ((${#extra[@]} == 0)) || printf '%s\n' "${extra[@]}"
    } >"$DIR/node$k/sshd_config"
    cat >>"$DIR/node$k/sshd_config" <<EOF
ListenAddress $CLUSTER_NET.$k
Port 22
HostKey $key
PidFile $DIR/node$k/sshd.pid
AuthorizedKeysFile $DIR/authorized_keys
UsePAM no
StrictModes no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 2048:100:2048
MaxSessions 100
PrintMotd no
X11Forwarding no
UseDNS no
LogLevel VERBOSE
EOF
}

# Starts host K's sshd in the background; `wait_sshd` waits for its pidfile (written once sshd
# listens). Unless the cluster was brought up with --sshd-rexec, sshd runs with -r: each
# connection is handled by a fork of the listener, not by a new sshd it executes, which reads
# its configuration and keys again. What a client sees is the same (the same protocol, keys,
# authentication, sessions and processes); each connection costs the host about 15 ms of CPU
# less (67 instead of 80-89 ms, measured beside a test run), and a CI run makes thousands.
launch_sshd() {
    local k=$1
    if [[ -e $DIR/node$k/sshd.pid ]]; then rm -f "$DIR/node$k/sshd.pid"; fi
    host_command "$k"
    local -a no_rexec=(-r)
    ((CLUSTER_SSHD_REXEC)) && no_rexec=()
    (setsid "${HOST_CMD[@]}" "$SSHD" "${no_rexec[@]}" -D -e -f "$DIR/node$k/sshd_config" \
        </dev/null >>"$DIR/node$k/sshd.log" 2>&1 &)
}

wait_sshd() {
    local k=$1 i
    for ((i = 0; i < 1500; i++)); do # 15 s: these machines can be very busy
        sshd_pid "$k" >/dev/null && return 0
        sleep 0.01
    done
    echo "cluster.sh: sshd of node$k did not start; its log ends with:" >&2
    tail -n 5 "$DIR/node$k/sshd.log" >&2 || true
    return 1
}

stop_sshd() {
    local k=$1 pid i
    pid=$(sshd_pid "$k") || {
        rm -f "$DIR/node$k/sshd.pid"
        return 0
    }
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 250; i++)); do
        alive "$pid" || break
        sleep 0.02
    done
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -f "$DIR/node$k/sshd.pid"
}

# ---- client identity ----------------------------------------------------------------------------

# (ssh-keygen asks before it overwrites: the caller removes the old files first, all at once.)
keygen() {
    ssh-keygen -q -t ed25519 -N '' -C "$2" -f "$1"
}

# Sets ALIASES to the ssh-config aliases of node1: a001, a002, ...
alias_names() {
    local a name
    ALIASES=()
    for ((a = 1; a <= CLUSTER_ALIASES; a++)); do
        printf -v name 'a%03d' "$a"
        ALIASES+=("$name")
    done
}

# known_hosts for hosts KNOWN (a list or "all"); those in CHANGED get the spare host key, as after
# a reinstall. The aliases stand for node1 and follow it. One line per name: no reliance on
# comma-separated patterns.
write_known_hosts() {
    local file=$1 known=$2 changed=$3 k pub type key name
    [[ $known == all ]] && known=$(seq -s, 1 "$CLUSTER_HOSTS")
    alias_names
    for k in ${known//,/ }; do
        ((10#$k >= 1 && 10#$k <= CLUSTER_HOSTS)) || die "no host $k (hosts are 1..$CLUSTER_HOSTS)"
        k=$((10#$k))
        pub=$DIR/node$k/ssh_host_ed25519_key.pub
        [[ ,$changed, == *,$k,* ]] && pub=$DIR/keys/spare_host_ed25519_key.pub
        read -r type key _ <"$pub"
        local -a names=("node$k" "$CLUSTER_NET.$k")
        ((k == 1)) && names+=("${ALIASES[@]}")
        for name in "${names[@]}"; do
            echo "$name $type $key"
        done
    done >"$file"
}

write_ssh_config() {
    local name
    alias_names
    {
        echo "# Client configuration of test cluster $CLUSTER_ID (tests/e2e/ssh/cluster.sh)."
        for name in "${ALIASES[@]}"; do
            printf 'Host %s\n    HostName %s.1\n' "$name" "$CLUSTER_NET"
        done
    } >"$1"
}

# /etc/passwd of the hosts: the machine's, and a user sh-NAME per login shell of LOGIN_SHELLS.
write_passwd() {
    local entry name shell
    local -a homes=() machine=()
    mapfile -t machine </etc/passwd
    {
        printf '%s\n' "${machine[@]}"
        for entry in $LOGIN_SHELLS; do
            name=${entry%%:*} shell=${entry#*:}
            homes+=("$DIR/users/sh-$name")
            echo "sh-$name:x:0:0:login shell $name:$DIR/users/sh-$name:$shell"
        done
    } >"$DIR/etc/passwd"
    mkdir -p "${homes[@]}"
}

write_hosts() {
    local k name
    alias_names
    {
        echo "127.0.0.1 localhost"
        echo "::1 localhost ip6-localhost ip6-loopback"
        for ((k = 1; k <= CLUSTER_HOSTS; k++)); do
            echo "$CLUSTER_NET.$k node$k"
        done
        echo "$CLUSTER_NET.$CLIENT_OCTET client"
        for name in "${ALIASES[@]}"; do
            echo "$CLUSTER_NET.1 $name"
        done
    } >"$DIR/etc/hosts"
    # Each host's own copy, which a test may rewrite in place (the same file: the bind mount
    # holds its inode) to make one host see a name differently.
    for ((k = 1; k <= CLUSTER_HOSTS; k++)); do
        cp "$DIR/etc/hosts" "$DIR/node$k/hosts"
    done
}

# ---- ownership and teardown ---------------------------------------------------------------------

# Kills every process in the cluster's namespaces by PID and deletes the namespaces; works from
# the state record alone, so it also cleans up after an owner that crashed and took DIR with it.
teardown_id() {
    local id=$1 state=$STATE_ROOT/$1 dir ns k pid
    [[ -d $state ]] || return 0
    dir=
    { read -r dir <"$state/dir"; } 2>/dev/null || true
    local -a namespaces removed=()
    mapfile -t namespaces <"$state/namespaces" 2>/dev/null || namespaces=()
    for ns in "${namespaces[@]}"; do
        if [[ $ns =~ -node([0-9]+)$ && -n $dir ]]; then
            k=${BASH_REMATCH[1]}
            pid=
            { read -r pid <"$dir/node$k/sshd.pid"; } 2>/dev/null || true
            if [[ $pid =~ ^[0-9]+$ ]] && pid_in_ns "$pid" "$ns"; then
                kill -KILL "$pid" 2>/dev/null || true
            fi
            removed+=("$dir/node$k/sshd.pid")
        fi
    done
    kill_namespaces "${namespaces[@]}"
    for ns in "${namespaces[@]}"; do
        if [[ -e /run/netns/$ns ]]; then
            ip netns del "$ns" 2>/dev/null || echo "cluster.sh: cannot delete namespace $ns" >&2
        fi
    done
    [[ -n $dir ]] && removed+=("$dir/cluster.env")
    rm -rf "${removed[@]}" "$state"
}

# ---- commands -----------------------------------------------------------------------------------

cmd_up() {
    (($# >= 2)) || usage
    cluster_abs_dir "$1"
    DIR=$ABS_DIR
    local hosts=$2 aliases=0 owner=$PPID rexec=0
    shift 2
    while (($#)); do
        case $1 in
        --aliases) aliases=${2:-} && shift 2 ;;
        --owner) owner=${2:-} && shift 2 ;;
        --sshd-rexec) rexec=1 && shift ;;
        *) die "unknown option for up: $1" ;;
        esac
    done
    [[ $hosts =~ ^[1-9][0-9]*$ ]] && ((hosts <= MAX_HOSTS)) || die "N must be 1..$MAX_HOSTS: $hosts"
    [[ $aliases =~ ^[0-9]+$ ]] && ((aliases <= MAX_ALIASES)) ||
        die "--aliases must be 0..$MAX_ALIASES: $aliases"
    [[ $owner =~ ^[0-9]+$ ]] && alive "$owner" || die "--owner is not a live process: $owner"
    ((EUID == 0)) || die "must run as root (network namespaces, sshd)"
    [[ ! -e $DIR/cluster.env ]] || die "$DIR already holds a cluster; run down first"
    mkdir -p "$DIR" /run/sshd
    chmod 0755 /run/sshd

    # Take a free ID under the lock; the record names the owner and every namespace before any
    # exists, so a crash at any later point leaves something `cleanup-stale` can remove.
    lock_state
    cleanup_stale_locked
    local id first=$((owner % MAX_ID + 1)) i ns pid
    for ((i = 0; i < MAX_ID; i++)); do
        id=$(((first - 1 + i) % MAX_ID + 1))
        compgen -G "/run/netns/cssh$id-*" >/dev/null && continue # not ours to touch
        mkdir "$STATE_ROOT/$id" 2>/dev/null && break
        id=
    done
    [[ -n $id ]] || die "no free cluster ID (see cluster.sh list)"
    local state=$STATE_ROOT/$id
    echo "$owner $(start_time "$owner")" >"$state/owner"
    echo "$DIR" >"$state/dir"
    CLUSTER_ID=$id CLUSTER_NET=$NET_BASE.$id CLUSTER_PREFIX=cssh$id
    CLUSTER_HOSTS=$hosts CLUSTER_ALIASES=$aliases CLUSTER_SSHD_REXEC=$rexec
    {
        for ((i = 1; i <= hosts; i++)); do ns_of "$i"; done
        ns_of client
        ns_of switch
    } >"$state/namespaces"
    printf '%s\n' "CLUSTER_ID=$id" "CLUSTER_NET=$CLUSTER_NET" "CLUSTER_PREFIX=$CLUSTER_PREFIX" \
        "CLUSTER_HOSTS=$hosts" "CLUSTER_ALIASES=$aliases" "CLUSTER_SSHD_REXEC=$rexec" \
        >"$DIR/cluster.env"
    exec 9>&-
    trap 'teardown_id "$CLUSTER_ID"' EXIT

    # Keys and files: each directory made and each old file removed in one call (a program
    # started costs a few ms of CPU in this VM, and every SSH test starts a cluster), the
    # variants of an earlier cluster in DIR (homes/) and its keys.
    local -a keys=("$DIR/home/.ssh/id_ed25519" "$DIR/keys/wrong_ed25519"
        "$DIR/keys/spare_host_ed25519_key") dirs=("$DIR/etc" "$DIR/keys" "$DIR/home/.ssh"
        "$DIR/client")
    for ((i = 1; i <= hosts; i++)); do
        keys+=("$DIR/node$i/ssh_host_ed25519_key")
        dirs+=("$DIR/node$i")
    done
    rm -rf "$DIR/homes" "${keys[@]}" "${keys[@]/%/.pub}"
    mkdir -p "${dirs[@]}"
    echo client >"$DIR/client/hostname"
    printf '%s\n' "$DIR/etc/hosts /etc/hosts none bind 0 0" \
        "$DIR/client/hostname /etc/hostname none bind 0 0" >"$DIR/client/fstab"
    chmod 0700 "$DIR/home" "$DIR/home/.ssh"
    : >"$DIR/empty"
    local -a keygens=()
    keygen "$DIR/home/.ssh/id_ed25519" "client@cluster$id" &
    keygens+=($!)
    keygen "$DIR/keys/wrong_ed25519" "unauthorized@cluster$id" &
    keygens+=($!)
    keygen "$DIR/keys/spare_host_ed25519_key" "spare-host@cluster$id" &
    keygens+=($!)
    for ((i = 1; i <= hosts; i++)); do
        echo "node$i" >"$DIR/node$i/hostname"
        write_fstab "$i"
        keygen "$DIR/node$i/ssh_host_ed25519_key" "node$i@cluster$id" &
        keygens+=($!)
    done
    for pid in "${keygens[@]}"; do
        wait "$pid" || die "ssh-keygen failed"
    done
    cp "$DIR/home/.ssh/id_ed25519.pub" "$DIR/authorized_keys"
    write_hosts
    write_passwd
    write_known_hosts "$DIR/home/.ssh/known_hosts" all ""
    write_ssh_config "$DIR/home/.ssh/config"

    # Network: every interface is created inside our namespaces (`ip -n`), never in the root one.
    local sw client
    sw=$(ns_of switch) client=$(ns_of client)
    while read -r ns; do echo "netns add $ns"; done <"$state/namespaces" | ip -batch -
    {
        echo "link set lo up"
        echo "link add br0 type bridge"
        echo "link set br0 up"
        for ((i = 1; i <= hosts; i++)); do
            echo "link add v$i type veth peer name eth0 netns $(ns_of "$i")"
            echo "link set v$i master br0 up"
        done
        echo "link add vc type veth peer name eth0 netns $client"
        echo "link set vc master br0 up"
    } | ip -n "$sw" -batch -
    for ((i = 1; i <= hosts + 1; i++)); do
        local node=$i octet=$i
        ((i > hosts)) && node=client octet=$CLIENT_OCTET
        printf '%s\n' "link set lo up" "addr add $CLUSTER_NET.$octet/24 dev eth0" \
            "link set eth0 up" | ip -n "$(ns_of "$node")" -batch -
    done

    for ((i = 1; i <= hosts; i++)); do
        write_sshd_config "$i" "$DIR/node$i/ssh_host_ed25519_key"
        launch_sshd "$i"
    done
    for ((i = 1; i <= hosts; i++)); do
        wait_sshd "$i"
    done
    trap - EXIT
}

cmd_down() {
    (($# == 1)) || usage
    local dir
    cluster_abs_dir "$1"
    dir=$ABS_DIR
    [[ -f $dir/cluster.env ]] || return 0 # never up, or already down
    load "$dir"
    local state=$STATE_ROOT/$CLUSTER_ID owner_dir=''
    { read -r owner_dir <"$state/dir"; } 2>/dev/null || true
    if [[ -d $state && $owner_dir != "$DIR" ]]; then
        die "cluster $CLUSTER_ID belongs to $owner_dir, not $DIR"
    fi
    teardown_id "$CLUSTER_ID"
    if [[ -e $DIR/cluster.env ]]; then rm -f "$DIR/cluster.env"; fi
}

cmd_exec() {
    (($# >= 2)) || usage
    load "$1"
    shift
    local home=$DIR/home
    if [[ ${1:-} == --home ]]; then
        cluster_abs_dir "${2:?--home needs a directory}"
        home=$ABS_DIR
        shift 2
    fi
    [[ ${1:-} == -- ]] && shift
    (($#)) || usage
    [[ -d $home ]] || die "no client home $home"
    unset SSH_AUTH_SOCK SSH_AGENT_PID # no agent of the caller leaks into the tests
    export HOME=$home
    exec ip netns exec "$(ns_of client)" unshare --uts --mount --propagation slave -- /bin/sh -c '
        echo client >/proc/sys/kernel/hostname && mount -a -T "$1" && mount --bind "$2" /root || exit 125
        PATH=$3 && shift 3 && exec "$@"' sh "$DIR/client/fstab" "$home" "$CALLER_PATH" "$@"
}

cmd_host_exec() {
    (($# >= 3)) || usage
    load "$1"
    local k
    k=$(host_arg "$2")
    shift 2
    host_command "$k"
    exec "${HOST_CMD[@]}" "$@"
}

cmd_stop_sshd() {
    (($# == 2)) || usage
    load "$1"
    stop_sshd "$(host_arg "$2")"
}

cmd_start_sshd() {
    (($# == 2)) || usage
    load "$1"
    local k
    k=$(host_arg "$2")
    sshd_pid "$k" >/dev/null && return 0
    launch_sshd "$k"
    wait_sshd "$k"
}

cmd_host_key() {
    (($# == 3)) || usage
    load "$1"
    local k key
    k=$(host_arg "$2")
    case $3 in
    own) key=$DIR/node$k/ssh_host_ed25519_key ;;
    spare) key=$DIR/keys/spare_host_ed25519_key ;;
    *) usage ;;
    esac
    stop_sshd "$k"
    write_sshd_config "$k" "$key"
    launch_sshd "$k"
    wait_sshd "$k"
}

cmd_sshd_extra() {
    (($# == 3)) || usage
    load "$1"
    local k
    k=$(host_arg "$2")
    printf '%s\n' "$3" >"$DIR/node$k/sshd_extra"
    stop_sshd "$k"
    write_sshd_config "$k" "$DIR/node$k/ssh_host_ed25519_key"
    launch_sshd "$k"
    wait_sshd "$k"
}

cmd_kill_sessions() {
    (($# == 2 || $# == 3)) || usage
    load "$1"
    local k listener pid signal=${3:-KILL}
    [[ $signal =~ ^(KILL|STOP|CONT)$ ]] || die "bad signal for kill-sessions: $signal"
    k=$(host_arg "$2")
    listener=$(sshd_pid "$k" || true)
    local ns
    ns=$(ns_of "$k")
    for pid in $(ns_pids "$ns"); do
        if [[ $pid != "$listener" && $(readlink "/proc/$pid/exe" 2>/dev/null) == "$SSHD" ]] &&
            pid_in_ns "$pid" "$ns"; then
            kill "-$signal" "$pid" 2>/dev/null || true
        fi
    done
}

cmd_link() {
    (($# == 3)) || usage
    load "$1"
    local k
    k=$(host_arg "$2")
    [[ $3 == up || $3 == down ]] || usage
    # The switch side of the cable: the host keeps its address and its sockets.
    ip -n "$(ns_of switch)" link set "v$k" "$3"
}

cmd_pids() {
    (($# == 2)) || usage
    load "$1"
    local ns
    if [[ $2 == client ]]; then ns=$(ns_of client); else ns=$(ns_of "$(host_arg "$2")"); fi
    ns_pids "$ns"
}

cmd_home() {
    (($# >= 2)) || usage
    load "$1"
    local name=$2 key=authorized known=all changed=
    shift 2
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "bad home name: $name"
    while (($#)); do
        case $1 in
        --key) key=${2:-} && shift 2 ;;
        --known) known=${2:-} && shift 2 ;;
        --changed) changed=${2:-} && shift 2 ;;
        *) die "unknown option for home: $1" ;;
        esac
    done
    [[ $known =~ ^(all|none|[0-9]+(,[0-9]+)*)$ ]] || die "bad --known: $known"
    [[ $changed =~ ^([0-9]+(,[0-9]+)*)?$ ]] || die "bad --changed: $changed"
    [[ $known == none ]] && known=
    local k
    for k in ${known//,/ } ${changed//,/ }; do
        [[ $k == all ]] || host_arg "$k" >/dev/null
    done
    local home=$DIR/homes/$name
    [[ ! -e $home ]] || die "home $name exists already"
    mkdir -p "$home/.ssh"
    chmod 0700 "$home" "$home/.ssh"
    cp "$DIR/home/.ssh/config" "$home/.ssh/config"
    case $key in
    authorized) cp "$DIR/home/.ssh/id_ed25519" "$DIR/home/.ssh/id_ed25519.pub" "$home/.ssh/" ;;
    wrong)
        cp "$DIR/keys/wrong_ed25519" "$home/.ssh/id_ed25519"
        cp "$DIR/keys/wrong_ed25519.pub" "$home/.ssh/id_ed25519.pub"
        ;;
    none) ;;
    *) die "bad --key: $key" ;;
    esac
    write_known_hosts "$home/.ssh/known_hosts" "$known" "$changed"
    echo "$home"
}

cmd_list() {
    local state
    for state in "$STATE_ROOT"/*/; do
        [[ -d $state ]] || continue
        state=${state%/}
        printf '%s owner=%s %s dir=%s\n' "${state##*/}" "$(cut -d' ' -f1 "$state/owner")" \
            "$(owner_alive "$state" && echo live || echo stale)" "$(cat "$state/dir")"
    done
}

cmd_cleanup_stale() {
    [[ -d $STATE_ROOT ]] || return 0 # no cluster was ever up here
    lock_state
    cleanup_stale_locked
}

(($#)) || usage
command=$1
shift
case $command in
up) cmd_up "$@" ;;
down) cmd_down "$@" ;;
exec) cmd_exec "$@" ;;
host-exec) cmd_host_exec "$@" ;;
stop-sshd) cmd_stop_sshd "$@" ;;
start-sshd) cmd_start_sshd "$@" ;;
host-key) cmd_host_key "$@" ;;
kill-sessions) cmd_kill_sessions "$@" ;;
sshd-extra) cmd_sshd_extra "$@" ;;
link) cmd_link "$@" ;;
pids) cmd_pids "$@" ;;
home) cmd_home "$@" ;;
list) cmd_list ;;
cleanup-stale) cmd_cleanup_stale ;;
help | -h | --help) usage ;;
*) die "unknown command: $command (see cluster.sh help)" ;;
esac
