#!/usr/bin/env bash
# Speed of pcp-core against libpcp on the same inputs in the same run:
# prints nanoseconds per call for each and the ratio (C time / Rust time;
# above 1 means pcp-rs is faster). Needs libpcp3-dev. Usage: scripts/bench.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/core_bench" bench/core_bench.c -lpcp
cargo build -q --release -p pcp-core --example core_bench
"$work/core_bench" crates/pcp-core/tests/golden "$rounds" > "$work/c.txt" 2>/dev/null
target/release/examples/core_bench crates/pcp-core/tests/golden "$rounds" > "$work/rust.txt" 2>/dev/null
printf '%-12s %10s %10s %8s\n' operation "C ns" "Rust ns" "C/Rust"
join "$work/c.txt" "$work/rust.txt" | awk '{ printf "%-12s %10.1f %10.1f %8.2f\n", $1, $2, $3, $2/$3 }'
