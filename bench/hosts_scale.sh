#!/usr/bin/env bash
# Planning at scale: `colossalai run --dry-run` over a hostfile of 100,000 hosts, and the same
# with `--exclude` naming 99,998 of them (issue 25: linear in the number of hosts; targets
# 1 s and 100 MiB on the 2-core machine). Prints each case's wall time, CPU time and peak RSS
# (GNU time). The dry run's text (some 16 MB) goes to /dev/null: it measures planning and
# rendering, not the terminal; a second, unmeasured run checks the node count it planned.
#
# Usage: bench/hosts_scale.sh [path/to/colossalai]     (default: build/colossalai)
# HOSTS=N changes the number of hosts (default 100000). The environment is minimal (PATH, HOME
# and a fake torchrun): no ssh config of the user's, no PyTorch, the same on every run.
#
# The names (n000001...) are looked up to tell whether one is this machine (docs/run.md, "Local
# hosts"), bounded by 1 s for all of them together: where they do not resolve and DNS does not
# answer, that bound is part of the wall time (CPU time shows the launcher's own work). The
# third case uses numeric addresses (IPv6 `1::1`..., the shortest that keep the file under the
# hostfile limit of 1 MiB), which need no lookup. Every case runs in a network namespace of its
# own with nothing but a loopback that is down (`unshare --net`, as root): the 100,000 lookups
# never leave the machine, and fail at once instead of waiting for a resolver.
set -euo pipefail

binary=$(realpath "${1:-build/colossalai}")
count=${HOSTS:-100000}
[[ -x $binary ]] || { echo "hosts_scale.sh: no executable $binary (build first)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "hosts_scale.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colossalai-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/home" "$tmp/job"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/torchrun"
chmod +x "$tmp/bin/torchrun"
seq -f 'n%06g' 1 "$count" >"$tmp/hosts"
seq 1 "$count" | awk '{ printf "1::%x:%x\n", int($1 / 65536), $1 % 65536 }' >"$tmp/addresses"
last=$(printf 'n%06g' "$count")

environment=(unshare --net env -i "PATH=$tmp/bin:/usr/bin:/bin" "HOME=$tmp/home")
cd "$tmp/job"

measure() { # NAME EXPECTED_NODES ARGS...
    local name=$1 expected=$2
    shift 2
    local command=("${environment[@]}" "$binary" run --dry-run "$@" --nproc_per_node 1 x.py)
    # Measured with the text to /dev/null; then once more to check that it planned them all.
    /usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "${command[@]}" >/dev/null 2>"$tmp/err" ||
        { echo "hosts_scale.sh: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    local first
    first=$("${command[@]}" 2>/dev/null | head -n 1 || true) # head stops it: SIGPIPE
    [[ $first == "dry run: $expected node"* ]] ||
        { echo "hosts_scale.sh: $name: unexpected plan: $first" >&2; exit 1; }
    read -r wall user system rss <"$tmp/time"
    awk -v name="$name" -v wall="$wall" -v user="$user" -v sys="$system" -v rss="$rss" \
        'BEGIN { printf "%-44s %6.2f s wall %6.2f s CPU %7.1f MiB peak RSS\n",
                        name, wall, user + sys, rss / 1024 }'
}

echo "hosts: $count; load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs"
measure "--dry-run --hostfile (names)" "$count" --hostfile "$tmp/hosts"
measure "--dry-run --hostfile (IPv6 addresses)" "$count" --hostfile "$tmp/addresses"
if ((count > 2)); then
    measure "--exclude 'n[000003-${last#n}]' (names)" 2 --hostfile "$tmp/hosts" \
        --exclude "n[000003-${last#n}]"
fi
