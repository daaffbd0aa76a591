//! libFuzzer's entry for the `fitted_range` target (its body: `boaf_fuzz::fitted_range`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::fitted_range(data));
