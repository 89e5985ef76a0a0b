#!/usr/bin/env bash
# The deterministic part of the Linux differential (scripts/linux-
# differential.sh has the rest, and the benchmark), for CI: pcp-linux
# against PCP's Linux PMDA on this machine (pmcd running with the linux
# PMDA, as PCP installs it).
#
# 1. descriptors, PMIDs, instance domains and help texts: `linux_metrics
#    desc` against `pminfo -dmT -h local:` for every metric, byte for byte;
# 2. local contexts through the tools: pminfo -L (descriptors, help, PMIDs,
#    instance domains, labels, series identifiers) and pmprobe -L -i -I
#    (instance identifiers and names) byte for byte against PCP's, which
#    run the Linux PMDA in-process;
# 3. values by semantics against pmcd's, in sandwiches (ours, pmcd's,
#    ours) that retry what moved: scripts/linux-values.py says how;
# 4. the same for the proc PMDA's metrics: scripts/proc-ci.sh.
#
# No step depends on how fast the machine is. Needs the debug builds of
# the tools (cargo test --workspace builds them; built here otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG=
target=${CARGO_TARGET_DIR:-target}
cargo build -q -p pcp-linux --example linux_metrics
cargo build -q -p pcp-tools --bin pminfo --bin pmprobe
ours=$target/debug/examples/linux_metrics
tools=$target/debug
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

pminfo -h local: kernel.all.load >/dev/null || { echo "linux: PCP's Linux PMDA is not answering" >&2; exit 1; }
"$ours" names > "$tmp/names"
"$ours" computed > "$tmp/computed"
"$ours" table > "$tmp/table"
count=$(wc -l < "$tmp/names")

# 1. descriptors and help texts
"$ours" desc > "$tmp/ours.desc"
# shellcheck disable=SC2046
pminfo -dmT -h local: $(cat "$tmp/names") > "$tmp/pcp.desc" 2>&1
if cmp -s "$tmp/ours.desc" "$tmp/pcp.desc"; then
    echo "linux: desc: $count metrics identical to pminfo -dmT -h local:"
else
    echo "linux: desc: DIFFERENT"; diff "$tmp/ours.desc" "$tmp/pcp.desc" | head -20; fail=1
fi

# 2. local contexts through the tools (proc.nprocs is pcp-rs's own: PCP
#    runs the proc PMDA under pmcd only)
grep -v '^proc\.' "$tmp/names" > "$tmp/lnames"
lcount=$(wc -l < "$tmp/lnames")
# (instances, and so instance labels, only where pcp-linux computes the
# values: the other metrics have none yet)
grep -v '^proc\.' "$tmp/computed" > "$tmp/cnames"
ccount=$(wc -l < "$tmp/cnames")
# same LABEL CMD...: ours and PCP's print the same bytes and status (less
# the notices the Linux PMDA, loaded into PCP's tool by -L, logs to its
# standard error with a time stamp, e.g. about /proc/net/snmp fields that
# 6.0.3 does not know)
pmda_notice='^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8}\] [a-z]+\([0-9]+\) (Warning|Info): proc_net'
same() {
    local label=$1 st
    shift
    st=0; "$@" > "$tmp/c.out" 2> "$tmp/c.err" || st=$?; echo "status $st" >> "$tmp/c.out"
    grep -Ev "$pmda_notice" "$tmp/c.err" >> "$tmp/c.out" || true
    st=0; "$tools/$1" "${@:2}" > "$tmp/r.out" 2> "$tmp/r.err" || st=$?; echo "status $st" >> "$tmp/r.out"
    cat "$tmp/r.err" >> "$tmp/r.out"
    if cmp -s "$tmp/c.out" "$tmp/r.out"; then
        echo "linux: $label: $(wc -l < "$tmp/r.out") lines identical"
    else
        echo "linux: $label: DIFFERENT"; diff "$tmp/c.out" "$tmp/r.out" | head -20; fail=1
    fi
}
for flags in -dmT -tI -M; do
    # shellcheck disable=SC2046,SC2086
    same "pminfo -L $flags ($lcount metrics)" pminfo -L $flags $(cat "$tmp/lnames")
done
# shellcheck disable=SC2046
for flags in -l -s; do
    # shellcheck disable=SC2046,SC2086
    same "pminfo -L $flags ($ccount metrics)" pminfo -L $flags $(cat "$tmp/cnames")
done
# shellcheck disable=SC2046
same "pminfo -L -tTl (instance domains)" pminfo -L -tTl $("$ours" indoms)
# shellcheck disable=SC2046
same "pmprobe -L -i -I ($ccount metrics)" pmprobe -L -i -I $(cat "$tmp/cnames")

# 3. values
#    (of the metrics pcp-linux computes: the others have no values yet)
python3 scripts/linux-values.py --attempts 5 "$ours" "$tmp/computed" "$tmp/table" | sed 's/^/linux: /' || fail=1

# 4. the proc PMDA's metrics (proc.*, cgroup.*)
bash scripts/proc-ci.sh || fail=1
exit $fail
