//! Differential test of `pcp_core::cfmt` against glibc's `snprintf`.
//!
//! `tests/golden/printf.tsv` was written by `oracle/gen-printf.sh` (seed 1),
//! which runs `oracle/printf_oracle.c` against the C library: each line holds
//! a format, its `*` arguments (comma-separated, `-` for none), the double's
//! IEEE bits in hex and what `snprintf` printed (`\\`, `\t`, `\n` escaped).
//! Every line must come out byte for byte the same. Set `PCP_RS_PRINTF_GOLDEN`
//! to check another file, such as one made from a fresh seed.

use pcp_core::cfmt::sprintf_f64_text;
use std::path::PathBuf;

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            other => panic!("bad escape \\{other:?} in {s:?}"),
        }
    }
    out
}

#[test]
fn printf_matches_glibc() {
    let (path, committed) = match std::env::var_os("PCP_RS_PRINTF_GOLDEN") {
        Some(p) => (PathBuf::from(p), false),
        None => (PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/printf.tsv"), true),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases = 0;
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "{}:{}: want 4 columns: {line:?}", path.display(), n + 1);
        let fmt = unescape(cols[0]);
        let star: Vec<i32> = match cols[1] {
            "-" => Vec::new(),
            s => s.split(',').map(|a| a.parse().expect("star argument")).collect(),
        };
        let v = f64::from_bits(u64::from_str_radix(cols[2], 16).expect("double bits"));
        let want = unescape(cols[3]);
        cases += 1;
        let got = sprintf_f64_text(&fmt, &star, v);
        if got.as_deref() != Some(want.as_str()) {
            bad.push(format!(
                "{}:{}: printf({fmt:?}, {star:?}, {v:e} [{}])\n    got   {got:?}\n    glibc {want:?}",
                path.display(),
                n + 1,
                cols[2]
            ));
        }
    }
    if committed {
        assert!(cases >= 30_000, "only {cases} cases, want at least 30000");
    }
    assert!(cases > 0, "no cases in {}", path.display());
    assert!(
        bad.is_empty(),
        "{} of {cases} cases differ from glibc:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    eprintln!("printf: {cases} cases agree with glibc");
}
