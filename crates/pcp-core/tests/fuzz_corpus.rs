//! Replays the fuzz corpora (fuzz/corpus/TARGET) through the fuzz targets'
//! bodies, so every input the fuzzers kept is checked on each `cargo test`.
//! `cargo fuzz run TARGET` (in fuzz/) grows them; see fuzz/README.md.

#[path = "../../../fuzz/harness.rs"]
mod harness;

#[path = "../../../fuzz/replay.rs"]
mod replay;

fn replay(target: &str, f: fn(&[u8])) {
    replay::replay(env!("CARGO_MANIFEST_DIR"), target, f);
}

#[test]
fn parse_units_corpus() {
    replay("parse_units", harness::parse_units_target);
}

#[test]
fn value_corpus() {
    replay("value", harness::value_target);
}

#[test]
fn labels_corpus() {
    replay("labels", harness::labels_target);
}

#[test]
fn event_corpus() {
    replay("event", harness::event_target);
}
