#!/usr/bin/env bash
# Records the PDU captures in this directory: real exchanges between PCP
# 6.0.3's tools (and libpcp through its python binding) and the local
# pmcd with the sample PMDA, through scripts/pdu-capture.py.
#
#   crates/pcp-pdu/tests/captures/record.sh
#
# Needs the reference PCP running (scripts/setup-reference-pcp.sh). Each
# case's command is the first line of its .pdus file; the tools' output is
# kept beside it (.out, .err). Values and timestamps differ from run to
# run, so re-recording changes the files; the tests only need them to be
# real exchanges.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
capture="$here/../../../../scripts/pdu-capture.py"
cd "$here"
rec() {
    local name=$1
    shift
    python3 "$capture" "$name.pdus" "$@"
}
rec names-and-values pminfo -h localhost -f sample.long.one sample.string.hullo
rec value-types pminfo -h localhost -d -f sample.double sample.float sample.longlong sample.ulong \
    sample.ulonglong sample.aggregate sample.string sample.hordes.one
rec bad-metrics pminfo -h localhost -d -f sample.bad sample.noinst sample.dynamic.counter
rec help-text pminfo -h localhost -t -T sample.colour sample.long.one sample.bin
rec labels pminfo -h localhost -l sample.colour sample.long.one sample.event.records
rec instances pmval -h localhost -s 2 -t 0.2 sample.colour
rec profile pmval -h localhost -s 1 -i bin-200,bin-500 sample.bin
rec events pminfo -h localhost -f sample.event.records sample.event.highres_records sample.event.no_indom_records
rec store pmstore -h localhost sample.write_me 42
rec unknown-name pminfo -h localhost -f sample.long.one no.such.metric sample.no.such
rec pmid-and-indom pminfo -h localhost -d -T 29.0.6 29.1
rec probe-all pmprobe -h localhost -I sample
rec container pminfo -h localhost --container=nosuch -f sample.long.one
rec pmapi /usr/bin/python3 "$here/pmapi_calls.py"
pmstore -h localhost sample.write_me 2 >/dev/null
