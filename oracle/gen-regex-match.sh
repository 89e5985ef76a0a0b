#!/usr/bin/env bash
# Records crates/pcp-derived/tests/eval/regex-match.tsv (or OUT, the first
# argument): glibc's regexec (REG_EXTENDED) for every pattern that
# tests/golden/regex.tsv marks valid, on a fixed set of subjects
# (instance-name-like strings and bytes the patterns use), by
# oracle/regex_match_oracle.c. Patterns and subjects are hex.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../crates/pcp-derived/tests/golden
out=${1:-$here/../crates/pcp-derived/tests/eval/regex-match.tsv}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cc -O1 -o "$build/regex_match_oracle" "$here/regex_match_oracle.c"
subjects=$(python3 -c '
import sys
s = ["a", "aa", "ab", "ba", "abc", "bin-100", "bin-900", "cpu0", "cpu12", "sda", "eth0",
     "-", "x", "xx", "]", "=]", ":", "{", "{,2}", "a{1,3}", "\\", ".", "^", "$", "|", "*",
     "z-a", "9", "32768", "32768ba", "lo", "vbir", "\xe9", " ", " a ", "1.]", "a]b", "[", "(", ")",
     "aaa", "b", "ab.c", "A", "Z", "_", "0", "99", "a-b", "x:y", "=", "?", "+", "one two"]
print(",".join(x.encode("latin-1").hex() for x in s))')
LC_ALL=C awk -F'\t' '$1 == "R" && $3 == "ok" { print $2 }' "$golden/regex.tsv" |
    python3 -c '
import sys
for line in sys.stdin:
    t = line.rstrip("\n")
    out = bytearray(); i = 0
    while i < len(t):
        c = t[i]
        if c == "\\" and i + 1 < len(t):
            n = t[i + 1]
            if n == "x": out.append(int(t[i + 2:i + 4], 16)); i += 4; continue
            out.append({"t": 9, "n": 10, "\\": 92}.get(n, ord(n))); i += 2; continue
        out += c.encode("latin-1"); i += 1
    print(out.hex())' |
    LC_ALL=C "$build/regex_match_oracle" "$subjects" >"$out"
