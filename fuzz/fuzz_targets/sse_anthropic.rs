//! Any body bytes through the SSE parser and the anthropic decoder: no panic, no hang.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = common::model("anthropic", "claude-sonnet-4-5");
    let decoder = pi_providers_anthropic::AnthropicDecoder::new(model.clone());
    common::decode(&model, common::frames(data), decoder);
});
