//! libFuzzer's entry for the `link_ids` target (its body: `boaf_fuzz::link_ids`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::link_ids(data));
