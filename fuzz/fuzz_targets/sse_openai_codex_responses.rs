//! Any body bytes through the SSE parser and the openai-codex-responses decoder
//! (the backend's `response.done`, error events, untyped frames): no panic, no hang.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = common::model("openai-codex", "gpt-5.4-mini");
    let decoder = pi_providers_openai_codex_responses::OpenAiCodexDecoder::new(
        model.clone(),
        Some("flex".to_owned()),
    );
    common::decode(&model, common::frames(data), decoder);
});
