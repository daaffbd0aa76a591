//! libFuzzer's entry for the `expr` target (its body: `boaf_fuzz::expr`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::expr(data));
