#!/usr/bin/env bash
# The archive tools against PCP's, on the same inputs in the same run:
# pmdumplog -a, pminfo -a -f, pmprobe -a -v and pmval -a -t. For each, the
# best wall time of RUNS runs (default 3; output to /dev/null) and that
# run's peak RSS (GNU time), as ratios: speed is PCP's time over ours,
# memory ours over PCP's. Each command's output (stdout and stderr) is
# also checked to be the same as PCP's, by checksum, in one more run each
# (CHECK=0 leaves that out). First, per archive, the time just to read (or
# decompress) its files. OURS=DIR times the tools in DIR instead of building
# them (to compare with an older build).
#
#   scripts/bench-archive.sh [ARCHIVE[,METRIC,INTERVAL]...]
#
# pmval runs only for archives given a metric and an interval. Default: PCP's
# largest QA archive (4 xz volumes, ~330 MB decompressed) with pmval -t 10
# disk.dev.read, and a >= 100 MB plain archive made here with pmlogger (kept
# in /tmp/pcp-rs-bench; made once, about a minute, see make_big) with pmval
# -t 1 kernel.all.load. Needs pcp, pmcd with the sample PMDA (to make the
# archive), xz, bzip2, gzip and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
check=${CHECK:-1}
export PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C
# $ours, measure() and make_big()
. scripts/bench-lib.sh
if [ $# -eq 0 ]; then
    set -- /var/lib/pcp/testsuite/archives/20180416.10.00,disk.dev.read,10 "$(make_big),kernel.all.load,1"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# every file of archive $1, decompressed
read_files() {
    local f
    for f in "$1".meta* "$1".index* "$1".[0-9]*; do
        case $f in
        *.xz | *.lzma) xz -dc "$f" ;;
        *.bz2) bzip2 -dc "$f" ;;
        *.gz) gzip -dc "$f" ;;
        *) cat "$f" ;;
        esac
    done >/dev/null
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b <= 0) b = 0.005; printf "%.1f", a / b }'; }

printf '%-16s %-34s %8s %8s %7s %10s %10s %5s\n' archive command "PCP s" "ours s" speed "PCP KB" "ours KB" mem
for spec in "$@"; do
    IFS=, read -r archive metric interval <<<"$spec"
    name=$(basename "$archive")
    cache_as_read "$archive"
    export -f read_files
    read -r rs _ < <(measure bash -c 'read_files "$1"' - "$archive")
    printf '%-16s %-34s %8s\n' "$name" "(reading its files)" "$rs"
    cmds=("pmdumplog -a @" "pminfo -a @ -f" "pmprobe -a @ -v")
    if [ -n "${metric:-}" ]; then
        cmds+=("pmval -a @ -t $interval $metric")
    fi
    for cmd in "${cmds[@]}"; do
        read -r -a args <<<"${cmd//@/$archive}"
        tool=${args[0]}
        read -r cs ck _ < <(measure "$tool" "${args[@]:1}")
        read -r os ok _ < <(measure "$ours/$tool" "${args[@]:1}")
        if [ "$check" != 0 ]; then
            c=$("$tool" "${args[@]:1}" 2>&1 | cksum) || true
            o=$("$ours/$tool" "${args[@]:1}" 2>&1 | cksum) || true
            if [ "$c" != "$o" ]; then
                echo "outputs differ: $tool ${args[*]:1}" >&2
                exit 1
            fi
        fi
        printf '%-16s %-34s %8s %8s %6sx %10s %10s %5s\n' "$name" "${cmd//@/A}" "$cs" "$os" \
            "$(ratio "$cs" "$os")" "$ck" "$ok" "$(awk -v a="$ok" -v b="$ck" 'BEGIN{printf "%.2f", a / b}')"
    done
done
