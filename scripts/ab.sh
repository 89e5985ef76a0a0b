#!/usr/bin/env bash
# Alternated timing of two commands, for ratios finer than GNU time's
# hundredths: N runs of each, A then B, output to /dev/null; prints the
# least and the median wall time of each (ms) and B's over A's.
#
#   scripts/ab.sh N CMD-A... -- CMD-B...
#
# e.g. scripts/ab.sh 30 pmval -a A -t 1 kernel.all.load -- target/release/pmval -a A -t 1 kernel.all.load
# Runs with PCP_DERIVED_CONFIG empty, TZ=UTC and LC_ALL=C, as the other
# benchmark scripts do.
set -euo pipefail
n=$1
shift
a=()
while [ "$1" != "--" ]; do
    a+=("$1")
    shift
done
shift
b=("$@")
export PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C
# The clock is read by bash itself ($EPOCHREALTIME, bash 5; microseconds
# once its decimal point is taken out). Timed between two runs of
# `date +%s%N`, each time also held the start-up of the second `date`
# (1.1 ms here: /bin/true timed 2.42 ms that way, 1.31 ms this way),
# which drew every ratio towards 1.
[ -n "${EPOCHREALTIME:-}" ] || { echo "ab.sh: needs bash 5 (\$EPOCHREALTIME)" >&2; exit 1; }
for _ in $(seq "$n"); do
    s=$EPOCHREALTIME; "${a[@]}" >/dev/null 2>&1 || true; e=$EPOCHREALTIME; echo "A $((10#${e/[.,]/} - 10#${s/[.,]/}))"
    s=$EPOCHREALTIME; "${b[@]}" >/dev/null 2>&1 || true; e=$EPOCHREALTIME; echo "B $((10#${e/[.,]/} - 10#${s/[.,]/}))"
done | awk '
    { t[$1, ++n[$1]] = $2 / 1000 }
    function median(k,   i, j, x, m) {
        m = n[k]
        for (i = 1; i <= m; i++) v[i] = t[k, i]
        for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    function least(k,   i, x) { x = t[k, 1]; for (i = 2; i <= n[k]; i++) if (t[k, i] < x) x = t[k, i]; return x }
    END {
        la = least("A"); lb = least("B"); ma = median("A"); mb = median("B")
        printf "A least %.1f ms, median %.1f ms\n", la, ma
        printf "B least %.1f ms, median %.1f ms\n", lb, mb
        printf "B/A: least %.2f, median %.2f (A/B: %.1fx, %.1fx)\n", lb / la, mb / ma, la / lb, ma / mb
    }'
