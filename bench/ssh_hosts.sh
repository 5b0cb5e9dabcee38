# Sourced by the SSH benchmarks (fanout.sh, cluster_check.sh): checks what they need and brings
# up the SSH test hosts of tests/e2e/ssh/cluster.sh with as many ssh-config aliases as the
# largest size, torn down on exit. Their sshd re-executes itself for each connection, as a
# production sshd does (--sshd-rexec; the tests' sshd does not, to save CPU).
# Usage: bench_ssh_hosts NAME TOOL...   (needs $binary, $sizes and $here; sets $tmp, $cluster)
bench_ssh_hosts() {
    local name=$1
    shift
    [[ -x $binary ]] || { echo "$name: no executable $binary (build first)" >&2; exit 1; }
    ((EUID == 0)) || { echo "$name: must run as root (network namespaces, sshd)" >&2; exit 1; }
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
            { echo "$name: $tool not found (.ci/install-deps test bench)" >&2; exit 1; }
    done
    local largest=0 n
    for n in $sizes; do ((n > largest)) && largest=$n; done

    tmp=$(mktemp -d "${TMPDIR:-/tmp}/colossalai-${name%.sh}-XXXXXX")
    chmod 755 "$tmp"
    cluster="$here/../tests/e2e/ssh/cluster.sh"
    trap '"$cluster" down "$tmp/cluster" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
    "$cluster" up "$tmp/cluster" 1 --aliases "$largest" --owner $$ --sshd-rexec >/dev/null
}
