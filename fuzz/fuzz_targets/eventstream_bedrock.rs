//! Any body bytes through the AWS event-stream framing (both CRC32s) and the
//! bedrock-converse-stream decoder: no panic, no hang, memory bounded by one
//! message. The first byte is the chunk size the body is fed in.
#![no_main]

#[path = "common.rs"]
#[allow(dead_code)]
mod common;

use pi_http::BodyFraming;
use pi_providers_amazon_bedrock::{BedrockDecoder, EventStreamFraming};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&size, body)) = data.split_first() else {
        return;
    };
    let mut framing = EventStreamFraming::new();
    let mut frames = Vec::new();
    let mut failed = false;
    for chunk in body.chunks(usize::from(size).max(1)) {
        if framing.push(chunk, &mut frames).is_err() {
            failed = true;
            break;
        }
    }
    if !failed {
        let _ = framing.finish();
    }
    let model = common::model("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0");
    common::decode(&model, frames, BedrockDecoder::new(&model));
});
