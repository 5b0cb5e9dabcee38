#!/usr/bin/env bash
# Fan-out: wall time and peak RSS to start a trivial command on N hosts, for `colossalai run`,
# `pdsh -R ssh -f N` and a parallel `ssh` loop (`ssh -n -o KexAlgorithms=curve25519-sha256 host cmd &`
# per host, then `wait`: the key exchange the launcher's libssh uses), all in
# the same run, interleaved, on the SSH test hosts of tests/e2e/ssh/cluster.sh: N ssh-config
# aliases a001..aN of one host whose sshd accepts them all (MaxStartups 2048). The three tools
# pay the same server side (one sshd fork, key exchange and session per host); what differs is the
# client. Each host runs the same fake torchrun (`echo started`); a run counts only when it
# exits 0 and all N hosts printed their line.
#
# Usage: bench/fanout.sh [path/to/colossalai]     (as root; default build/colossalai)
# Environment: SIZES (default "1 8 32 64 128 256 512 1024"), RUNS per size and tool (default 7)
# up to 128 hosts, RUNS_LARGE above (default 1, and no warm-up round: the smaller sizes warmed
# up), LOOP_MAX (default 256): the plain loop runs only up to that size (it starts N ssh
# processes at once; at 512 on 2 CPUs a quarter of their sessions failed), PLOT=file.png to draw
# wall times with gnuplot, DATA=file to keep the table, BASELINE=path/to/another/colossalai to run
# another build as a fourth tool, `baseline`, interleaved with the others (before and after a
# change), VARIANT="--an-option ..." to run this build with those options as a tool of its own,
# `variant` (an option's cost: VARIANT=--no-rendezvous-check), TOOLS="colossalai variant" to run
# only those tools (words of: colossalai pdsh loop baseline variant; default all). A run of pdsh or the loop that misses hosts (or a loop not run) is shown as `nan`, and
# said on stderr; one of colossalai stops the script.
# Each tool's `client ms/h`: the CPU time (user + system) of the tool's own process and the
# children it waited for (GNU time: for the launcher, the launcher alone; for pdsh and the loop,
# their ssh processes too), per host, median.
# Each tool's `CPU s` is the CPU time the whole machine used during its run (/proc/stat: the
# client, the test host's sshd and all that its sessions start, the kernel), median over the runs:
# the three share 2 CPUs with the server side, so this is what their wall times are made of.
# `procs/h`: the processes the whole machine created per host during a run (/proc/stat's
# `processes`: every fork, of the client, sshd and what each session starts), median.
# For colossalai it also samples the launcher's descriptors and threads (/proc, every 5 ms) and
# prints the launcher's own per-phase timing (COLOSSALAI_TIMING=1) of its last run at the
# largest size. 1024 hosts take minutes and most of 2 CPUs: the three tools start 1024 sshd
# sessions each, pdsh and the loop 1024 ssh processes too.
# Needs: pdsh, time, openssh-client, openssh-server, iproute2 (`.ci/install-deps test bench`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
binary=$(realpath "${1:-build/colossalai}")
sizes=${SIZES:-1 8 32 64 128 256 512 1024}
runs=${RUNS:-7}
runs_large=${RUNS_LARGE:-1}
loop_max=${LOOP_MAX:-256}
baseline=${BASELINE:+$(realpath "$BASELINE")}
# shellcheck source=bench/ssh_hosts.sh
. "$here/ssh_hosts.sh"
bench_ssh_hosts fanout.sh pdsh ssh sshd ip /usr/bin/time

# The job: a venv whose torch says 2.1.0 (the launcher picks the torchrun form without importing
# anything) and a fake torchrun that every host finds through the exported PATH.
/usr/bin/python3 -m venv --without-pip "$tmp/venv"
site=$(echo "$tmp"/venv/lib/python3*/site-packages)
mkdir -p "$site/torch" "$tmp/bin" "$tmp/job"
: >"$tmp/job/x.py" # every node reads the script before it starts
printf "__version__ = '2.1.0'\ncuda = None\n" >"$site/torch/version.py"
printf '#!/bin/sh\necho started\n' >"$tmp/bin/torchrun"
chmod +x "$tmp/bin/torchrun"
for n in $sizes; do
    for ((i = 1; i <= n; i++)); do printf 'a%03d\n' "$i"; done >"$tmp/hosts_$n"
done

