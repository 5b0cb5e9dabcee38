#!/usr/bin/env bash
# The launcher's own overhead: `colossalai run --nproc_per_node 1 x.py` against calling the same
# fake torchrun directly with the words the launcher gives it. Median of RUNS runs each (default
# 50), no shell in between, after warm-up runs (the first run of the launcher fills its Python
# search-path cache under $XDG_CACHE_HOME, a temporary directory here).
#
# Usage: bench/run_overhead.sh [path/to/colossalai]     (default: build/colossalai)
# The environment is minimal and the same for both commands: a venv first on PATH (its
# python3 is an ELF binary, so its search path may be cached; a torch/version.py of 2.1.0 makes
# the launcher choose the torchrun form), then the fake torchrun (`#!/bin/sh`, `exit 0`).
set -euo pipefail

binary=$(realpath "${1:-build/colossalai}")
runs=${RUNS:-50}
[[ -x $binary ]] || { echo "run_overhead.sh: no executable $binary (build first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colossalai-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv --without-pip "$tmp/venv"
site=$(echo "$tmp"/venv/lib/python3*/site-packages)
mkdir -p "$site/torch" "$tmp/bin" "$tmp/job" "$tmp/cache"
: >"$tmp/job/x.py" # every node reads the script before it starts
printf "__version__ = '2.1.0'\ncuda = None\n" >"$site/torch/version.py"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/torchrun"
chmod +x "$tmp/bin/torchrun"

environment=(env -i "PATH=$tmp/venv/bin:$tmp/bin:/usr/bin:/bin" "XDG_CACHE_HOME=$tmp/cache")
direct="--nproc_per_node=1 --nnodes=1 --node_rank=0 --master_addr=127.0.0.1 --master_port=29500 x.py"

cd "$tmp/job"
# The launcher must run the very command measured directly, and succeed.
plan=$("${environment[@]}" "$binary" run --dry-run --nproc_per_node 1 x.py | tail -n 1)
[[ $plan == "    torchrun $direct" ]] ||
    { echo "run_overhead.sh: unexpected plan: $plan" >&2; exit 1; }
"${environment[@]}" "$binary" run --nproc_per_node 1 x.py 2>/dev/null
[[ -n $(ls -A "$tmp/cache") ]] || { echo "run_overhead.sh: the search path was not cached" >&2; exit 1; }

# Interleaved runs (one of each command per round) rather than hyperfine's one command after the
# other: on a shared machine the load drifts, and it must not favour one side. Every run must
# succeed. Besides the two measured commands, three give context: what starting any process
# costs here (/bin/true), the launcher's process start alone (`--help`: loading the binary and
# its libraries; not `--version`, which loads libssh to print its version) and its planning
# without launching (`--dry-run`).
"${environment[@]}" /usr/bin/python3 - "$runs" "$binary" "$tmp/bin/torchrun $direct" <<'EOF'
import os, statistics, subprocess, sys, time

runs, binary, direct = int(sys.argv[1]), sys.argv[2], sys.argv[3].split()
commands = {
    "torchrun directly": direct,
    "colossalai run": [binary, "run", "--nproc_per_node", "1", "x.py"],
    "  /bin/true": ["/bin/true"],
    "  colossalai --help": [binary, "--help"],
    "  colossalai run --dry-run": [binary, "run", "--dry-run", "--nproc_per_node", "1", "x.py"],
}
times = {name: [] for name in commands}
for round in range(5 + runs):  # 5 warm-up rounds
    for name, argv in commands.items():
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        if round >= 5:
            times[name].append((time.perf_counter() - start) * 1000)

print(f"runs: {runs} of each, interleaved, after 5 warm-up rounds; load average "
      f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
print(f"{'':28}{'median':>10}{'mean':>10}{'stddev':>10}{'min':>10}")
for name, values in times.items():
    row = (statistics.median(values), statistics.mean(values), statistics.stdev(values),
           min(values))
    print(f"{name:28}" + "".join(f"{value:8.2f}ms" for value in row))
difference = statistics.median(times["colossalai run"]) - statistics.median(times["torchrun directly"])
print(f"{'launcher overhead':28}{difference:8.2f}ms (difference of the medians; target <= 5 ms)")
EOF
