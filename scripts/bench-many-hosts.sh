#!/usr/bin/env bash
# Many-hosts benchmark (issue 5): how many hosts one process polls once a
# second. pmcd 6.0.3 watches its clients with select() and aborts once a
# client's fd passes 1023, so one pmcd serves at most about 1,000 contexts;
# this script starts P extra pmcd instances (stand-ins for P hosts) on
# ports BASE, BASE+1, ... (at most PER contexts each, $BENCH_PER_PMCD,
# default 250: a pmcd scans all its clients' fds at every select(), so
# fewer clients each is nearer to real separate hosts; each with its own
# run directory, Unix socket, log and a configuration holding only the
# sample PMDA as a DSO, so no PMDA processes are added), then polls N contexts spread over them round-robin:
# one fetch of sampledso.long.one, sampledso.double.ten and sampledso.bin
# each a round, sequential (T=1), split over T threads, or (T=0, ours
# only: Context::fetch_all) every request sent before any reply is read, ours
# (crates/pcp/examples/bench_fetch.rs hosts) against libpcp
# (scripts/bench-host/hosts.c: pmUseContext + pmFetch per context).
# For each N: time to open the N contexts, the best of five rounds, and the
# client's own CPU time per round; best of RUNS processes. The extra pmcds
# are killed (by their pids) when the script ends.
# N is bounded by the open-files limit (raised to the hard limit here).
# libpcp 6.0.3 select()s on each context's socket too, so a process of it
# cannot open a context whose fd passes 1023 (pmNewContext fails, about the
# 1,020th context): its column says "failed" from there on.
# Needs pcp (pmcd, libpcp, headers), gcc.
# Usage: scripts/bench-many-hosts.sh [RUNS] [N...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
shift || true
per=${BENCH_PER_PMCD:-250} # contexts per pmcd (its select() limit is about 1,000)
base=${BENCH_PMCD_PORT:-44400}
pmcd=${PMCD:-/usr/lib/pcp/bin/pmcd}
metrics=(sampledso.long.one sampledso.double.ten sampledso.bin)
ulimit -n "$(ulimit -Hn)"
fdmax=$(ulimit -n)
if [ $# -gt 0 ]; then
    ns=("$@")
else
    top=$(( (fdmax - 200) / 1000 * 1000 ))
    ns=(1000 2000 5000 10000)
    for n in 15000 20000 30000 50000; do [ "$n" -lt "$top" ] && ns+=("$n"); done
    ns+=("$top")
fi
nmax=0
for n in "${ns[@]}"; do [ "$n" -gt "$nmax" ] && nmax=$n; done
if [ "$nmax" -gt $((fdmax - 100)) ]; then
    echo "N=$nmax needs more open files than the limit ($fdmax)" >&2
    exit 1
fi
p=$(( (nmax + per - 1) / per ))
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
cargo build -q --release -p pcp-pmapi --example bench_fetch
ours=${CARGO_TARGET_DIR:-target}/release/examples/bench_fetch
gcc -O2 -Wall -o "$work/chosts" scripts/bench-host/hosts.c -lpcp -lpthread
printf 'sampledso\t30\tdso\tsample_init\t%s/sample/pmda_sample.so\n\n[access]\nallow "*" : all;\n' \
    "$(. /etc/pcp.conf; echo "$PCP_PMDAS_DIR")" > "$work/pmcd.conf"
specs=()
for i in $(seq 0 $((p - 1))); do
    port=$((base + i))
    d=$work/pmcd$i
    mkdir -m 777 "$d"
    PCP_RUN_DIR=$d "$pmcd" -f -A -p "$port" -s "$d/pmcd.socket" -l "$d/pmcd.log" \
        -x "$d/fatal" -c "$work/pmcd.conf" </dev/null >/dev/null 2>&1 &
    pids+=($!)
    specs+=("localhost:$port")
done
for s in "${specs[@]}"; do # wait until every pmcd answers
    for _ in $(seq 50); do
        pmprobe -h "$s" sampledso.long.one >/dev/null 2>&1 && continue 2
        sleep 0.1
    done
    echo "pmcd at $s did not start" >&2
    exit 1
done
all=$(IFS=,; echo "${specs[*]}")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)   $p pmcds ($per contexts each at most), open files limit $fdmax, best of $runs"
echo "one round = one fetch of ${metrics[*]} from each of N contexts"
best() { # file -> the line with the smallest round time, or "failed"
    if [ -s "$1" ]; then sort -g -k2 "$1" | head -1; else echo failed; fi
}
for n in "${ns[@]}"; do
    for t in 1 2 8 0; do
        : > "$work/rust"; : > "$work/c"
        for _ in $(seq "$runs"); do
            "$ours" hosts "$all" "$n" "$t" "${metrics[@]}" >> "$work/rust" 2>"$work/rust.err" || true
            # libpcp has no way to have several fetches under way at once
            if [ "$t" -gt 0 ]; then
                "$work/chosts" "$all" "$n" "$t" "${metrics[@]}" >> "$work/c" 2>"$work/c.err" || true
            else
                echo "no such mode" > "$work/c.err"
            fi
        done
        read -r ro rw rc < <(best "$work/rust") || true
        read -r co cw cc < <(best "$work/c") || true
        if [ "$ro" = failed ]; then
            line=$(printf 'Rust failed: %s' "$(tail -c 200 "$work/rust.err")")
        else
            line=$(printf 'Rust open %6.2f s round %6.3f s (%6.0f fetch/s, %4.1f us CPU/fetch)' "$ro" "$rw" \
                "$(awk -v k="$n" -v w="$rw" 'BEGIN{print k/w}')" "$(awk -v k="$n" -v c="$rc" 'BEGIN{print 1e6*c/k}')")
        fi
        if [ "$co" = failed ]; then
            line+=$(printf '   libpcp failed (%s)' "$(tail -c 120 "$work/c.err" | tr '\n' ' ')")
        else
            line+=$(printf '   libpcp open %6.2f s round %6.3f s (%6.0f fetch/s, %4.1f us CPU/fetch)   libpcp/Rust round %4.2f' "$co" "$cw" \
                "$(awk -v k="$n" -v w="$cw" 'BEGIN{print k/w}')" "$(awk -v k="$n" -v c="$cc" 'BEGIN{print 1e6*c/k}')" \
                "$(awk -v a="$cw" -v b="$rw" 'BEGIN{print a/b}')")
        fi
        label=$t
        [ "$t" = 0 ] && label="all at once"
        printf 'N=%-6d T=%-11s  %s\n' "$n" "$label" "$line"
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
