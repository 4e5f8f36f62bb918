//! Any body bytes through the SSE parser and the mistral decoder: no panic, no hang.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = common::model("mistral", "mistral-large-latest");
    let decoder = pi_providers_mistral::MistralDecoder::new(&model);
    common::decode(&model, common::frames(data), decoder);
});
