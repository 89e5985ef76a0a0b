#!/usr/bin/env bash
# Load a synthetic PMNS of 1,000,000 leaves (1000 subtrees of 1000 metrics)
# and list it, ours against PCP's pminfo, same input, same run: wall time
# and peak memory (GNU time), best of RUNS. Needs pcp and /usr/bin/time.
# Usage: scripts/bench-pmns.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/big.pmns" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    f.write('root {\n' + ''.join(f'    g{g}\n' for g in range(1000)) + '}\n')
    for g in range(1000):
        f.write(f'g{g} {{\n')
        for m in range(1000):
            f.write(f'    m{m}\t{g % 500 + 1}:{g // 500 * 2000 + m // 1000}:{m % 1000}\n')
        f.write('}\n')
PY
cargo build -q --release -p pcp-tools
export PCP_DERIVED_CONFIG= LC_ALL=C TZ=UTC
measure() { # label cmd... -> best "seconds KB"; output kept in $work/out.label
    local label=$1 best="" s kb
    shift
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$work/t" "$@" > "$work/out.$label" 2>/dev/null || true
        read -r s kb < "$work/t"
        if [ -z "$best" ] || awk -v a="$s" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then best="$s $kb"; fi
    done
    echo "$best"
}
for flags in "-n" "-m -n"; do
    # shellcheck disable=SC2086
    c=$(measure c pminfo $flags "$work/big.pmns")
    # shellcheck disable=SC2086
    r=$(measure rust target/release/pminfo $flags "$work/big.pmns")
    cmp -s "$work/out.c" "$work/out.rust" || { echo "pminfo $flags: outputs differ" >&2; exit 1; }
    # shellcheck disable=SC2086
    printf 'pminfo %-6s C %6.2f s %7d KB   Rust %6.2f s %7d KB   speed C/Rust %5.1fx   memory Rust/C %4.2f\n' \
        "$flags" ${c% *} ${c#* } ${r% *} ${r#* } "$(awk -v a="${c% *}" -v b="${r% *}" 'BEGIN{print a/b}')" \
        "$(awk -v a="${r#* }" -v b="${c#* }" 'BEGIN{print a/b}')"
done
