# Sums a bench/timed.sh log by kind of step: what the product's sources, the unit tests, the
# end-to-end tests and the test helpers cost to compile, and what linking costs.
# Usage: awk -f bench/build_times.awk TIMES_LOG
{
    cpu = $2 + $3
    out = $4
    if (out ~ /\.gch$/) kind = "precompiled headers"
    else if (out !~ /\.o$/) kind = "link (executables, libraries)"
    else if (out ~ /(colossalai_test_(common|support|pch)|fake_libcuda)\.dir/) kind = "compile test helpers"
    else if (out ~ /unit_[a-z_]+\.dir/) kind = "compile unit tests"
    else if (out ~ /e2e_[a-z_]+\.dir/) kind = "compile e2e tests"
    else if (out ~ /fuzz/) kind = "compile fuzz targets"
    else kind = "compile src/ (the product)"
    n[kind]++; c[kind] += cpu; w[kind] += $1
    total += cpu; count++
}
END {
    for (k in n) printf "%8.0f s CPU %5d steps %6.1f s/step  %s\n", c[k], n[k], c[k] / n[k], k
    printf "%8.0f s CPU %5d steps                 total\n", total, count
}
