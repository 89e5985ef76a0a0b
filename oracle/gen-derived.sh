#!/usr/bin/env bash
# Regenerates the golden files for pcp-derived's parser.
#
#   oracle/gen-derived.sh [OUTDIR [SEED [COUNT]]]
#
# Builds oracle/derived_oracle.c against the reference C libpcp (PCP
# 6.0.3, -lpcp) in a scratch directory and records, into OUTDIR
# (default crates/pcp-derived/tests/golden):
#   regex.tsv  glibc regcomp(REG_EXTENDED) on hand-written and COUNT random
#              patterns (the check matchinst() makes);
#   parse.tsv  pmRegisterDerivedMetric on hand-written and COUNT random
#              expressions, with libpcp's lexer trace and parse tree;
#   config.tsv pmLoadDerivedConfig on hand-written and COUNT/3 random
#              files, and $PCP_DERIVED_CONFIG cases;
#   sem.tsv    semantic checks: hand-written and COUNT/3 random expressions
#              over metrics of the local pmcd's sample and linux PMDAs,
#              bound in a new context (needs pmcd running; see
#              scripts/setup-reference-pcp.sh), with those metrics'
#              descriptors.
# With PCP_RS_DERIVED_FILES set (a list of configuration files, such as
# /etc/pcp/derived/*.conf), config.tsv also holds those files' cases.
# The committed files were made with no arguments: seed 1, COUNT 3000.
# Columns: oracle/derived_oracle.c.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp-derived/tests/golden}
seed=${2:-1}
count=${3:-3000}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O2 -Wall -o "$build/derived_oracle" "$here/derived_oracle.c" -lpcp
mkdir -p "$out"
export LC_ALL=C PCP_DERIVED_CONFIG=
"$build/derived_oracle" regex "$seed" "$count" > "$out/regex.tsv"
"$build/derived_oracle" expr "$seed" "$count" > "$out/parse.tsv"
"$build/derived_oracle" config "$seed" $((count / 3)) > "$out/config.tsv"
"$build/derived_oracle" sem "$seed" $((count / 3)) > "$out/sem.tsv"
if [ -n "${PCP_RS_DERIVED_FILES:-}" ]; then
    # shellcheck disable=SC2086
    "$build/derived_oracle" files 0 $PCP_RS_DERIVED_FILES >> "$out/config.tsv"
fi
echo "regex: $(wc -l < "$out/regex.tsv") cases, parse: $(wc -l < "$out/parse.tsv") cases, config: $(wc -l < "$out/config.tsv") cases, sem: $(grep -c '^K' "$out/sem.tsv") cases"