# The measuring loop runs inside the client namespace. GNU time reports each tool's peak RSS
# (ru_maxrss, taken by a small parent, so no Python pages count): the largest of the process and
# the children it waited for — for pdsh and the loop, one ssh process; they run N of them at once.
"$cluster" exec "$tmp/cluster" -- env -i "PATH=$tmp/venv/bin:$tmp/bin:/usr/bin:/bin" \
    "HOME=$tmp/cluster/home" LANG=C.UTF-8 XDG_CACHE_HOME="$tmp/cache" \
    COLOSSALAI_TIMING=1 \
    /usr/bin/python3 - "$binary" "$tmp" "$runs" "${DATA:-$tmp/fanout.dat}" "$runs_large" \
    "$loop_max" "$baseline" "${VARIANT:-}" "${TOOLS:-}" $sizes <<'EOF'
import math, os, statistics, subprocess, sys, threading, time

binary, tmp, runs, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
runs_large, loop_max, baseline = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
variant, tools = sys.argv[8].split(), sys.argv[9].replace("loop", "ssh loop").split(" ")
sizes = [int(n) for n in sys.argv[10:]]
# ssh does not carry PATH over as the launcher does: the full path of the same fake torchrun.
remote = f"cd {tmp}/job && exec {tmp}/bin/torchrun --nproc_per_node=1 x.py"
os.chdir(f"{tmp}/job")

def commands(n):
    hosts = f"{tmp}/hosts_{n}"
    launch = ["run", "--hostfile", hosts, "--nproc_per_node", "1", "x.py"]
    every = {
        "colossalai": [binary] + launch,
        "pdsh": ["pdsh", "-S", "-R", "ssh", "-f", str(n), "-w", "^" + hosts, remote],
        # The key exchange libssh gives the launcher: OpenSSH's default (sntrup761x25519) costs
        # both sides much more, which would flatter the launcher.
        "ssh loop": ["bash", "-c", 'while read -r h; do ssh -n -o BatchMode=yes '
                     '-o KexAlgorithms=curve25519-sha256 "$h" "$1" & done <"$0"; wait', hosts, remote],
        # Another build beside it (BASELINE), in the same run: before and after a change.
        **({"baseline": [baseline] + launch} if baseline else {}),
        # This build with VARIANT's options (before the script).
        **({"variant": [binary] + launch[:-1] + variant + launch[-1:]} if variant else {}),
    }
    return {name: argv for name, argv in every.items() if name in tools or tools == [""]}

# Each tool's title in the plot.
titles = {"colossalai": "colossalai run", "pdsh": "pdsh -R ssh -f N",
          "ssh loop": "ssh loop, curve25519 (N ssh processes)", "baseline": "baseline",
          "variant": "colossalai run " + " ".join(variant)}

def sample(pid, peak, done):
    """Peak descriptors and threads of the process under /usr/bin/time `pid`."""
    while not done.is_set():
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                child = children.read().split()
            if child:
                fds = len(os.listdir(f"/proc/{child[0]}/fd"))
                with open(f"/proc/{child[0]}/status") as status:
                    threads = int(next(l for l in status if l.startswith("Threads:")).split()[1])
                peak[0], peak[1] = max(peak[0], fds), max(peak[1], threads)
        except (OSError, StopIteration, ValueError):
            pass
        time.sleep(0.005)

last_stderr = b""

def machine_counters():
    """CPU seconds the whole machine has used (every process, both ends of every connection) and
    the processes it has created (forks and clones), since it booted."""
    with open("/proc/stat") as stat:
        lines = stat.read().splitlines()
    fields = [int(value) for value in lines[0].split()[1:9]]
    busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
    forks = next(int(line.split()[1]) for line in lines if line.startswith("processes "))
    return busy / os.sysconf("SC_CLK_TCK"), forks

