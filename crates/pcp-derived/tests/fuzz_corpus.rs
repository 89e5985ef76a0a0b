//! Replays the derived-metric fuzz corpus (fuzz/corpus/derived) through the
//! fuzz target's body on every `cargo test`.

#[path = "../../../fuzz/harness_derived.rs"]
mod harness_derived;

#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn derived_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "derived", harness_derived::derived_target);
}
