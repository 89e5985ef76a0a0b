#!/usr/bin/env bash
# Regenerates crates/pcp/tests/golden/timeparse.tsv: libpcp's answers for
# intervals (pmParseInterval, pmParseHighResInterval) and time windows
# (pmParseHighResTimeWindow, pmParseTimeWindow: -S, -T, -A, -O against fixed
# archive-like bounds and a live source) in several time zones.
#
#   oracle/gen-timeparse.sh [OUTFILE [SEED [COUNT]]]
#
# COUNT generated windows a zone (and 4*COUNT generated intervals) come after
# the hand-picked cases. The committed file was made on Debian 12 (PCP 6.0.3,
# glibc 2.36, its tzdata) with no arguments (seed 1, COUNT 400).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp/tests/golden/timeparse.tsv}
seed=${2:-1}
count=${3:-400}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
# -rdynamic: libpcp's clock_gettime calls must find the oracle's own
cc -O2 -Wall -rdynamic -o "$build/timeparse_oracle" "$here/timeparse_oracle.c" -lpcp
"$build/timeparse_oracle" "$seed" "$count" > "$out"
echo "timeparse: $(grep -c '^I' "$out") intervals, $(grep -c '^W' "$out") windows"
