#!/usr/bin/env bash
# Derived metrics: pminfo -f and pmval with 1,000 derived metrics over an
# archive, ours against PCP's, on the same inputs in the same run. The
# configuration (made here, in a temporary directory) is a mix of what
# /etc/pcp/derived has and what the pmRegisterDerived(3) examples show:
# rates, deltas, ratios of deltas, sums/averages/min/max/count over
# instances, ternaries, relational and boolean operators, matchinst,
# rescale, percentages, instant, defined and mkconst, over counters,
# instantaneous and discrete metrics with and without instance domains.
#
# For each command, the best wall time of RUNS runs (default 3; output to
# /dev/null) and that run's peak RSS (GNU time), as ratios: speed is PCP's
# time over ours, memory ours over PCP's; also the least CPU time (user +
# system) of the runs and its ratio, which a busy machine disturbs less. Each command's output (stdout and
# stderr) is checked to be the same as PCP's, by checksum, in one more run
# (CHECK=0 leaves that out). OURS=DIR times the tools in DIR instead of
# building them. N=COUNT makes COUNT derived metrics instead of 1,000.
# T=INTERVAL is pmval's -t (default 1).
#
#   scripts/bench-derived.sh [ARCHIVE]
#
# Default archive: the >= 100 MB plain archive scripts/bench-lib.sh's
# make_big makes (/tmp/pcp-rs-bench/big, made here if missing). The archive must
# have the kernel, mem, disk and network metrics of Linux (as pmlogger
# records them from pmcd's linux PMDA). Needs pcp and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
check=${CHECK:-1}
count=${N:-1000}
interval=${T:-1}
export PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C
# $ours, measure() and make_big()
. scripts/bench-lib.sh
archive=${1:-$(make_big)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache_as_read "$archive"
cfg=$work/derived.conf

# $count definitions bench.NNNN = ..., cycling through the templates below
# with the operands and constants varied
awk -v n="$count" 'BEGIN {
    nc = split("kernel.all.cpu.user kernel.all.cpu.sys kernel.all.cpu.idle kernel.all.intr kernel.all.pswitch disk.all.read disk.all.write", C, " ")
    ni = split("disk.dev.read disk.dev.write disk.dev.read_bytes disk.dev.write_bytes network.interface.in.bytes network.interface.out.bytes network.interface.in.packets network.interface.out.packets kernel.percpu.cpu.user kernel.percpu.cpu.sys", I, " ")
    np = split("disk.dev.read_bytes/disk.dev.read disk.dev.write_bytes/disk.dev.write network.interface.in.bytes/network.interface.in.packets network.interface.out.bytes/network.interface.out.packets kernel.percpu.cpu.user/kernel.percpu.cpu.sys", P, " ")
    nt = split("kernel.all.cpu.user kernel.all.cpu.sys kernel.all.cpu.idle kernel.all.cpu.nice kernel.all.cpu.wait.total kernel.all.cpu.steal", T, " ")
    nm = split("mem.util.used mem.util.free mem.util.cached", M, " ")
    nr = split("^eth ^lo$ if ^vd cpu[01] !^lo$ !ifb", R, " ")
    na = split("sum avg max min count", A, " ")
    for (i = 0; i < n; i++) {
        k = int(i / 17)
        c = C[k % nc + 1]; u = T[k % nt + 1]; x = I[k % ni + 1]; m = M[k % nm + 1]; r = R[k % nr + 1]; a = A[k % na + 1]
        split(P[k % np + 1], p, "/")
        pat = substr(r, 1, 1) == "!" ? "!/" substr(r, 2) "/" : "/" r "/"
        t = i % 17
        if (t == 0) e = "rate(" c ")"
        if (t == 1) e = "delta(" x ")"
        if (t == 2) e = "delta(" p[1] ") / delta(" p[2] ")"
        if (t == 3) e = a "(" x ")"
        if (t == 4) e = x " > " k " ? " x " : 0 * " x
        if (t == 5) e = "matchinst(" pat ", " x ")"
        if (t == 6) e = "rescale(" m ", \"Mbyte\")"
        if (t == 7) e = "100 * " m " / mem.physmem"
        if (t == 8) e = "instant(" c ")"
        if (t == 9) e = "kernel.all.cpu.user + kernel.all.cpu.sys + " u
        if (t == 10) e = "kernel.all.load > " (k % 4) " && " m " > " k " ? kernel.all.load : -kernel.all.load"
        if (t == 11) e = "defined(kernel.all.nprocs) ? kernel.all.nprocs + " k " : mkconst(" k ", type=u32, semantics=instant)"
        if (t == 12) e = "(" u " - kernel.all.cpu.idle) * " (k + 1)
        if (t == 13) e = "max(kernel.all.load) - min(kernel.all.load) + " k ".5"
        if (t == 14) e = "rate(" x ") / " (k + 2)
        if (t == 15) e = "!(" x " == " k ") || " c " < " k
        if (t == 16) e = "(max(" x ") - min(" x ")) / count(" x ")"
        printf "bench.m%04d = %s\n", i, e
    }
}' >"$cfg"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b <= 0) b = 0.005; printf "%.1f", a / b }'; }

name=$(basename "$archive")
# pmval's metrics: a rate, a ratio of deltas, an aggregate over matchinst,
# and a ternary over instances
cmds=(
    "pminfo -a @ -c $cfg -f bench"
    "pminfo -a @ -c $cfg -d bench"
    "pmval -a @ --derived=$cfg -t $interval bench.m0000"
    "pmval -a @ --derived=$cfg -t $interval bench.m0002"
    "pmval -a @ --derived=$cfg -t $interval bench.m0016"
    "pmval -a @ --derived=$cfg -t $interval bench.m0004"
)
echo "$count derived metrics over $archive (config: awk generator in $0)"
printf '%-44s %8s %8s %7s %10s %10s %5s %8s %8s %7s\n' command "PCP s" "ours s" speed "PCP KB" "ours KB" mem \
    "PCP cpu" "our cpu" "cpu x"
for cmd in "${cmds[@]}"; do
    read -r -a args <<<"${cmd//@/$archive}"
    tool=${args[0]}
    read -r cs ck cc < <(measure "$tool" "${args[@]:1}")
    read -r os ok oc < <(measure "$ours/$tool" "${args[@]:1}")
    if [ "$check" != 0 ]; then
        c=$("$tool" "${args[@]:1}" 2>&1 | cksum) || true
        o=$("$ours/$tool" "${args[@]:1}" 2>&1 | cksum) || true
        if [ "$c" != "$o" ]; then
            echo "outputs differ: $tool ${args[*]:1}" >&2
            if [ -n "${KEEP:-}" ]; then
                "$tool" "${args[@]:1}" >"$KEEP.pcp" 2>&1 || true
                "$ours/$tool" "${args[@]:1}" >"$KEEP.ours" 2>&1 || true
                cp "$cfg" "$KEEP.conf"
            fi
            exit 1
        fi
    fi
    shown=${cmd//@/A}
    printf '%-44s %8s %8s %6sx %10s %10s %5s %8s %8s %6sx\n' "${shown//$cfg/CFG}" "$cs" "$os" \
        "$(ratio "$cs" "$os")" "$ck" "$ok" "$(awk -v a="$ok" -v b="$ck" 'BEGIN{printf "%.2f", a / b}')" \
        "$cc" "$oc" "$(ratio "$cc" "$oc")"
done
