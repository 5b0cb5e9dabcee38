#!/usr/bin/env bash
# Cluster check: wall time of `colossalai check -i --hostfile` on N hosts against what it should
# cost — the time of the slowest node plus connection set-up. Measured in the same run,
# interleaved, on the SSH test hosts of tests/e2e/ssh/cluster.sh (N ssh-config aliases a001..aN of
# one host whose sshd accepts them all):
#   check 1     `colossalai check -i --host a001`: one node's check (its set-up and node program);
#   check N     the same on the N aliases;
#   pdsh N      `pdsh -R ssh -f N -w ^hosts true`: connection set-up of N hosts by a peer, with
#               nothing run.
# The ratio `check N / (check 1 + pdsh N)` says how far the check is from "slowest node plus
# set-up" (1.0: exactly that; every node runs the same program, so check 1 stands for the slowest).
# The server side (N sshd forks, key exchanges, N runs of the node program) shares the machine's
# CPUs with the client, as for bench/fanout.sh. The interpreter is a `sh` script answering with
# a fake site-packages (the e2e test's), so no real Python start is measured.
#
# Usage: bench/cluster_check.sh [path/to/colossalai]     (as root; default build/colossalai)
# Environment: SIZES (default "64"), RUNS per size and tool (default 5, after one warm-up round).
# Needs: pdsh, openssh-client, openssh-server, iproute2 (`.ci/install-deps test bench`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
binary=$(realpath "${1:-build/colossalai}")
sizes=${SIZES:-64}
runs=${RUNS:-5}
# shellcheck source=bench/ssh_hosts.sh
. "$here/ssh_hosts.sh"
bench_ssh_hosts cluster_check.sh pdsh ssh sshd ip

# The nodes' interpreter: answers the check's sys.path query with one site-packages directory
# holding a torch 2.1.0 (the same answer on every node: one configuration).
mkdir -p "$tmp/site-packages/torch"
printf "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n" >"$tmp/site-packages/torch/version.py"
: >"$tmp/site-packages/torch/__init__.py"
printf '#!/bin/sh\nprintf '"'"'3.11.7\\0%%s\\0\\0%%s'"'"' "$0" "%s"\n' "$tmp/site-packages" \
    >"$tmp/python3"
chmod 755 "$tmp/python3"
for n in $sizes; do
    for ((i = 1; i <= n; i++)); do printf 'a%03d\n' "$i"; done >"$tmp/hosts_$n"
done

"$cluster" exec "$tmp/cluster" -- env -i "PATH=/usr/bin:/bin" "HOME=$tmp/cluster/home" \
    LANG=C.UTF-8 /usr/bin/python3 - "$binary" "$tmp" "$runs" $sizes <<'EOF'
import statistics, subprocess, sys, time

binary, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
sizes = [int(n) for n in sys.argv[4:]]
check = [binary, "check", "-i", "--python", f"{tmp}/python3", "--ssh-timeout", "30"]

def measure(name, argv, n):
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = (time.perf_counter() - start) * 1000
    # A check exits 0 or 1 (an x in a fake environment); 2 and 255 mean a node was not checked.
    ok = done.returncode == 0 if name == "pdsh" else (
        done.returncode in (0, 1) and f"Checked: {n} of {n}".encode() in done.stdout or n == 1)
    if not ok:
        sys.exit(f"cluster_check.sh: {name} on {n} hosts: exit {done.returncode}\n"
                 + done.stdout.decode(errors="replace")[-1500:]
                 + done.stderr.decode(errors="replace")[-1500:])
    return wall

print(f"median wall time (ms) over {runs} runs after one warm-up round; "
      "ratio = check N / (check 1 + pdsh N)")
print(f"{'N':>4}{'check 1':>10}{'check N':>10}{'pdsh N':>10}{'ratio':>8}")
for n in sizes:
    argvs = {"check 1": check + ["--host", "a001"],
             "check N": check + ["--hostfile", f"{tmp}/hosts_{n}"],
             "pdsh": ["pdsh", "-S", "-R", "ssh", "-f", str(n), "-w", f"^{tmp}/hosts_{n}", "true"]}
    walls = {name: [] for name in argvs}
    for round in range(runs + 1):
        for name, argv in argvs.items():
            wall = measure(name, argv, 1 if name == "check 1" else n)
            if round:
                walls[name].append(wall)
    median = {name: statistics.median(values) for name, values in walls.items()}
    ratio = median["check N"] / (median["check 1"] + median["pdsh"])
    print(f"{n:>4}{median['check 1']:>10.0f}{median['check N']:>10.0f}{median['pdsh']:>10.0f}"
          f"{ratio:>8.2f}", flush=True)
EOF
