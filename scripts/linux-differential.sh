#!/usr/bin/env bash
# Live differential for pcp-linux against PCP's Linux PMDA on this machine
# (pmcd running with the linux PMDA; `bash scripts/setup-reference-pcp.sh`
# otherwise):
#
# 1. scripts/linux-ci.sh (also run by scripts/differential.sh):
#    descriptors and help byte for byte against pminfo -dmT -h local:,
#    pminfo -L and pmprobe -L byte for byte against PCP's, and values by
#    semantics against pmcd's in sandwiches (scripts/linux-values.py);
# 2. benchmark: N fetches of the metrics issue 7 names, then of every
#    metric, ours in-process against pmFetch through pmcd (a small libpcp
#    program), alternated R times, the best of each giving the ratio, with
#    the machine's load; then the floor: the time the kernel takes to
#    produce the files a fetch of every metric reads, nothing parsed
#    (examples/read_floor; /proc is listed only when tasks came or went);
# 3. values through the tools on local contexts (pminfo -L -f, pmprobe -L
#    -v, pmval -L) by shape against PCP's: the same lines, instances and
#    kinds of value.
#
#   bash scripts/linux-differential.sh [N [R]]   (N fetches, default 2000;
#                                                 R rounds, default 5)
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
rounds=${2:-5}
export TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG=
target=${CARGO_TARGET_DIR:-target}
fail=0
bash scripts/linux-ci.sh || fail=1
cargo build -q --release -p pcp-linux --example linux_metrics --example read_floor || exit 1
ours=$target/release/examples/linux_metrics
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ours" names > "$tmp/names"
count=$(wc -l < "$tmp/names")

# 2. benchmark: one fetch of every metric, ours against pmcd's
cat > "$tmp/bench.c" <<'C'
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), k = 0, i, sts;
    char *names[1024], line[256];
    pmID ids[1024];
    FILE *f = fopen(argv[2], "r");
    while (k < 1024 && fgets(line, sizeof line, f)) { line[strcspn(line, "\n")] = 0; names[k++] = strdup(line); }
    if ((sts = pmNewContext(PM_CONTEXT_HOST, "local:")) < 0) { fprintf(stderr, "%s\n", pmErrStr(sts)); return 1; }
    if ((sts = pmLookupName(k, (const char **)names, ids)) < 0) { fprintf(stderr, "%s\n", pmErrStr(sts)); return 1; }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < n; i++) { pmResult *r; if ((sts = pmFetch(k, ids, &r)) < 0) return 1; pmFreeResult(r); }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%.6f %.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
           ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    return 0;
}
C
if gcc -O2 -o "$tmp/bench" "$tmp/bench.c" -lpcp 2>/dev/null; then
    # CPU time too: on a loaded machine the wall clock favours pmcd's
    # chain of processes, each woken for its part, over one process that
    # never sleeps; PCP's CPU is the client's and what pmcd and its Linux
    # and proc PMDAs used meanwhile (so other clients of pmcd count too:
    # the best round is the one with least of them)
    daemons() {
        local t=0 p f
        for p in $(pgrep -x pmcd) $(pgrep -x pmdalinux) $(pgrep -x pmdaproc); do
            f=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null) || continue
            set -- $f
            t=$((t + ${12} + ${13}))
        done
        echo "$t"
    }
    # twice: the metrics the issue names (its benchmark: "one fetch of all
    # the metrics above"), then every metric pcp-linux serves
    grep -E '^(kernel\.all\.(load|cpu\.|pswitch|intr|nprocs|uptime)|kernel\.percpu\.cpu\.|hinv\.(ncpu|ndisk|physmem)$|mem\.physmem$|mem\.util\.|swap\.|disk\.(dev|all)\.|network\.interface\.|filesys\.|proc\.nprocs$)' \
        "$tmp/names" > "$tmp/issue-names"
    for set in issue-names names; do
        label="every metric ($count)"
        [ "$set" = issue-names ] && label="the issue's metrics ($(wc -l < "$tmp/$set"))"
        echo "bench: load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
        : > "$tmp/rounds"
        for _ in $(seq "$rounds"); do
            d0=$(daemons); p=$("$tmp/bench" "$n" "$tmp/$set"); d1=$(daemons)
            # shellcheck disable=SC2046
            echo "$p $((d1 - d0)) $("$ours" bench "$n" $(cat "$tmp/$set"))" >> "$tmp/rounds"
        done
        echo "bench: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
        python3 - "$n" "$label" "$(getconf CLK_TCK)" "$tmp/rounds" <<'PY'
