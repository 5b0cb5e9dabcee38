#!/bin/sh
# Median wall time of `colossalai --help` and `colossalai check -i`, side by side, in one run.
#
# Usage: bench/check.sh [BUILD_DIR [RUNS]]        (defaults: build, 30)
#   BENCH_TORCH=1 also times `python3 -c 'import torch'` (what the original check pays).
#
# `check -i` runs against a fixture venv built here (/usr/bin/python3 -m venv --without-pip)
# holding a torch and a colossalai package as files, with this machine's own CUDA toolkit and
# driver (whatever is installed). Uses hyperfine when present, else a shell loop.
set -eu

build=${1:-build}
runs=${2:-30}
bin=$(cd "$build" && pwd)/colossalai
[ -x "$bin" ] || { echo "bench/check.sh: no binary at $bin (build first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
/usr/bin/python3 -m venv --without-pip "$tmp/venv"
python="$tmp/venv/bin/python3"
site=$(echo "$tmp"/venv/lib/python3*/site-packages)
mkdir -p "$site/torch" "$site/colossalai/_C"
: >"$site/torch/__init__.py"
printf "__version__ = '2.1.0+cu121'\ncuda: Optional[str] = '12.1'\n" >"$site/torch/version.py"
: >"$site/colossalai/__init__.py"
printf "__version__ = '0.3.6'\n" >"$site/colossalai/version.py"
: >"$site/colossalai/_C/fused_optim.cpython-311-x86_64-linux-gnu.so"

# name|command|target (ms, or - for none)
cat >"$tmp/commands" <<EOF2
/bin/true (floor: starting any process here)|/bin/true|-
colossalai --help|$bin --help|5
colossalai check -i|$bin check -i --python $python|100
python3 -c pass (floor of one interpreter call)|$python -c pass|-
EOF2
if [ "${BENCH_TORCH:-0}" = 1 ]; then
    echo "python3 -c 'import torch' (the original imports torch)|/usr/bin/python3 -c 'import torch'|-" \
        >>"$tmp/commands"
fi

median_ms() { # COMMAND -> median wall time in ms
    if command -v hyperfine >/dev/null 2>&1; then
        hyperfine --style none --shell none --ignore-failure --warmup 3 --runs "$runs" \
            --export-json "$tmp/h.json" "$1" >/dev/null 2>&1
        /usr/bin/python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$tmp/h.json"
    else
        i=0
        : >"$tmp/times"
        while [ "$i" -lt "$runs" ]; do
            start=$(date +%s%N)
            sh -c "$1" >/dev/null 2>&1 || true
            end=$(date +%s%N)
            echo $(((end - start) / 1000)) >>"$tmp/times"
            i=$((i + 1))
        done
        sort -n "$tmp/times" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f\n", m / 1000 }'
    fi
}

tool=$(command -v hyperfine >/dev/null 2>&1 && hyperfine --version || echo "shell loop (date +%s%N)")
echo "colossalai $("$bin" --version | cut -d' ' -f2), $runs runs each, $tool, $(nproc) CPUs"
printf '%-55s %12s %10s\n' "command" "median" "target"
while IFS='|' read -r name command target; do
    ms=$(median_ms "$command")
    [ "$target" = - ] && target="" || target="<= $target ms"
    printf '%-55s %9s ms %10s\n' "$name" "$ms" "$target"
done <"$tmp/commands"
