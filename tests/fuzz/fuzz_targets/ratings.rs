//! libFuzzer's entry for the `ratings` target (its body: `boaf_fuzz::ratings`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::ratings(data));
