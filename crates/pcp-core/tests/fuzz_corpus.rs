//! Replays the fuzz corpora (fuzz/corpus/TARGET) through the fuzz targets'
//! bodies, so every input the fuzzers kept is checked on each `cargo test`.
//! `cargo fuzz run TARGET` (in fuzz/) grows them; see fuzz/README.md.

#[path = "../../../fuzz/harness.rs"]
mod harness;

use std::path::PathBuf;

fn replay(target: &str, f: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        f(&std::fs::read(&path).expect("corpus file"));
        n += 1;
    }
    assert!(n > 0, "empty corpus {}", dir.display());
    eprintln!("{target}: replayed {n} inputs");
}

#[test]
fn parse_units_corpus() {
    replay("parse_units", harness::parse_units_target);
}

#[test]
fn value_corpus() {
    replay("value", harness::value_target);
}
