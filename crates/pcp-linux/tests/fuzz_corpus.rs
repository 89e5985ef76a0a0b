//! Replays fuzz/corpus/linux_proc through the `linux_proc` fuzz target's
//! body (see fuzz/README.md).

#[path = "../../../fuzz/harness_linux.rs"]
mod harness_linux;

#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn linux_proc_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "linux_proc", harness_linux::linux_proc_target);
}
