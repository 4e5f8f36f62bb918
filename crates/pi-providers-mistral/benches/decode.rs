//! Decodes a ~10 MiB Mistral-style chat SSE stream (thinking parts, text
//! deltas, a long tool-call argument in pieces, usage, `[DONE]`) through the
//! pure decoder into the event stream, and reports throughput over the raw
//! SSE bytes. SSE framing (pi-http) is not included: the input is already
//! split into frames, as the decoder receives it.
//!
//! `cargo bench -p pi-providers-mistral --bench decode`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use divan::counter::BytesCount;
use futures::StreamExt;
use pi_ai::AssistantMessage;
use pi_http::{SseFrame, replay_sse};
use pi_providers_mistral::MistralDecoder;
use serde_json::json;

#[path = "../tests/it/common.rs"]
mod common;

fn main() {
    divan::main();
}

const TARGET_BYTES: usize = 10 << 20;

/// One `data:` line shaped like the recorded chunks.
fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    serde_json::to_string(&json!({
        "id": "cmpl-bench0001", "object": "chat.completion.chunk", "created": 1767225601,
        "model": "mock-magistral",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    }))
    .unwrap()
}

/// Frames totalling about `TARGET_BYTES` of SSE text, and that exact byte count.
fn stream() -> (Vec<SseFrame>, usize) {
    let mut data = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
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
    let mut approx = 0;
    let mut i = 0;
    // 10% thinking, 60% text, 30% tool-call argument pieces.
    while approx < TARGET_BYTES * 7 / 10 {
        let word = words[i % words.len()];
        let line = if i % 10 == 0 {
            chunk(
                json!({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": word}]}]}),
                None,
            )
        } else {
            chunk(json!({"content": word}), None)
        };
        approx += line.len() + 8;
        data.push(line);
        i += 1;
    }
    let piece = |arguments: &str| {
        chunk(
            json!({"tool_calls": [{"id": "B3nchCa11", "index": 0, "function": {"name": "write", "arguments": arguments}}]}),
            None,
        )
    };
    data.push(piece("{\"path\":\"out.txt\",\"content\":\""));
    while approx < TARGET_BYTES {
        let line = piece("line of text \\n");
        approx += line.len() + 8;
        data.push(line);
    }
    data.push(piece("\"}"));
    data.push(
        serde_json::to_string(&json!({"id": "cmpl-bench0001", "model": "mock-magistral",
            "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 90000, "total_tokens": 91200}}))
        .unwrap(),
    );
    data.push("[DONE]".to_owned());
    let bytes = data.iter().map(|d| "data: ".len() + d.len() + 2).sum();
    let frames = data
        .into_iter()
        .map(|data| SseFrame {
            event: "message".into(),
            data,
        })
        .collect();
    (frames, bytes)
}

#[divan::bench(sample_count = 10)]
fn decode_10_mib(bencher: divan::Bencher) {
    let (frames, bytes) = stream();
    let model = common::CAPTURES.model("mock-magistral");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    bencher
        .counter(BytesCount::new(bytes))
        .with_inputs(|| frames.clone())
        .bench_local_values(|frames| {
            let initial = AssistantMessage::empty(
                model.api.clone(),
                model.provider.clone(),
                model.id.clone(),
                0,
            );
            runtime.block_on(async {
                let mut stream = replay_sse(initial, frames, MistralDecoder::new(&model));
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
