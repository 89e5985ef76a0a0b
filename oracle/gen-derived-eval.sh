#!/usr/bin/env bash
# Records crates/pcp-derived/tests/eval/cases.out (or OUT, the first
# argument): each case of cases.txt
# (an archive of crates/pcp-archive/tests/fixtures and derived metric
# definitions) run through oracle/derived_eval_oracle.c, built against the
# reference C libpcp (PCP 6.0.3, -lpcp). Each case's output is preceded by
# a line "# CASE n".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
cases=$root/crates/pcp-derived/tests/eval/cases.txt
out=${1:-$root/crates/pcp-derived/tests/eval/cases.out}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O1 -o "$build/derived_eval_oracle" "$here/derived_eval_oracle.c" -lpcp
n=0
{
    while IFS= read -r line; do
        case $line in '#'*|'') continue ;; esac
        n=$((n + 1))
        IFS=$'\t' read -r -a f <<<"$line"
        echo "# CASE $n"
        (cd "$root/crates/pcp-archive/tests/fixtures" &&
            TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG= "$build/derived_eval_oracle" "${f[@]}")
    done <"$cases"
} >"$out"
