//! Decodes a ~10 MiB Responses API SSE stream, as the openai-codex-responses wire reads it, (reasoning summary, a long
//! text answer, a long tool-call argument, all in small deltas) through the
//! pure decoder into an event stream, and drains it. Framing happens
//! outside the timed part; the throughput is bytes of raw SSE per second.
//!
//! `cargo bench -p pi-providers-openai-codex-responses --bench decode`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use divan::counter::BytesCount;
use futures::StreamExt;
use pi_ai::{Api, Model, Provider};
use pi_http::SseFrame;
use serde_json::json;

/// `frames` through the decoder, as a live call after a success status.
fn decode_frames(
    model: &Model,
    frames: Vec<pi_http::SseFrame>,
) -> pi_ai::AssistantMessageEventStream {
    let initial = pi_ai::AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        pi_ai::now_ms(),
    );
    let decoder = pi_providers_openai_codex_responses::OpenAiCodexDecoder::new(model.clone(), None);
    pi_http::replay_sse(initial, frames, decoder)
}

fn main() {
    divan::main();
}

/// Size of the generated stream.
const TARGET_BYTES: usize = 10 << 20;
/// Characters per delta, about what the API sends.
const DELTA_CHARS: usize = 24;

fn model() -> Model {
    serde_json::from_value(json!({
        "id": "gpt-5-mini", "name": "GPT-5 mini", "api": Api::OPENAI_CODEX_RESPONSES,
        "provider": Provider::OPENAI_CODEX, "baseUrl": "https://api.openai.com/v1", "reasoning": true,
        "input": ["text", "image"], "cost": {"input": 0.25, "output": 2, "cacheRead": 0.025, "cacheWrite": 0},
        "contextWindow": 400000, "maxTokens": 128000
    }))
    .unwrap()
}

fn frame(kind: &str, body: serde_json::Value) -> String {
    let mut data = body;
    data["type"] = json!(kind);
    format!("event: {kind}\ndata: {data}\n\n")
}

/// A recorded-style stream of about `target` bytes: a third reasoning, a
/// third text, a third tool-call arguments.
fn generate(target: usize) -> String {
    let piece = "lorem ipsum dolor sit amet, consectetur ";
    let chunk: String = piece.chars().cycle().take(DELTA_CHARS).collect();
    let mut out = String::with_capacity(target + 4096);
    out.push_str(&frame(
        "response.created",
        json!({"response": {"id": "resp_bench", "status": "in_progress"}}),
    ));
    out.push_str(&frame(
        "response.output_item.added",
        json!({"output_index": 0, "item": {"id": "rs_bench", "type": "reasoning", "summary": []}}),
    ));
    out.push_str(&frame("response.reasoning_summary_part.added", json!({"item_id": "rs_bench", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}})));
    let mut summary = String::new();
    while out.len() < target / 3 {
        summary.push_str(&chunk);
        out.push_str(&frame(
            "response.reasoning_summary_text.delta",
            json!({"item_id": "rs_bench", "output_index": 0, "summary_index": 0, "delta": chunk}),
        ));
    }
    out.push_str(&frame("response.output_item.done", json!({"output_index": 0, "item": {"id": "rs_bench", "type": "reasoning", "encrypted_content": "gAAAA", "summary": [{"type": "summary_text", "text": summary}]}})));
    out.push_str(&frame("response.output_item.added", json!({"output_index": 1, "item": {"id": "msg_bench", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}})));
    out.push_str(&frame("response.content_part.added", json!({"item_id": "msg_bench", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": ""}})));
    let mut text = String::new();
    while out.len() < target * 2 / 3 {
        text.push_str(&chunk);
        out.push_str(&frame("response.output_text.delta", json!({"item_id": "msg_bench", "output_index": 1, "content_index": 0, "delta": chunk, "logprobs": []})));
    }
    out.push_str(&frame("response.output_item.done", json!({"output_index": 1, "item": {"id": "msg_bench", "type": "message", "status": "completed", "content": [{"type": "output_text", "annotations": [], "text": text}], "role": "assistant"}})));
    out.push_str(&frame("response.output_item.added", json!({"output_index": 2, "item": {"id": "fc_bench", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_bench", "name": "write"}})));
    let mut arguments = String::from("{\"path\":\"a.txt\",\"content\":\"");
    out.push_str(&frame(
        "response.function_call_arguments.delta",
        json!({"item_id": "fc_bench", "output_index": 2, "delta": arguments}),
    ));
    while out.len() < target {
        arguments.push_str(&chunk);
        out.push_str(&frame(
            "response.function_call_arguments.delta",
            json!({"item_id": "fc_bench", "output_index": 2, "delta": chunk}),
        ));
    }
    arguments.push_str("\"}");
    out.push_str(&frame(
        "response.function_call_arguments.delta",
        json!({"item_id": "fc_bench", "output_index": 2, "delta": "\"}"}),
    ));
    out.push_str(&frame("response.output_item.done", json!({"output_index": 2, "item": {"id": "fc_bench", "type": "function_call", "status": "completed", "arguments": arguments, "call_id": "call_bench", "name": "write"}})));
    out.push_str(&frame("response.completed", json!({"response": {"id": "resp_bench", "status": "completed", "usage": {"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 500}, "output_tokens": 1_000_000, "total_tokens": 1_001_000}}})));
    out
}

fn frames(_runtime: &tokio::runtime::Runtime, text: &str) -> Vec<SseFrame> {
    pi_test_support::parse_sse(text)
}

#[divan::bench(sample_count = 5)]
fn decode_10_mib(bencher: divan::Bencher) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let text = generate(TARGET_BYTES);
    let parsed = frames(&runtime, &text);
    let model = model();
    bencher
        .counter(BytesCount::new(text.len()))
        .with_inputs(|| parsed.clone())
        .bench_values(|frames| {
            runtime.block_on(async {
                let mut stream = decode_frames(&model, frames);
                let mut events = 0usize;
                while let Some(event) = stream.next().await {
                    assert!(!matches!(event, pi_ai::AssistantMessageEvent::Error { .. }));
                    events += 1;
                }
                events
            })
        });
}
