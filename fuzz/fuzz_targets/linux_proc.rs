#![no_main]
#[path = "../harness_linux.rs"]
mod harness_linux;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_linux::linux_proc_target(data));
