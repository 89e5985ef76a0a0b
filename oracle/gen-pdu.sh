#!/usr/bin/env bash
# Regenerates the golden file for crates/pcp-pdu's libpcp comparison.
#
#   oracle/gen-pdu.sh [OUTFILE [SEED [COUNT]]]
#
# Builds oracle/pdu_oracle.c against the reference C libpcp (PCP 6.0.3,
# `-lpcp`) in a scratch directory and records: __pmPDUTypeStr for every
# type code around the PDU ranges; COUNT PDUs of every kind libpcp's
# __pmSend* functions wrote from random contents (drawn from SEED), with
# libpcp's decode of each; and four mutants of each (cut short,
# lengthened, a word or byte changed, the header's length or type
# changed) with libpcp's decode of those, each decode in a child process.
# The committed crates/pcp-pdu/tests/golden/pdu.tsv was made with no
# arguments: seed 1, COUNT 1150 (50 of each of the 23 kinds). The
# differential suite calls it with a scratch OUTFILE and a fresh SEED and
# points PCP_RS_PDU_GOLDEN at the result. Columns: oracle/pdu_oracle.c.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp-pdu/tests/golden/pdu.tsv}
seed=${2:-1}
count=${3:-1150}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O2 -Wall -o "$build/pdu_oracle" "$here/pdu_oracle.c" -lpcp
mkdir -p "$(dirname "$out")"
# libpcp reports the PDUs it refuses on stderr
LC_ALL=C "$build/pdu_oracle" "$seed" "$count" > "$out" 2>/dev/null
echo "pdu: $(grep -c '^enc' "$out") encodings, $(grep -c '^dec' "$out") mutants"
