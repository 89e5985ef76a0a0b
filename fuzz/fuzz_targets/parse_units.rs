#![no_main]
#[path = "../harness.rs"]
mod harness;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::parse_units_target(data));
