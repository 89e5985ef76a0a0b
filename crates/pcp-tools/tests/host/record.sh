#!/usr/bin/env bash
# Record the host golden cases (see README.md): run PCP's tool for each
# TOOL/NAME.cmd against this machine's pmcd through scripts/pdu-capture.py,
# keeping every PDU both ways (NAME.pdus) and what the tool printed
# (NAME.out, NAME.err) and returned (NAME.status). A case that sets
# PMCD_PORT is one where pmcd is not to be reached: it runs without the
# relay, and its conversation is empty.
# Tools run in crates/pcp-tools, as the tests run them.
#   crates/pcp-tools/tests/host/record.sh [tests/host/TOOL/NAME.cmd ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(cd ../.. && pwd)
[ $# -gt 0 ] || set -- tests/host/*/*.cmd
for cmd in "$@"; do
    stem=${cmd%.cmd}
    tool=$(basename "$(dirname "$cmd")")
    args=()
    envs=(PCP_RUN_DIR=/nonexistent PCP_DERIVED_CONFIG= TZ=UTC LC_ALL=C)
    in_env=0
    while IFS= read -r line || [ -n "$line" ]; do
        if [ "$line" = "--env" ]; then
            in_env=1
        elif [ $in_env = 1 ]; then
            envs+=("$line")
        else
            args+=("$line")
        fi
    done <"$cmd"
    if printf '%s\n' "${envs[@]}" | grep -q '^PMCD_PORT='; then
        st=0
        env -u PMCD_PORT "${envs[@]}" "$tool" "${args[@]}" >"$stem.out" 2>"$stem.err" || st=$?
        printf '# %s\n# exit status %d\n' "$tool ${args[*]}" "$st" >"$stem.pdus"
    else
        env -u PMCD_PORT "${envs[@]}" python3 "$root/scripts/pdu-capture.py" "$stem.pdus" "$tool" "${args[@]}"
        mv "$stem.pdus.out" "$stem.out"
        mv "$stem.pdus.err" "$stem.err"
        st=$(sed -n 's/^# exit status //p' "$stem.pdus")
    fi
    echo "$st" >"$stem.status"
    echo "$cmd: status $st, $(grep -vc '^#' "$stem.pdus" || true) PDUs"
done
