//! libFuzzer's entry for the `server_body` target (its body: `boaf_fuzz::server_body`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| boaf_fuzz::server_body(data));
