#!/usr/bin/env bash
# Host-context benchmark against the local pmcd (sample PMDA):
#  1. fetches per second of a few metrics over TCP (localhost) and over the
#     Unix socket (local:), ours (crates/pcp/examples/bench_fetch.rs) against
#     libpcp (scripts/bench-host/fetch.c, pmFetch/pmFreeResult in a loop),
#     beside the loopback round-trip floor (scripts/bench-host/pingpong.c:
#     a 40-byte request answered by 168 bytes, the sizes of this fetch's
#     PDUs, between two processes, no pmcd);
#     with each client's own CPU time (user+system, GNU time) per fetch,
#     which the machine's load disturbs less than the wall time;
#     then each fetch timed on its own (bench_fetch latency against
#     scripts/bench-host/latency.c): the median and the 99th percentile of
#     RUNS runs' medians and tails, as the wall time of a loaded machine is
#     mostly its slow tail (pmcd or the PMDA waiting for a CPU);
#  2. many hosts: K contexts opened to the same pmcd (one pmcd K times, not
#     K hosts), one fetch round over all K, sequential (T=1) or split over T
#     threads; prints the best round's wall time and the client's own CPU
#     time per round. K stays below 1000: pmcd 6.0.3 select()s on an fd_set
#     and aborts ("bit out of range 0 - FD_SETSIZE") once a client's fd
#     passes 1023, taking the machine's pmcd down.
# Best of RUNS for every figure. Needs pcp (libpcp, headers), gcc, pmcd,
# /usr/bin/time.
# Usage: scripts/bench-host.sh [RUNS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
n=${2:-20000}
metrics=(sample.long.one sample.double.ten sample.bin)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build -q --release -p pcp-pmapi --example bench_fetch
ours=${CARGO_TARGET_DIR:-target}/release/examples/bench_fetch
gcc -O2 -Wall -o "$work/cfetch" scripts/bench-host/fetch.c -lpcp
gcc -O2 -Wall -o "$work/pingpong" scripts/bench-host/pingpong.c
gcc -O2 -Wall -o "$work/clatency" scripts/bench-host/latency.c -lpcp
pminfo "${metrics[@]}" >/dev/null

min() { awk -v c="${1:-1}" 'NR==1||$c<m{m=$c} END{print m}'; }
timed() { # cmd... -> "wall_seconds cpu_seconds" (wall as the command prints it)
    local wall
    wall=$(/usr/bin/time -f "%U %S" -o "$work/t" "$@")
    echo "$wall $(awk '{print $1+$2}' "$work/t")"
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN{printf "%.0f", n/s}'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)   N=$n fetches of ${metrics[*]}, best of $runs"
for spec in localhost local:; do
    : > "$work/rust"; : > "$work/c"; : > "$work/floor"
    for _ in $(seq "$runs"); do # interleaved, so load changes hit all alike
        timed "$ours" fetch "$spec" "$n" "${metrics[@]}" >> "$work/rust"
        timed "$work/cfetch" "$spec" "$n" "${metrics[@]}" >> "$work/c"
        if [ "$spec" = localhost ]; then
            "$work/pingpong" tcp - "$n" 40 168 >> "$work/floor"
        else
            "$work/pingpong" unix "$work/sock" "$n" 40 168 >> "$work/floor"
        fi
    done
    r=$(rate "$n" "$(min < "$work/rust")")
    c=$(rate "$n" "$(min < "$work/c")")
    f=$(rate "$n" "$(min < "$work/floor")")
    rc=$(awk -v n="$n" -v s="$(min 2 < "$work/rust")" 'BEGIN{printf "%.1f", 1e6*s/n}')
    cc=$(awk -v n="$n" -v s="$(min 2 < "$work/c")" 'BEGIN{printf "%.1f", 1e6*s/n}')
    printf '%-10s Rust %6d fetch/s   libpcp %6d fetch/s   Rust/libpcp %4.2f   floor %6d round trips/s (Rust at %2.0f%% of it)   client CPU us/fetch: Rust %s libpcp %s\n' \
        "$spec" "$r" "$c" "$(awk -v a="$r" -v b="$c" 'BEGIN{print a/b}')" "$f" \
        "$(awk -v a="$r" -v b="$f" 'BEGIN{print 100*a/b}')" "$rc" "$cc"
done

for spec in localhost local:; do
    : > "$work/rl"; : > "$work/cl"
    for _ in $(seq "$runs"); do
        "$ours" latency "$spec" "$n" "${metrics[@]}" >> "$work/rl"
        "$work/clatency" "$spec" "$n" "${metrics[@]}" >> "$work/cl"
    done
    # fields: total T s p50 A p90 B p99 C ...: the best median and tail
    printf '%-10s fetch round trip us, median / 99th percentile (best of %d): Rust %s / %s   libpcp %s / %s\n' "$spec" "$runs" \
        "$(min 5 < "$work/rl")" "$(min 9 < "$work/rl")" "$(min 5 < "$work/cl")" "$(min 9 < "$work/cl")"
done

echo "many hosts: K contexts to the same pmcd (localhost), one fetch of ${metrics[*]} each per round"
for k in 100 500 900; do
    for t in 1 2 8; do
        : > "$work/hosts"
        for _ in $(seq "$runs"); do
            "$ours" hosts localhost "$k" "$t" "${metrics[@]}" >> "$work/hosts"
        done
        # columns: open seconds, best round seconds, client CPU seconds per round
        read -r open wall cpu < <(sort -g -k2 "$work/hosts" | head -1)
        printf 'K=%-4d T=%d  open %6.3f s   round %6.3f s (%6.0f fetch/s)   client CPU %6.3f s/round (%3.0f us/fetch)\n' \
            "$k" "$t" "$open" "$wall" "$(awk -v k="$k" -v w="$wall" 'BEGIN{print k/w}')" "$cpu" \
            "$(awk -v k="$k" -v c="$cpu" 'BEGIN{print 1e6*c/k}')"
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
