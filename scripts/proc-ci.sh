#!/usr/bin/env bash
# The proc PMDA (domain 3) part of the CI differential (scripts/linux-ci.sh
# runs it): our local contexts against PCP's proc PMDA under pmcd.
#
# 1. `pminfo -L -dmT|-tI|-M proc cgroup hotproc acct` against `pminfo -h
#    local:` byte for byte (descriptors, PMIDs, help, instance domains,
#    series), and `-dmtTl hotproc acct` (labels; their instance domains
#    are empty with PCP's default settings: no hotproc predicate, no
#    process accounting);
# 2. instance domains that hold still: `pmprobe -i -I`, `pminfo -l` and
#    `pminfo -s` over cgroup.* byte for byte (the processes come and go,
#    so the proc instance domain is compared through its values below),
#    and every hotproc.* and acct.* value (the settings and totals; the
#    per-process metrics have none);
# 3. values by semantics for the processes that outlive the check (PID 1
#    and this script's shell) and every cgroup.* value, in linux-values.py's
#    sandwiches (ours, pmcd's, ours). Left out: proc.smaps.* (the PMDA
#    lists no processes for a fetch of those metrics alone, so what it
#    serves depends on what other clients fetched before: pmcd's PMDA has
#    a table, a fresh local context has none) and proc.psinfo.ngid (an
#    index in the PMDA's string dictionary, which pmcd's PMDA has filled
#    in its own order). PID 1 only where the kernel lets this script read
#    its io file (a sandbox may deny it to this session's processes, and
#    then to PCP's own pminfo -L as well, and not to pmcd's PMDA).
#
# Needs the debug builds of pminfo and pmprobe (built here otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG=
target=${CARGO_TARGET_DIR:-target}
cargo build -q -p pcp-tools --bin pminfo --bin pmprobe
tools=$(cd "$target/debug" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

pminfo -h local: proc.nprocs >/dev/null || { echo "proc: PCP's proc PMDA is not answering" >&2; exit 1; }

# the same bytes and status from PCP's tool against pmcd and from ours in
# a local context: LABEL TOOL ARGS... (ARGS: the host option is added)
same() {
    local label=$1 tool=$2 st
    shift 2
    st=0; "$tool" -h local: "$@" > "$tmp/c.out" 2>&1 || st=$?; echo "status $st" >> "$tmp/c.out"
    st=0; "$tools/$tool" -L "$@" > "$tmp/r.out" 2>&1 || st=$?; echo "status $st" >> "$tmp/r.out"
    if cmp -s "$tmp/c.out" "$tmp/r.out"; then
        echo "proc: $label: $(wc -l < "$tmp/r.out") lines identical"
    else
        echo "proc: $label: DIFFERENT"; diff "$tmp/c.out" "$tmp/r.out" | head -20; fail=1
    fi
}

# 1. the name space and the metadata
for flags in -dmT -tI -M; do
    same "pminfo $flags proc cgroup hotproc acct" pminfo "$flags" proc cgroup hotproc acct
done
same "pminfo -dmtTl hotproc acct" pminfo -dmtTl hotproc acct
# 2. the cgroup instance domains
same "pmprobe -i -I cgroup" pmprobe -i -I cgroup
same "pminfo -l cgroup" pminfo -l cgroup
same "pminfo -s cgroup" pminfo -s cgroup
# hotproc and acct: the settings and totals, and no values elsewhere
same "pminfo -f hotproc acct" pminfo -f hotproc acct
same "pmprobe -I hotproc acct" pmprobe -I hotproc acct

# 3. values
pminfo -h local: proc cgroup | grep -Ev '^proc\.(smaps\.|psinfo\.ngid$)' > "$tmp/names"
# the semantics and types the sandwich needs, from our descriptors
# shellcheck disable=SC2046
"$tools/pminfo" -L -d $(cat "$tmp/names") | awk '
    /^[a-z]/ { name = $1 }
    /Data Type:/ { ty = ($3 == "32-bit" && $4 == "unsigned") ? "U32" : $3 }
    /Semantics:/ { print name "\t" $2 "\t" ty }' > "$tmp/table"
# our side of the sandwich: a local context's pminfo -f
cat > "$tmp/ours" <<EOF
#!/bin/sh
shift
exec "$tools/pminfo" -L -f "\$@"
EOF
chmod +x "$tmp/ours"
insts=$$
if cat /proc/1/io >/dev/null 2>&1; then insts="1,$$"; fi
python3 scripts/linux-values.py --attempts 5 --insts "$insts" "$tmp/ours" "$tmp/names" "$tmp/table" \
    | sed 's/^/proc: /' || fail=1
exit $fail
