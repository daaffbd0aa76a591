//! libFuzzer's entry for the `condition` target (its body: `boaf_fuzz::condition`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::condition(data));
