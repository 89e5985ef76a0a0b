//! Replays the name-space fuzz corpora (fuzz/corpus/{pmcpp,pmns}) through
//! the fuzz targets' bodies on every `cargo test`.

#[path = "../../../fuzz/harness_pmns.rs"]
mod harness_pmns;

#[path = "../../../fuzz/replay.rs"]
mod replay;

fn replay(target: &str, f: fn(&[u8])) {
    replay::replay(env!("CARGO_MANIFEST_DIR"), target, f);
}

#[test]
fn pmcpp_corpus() {
    replay("pmcpp", harness_pmns::pmcpp_target);
}

#[test]
fn pmns_corpus() {
    replay("pmns", harness_pmns::pmns_target);
}
