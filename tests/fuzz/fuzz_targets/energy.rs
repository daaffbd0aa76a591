//! libFuzzer's entry for the `energy` target (its body: `boaf_fuzz::energy`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::energy(data));
