//! libFuzzer's entry for the `state` target (its body: `boaf_fuzz::state`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::state(data));
