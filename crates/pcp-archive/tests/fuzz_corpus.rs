//! Replays the archive fuzz corpus (fuzz/corpus/archive) through the fuzz
//! target's body on every `cargo test`.

#[path = "../../../fuzz/harness_archive.rs"]
mod harness_archive;
#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn archive_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "archive", harness_archive::archive_target);
}
