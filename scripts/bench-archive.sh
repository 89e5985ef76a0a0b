#!/usr/bin/env bash
# Archive tools against PCP's on the same inputs in the same run: wall
# time (best of N) and peak RSS, as ratios. Outputs must be identical.
#   scripts/bench-archive.sh [ARCHIVE...]
# Default archives: PCP's largest QA archive (4 xz volumes, ~330 MB
# uncompressed) and a >= 50 MB one made here with pmlogger (kept in
# /tmp/pcp-rs-bench; made once, see make_big below).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
export PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C
make_big() {
    local dir=/tmp/pcp-rs-bench
    if [ ! -f "$dir/big.meta" ]; then
        mkdir -p "$dir"
        printf 'log mandatory on 20 msec {\n sample\n kernel\n mem\n disk\n network\n hinv\n pmcd\n}\n' >"$dir/config"
        (cd "$dir" && pmlogger -V 3 -c config -T 60sec big >/dev/null 2>&1 || true)
    fi
    echo "$dir/big"
}
if [ $# -eq 0 ]; then
    set -- /var/lib/pcp/testsuite/archives/20180416.10.00 "$(make_big)"
fi
cargo build -q --release -p pcp-tools
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# best wall time and its peak RSS over $runs runs: "secs kb"
measure() {
    local best="" kb=""
    for _ in $(seq "$runs"); do
        /usr/bin/time -o "$work/t" -f "%e %M" "$@" >"$work/out" 2>&1 || true
        read -r s m <"$work/t"
        if [ -z "$best" ] || awk "BEGIN{exit !($s < $best)}"; then best=$s; kb=$m; fi
    done
    echo "$best $kb"
}
printf '%-16s %-22s %9s %9s %7s %10s %10s %6s\n' archive command "PCP s" "ours s" speedup "PCP KB" "ours KB" mem
for a in "$@"; do
    for cmd in "pminfo -f" "pmprobe -v" ${EXTRA_CMDS:-}; do
        set -- $cmd
        tool=$1; shift
        read -r cs ck < <(measure "$tool" -a "$a" "$@")
        cp "$work/out" "$work/c.out"
        read -r rs rk < <(measure "target/release/$tool" -a "$a" "$@")
        cmp -s "$work/c.out" "$work/out" || { echo "outputs differ: $tool -a $a $*" >&2; exit 1; }
        printf '%-16s %-22s %9s %9s %7.1f %10s %10s %6.2f\n' "$(basename "$a")" "$tool -a $*" "$cs" "$rs" \
            "$(awk "BEGIN{print $cs / ($rs > 0 ? $rs : 0.005)}")" "$ck" "$rk" "$(awk "BEGIN{print $rk / $ck}")"
    done
done
