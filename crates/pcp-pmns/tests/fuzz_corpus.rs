//! Replays the name-space fuzz corpora (fuzz/corpus/{pmcpp,pmns}) through
//! the fuzz targets' bodies on every `cargo test`.

#[path = "../../../fuzz/harness_pmns.rs"]
mod harness_pmns;

use std::path::PathBuf;

fn replay(target: &str, f: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        f(&std::fs::read(entry.expect("corpus entry").path()).expect("corpus file"));
        n += 1;
    }
    assert!(n > 0, "empty corpus {}", dir.display());
    eprintln!("{target}: replayed {n} inputs");
}

#[test]
fn pmcpp_corpus() {
    replay("pmcpp", harness_pmns::pmcpp_target);
}

#[test]
fn pmns_corpus() {
    replay("pmns", harness_pmns::pmns_target);
}
