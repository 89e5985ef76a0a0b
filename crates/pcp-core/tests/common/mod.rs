//! Helpers shared by pcp-core's golden-file tests.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};

/// A golden file: `$ENV` names another file if set (a fresh oracle run),
/// else the committed one under tests/golden. Returns it and whether it is
/// the committed one.
pub fn golden_file(env: &str, committed: &str) -> (PathBuf, bool) {
    match std::env::var_os(env) {
        Some(p) => (PathBuf::from(p), false),
        None => (PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(committed), true),
    }
}

/// Bytes from lowercase hex (`-` is empty).
pub fn hex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex in golden file")).collect()
}

/// Bytes from the oracles' escaped text (`\\`, `\t`, `\n`, `\xHH`).
pub fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b't' => out.push(b'\t'),
                b'n' => out.push(b'\n'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).expect("\\x escape"));
                    i += 2;
                }
                c => panic!("bad escape \\{}", c as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Run `check` on every tab-split line of `path`; it returns
/// `Some(description)` for a mismatch. Fails listing the first mismatches,
/// or when a committed file has fewer than `min_cases` lines.
pub fn run_lines(
    path: &Path,
    committed: bool,
    min_cases: usize,
    what: &str,
    check: impl Fn(&[&str]) -> Option<String>,
) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases = 0;
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        cases += 1;
        if let Some(why) = check(&cols) {
            bad.push(format!("{}:{}: {line}\n    {why}", path.display(), n + 1));
        }
    }
    if committed {
        assert!(cases >= min_cases, "{what}: only {cases} cases, want {min_cases}");
    }
    assert!(cases > 0, "{what}: no cases");
    assert!(
        bad.is_empty(),
        "{what}: {} of {cases} cases differ from the reference:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    eprintln!("{what}: {cases} cases agree with the reference");
}
