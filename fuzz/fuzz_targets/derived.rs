#![no_main]
#[path = "../harness_derived.rs"]
mod harness_derived;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_derived::derived_target(data));
