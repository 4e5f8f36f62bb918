//! Decodes a ~10 MiB ConverseStream answer (reasoning deltas, text deltas,
//! a long tool input in pieces, stop, usage) from its AWS event-stream
//! bytes, read in 16 KiB chunks: the wire's binary framing (both CRC32s)
//! plus the pure decoder into the event stream, as a live body is decoded
//! after the HTTP read. Throughput is over the raw body bytes.
//!
//! `cargo bench -p pi-providers-amazon-bedrock --bench decode`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use divan::counter::BytesCount;
use futures::StreamExt;
use pi_ai::AssistantMessage;
use pi_http::{BodyFraming, replay_sse};
use pi_providers_amazon_bedrock::{BedrockDecoder, EventStreamFraming};
use pi_test_support::event_stream::encode_frame;
use serde_json::{Value, json};

#[path = "../tests/it/common.rs"]
mod common;

fn main() {
    divan::main();
}

const TARGET_BYTES: usize = 10 << 20;
const READ: usize = 16 << 10;

fn message(event: &str, payload: &Value) -> Vec<u8> {
    encode_frame(&format!("event: {event}\ndata: {payload}\n\n"))
}

/// About `TARGET_BYTES` of event-stream messages.
fn body() -> Vec<u8> {
    let mut out = message("messageStart", &json!({"role": "assistant"}));
    let words = [
        "The ",
        "quick ",
        "brown \"fox\" ",
        "jumps ",
        "over ",
        "the ",
        "lazy ",
        "dog.\n",
    ];
    let delta = |index: u64, delta: Value| json!({"contentBlockIndex": index, "delta": delta, "p": "abcdefgh"});
    let mut i = 0;
    // 10% reasoning, 60% text, 30% tool input pieces.
    while out.len() < TARGET_BYTES / 10 {
        let text = words[i % words.len()];
        out.extend(message(
            "contentBlockDelta",
            &delta(0, json!({"reasoningContent": {"text": text}})),
        ));
        i += 1;
    }
    out.extend(message(
        "contentBlockDelta",
        &delta(0, json!({"reasoningContent": {"signature": "c2ln"}})),
    ));
    out.extend(message(
        "contentBlockStop",
        &json!({"contentBlockIndex": 0}),
    ));
    while out.len() < TARGET_BYTES * 7 / 10 {
        let text = words[i % words.len()];
        out.extend(message(
            "contentBlockDelta",
            &delta(1, json!({"text": text})),
        ));
        i += 1;
    }
    out.extend(message(
        "contentBlockStop",
        &json!({"contentBlockIndex": 1}),
    ));
    out.extend(message(
        "contentBlockStart",
        &json!({"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_bench", "name": "write"}}}),
    ));
    out.extend(message(
        "contentBlockDelta",
        &delta(
            2,
            json!({"toolUse": {"input": "{\"path\":\"out.txt\",\"content\":\""}}),
        ),
    ));
    while out.len() < TARGET_BYTES {
        out.extend(message(
            "contentBlockDelta",
            &delta(2, json!({"toolUse": {"input": "line of text \\n"}})),
        ));
    }
    out.extend(message(
        "contentBlockDelta",
        &delta(2, json!({"toolUse": {"input": "\"}"}})),
    ));
    out.extend(message(
        "contentBlockStop",
        &json!({"contentBlockIndex": 2}),
    ));
    out.extend(message("messageStop", &json!({"stopReason": "tool_use"})));
    out.extend(message(
        "metadata",
        &json!({"usage": {"inputTokens": 1200, "outputTokens": 90000, "totalTokens": 91200}}),
    ));
    out
}

#[divan::bench(sample_count = 10)]
fn frame_and_decode_10_mib(bencher: divan::Bencher) {
    let body = body();
    let model = common::CAPTURES.model(common::SONNET);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    bencher
        .counter(BytesCount::new(body.len()))
        .bench_local(|| {
            let mut framing = EventStreamFraming::new();
            let mut frames = Vec::new();
            for chunk in body.chunks(READ) {
                framing.push(chunk, &mut frames).unwrap();
            }
            framing.finish().unwrap();
            let initial = AssistantMessage::empty(
                model.api.clone(),
                model.provider.clone(),
                model.id.clone(),
                0,
            );
            runtime.block_on(async {
                let mut stream = replay_sse(initial, frames, BedrockDecoder::new(&model));
                let mut events = 0usize;
                while let Some(event) = stream.next().await {
                    events += 1;
                    if event.is_terminal() {
                        assert_eq!(event.kind(), "done");
                    }
                }
                events
            })
        });
}

/// The framing alone (both CRCs, headers, payload copies), for the split.
#[divan::bench(sample_count = 10)]
fn frame_only_10_mib(bencher: divan::Bencher) {
    let body = body();
    bencher
        .counter(BytesCount::new(body.len()))
        .bench_local(|| {
            let mut framing = EventStreamFraming::new();
            let mut frames = Vec::new();
            for chunk in body.chunks(READ) {
                framing.push(chunk, &mut frames).unwrap();
            }
            framing.finish().unwrap();
            frames.len()
        });
}
