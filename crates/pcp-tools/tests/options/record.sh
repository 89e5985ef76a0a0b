#!/usr/bin/env bash
# Records what PCP 6.0.3's tools print for each case here: NN.cmd holds a
# command line (optional NAME=VALUE settings, the tool, its arguments,
# separated by blanks); NN.out, NN.err and NN.status are the tool's
# standard output, standard error and exit status, run with only these in
# the environment: PATH, TZ=UTC, LC_ALL=C, PCP_DERIVED_CONFIG= and the
# case's settings. Every case here ends during option handling (or in
# pmGetContextOptions), which tests/options_golden.rs reproduces.
set -euo pipefail
cd "$(dirname "$0")"
for cmd in *.cmd; do
    n=${cmd%.cmd}
    st=0
    # shellcheck disable=SC2046
    env -i PATH=/usr/bin:/bin TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG= $(cat "$cmd") >"$n.out" 2>"$n.err" || st=$?
    echo "$st" >"$n.status"
done
echo "recorded $(ls ./*.cmd | wc -l) cases"
