#!/usr/bin/env bash
# Regenerates crates/pcp/tests/golden/tz.tsv: glibc's localtime and ctime
# for every $TZ string found in the labels of PCP 6.0.3's QA archives
# (/var/lib/pcp/testsuite/archives), at instants around month starts of
# 1970-2037 and at random ones.
#
#   oracle/gen-tz.sh [OUTFILE [SEED [COUNT]]]
#
# Plain libc; the committed file was made on Debian 12 (glibc 2.36, its
# tzdata) with no arguments (seed 1, 50 random instants a zone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../crates/pcp/tests/golden/tz.tsv}
seed=${2:-1}
count=${3:-50}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O2 -Wall -o "$build/tz_oracle" "$here/tz_oracle.c"
"$build/tz_oracle" "$seed" "$count" > "$out" <<'ZONES'
AEDT-11
EST-11
AEST-10
EST-10
EST-11EST-10,89/2:00,299/2:00
EDT+4
UTC
IST-5:30
EST-11EST-10,88/2:00,298/2:00
PST8PDT
EST+5
EST-11EST-10,86/2:00,303/2:00
EST-11EST-10,87/2:00,297/2:00
EST-12
:Australia/Melbourne
PDT+7
EEST-3
EET-2
CET-1
JST-9
AEST-10AEDT-11,M10.5.0/3,M3.5.0/2
PST+8
MDT+6
GST-4
EST-11EST-10,91/2:00,301/2:00
GMT0BST-1,M3.5.0/2,M10.5.0/2
EST-11EST-10,87/2:00,304/3:00
ZONES
echo "tz: $(wc -l < "$out") cases"
