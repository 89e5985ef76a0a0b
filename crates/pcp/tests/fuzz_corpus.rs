//! Replays the time parsing fuzz corpus (fuzz/corpus/timeparse) through the
//! fuzz target's body, so every input the fuzzer kept is checked on each
//! `cargo test`. `cargo fuzz run timeparse` (in fuzz/) grows it; see
//! fuzz/README.md.

#[path = "../../../fuzz/harness_timeparse.rs"]
mod harness_timeparse;

#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn timeparse_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "timeparse", harness_timeparse::timeparse_target);
}
