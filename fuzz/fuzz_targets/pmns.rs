#![no_main]
#[path = "../harness_pmns.rs"]
#[allow(dead_code)] // each target uses one of the harness functions
mod harness_pmns;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_pmns::pmns_target(data));
