#!/usr/bin/env bash
# Archive replay against libpcp, live: every script in oracle/replay-sweep
# runs through oracle/replay_oracle.c (the reference libpcp) and through
# pcp-archive's Replay (the `replay` example) on each archive named, and
# the outputs must be the same byte for byte.
#
#   scripts/replay-sweep.sh ARCHIVE...
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p oracle/build
cc -O2 -Wall -o oracle/build/replay_oracle oracle/replay_oracle.c -lpcp
cargo build -q --release -p pcp-archive --example replay
ours=${CARGO_TARGET_DIR:-target}/release/examples/replay
export TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG=
runs=0
crashes=0
for archive in "$@"; do
    for script in oracle/replay-sweep/*.script; do
        st=0; oracle/build/replay_oracle "$archive" "$script" >"$work/c.out" 2>/dev/null || st=$?
        cst=$st
        echo "status $st" >>"$work/c.out"
        st=0; "$ours" "$archive" "$script" >"$work/r.out" 2>/dev/null || st=$?
        echo "status $st" >>"$work/r.out"
        if [ "$cst" -ge 128 ]; then
            # libpcp itself died (6.0.3 corrupts its heap in some
            # interpolation sequences): what it printed before, whole lines
            # only, must be how our output starts
            head -n -2 "$work/c.out" >"$work/c.part"
            head -c "$(wc -c <"$work/c.part")" "$work/r.out" >"$work/r.part"
            if ! cmp -s "$work/c.part" "$work/r.part"; then
                echo "replay $(basename "$script") on $archive differs before libpcp crashed" >&2
                diff "$work/c.part" "$work/r.part" | head -20 >&2 || true
                exit 1
            fi
            echo "libpcp crashed (status $cst): replay $(basename "$script") on $archive, $(wc -l <"$work/c.part") lines before agree"
            crashes=$((crashes + 1))
            runs=$((runs + 1))
            continue
        fi
        if ! cmp -s "$work/c.out" "$work/r.out"; then
            echo "replay $(basename "$script") on $archive differs" >&2
            diff "$work/c.out" "$work/r.out" | head -20 >&2 || true
            exit 1
        fi
        runs=$((runs + 1))
    done
done
echo "replay: $runs runs over $# archives agree ($crashes of them only up to a libpcp crash)"
