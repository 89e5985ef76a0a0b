#![no_main]
#[path = "../harness_pdu.rs"]
mod harness_pdu;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_pdu::pdu_target(data));
