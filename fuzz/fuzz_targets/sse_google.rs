//! Any body bytes through the SSE parser and the google decoder: no panic, no hang.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = common::model("google", "gemini-2.5-flash");
    let decoder = pi_providers_google::GoogleDecoder::new(&model);
    common::decode(&model, common::frames(data), decoder);
});
