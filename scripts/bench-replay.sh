#!/usr/bin/env bash
# Interpolated replay speed, ours against libpcp: the first N (default
# 200) fetches of every metric at 10 s steps over a QA archive (default
# 20180416.10.00: four xz volumes, about 330 MB decompressed), each side
# run under /usr/bin/time -v; wall time, CPU and peak RSS are printed,
# and the two sides must end at the same time after the same number of
# results.
#
#   scripts/bench-replay.sh [ARCHIVE [N]]
set -euo pipefail
cd "$(dirname "$0")/.."
archive=${1:-/var/lib/pcp/testsuite/archives/20180416.10.00}
n=${2:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p oracle/build
cc -O2 -Wall -o oracle/build/replay_oracle oracle/replay_oracle.c -lpcp
cargo build -q --release -p pcp-archive --example replay
ours=${CARGO_TARGET_DIR:-target}/release/examples/replay
printf 'pmids all\nmode interp s+0 10000000000\nfetchq %s\n' "$n" >"$work/script"
export TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG=
for side in libpcp pcp-rs; do
    bin=oracle/build/replay_oracle
    [ "$side" = pcp-rs ] && bin=$ours
    /usr/bin/time -v "$bin" "$archive" "$work/script" >"$work/$side.out" 2>"$work/$side.time"
    printf '%-7s %s | %s | user %ss sys %ss | peak RSS %s kB\n' "$side" "$(tail -1 "$work/$side.out")" \
        "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$side.time")" \
        "$(sed -n 's/.*User time (seconds): //p' "$work/$side.time")" \
        "$(sed -n 's/.*System time (seconds): //p' "$work/$side.time")" \
        "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$side.time")"
done
cmp -s "$work/libpcp.out" "$work/pcp-rs.out" || { echo "results differ" >&2; exit 1; }
