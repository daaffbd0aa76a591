//! libFuzzer's entry for the `moves` target (its body: `boaf_fuzz::moves`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::moves(data));
