#!/usr/bin/env bash
# Issue 41's measures: wall time, CPU time (user + system) and peak
# resident memory of PCP 6.0.3's tools and ours on the same inputs, runs
# alternated (PCP's, then ours, N times), outputs checked identical first.
# Prints the medians of each and PCP's over ours (above 1: ours is
# faster or smaller).
#
#   bash scripts/bench-cpu.sh [N]     (default N=5; needs a release build)
#
# Measures (QA archives under /var/lib/pcp/testsuite/archives):
#   xz1     pmval -t 1 kernel.all.load over 20201109 (one 43 MB xz volume)
#   pidstat pmval -t 60 proc.psinfo.utime over pcp-pidstat-process-args
#           (344 MB xz volume of thousands of processes), and our own
#           pmdumplog -a of the same archive (CPU at most 2x that is the
#           goal)
#   dumpxz  pmdumplog -a over 20201109 against `xz -dc` of its volume
#   dump330 pmdumplog -a over pcp-pidstat-process-args and 20180416.10.00
#   plain   pmval -t 1 over 20180102 (a 7 MB plain volume)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
qa=/var/lib/pcp/testsuite/archives
ours=target/release
export PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one run: "wall cpu maxrss_kb" of CMD..., output to /dev/null
one() {
    /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >/dev/null 2>&1 || true
    awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' "$work/t"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# measure NAME CMD-A... -- CMD-B...: A is PCP's (or the reference), B ours
measure() {
    local name=$1 a=() b=()
    shift
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    : >"$work/a"
    : >"$work/b"
    for _ in $(seq "$n"); do
        one "${a[@]}" >>"$work/a"
        one "${b[@]}" >>"$work/b"
    done
    local col
    for col in 1 2 3; do
        eval "a$col=\$(cut -d' ' -f$col \"\$work/a\" | median)"
        eval "b$col=\$(cut -d' ' -f$col \"\$work/b\" | median)"
    done
    # shellcheck disable=SC2154
    awk -v name="$name" -v aw="$a1" -v ac="$a2" -v am="$a3" -v bw="$b1" -v bc="$b2" -v bm="$b3" '
    function r(a, b) { return b > 0 ? sprintf("%5.2fx", a / b) : "  n/a" }
    BEGIN {
        printf "%-34s wall %7.3f / %7.3f s = %s   cpu %7.3f / %7.3f s = %s   rss %7.1f / %7.1f MB = %s\n",
            name, aw, bw, r(aw, bw), ac, bc, r(ac, bc), am / 1024, bm / 1024, r(am, bm)
    }'
}

same() {
    if ! cmp -s <("$1" "${@:2}" 2>&1) <("$ours/$1" "${@:2}" 2>&1); then
        echo "bench-cpu: $* differs from PCP's" >&2
        exit 1
    fi
}

same pmval -a "$qa/20201109" -t 1 kernel.all.load
same pmval -a "$qa/20180102" -t 1 kernel.all.load
measure "pmval 20201109 (xz, 43 MB) -t 1" pmval -a "$qa/20201109" -t 1 kernel.all.load -- "$ours/pmval" -a "$qa/20201109" -t 1 kernel.all.load
measure "pmval 20180102 (plain, 7 MB) -t 1" pmval -a "$qa/20180102" -t 1 kernel.all.load -- "$ours/pmval" -a "$qa/20180102" -t 1 kernel.all.load
measure "pmval pidstat (xz, 344 MB) -t 60" pmval -a "$qa/pcp-pidstat-process-args" -t 60 proc.psinfo.utime -- "$ours/pmval" -a "$qa/pcp-pidstat-process-args" -t 60 proc.psinfo.utime
measure "ours: pmdumplog -a pidstat / pmval" "$ours/pmdumplog" -a "$qa/pcp-pidstat-process-args" -- "$ours/pmval" -a "$qa/pcp-pidstat-process-args" -t 60 proc.psinfo.utime
measure "xz -dc 20201109.0.xz / pmdumplog -a" xz -dc "$qa/20201109.0.xz" -- "$ours/pmdumplog" -a "$qa/20201109"
measure "pmdumplog -a 20201109" pmdumplog -a "$qa/20201109" -- "$ours/pmdumplog" -a "$qa/20201109"
if [ "${BENCH_330:-1}" = 1 ]; then
    # PCP's pmdumplog takes a minute or more over each of these: once
    n_saved=$n
    n=1
    measure "pmdumplog -a pidstat (344 MB)" pmdumplog -a "$qa/pcp-pidstat-process-args" -- "$ours/pmdumplog" -a "$qa/pcp-pidstat-process-args"
    measure "pmdumplog -a 20180416.10.00 (307 MB)" pmdumplog -a "$qa/20180416.10.00" -- "$ours/pmdumplog" -a "$qa/20180416.10.00"
    n=$n_saved
fi
