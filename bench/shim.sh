#!/usr/bin/env bash
# A pyenv shim first on PATH against the real interpreter, side by side in one run:
#   `check -i` (shim on PATH)      vs `check -i --python <real interpreter>`   target: <= 10 ms more
#   `run --dry-run` (shim on PATH) vs `run --dry-run` with the interpreter's bin first on PATH
#                                                                              target: <= 2 ms more
# plus, for context, what one call of the shim itself costs (`python3 -c pass` through the shim,
# which is what both commands paid before the shim was resolved natively).
#
# Usage: bench/shim.sh [path/to/colossalai]     (default: build/colossalai; RUNS=30 rounds)
#
# The pyenv root is made here: versions/3.11.7 is a venv of /usr/bin/python3 (--without-pip)
# holding torch and colossalai as files, selected by a .python-version in the job directory;
# shims/python3 is pyenv-rehash's template. When pyenv is installed (`pyenv` on PATH or
# ~/.pyenv/libexec/pyenv) the shim runs it, as a real shim does; otherwise the shim is a bash
# script that execs the interpreter (a lower bound of what a shim costs). Commands run
# interleaved, one of each per round in a shuffled order, after 3 warm-up rounds (run's search-path cache is filled
# then), so a load drifting on a shared machine does not favour one side.
set -euo pipefail

