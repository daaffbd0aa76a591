//! libFuzzer's entry for the `store` target (its body: `boaf_fuzz::store`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::store(data));
