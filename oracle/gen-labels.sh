#!/usr/bin/env bash
# Regenerates the golden file for pcp-core's labels module.
#
#   oracle/gen-labels.sh [OUTFILE [SEED [COUNT]]]
#
# Builds oracle/labels_oracle.c against the reference C libpcp (PCP 6.0.3,
# `-lpcp`) in a scratch directory and records how libpcp parses and merges
# hand-written label texts and COUNT random ones drawn from SEED
# (pmMergeLabels, pmMergeLabelSets with filters, __pmAddLabels,
# __pmParseLabelSet). The committed crates/pcp-core/tests/golden/labels.tsv
# was made with no arguments: seed 1, 3000 random cases. The differential
# suite calls it with a scratch OUTFILE and a fresh SEED and points
# PCP_RS_LABELS_GOLDEN at the result. Columns: oracle/labels_oracle.c.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp-core/tests/golden/labels.tsv}
seed=${2:-1}
count=${3:-3000}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O2 -Wall -o "$build/labels_oracle" "$here/labels_oracle.c" -lpcp
mkdir -p "$(dirname "$out")"
LC_ALL=C "$build/labels_oracle" "$seed" "$count" > "$out"
echo "labels: $(wc -l < "$out") cases"
