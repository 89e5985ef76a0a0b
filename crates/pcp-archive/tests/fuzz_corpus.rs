//! Replays the archive fuzz corpora (fuzz/corpus/archive, fuzz/corpus/replay)
//! through the fuzz targets' bodies on every `cargo test`.

#[path = "../../../fuzz/harness_archive.rs"]
mod harness_archive;
#[path = "../../../fuzz/harness_replay.rs"]
mod harness_replay;
#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn archive_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "archive", harness_archive::archive_target);
}

#[test]
fn replay_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "replay", harness_replay::replay_target);
}
