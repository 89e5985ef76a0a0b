#![no_main]
#[path = "../harness_replay.rs"]
mod harness_replay;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_replay::replay_target(data));
