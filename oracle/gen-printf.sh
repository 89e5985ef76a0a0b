#!/usr/bin/env bash
# Regenerates the golden file for pcp-core's printf formatting (cfmt).
#
#   oracle/gen-printf.sh [OUTFILE [SEED [COUNT]]]
#
# Builds oracle/printf_oracle.c (plain libc, `cc -O2`) in a scratch
# directory and records what the C library's snprintf prints for COUNT
# doubles and %e/%E/%f/%F/%g/%G formats drawn from SEED. The committed
# crates/pcp-core/tests/golden/printf.tsv was made with no arguments: seed 1,
# 32000 cases, glibc 2.36 (Debian 12) on x86_64. The differential suite
# calls it with a scratch OUTFILE and a fresh SEED and points
# PCP_RS_PRINTF_GOLDEN at the result. Columns: oracle/printf_oracle.c.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp-core/tests/golden/printf.tsv}
seed=${2:-1}
count=${3:-32000}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O2 -Wall -o "$build/printf_oracle" "$here/printf_oracle.c" -lm
mkdir -p "$(dirname "$out")"
LC_ALL=C "$build/printf_oracle" "$seed" "$count" > "$out"
echo "printf: $(wc -l < "$out") cases"
