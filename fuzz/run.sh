#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for a fixed time from its seed corpus.
# Fails on any crash, leak, sanitizer report or violated property.
# Usage: fuzz/run.sh [--no-build DIR] [SECONDS_PER_TARGET [PARALLEL]]
#        (defaults: 30, nproc). Without --no-build it builds the targets in build-fuzz (clang,
#        AddressSanitizer + UBSan, libFuzzer's coverage, no tests); with it, it runs the targets
#        that an earlier build made in DIR (relative to the repository's root), configured with
#        -DCOLOSSALAI_FUZZ=ON: CI's ASan + UBSan build of the whole suite is one, built in the
#        background while tests run.
# A target is one single-threaded process: PARALLEL of them run side by side, one per core, each
# still for SECONDS_PER_TARGET of its own (its executed-units line shows how much it ran).
set -eu
cd "$(dirname "$0")/.."
build="build-fuzz"
step=all
if [ "${1:-}" = --no-build ]; then
    [ $# -ge 2 ] || { echo "fuzz/run.sh: --no-build needs the build directory" >&2; exit 2; }
    build=$2
    step=run
    shift 2
fi
seconds=${1:-30}
parallel=${2:-$(nproc)}
targets=$(cd fuzz/corpus && ls)
if [ "$step" = all ]; then
    CC=clang CXX=clang++ cmake -S . -B "$build" -DCOLOSSALAI_FUZZ=ON \
        -DCOLOSSALAI_SANITIZE=address,undefined -DCOLOSSALAI_BUILD_TESTS=OFF \
        -DCOLOSSALAI_WERROR=ON >/dev/null
    # shellcheck disable=SC2086
    cmake --build "$build" -j"$(nproc)" --target $targets
fi
for target in $targets; do
    [ -x "$build/fuzz/$target" ] || { echo "fuzz/run.sh: $build/fuzz/$target is not built" >&2; exit 2; }
done
mkdir -p "$build/fuzz-artifacts"
rm -f "$build"/fuzz-*.passed

# One target: its log in $build/fuzz-TARGET.log, and a marker file only when it passed (a lane
# that died on the way leaves none, which counts as a failure).
fuzz_one() {
    target=$1
    work="$build/fuzz-corpus/$target" # new inputs found in this run; the seeds stay clean
    mkdir -p "$work"
    echo "fuzz: $target for ${seconds}s"
    if "$build/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-artifacts/$target-" "$work" "fuzz/corpus/$target" \
        >"$build/fuzz-$target.log" 2>&1; then
        : >"$build/fuzz-$target.passed"
    fi
}

# Lane i of PARALLEL runs targets i, i+PARALLEL, ... one after the other.
lane=0
while [ "$lane" -lt "$parallel" ]; do
    (
        index=0
        for target in $targets; do
            [ $((index % parallel)) -eq "$lane" ] && fuzz_one "$target"
            index=$((index + 1))
        done
    ) &
    lane=$((lane + 1))
done
wait

status=0
for target in $targets; do
    if [ ! -e "$build/fuzz-$target.passed" ]; then
        echo "fuzz: $target FAILED; see $build/fuzz-$target.log and $build/fuzz-artifacts/" >&2
        tail -40 "$build/fuzz-$target.log" >&2
        status=1
    else
        printf '%s: ' "$target"
        grep -E '^stat::number_of_executed_units' "$build/fuzz-$target.log" || echo
    fi
done
exit "$status"
