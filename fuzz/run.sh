#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for a fixed time from its seed corpus.
# Fails on any crash, leak, sanitizer report or violated property.
# Usage: fuzz/run.sh [SECONDS_PER_TARGET]     (default 30)
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-30}
build=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$build" -DCOLOSSALAI_FUZZ=ON -DCOLOSSALAI_BUILD_TESTS=OFF \
    -DCOLOSSALAI_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=$(cd fuzz/corpus && ls)
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" --target $targets
status=0
for target in $targets; do
    work="$build/fuzz-corpus/$target"      # new inputs found in this run; the seeds stay clean
    mkdir -p "$work" "$build/fuzz-artifacts"
    echo "fuzz: $target for ${seconds}s"
    if ! "$build/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-artifacts/$target-" "$work" "fuzz/corpus/$target" \
        >"$build/fuzz-$target.log" 2>&1; then
        echo "fuzz: $target FAILED; see $build/fuzz-$target.log and $build/fuzz-artifacts/" >&2
        tail -40 "$build/fuzz-$target.log" >&2
        status=1
    else
        grep -E '^stat::number_of_executed_units' "$build/fuzz-$target.log" || true
    fi
done
exit "$status"
