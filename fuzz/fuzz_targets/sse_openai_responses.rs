//! Any body bytes through the SSE parser and the openai_responses decoder: no panic, no hang.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = common::model("openai", "gpt-5");
    let decoder = pi_providers_openai_responses::OpenAiResponsesDecoder::new(model.clone(), None);
    common::decode(&model, common::frames(data), decoder);
});