def measure(argv, n):
    global last_stderr
    peak, done = [0, 0], threading.Event()
    cpu_before, forks_before = machine_counters()
    start = time.perf_counter()
    child = subprocess.Popen(["/usr/bin/time", "-f", "%M %U %S", "-o", f"{tmp}/maxrss", "--"] + argv,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sampler = threading.Thread(target=sample, args=(child.pid, peak, done))
    if argv[0] == binary:
        sampler.start()
    out, err = child.communicate()
    wall = (time.perf_counter() - start) * 1000
    cpu_after, forks_after = machine_counters()
    cpu, forks = cpu_after - cpu_before, (forks_after - forks_before) / n
    done.set()
    if sampler.is_alive():
        sampler.join()
    if argv[0] == binary:
        last_stderr = err
    started = out.count(b"started\n")
    if child.returncode != 0 or started != n:
        message = (f"fanout.sh: {argv[0]} on {n} hosts: exit {child.returncode}, "
                   f"{started} of {n} hosts started\n" + err.decode(errors="replace")[-2000:])
        if argv[0] == binary:
            sys.exit(message)
        print(message, file=sys.stderr, flush=True)
        return math.nan, math.nan, peak, math.nan, math.nan, math.nan
    with open(f"{tmp}/maxrss") as maxrss:
        kib, user, system = maxrss.read().split()[-3:]
    return wall, int(kib) / 1024, peak, cpu, forks, (float(user) + float(system)) * 1000 / n

def combined(values, how):
    """how(values) (the median, the largest), or nan when a run of them failed."""
    return math.nan if any(map(math.isnan, values)) else how(values)

names = list(commands(1))
rows = []
header = (f"{'N':>4} " + "".join(f"{name + ' ms':>15}" for name in names) +
          f"{'c/pdsh':>8}{'c/loop':>8}" + "".join(f"{name + ' MiB':>16}" for name in names) +
          f"{'c fds':>7}{'c thr':>7}" + "".join(f"{name + ' CPU s':>17}" for name in names) +
          "".join(f"{name + ' procs/h':>19}" for name in names) +
          "".join(f"{name + ' client ms/h':>23}" for name in names))
print(f"median wall time and peak RSS (largest process) over {runs} runs per tool and size "
      f"(above 128 hosts: {runs_large}, no warm-up round); c fds / c thr: the launcher's peak "
      "descriptors and threads; CPU s: the median CPU time the whole machine used per run (client "
      "and server sides)")
print(header)
for n in sizes:
    argvs = commands(n)
    walls = {name: [] for name in names}
    rss = {name: [] for name in names}
    cpus = {name: [] for name in names}
    forks = {name: [] for name in names}
    clients = {name: [] for name in names}
    limits = [0, 0]
    large = n > 128
    for round in range(int(large), 1 + (runs_large if large else runs)):  # round 0 warms up
        for name in names:
            if name == "ssh loop" and n > loop_max:
                wall, peak, fds_threads, cpu, procs, client = (math.nan, math.nan, [0, 0],
                                                               math.nan, math.nan, math.nan)
            else:
                wall, peak, fds_threads, cpu, procs, client = measure(argvs[name], n)
            limits = [max(a, b) for a, b in zip(limits, fds_threads)]
            if round:
                walls[name].append(wall)
                rss[name].append(peak)
                cpus[name].append(cpu)
                forks[name].append(procs)
                clients[name].append(client)
    wall = {name: combined(walls[name], statistics.median) for name in names}
    peak = {name: combined(rss[name], max) for name in names}
    cpu = {name: combined(cpus[name], statistics.median) for name in names}
    fork = {name: combined(forks[name], statistics.median) for name in names}
    client = {name: combined(clients[name], statistics.median) for name in names}
    rows.append((n, wall, peak))
    print(f"{n:>4} " + "".join(f"{wall[name]:>15.1f}" for name in names) +
          f"{wall['colossalai'] / wall.get('pdsh', math.nan):>8.2f}"
          f"{wall['colossalai'] / wall.get('ssh loop', math.nan):>8.2f}" +
          "".join(f"{peak[name]:>16.1f}" for name in names) + f"{limits[0]:>7}{limits[1]:>7}" +
          "".join(f"{cpu[name]:>17.2f}" for name in names) +
          "".join(f"{fork[name]:>19.1f}" for name in names) +
          "".join(f"{client[name]:>23.2f}" for name in names),
          flush=True)
print(f"the launcher's own timing, last run at {sizes[-1]} hosts (COLOSSALAI_TIMING=1):")
sys.stdout.write("".join(line + "\n" for line in last_stderr.decode(errors="replace").splitlines()
                         if line.startswith(("colossalai: timing", "  ", "colossalai: peak"))))
with open(data, "w") as out:
    out.write("# N " + " ".join(f'"{name} ms"' for name in names) +
              " " + " ".join(f'"{name} MiB"' for name in names) + "\n")
    for n, wall, peak in rows:
        out.write(f"{n} " + " ".join(f"{wall[name]:.1f}" for name in names) + " " +
                  " ".join(f"{peak[name]:.1f}" for name in names) + "\n")
# The plot's lines: each tool's wall time, the columns above in order.
with open(f"{tmp}/plot.gp", "w") as plot:
    plot.write("plot " + ", ".join(f'"{data}" using 1:{2 + i} with linespoints lw 2 '
                                   f'title "{titles[name]}"' for i, name in enumerate(names)) + "\n")
EOF

if [[ -n ${PLOT:-} ]]; then
    command -v gnuplot >/dev/null || { echo "fanout.sh: gnuplot not found" >&2; exit 1; }
    gnuplot <<EOF
set terminal pngcairo size 800,480 font ",11"
set output "${PLOT}"
set title "Start a trivial command on N hosts (median wall time)"
set xlabel "hosts (N)"
set ylabel "wall time (ms)"
set key top left
set grid
set logscale x 2
set logscale y 10
load "$tmp/plot.gp"
EOF
    echo "plot: $PLOT"
fi
