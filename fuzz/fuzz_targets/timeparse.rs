#![no_main]
#[path = "../harness_timeparse.rs"]
mod harness_timeparse;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_timeparse::timeparse_target(data));