import sys
n, label, hz = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rows = [list(map(float, line.split())) for line in open(sys.argv[4])]
us = lambda s: s / n * 1e6
pw = [us(r[0]) for r in rows]
pc = [us(r[1] + r[2] / hz) for r in rows]
ow = [us(r[3]) for r in rows]
oc = [us(r[4]) for r in rows]
print(f"bench: {n} fetches of {label}, best of {len(rows)} alternated rounds:")
print(f"bench:   wall: pmcd {min(pw):.1f} us/fetch, ours {min(ow):.1f} us/fetch, ratio {min(pw) / min(ow):.1f}x")
print(f"bench:   CPU:  pmcd+PMDAs+client {min(pc):.1f} us/fetch, ours {min(oc):.1f} us/fetch, "
      f"ratio {min(pc) / min(oc):.1f}x")
for label, v in (("wall pmcd", pw), ("wall ours", ow), ("CPU pmcd", pc), ("CPU ours", oc)):
    print(f"bench:   every round, {label}: " + " ".join(f"{x:.0f}" for x in v))
PY
    done
else
    echo "bench: skipped (no C compiler or libpcp headers)"
fi
# the floor: what the kernel takes to produce what a fetch of every metric
# reads (as strace shows it: the files, nothing parsed; /proc listed; the
# netlink dumps; statfs of each file system; the sysfs checks the PMDA
# makes too: a disk's wwid, a wireless directory where ethtool has nothing)
floor=(/proc/stat /proc/meminfo /proc/vmstat /proc/loadavg /proc/uptime /proc/diskstats /proc/partitions
       /proc/net/dev /proc/self/mounts /proc/ netlink:)
insts() { "$ours" fetch "$1" | sed -n 's/.*inst \[[0-9]* or "\(.*\)"\] value.*/\1/p'; }
for d in $(insts disk.dev.read); do
    floor+=("/sys/block/$d/queue/scheduler" "exists:/sys/block/$d/device/wwid")
    [ -e "/sys/block/$d/device/wwid" ] || floor+=("/sys/block/$d/wwid")
done
for i in $(insts network.interface.mtu); do
    insts network.interface.speed | grep -qx "$i" || floor+=("exists:/sys/class/net/$i/wireless")
done
for m in $("$ours" fetch filesys.mountdir | sed -n 's/.* value "\(.*\)"$/\1/p'); do floor+=("statfs:$m"); done
"$target/release/examples/read_floor" "$n" "${floor[@]}" | sed 's/^/floor: /'

# 3. values through the tools on local contexts, by shape (proc.nprocs is
#    pcp-rs's own: PCP runs the proc PMDA under pmcd only)
cargo build -q -p pcp-tools --bin pminfo --bin pmprobe --bin pmval || exit 1
tools=$target/debug
grep -v '^proc\.' "$tmp/names" > "$tmp/lnames"
lcount=$(wc -l < "$tmp/lnames")
# values by shape: every number becomes N (and runs of blanks one, as
# columns are padded to the numbers' widths, and none at the end of a line:
# pmval pads "0.0" but not "1.998E-02"), strings stay
shape() { sed -E 's/-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/N/g; s/ +/ /g; s/ $//'; }
shaped() { # shaped LABEL CMD...
    local label=$1
    shift
    # (stderr after stdout, less the Linux PMDA's time-stamped notices that
    # PCP's tool, with the PMDA loaded by -L, writes)
    { "$@" 2>"$tmp/c.err"; grep -Ev '^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8}\] [a-z]+\([0-9]+\) (Warning|Info): proc_net' "$tmp/c.err"; } | shape > "$tmp/c.out"
    { "$tools/$1" "${@:2}" 2>"$tmp/r.err"; cat "$tmp/r.err"; } | shape > "$tmp/r.out"
    if cmp -s "$tmp/c.out" "$tmp/r.out"; then
        echo "local: $label: $(wc -l < "$tmp/r.out") lines of the same shape"
    else
        echo "local: $label: DIFFERENT SHAPE"; diff "$tmp/c.out" "$tmp/r.out" | head -20; fail=1
    fi
}
shaped "pminfo -L -f ($lcount metrics)" pminfo -L -f $(cat "$tmp/lnames")
shaped "pmprobe -L -v ($lcount metrics)" pmprobe -L -v $(cat "$tmp/lnames")
for m in kernel.all.load kernel.all.cpu.user kernel.percpu.cpu.idle hinv.ncpu mem.util.free \
         network.interface.in.bytes disk.dev.read filesys.mountdir; do
    shaped "pmval -L -s 2 -t 0.5 $m" pmval -L -s 2 -t 0.5 $m
done
exit $fail
