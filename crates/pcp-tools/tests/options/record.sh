#!/usr/bin/env bash
# Records what PCP 6.0.3's tools print for each case here: NN.cmd holds a
# command line (optional NAME=VALUE settings, the tool, its arguments,
# separated by blanks); NN.out, NN.err and NN.status are the tool's
# standard output, standard error and exit status, run with only these in
# the environment: PATH, TZ=UTC, LC_ALL=C, PCP_DERIVED_CONFIG= and the
# case's settings. Every case here ends during option handling (or in
# pmGetContextOptions), which tests/options_golden.rs reproduces.
# The tools run in the crate's directory (relative paths in the cases
# start there, as in cargo's tests); the results go beside the cases, or
# into the directory given as the one argument.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
cd "$here/../.."
for cmd in "$here"/*.cmd; do
    n=$(basename "${cmd%.cmd}")
    st=0
    # shellcheck disable=SC2046
    env -i PATH=/usr/bin:/bin TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG= $(cat "$cmd") >"$out/$n.out" 2>"$out/$n.err" || st=$?
    echo "$st" >"$out/$n.status"
done
echo "recorded $(ls "$here"/*.cmd | wc -l) cases"
