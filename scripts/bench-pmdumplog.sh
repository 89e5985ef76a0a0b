#!/usr/bin/env bash
# pmdumplog -a, ours against PCP's, same archive, same run, output to
# /dev/null: wall time and peak memory (GNU time), best of RUNS; and the
# time merely to decompress (or read) the archive's files. Two archives:
# PCP's QA archive 20180416.10.00 (four xz volumes, 320 MB decompressed)
# and a plain archive of over 50 MB made here with pmlogger (kept in
# $BIG, made if missing: about 40 s of logging). Correctness is checked
# elsewhere (scripts/differential.sh); this only times.
# Needs pcp, pmcd with the sample PMDA, xz and /usr/bin/time.
# Usage: scripts/bench-pmdumplog.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
qa=/var/lib/pcp/testsuite/archives/20180416.10.00
big=${BIG:-/tmp/pcp-rs-bench/pmdumplog-big}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PCP_DERIVED_CONFIG= LC_ALL=C TZ=UTC

if [ ! -f "$big.meta" ]; then
    mkdir -p "$(dirname "$big")"
    cat > "$work/big.config" <<'EOF'
log mandatory on default {
    kernel
    mem
    disk
    network
    filesys
    swap
    hinv
    sample
}
EOF
    echo "making $big (750 samples at 0.05 s) ..."
    pmlogger -l "$work/pmlogger.log" -c "$work/big.config" -t 0.05 -s 750 "$big" >/dev/null 2>&1
fi

cargo build -q --release -p pcp-tools --bin pmdumplog

measure() { # cmd... -> best "seconds KB"
    local best="" s kb
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || true
        read -r s kb < "$work/t"
        if [ -z "$best" ] || awk -v a="$s" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then best="$s $kb"; fi
    done
    echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }

report() { # label archive read-command...
    local label=$1 arch=$2
    shift 2
    local c r d
    c=$(measure pmdumplog -a "$arch")
    r=$(measure "${CARGO_TARGET_DIR:-target}"/release/pmdumplog -a "$arch")
    d=$(measure "$@")
    printf '%s (%s MB on disk)\n' "$label" "$(du -cm "$arch".* | tail -1 | cut -f1)"
    printf '  PCP pmdumplog -a   %7.2f s %8d KB\n' ${c% *} ${c#* }
    printf '  pcp-rs pmdumplog -a %6.2f s %8d KB\n' ${r% *} ${r#* }
    printf '  read the files     %7.2f s\n' ${d% *}
    printf '  speed PCP/pcp-rs %sx, pcp-rs/reading %sx, memory pcp-rs/PCP %s\n' \
        "$(ratio ${c% *} ${r% *})" "$(ratio ${r% *} ${d% *})" "$(ratio ${r#* } ${c#* })"
}

report 20180416.10.00 "$qa" sh -c "for f in $qa.*.xz; do xz -dc \"\$f\"; done >/dev/null; cat $qa.index >/dev/null"
report "$(basename "$big")" "$big" sh -c "cat $big.* >/dev/null"
