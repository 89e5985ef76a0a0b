#!/usr/bin/env bash
# Regenerates the golden files that pcp-core's differential tests read.
#
#   oracle/gen.sh [OUTDIR [SEED]]
#
# Builds oracle/oracle.c against the reference C libpcp (PCP 6.0.3,
# Debian's libpcp3-dev) and asks it for every kind of case.  With no
# arguments it rewrites the committed files in crates/pcp-core/tests/golden
# from seed 1; CI calls it with a scratch OUTDIR and a fresh SEED, then points
# the Rust tests at that directory (PCP_RS_GOLDEN_DIR), so every run also
# checks new cases against the live library.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp-core/tests/golden}
seed=${2:-1}
mkdir -p "$out" "$here/build"
cc -O2 -Wall -o "$here/build/oracle" "$here/oracle.c" -lpcp -lm
# kind  count-of-random-cases (fixed systematic cases come in addition)
while read -r kind count; do
    "$here/build/oracle" "$kind" "$seed" "$count" > "$out/$kind.tsv" 2>/dev/null
    echo "$kind: $(wc -l < "$out/$kind.tsv") cases"
done <<'KINDS'
units 12000
parse 20000
conv 12000
extract 12000
err 4000
atom 6000
ids 3000
printvalue 8000
number 3000
desc 2000
KINDS

# every constant pmapi.h defines for the tables pcp-core keeps, with the
# value the compiler gives it: checked against our tables by the tests
header=${PCP_PMAPI_H:-/usr/include/pcp/pmapi.h}
{
    echo '#include <pcp/pmapi.h>'
    echo '#include <stdio.h>'
    echo 'int main(void) {'
    grep -oE '^#define[[:space:]]+(PM_ERR_|PM_TYPE_|PM_SEM_|PM_SPACE_|PM_TIME_|PM_COUNT_|PM_VAL_)[A-Z0-9_]+' "$header" \
        | awk '{ printf "    printf(\"%%s\\t%%lld\\n\", \"%s\", (long long)(%s));\n", $2, $2 }'
    echo '    return 0; }'
} > "$here/build/defines.c"
cc -o "$here/build/defines" "$here/build/defines.c"
"$here/build/defines" > "$out/defines.tsv"
echo "defines: $(wc -l < "$out/defines.tsv") constants"
