#!/bin/sh
# A compiler and linker launcher that records what each step costs, for bench/build_times.sh:
# appends "WALL USER SYS OUTPUT" (seconds) to the file named by $COLOSSALAI_TIMES_LOG.
# Usage (by CMake): -DCMAKE_CXX_COMPILER_LAUNCHER=bench/timed.sh (and _LINKER_LAUNCHER).
set -eu
out=unknown
previous=""
for arg in "$@"; do
    [ "$previous" = "-o" ] && out=$arg
    previous=$arg
done
record=$(mktemp)
status=0
/usr/bin/time -f '%e %U %S' -o "$record" "$@" || status=$?
printf '%s %s\n' "$(tail -n 1 "$record")" "$out" >>"${COLOSSALAI_TIMES_LOG:-/dev/null}"
rm -f "$record"
exit "$status"
