//! Any body bytes through the SSE parser and the openai_completions decoder: no panic, no hang.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = common::model("openai", "gpt-4o");
    let decoder = pi_providers_openai_completions::OpenAiCompletionsDecoder::new(&model);
    common::decode(&model, common::frames(data), decoder);
});
