#!/usr/bin/env bash
# Records the archive replay goldens: runs every script in
# crates/pcp-archive/tests/replay/*.script through replay_oracle (the
# reference libpcp) against the fixture archive its "# archive:" line
# names, writing NAME.out beside it (a comma-separated list names several
# archives, read as one context). A "# env: NAME" line sets that variable
# (e.g. PCP_COUNTER_WRAP) for the run.
#
#   oracle/gen-replay.sh [OUTDIR]
#
# With OUTDIR the outputs go there instead (the differential suite
# compares them with the committed ones).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=$here/../crates/pcp-archive/tests/replay
fixtures=$here/../crates/pcp-archive/tests/fixtures
out=${1:-$cases}
mkdir -p "$out" "$here/build"
cc -O2 -Wall -o "$here/build/replay_oracle" "$here/replay_oracle.c" -lpcp
n=0
for script in "$cases"/*.script; do
    name=$(basename "$script" .script)
    archive=$(sed -n 's/^# archive: *//p' "$script")
    # each archive of a list, in the fixtures directory
    archive=$(printf '%s\n' "$archive" | awk -v dir="$fixtures" 'BEGIN { FS = OFS = "," } { for (i = 1; i <= NF; i++) $i = dir "/" $i; print }')
    envs=$(sed -n 's/^# env: *//p' "$script" | sed 's/$/=1/')
    # shellcheck disable=SC2086
    env TZ=UTC LC_ALL=C PCP_DERIVED_CONFIG= $envs \
        "$here/build/replay_oracle" "$archive" "$script" > "$out/$name.out"
    n=$((n + 1))
done
echo "replay: $n scripts recorded"
# __pmTimestampSub's long double arithmetic, on random timestamps
"$here/build/replay_oracle" tsub 1 4000 > "$out/tsub.tsv"
echo "tsub: $(wc -l < "$out/tsub.tsv") cases"
