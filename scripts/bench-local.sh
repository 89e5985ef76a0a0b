#!/usr/bin/env bash
# Issue 43's local-context benchmarks: pminfo -f in a local context, ours
# against PCP 6.0.3's through pmcd (`-h local:`) and PCP's `-L` with the
# PMDAs' DSOs in the tool. Wall and CPU time; for pmcd the CPU of pmcd and
# its PMDAs during the runs counts too (from their /proc/PID/stat times,
# in clock ticks, which is why each sample is a batch of runs).
#
#   bash scripts/bench-local.sh [all|proc] [ROUNDS [BATCH]]
#                                  (defaults all, 7 and 10)
#
# all:  one fetch (`-b 10000`) of every metric the local context serves:
#       the Linux PMDA's (domain 60) and the proc PMDA's (domain 3) but
#       hotproc.* and acct.*, over all processes of this machine; PCP's
#       `-L` runs both DSOs, pmcd's side is pmcd, pmdalinux and pmdaproc.
# proc: `pminfo -f proc`, every proc.* metric of every process, against
#       pmcd, pmdaproc and the proc DSO alone.
#
# Each round runs a batch of each of the three, alternated; the medians
# over the rounds are printed per run, with PCP's over ours (above 1:
# ours is faster). Ours is $PMINFO (default: the release build, made
# here).
set -euo pipefail
cd "$(dirname "$0")/.."
what=all
case ${1:-} in all | proc) what=$1; shift ;; esac
rounds=${1:-7}
batch=${2:-10}
export PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C
if [ -z "${PMINFO:-}" ]; then
    cargo build -q --release -p pcp-tools --bin pminfo
    PMINFO=${CARGO_TARGET_DIR:-target}/release/pminfo
fi
procdso="-K add,3,/var/lib/pcp/pmdas/proc/pmda_proc.so,proc_init"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
if [ "$what" = all ]; then
    pminfo -m | awk '$3 ~ /^(60|3)\./ && $1 !~ /^(hotproc|acct)\./ { print $1 }' > "$work/names"
    args="-b 10000 -f $(tr '\n' ' ' < "$work/names")"
    dso=$procdso
    servers=$(pgrep -x 'pmcd|pmdalinux|pmdaproc' | tr '\n' ' ')
    label="pminfo -f, $(wc -l < "$work/names") metrics"
else
    args="-f proc"
    dso="-K clear $procdso"
    servers=$(pgrep -x 'pmcd|pmdaproc' | tr '\n' ' ')
    label="pminfo -f proc, one run"
fi

# the clock ticks pmcd and its PMDAs have used
server_ticks() {
    local t=0 p
    for p in $servers; do
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
    done
    echo $t
}

# one sample: "wall_ms cpu_ms server_ms" of BATCH runs of CMD, per run
sample() {
    local t0 t1 s0 s1 cpu
    s0=$(server_ticks)
    t0=$(date +%s%N)
    perf stat -x, -e task-clock -o "$work/perf" sh -c "for i in \$(seq $batch); do $* >/dev/null 2>&1; done"
    t1=$(date +%s%N)
    s1=$(server_ticks)
    cpu=$(awk -F, '/task-clock/ { print $1 }' "$work/perf")
    awk -v w=$(((t1 - t0) / 1000)) -v c="$cpu" -v s=$((s1 - s0)) -v hz="$hz" -v b="$batch" \
        'BEGIN { printf "%.2f %.2f %.2f\n", w / 1000 / b, c / b, s * 1000 / hz / b }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# the same values first (less what changes between two fetches)
# shellcheck disable=SC2086
"$PMINFO" -L $args 2>&1 | grep -c ' value ' > "$work/ours.n" || true
# shellcheck disable=SC2086
pminfo -h local: $args 2>&1 | grep -c ' value ' > "$work/pmcd.n" || true
echo "processes now: $(ls -d /proc/[0-9]* | wc -l); values: ours $(cat "$work/ours.n"), pmcd's $(cat "$work/pmcd.n")"

for r in $(seq "$rounds"); do
    sample "$PMINFO" -L "$args" >> "$work/ours"
    sample pminfo -h local: "$args" >> "$work/pmcd"
    sample pminfo -L "$dso" "$args" >> "$work/dso"
    echo "round $r/$rounds done" >&2
done

col() { awk -v k="$2" '{ print $k }' "$work/$1" | median; }
ow=$(col ours 1); oc=$(col ours 2)
pw=$(col pmcd 1); pc=$(awk '{ print $2 + $3 }' "$work/pmcd" | median); ps=$(col pmcd 3)
dw=$(col dso 1); dc=$(col dso 2)
printf "%-34s %10s %10s\n" "$label" "wall ms" "CPU ms"
printf "%-34s %10s %10s\n" "ours -L" "$ow" "$oc"
printf "%-34s %10s %10s   (pmcd and PMDAs %s)\n" "PCP -h local: (pmcd)" "$pw" "$pc" "$ps"
printf "%-34s %10s %10s\n" "PCP -L (DSOs)" "$dw" "$dc"
awk -v ow="$ow" -v oc="$oc" -v pw="$pw" -v pc="$pc" -v dw="$dw" -v dc="$dc" 'BEGIN {
    printf "PCP over ours: pmcd wall %.2fx CPU %.2fx; DSO wall %.2fx CPU %.2fx\n", pw / ow, pc / oc, dw / ow, dc / oc }'
