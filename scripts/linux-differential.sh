#!/usr/bin/env bash
# Live differential for pcp-linux against PCP's Linux PMDA on this machine
# (pmcd running with the linux PMDA; `bash scripts/setup-reference-pcp.sh`
# otherwise):
#
# 1. descriptors and help: `linux_metrics desc` against
#    `pminfo -dmT -h local:` for every metric of the table, byte for byte;
# 2. values: one fetch of every metric by us, by pmcd (`pminfo -f`, one
#    batch), and by us again; instance lists must be identical, counters
#    of pmcd within our before/after bracket, discrete values equal to one
#    of ours, instant values within the bracket widened by 5% (at least
#    2 units: pmcd and its PMDAs are running processes themselves);
# 3. benchmark: N fetches of every metric, ours in-process against
#    pmFetch through pmcd (a small libpcp program), as a ratio;
# 4. local contexts through the tools: pminfo -L (descriptors, help, PMIDs,
#    instance domains, labels, series identifiers) and pmprobe -L -i -I
#    byte for byte against PCP's pminfo -L / pmprobe -L, which run the
#    Linux PMDA in-process; values (pminfo -L -f, pmprobe -L -v) and
#    pmval -L by shape: the same lines, instances and kinds of value.
#
#   bash scripts/linux-differential.sh [N]      (N fetches, default 2000)
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
export TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG=
target=${CARGO_TARGET_DIR:-target}
cargo build -q --release -p pcp-linux --example linux_metrics || exit 1
ours=$target/release/examples/linux_metrics
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$ours" names > "$tmp/names"
"$ours" table > "$tmp/table"
count=$(wc -l < "$tmp/names")

# 1. descriptors and help texts
"$ours" desc > "$tmp/ours.desc"
pminfo -dmT -h local: $(cat "$tmp/names") > "$tmp/pcp.desc" 2>&1
if cmp -s "$tmp/ours.desc" "$tmp/pcp.desc"; then
    echo "desc: $count metrics identical to pminfo -dmT"
else
    echo "desc: DIFFERENT"; diff "$tmp/ours.desc" "$tmp/pcp.desc" | head -20; fail=1
fi

# 2. values side by side
"$ours" fetch > "$tmp/before"
pminfo -b 1000 -f -h local: $(cat "$tmp/names") > "$tmp/pcp.vals" 2>&1
"$ours" fetch > "$tmp/after"
python3 - "$tmp/table" "$tmp/before" "$tmp/pcp.vals" "$tmp/after" <<'PY' || fail=1
import re, sys
sem = {}
for l in open(sys.argv[1]):
    name, s, ty = l.rstrip("\n").split("\t")
    sem[name] = (s, ty)

def load(path):
    out, cur = {}, None
    for l in open(path):
        l = l.rstrip("\n")
        if not l:
            continue
        if not l.startswith(" ") and not l.startswith("No value") and not l.startswith("Error"):
            cur = l
            out[cur] = {}
            continue
        m = re.match(r'    inst \[(-?\d+) or "(.*)"\] value (.*)$', l)
        if m:
            out[cur][(int(m.group(1)), m.group(2))] = m.group(3)
        elif l.startswith("    value "):
            out[cur][None] = l[len("    value "):]
        else:
            out[cur]["msg"] = l
    return out

b, p, a = (load(x) for x in sys.argv[2:5])
bad, checked = 0, 0
for name, (s, ty) in sem.items():
    if set(p[name]) != set(b[name]) and set(p[name]) != set(a[name]):
        print(f"values: {name}: instances differ: ours {sorted(map(str, b[name]))} pmcd {sorted(map(str, p[name]))}")
        bad += 1
        continue
    for k, pv in p[name].items():
        checked += 1
        bv, av = b[name].get(k), a[name].get(k)
        if pv in (bv, av):
            continue
        try:
            x, lo, hi = float(pv), min(float(bv), float(av)), max(float(bv), float(av))
        except (TypeError, ValueError):
            print(f"values: {name} {k}: pmcd {pv} ours {bv} / {av}"); bad += 1; continue
        if s == "counter" and lo <= x <= hi:
            continue
        # instantaneous values move between samples: a quarter or 2 units
        # either way (on a busy machine, e.g. mem.util.pageTables moves by
        # 15% between our two fetches as processes come and go)
        slack = max(0.25 * abs(hi), 2.0)
        if s == "instant" and lo - slack <= x <= hi + slack:
            continue
        print(f"values: {name} {k} ({s}): pmcd {pv} ours {bv} / {av}")
        bad += 1
print(f"values: {checked} values of {len(sem)} metrics compared, {bad} outside their semantics' tolerance")
sys.exit(1 if bad else 0)
PY

# 3. benchmark: one fetch of every metric, ours against pmcd's
cat > "$tmp/bench.c" <<'C'
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
    printf("%.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
C
if gcc -O2 -o "$tmp/bench" "$tmp/bench.c" -lpcp 2>/dev/null; then
    pcp_s=$("$tmp/bench" "$n" "$tmp/names")
    ours_s=$("$ours" bench "$n")
    python3 -c "import sys; p,o=float(sys.argv[1]),float(sys.argv[2]); n=int(sys.argv[3]); print(f'bench: {n} fetches of {sys.argv[4]} metrics: pmcd {p/n*1e6:.1f} us/fetch, ours {o/n*1e6:.1f} us/fetch, ratio {p/o:.1f}x')" "$pcp_s" "$ours_s" "$n" "$count"
else
    echo "bench: skipped (no C compiler or libpcp headers)"
fi
# 4. local contexts through the tools (proc.nprocs is pcp-rs's own: PCP
#    runs the proc PMDA under pmcd only)
cargo build -q -p pcp-tools --bin pminfo --bin pmprobe --bin pmval || exit 1
tools=$target/debug
grep -v '^proc\.' "$tmp/names" > "$tmp/lnames"
lcount=$(wc -l < "$tmp/lnames")
same() { # same LABEL CMD...: ours and PCP's print the same bytes and status
    local label=$1 st
    shift
    st=0; "$@" > "$tmp/c.out" 2>&1 || st=$?; echo "status $st" >> "$tmp/c.out"
    st=0; "$tools/$1" "${@:2}" > "$tmp/r.out" 2>&1 || st=$?; echo "status $st" >> "$tmp/r.out"
    if cmp -s "$tmp/c.out" "$tmp/r.out"; then
        echo "local: $label: $(wc -l < "$tmp/r.out") lines identical"
    else
        echo "local: $label: DIFFERENT"; diff "$tmp/c.out" "$tmp/r.out" | head -20; fail=1
    fi
}
for flags in -dmT -tI -M -l -s; do
    same "pminfo -L $flags ($lcount metrics)" pminfo -L $flags $(cat "$tmp/lnames")
done
same "pminfo -L -tTl (instance domains)" pminfo -L -tTl 60.0 60.1 60.2 60.3 60.5 60.24 60.25 60.42
for flags in "-i -I" "-f -i -I"; do
    same "pmprobe -L $flags ($lcount metrics)" pmprobe -L $flags $(cat "$tmp/lnames")
done
# values by shape: every number becomes N (and runs of blanks one, as
# columns are padded to the numbers' widths), strings stay
shape() { sed -E 's/-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/N/g; s/ +/ /g'; }
shaped() { # shaped LABEL CMD...
    local label=$1
    shift
    "$@" 2>&1 | shape > "$tmp/c.out"
    "$tools/$1" "${@:2}" 2>&1 | shape > "$tmp/r.out"
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