binary=$(realpath "${1:-build/colossalai}")
runs=${RUNS:-30}
[[ -x $binary ]] || { echo "shim.sh: no executable $binary (build first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colossalai-bench-shim-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/pyenv
mkdir -p "$root/versions" "$root/shims" "$tmp/job" "$tmp/cache" "$tmp/bin"
/usr/bin/python3 -m venv --without-pip "$root/versions/3.11.7"
site=$(echo "$root"/versions/3.11.7/lib/python3*/site-packages)
mkdir -p "$site/torch" "$site/colossalai"
: >"$site/torch/__init__.py"
printf "__version__ = '2.1.0'\ncuda = None\n" >"$site/torch/version.py"
: >"$site/colossalai/__init__.py"
printf "__version__ = '0.3.6'\n" >"$site/colossalai/version.py"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/torchrun"
chmod +x "$tmp/bin/torchrun"
echo 3.11.7 >"$tmp/job/.python-version"

pyenv=$(command -v pyenv 2>/dev/null || true)
[[ -n $pyenv ]] || pyenv=$HOME/.pyenv/libexec/pyenv
if [[ -x $pyenv ]]; then
    pyenv=$(realpath "$pyenv")
    pyenv=${pyenv%/bin/pyenv}
    pyenv=${pyenv%/libexec/pyenv}/libexec/pyenv
    shim_kind="pyenv $("$pyenv" --version 2>/dev/null | cut -d' ' -f2)"
    run_line="exec \"$pyenv\" exec \"\$program\" \"\$@\""
else
    shim_kind="no pyenv installed: a bash script in pyenv's layout"
    run_line="exec \"$root/versions/3.11.7/bin/\$program\" \"\$@\""
fi
cat >"$root/shims/python3" <<EOF
#!/usr/bin/env bash
set -e
[ -n "\$PYENV_DEBUG" ] && set -x

program="\${0##*/}"

export PYENV_ROOT="$root"
$run_line
EOF
chmod +x "$root/shims/python3"

real=$root/versions/3.11.7/bin/python3
base="$tmp/bin:/usr/local/bin:/usr/bin:/bin"
shim_env=(env -i "PATH=$root/shims:$base" "HOME=$tmp" "XDG_CACHE_HOME=$tmp/cache"
          "COLOSSALAI_CUDA_DEFAULT_HOME=$tmp/no-cuda")
real_env=(env -i "PATH=$root/versions/3.11.7/bin:$base" "HOME=$tmp" "XDG_CACHE_HOME=$tmp/cache"
          "COLOSSALAI_CUDA_DEFAULT_HOME=$tmp/no-cuda")

cd "$tmp/job"
# Both sides must see the same interpreter, and the shim must not run.
shim_python=$("${shim_env[@]}" "$binary" check -i | grep '^Python:' || true)
[[ $shim_python == "Python: $real ("* ]] ||
    { echo "shim.sh: check -i did not resolve the shim: $shim_python" >&2; exit 1; }
plan_shim=$("${shim_env[@]}" "$binary" run --dry-run --nproc_per_node 1 x.py)
plan_real=$("${real_env[@]}" "$binary" run --dry-run --nproc_per_node 1 x.py)
[[ $plan_shim == "$plan_real" && $plan_shim == *"PyTorch 2.1.0"* ]] ||
    { echo "shim.sh: the plans differ: $plan_shim / $plan_real" >&2; exit 1; }

"${shim_env[@]}" /usr/bin/python3 - "$runs" "$binary" "$real" "$root/shims/python3" \
    "$shim_kind" "$root/versions/3.11.7/bin:$base" <<'EOF'
import os, random, resource, statistics, subprocess, sys, time

runs, binary, real, shim, kind, real_path = sys.argv[1:7]
runs = int(runs)
shim_env = dict(os.environ)
real_env = dict(os.environ, PATH=real_path)
dry = [binary, "run", "--dry-run", "--nproc_per_node", "1", "x.py"]
commands = {
    "check -i (shim first on PATH)": ([binary, "check", "-i"], shim_env),
    "check -i --python <real>": ([binary, "check", "-i", "--python", real], shim_env),
    "run --dry-run (shim first on PATH)": (dry, shim_env),
    "run --dry-run (real first on PATH)": (dry, real_env),
    "  python3 -c pass via the shim": ([shim, "-c", "pass"], shim_env),
    "  python3 -c pass (real)": ([real, "-c", "pass"], shim_env),
}
def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

# Wall time, and the CPU time (user + system) of the command and its children: on a loaded
# machine the wall time mostly measures the queue for a CPU, the CPU time what the command costs.
times = {name: [] for name in commands}
cpu_times = {name: [] for name in commands}
order = list(commands)
shuffle = random.Random(14).shuffle
for round in range(3 + runs):  # 3 warm-up rounds
    shuffle(order)  # each round in another order: no command always follows the same one
    for name in order:
        argv, env = commands[name]
        start, start_cpu = time.perf_counter(), cpu()
        # check exits 1 when something is incompatible (no GPU here): only the time counts.
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if round >= 3:
            times[name].append((time.perf_counter() - start) * 1000)
            cpu_times[name].append((cpu() - start_cpu) * 1000)

print(f"shim: {kind}; {runs} runs of each, interleaved, after 3 warm-up rounds; "
      f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
print(f"{'':38}{'median':>10}{'mean':>10}{'stddev':>10}{'min':>10}{'CPU med':>10}")
for name, values in times.items():
    row = (statistics.median(values), statistics.mean(values), statistics.stdev(values),
           min(values), statistics.median(cpu_times[name]))
    print(f"{name:38}" + "".join(f"{value:8.2f}ms" for value in row))
median = {name: statistics.median(values) for name, values in times.items()}
check = median["check -i (shim first on PATH)"] - median["check -i --python <real>"]
dry = median["run --dry-run (shim first on PATH)"] - median["run --dry-run (real first on PATH)"]
print(f"{'check -i: shim - real':38}{check:8.2f}ms (difference of the medians; target <= 10 ms)")
print(f"{'run --dry-run: shim - real':38}{dry:8.2f}ms (difference of the medians; target <= 2 ms)")
for label, table in (("minima", {n: min(v) for n, v in times.items()}),
                     ("CPU-time medians", {n: statistics.median(v) for n, v in cpu_times.items()})):
    print(f"{'  same, difference of the ' + label:38}"
          f"{table['check -i (shim first on PATH)'] - table['check -i --python <real>']:8.2f}ms / "
          f"{table['run --dry-run (shim first on PATH)'] - table['run --dry-run (real first on PATH)']:.2f}ms")
sys.exit(0 if check <= 10 and dry <= 2 else 1)
EOF
