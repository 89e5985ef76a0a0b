#!/usr/bin/env bash
# Run PCP 6.0.3's own QA tests of our tools (the subset in
# ../shared/qa/baseline.txt, which pass with PCP's tools on this machine)
# with our release build first on PATH, and fail if any of them fails but
# those scripts/qa/expected-failures.txt lists.
# usage: scripts/qa-check.sh   (from anywhere; builds the release tools)
# env: QA_DIR (default ../shared/qa beside the project), QA_ROOT (scratch,
# default a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
qa=${QA_DIR:-../shared/qa}
if [ ! -x "$qa/run-qa.sh" ] || [ ! -f "$qa/baseline.txt" ]; then
    echo "qa-check: $qa/run-qa.sh and baseline.txt are needed (set QA_DIR)" >&2
    exit 1
fi
cargo build -q --release -p pcp-tools
allowed=$(grep -v '^#' scripts/qa/expected-failures.txt | cut -f1 | sort -u)
tests=$(grep -v '^#' "$qa/baseline.txt" | awk '{print $1}')
root=${QA_ROOT:-$(mktemp -d)}
log=$root/qa-check.log
mkdir -p "$root"
# (-r: a failure is run once more; the sample PMDA's state is shared with
# any other pmcd client)
QA_ROOT=$root RS_BIN=$PWD/target/release "$qa/run-qa.sh" -m ours -r $tests >"$log" 2>&1 || true
tail -3 "$log"
failing=$(sed -n 's/^ours not passing: *//p' "$log" | tr ' ' '\n' | sed '/^$/d' | sort -u)
grep -q '^qa-subset:' "$log" || { echo "qa-check: the QA run did not finish (see $log)" >&2; exit 1; }
unexpected=$(comm -23 <(echo "$failing") <(echo "$allowed") | tr '\n' ' ')
fixed=$(comm -13 <(echo "$failing") <(echo "$allowed") | tr '\n' ' ')
[ -n "${fixed// }" ] && echo "qa-check: listed as expected to fail but passing now: $fixed"
if [ -n "${unexpected// }" ]; then
    echo "qa-check: FAILED: $unexpected(diffs in $root/results/ours/)" >&2
    exit 1
fi
echo "qa-check: every baseline test passes but those listed in scripts/qa/expected-failures.txt"
