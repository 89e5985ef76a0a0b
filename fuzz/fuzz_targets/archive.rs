#![no_main]
#[path = "../harness_archive.rs"]
mod harness_archive;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_archive::archive_target(data));
