//! Encodes a 2,000-message context (the shape of a coding session: a
//! request, a tool call, its ~1 KB result, the answer) into the request
//! body's JSON, as a call does; with divan's allocation counts, which show
//! what the typed request copies of the transcript.
//!
//! `cargo bench -p pi-providers-anthropic --bench encode`

#![allow(clippy::unwrap_used, missing_docs)]

use pi_ai::{Context, Model};
use pi_providers_anthropic::{AnthropicOptions, build_request_body};
use pi_test_support::contexts::{messages, zero_usage};
use serde_json::{Value, json};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

/// `n` messages by `model` in the shape of a coding session.
fn transcript(n: usize, model: &Model) -> Value {
    let words = "lorem ipsum dolor sit amet ";
    let assistant = |content: Value, stop: &str| {
        json!({"role": "assistant", "content": content, "api": model.api, "provider": model.provider,
               "model": model.id, "usage": zero_usage(), "stopReason": stop, "timestamp": 1})
    };
    let list: Vec<Value> = (0..n)
        .map(|i| match i % 4 {
            0 => json!({"role": "user", "content": words.repeat(4), "timestamp": 1}),
            1 => assistant(
                json!([{"type": "text", "text": words.repeat(6)},
                       {"type": "toolCall", "id": format!("call_{i}"), "name": "read",
                        "arguments": {"path": format!("src/file_{i}.rs")}}]),
                "toolUse",
            ),
            2 => json!({"role": "toolResult", "toolCallId": format!("call_{}", i - 1),
                        "toolName": "read", "content": [{"type": "text", "text": words.repeat(40)}],
                        "isError": false, "timestamp": 1}),
            _ => assistant(json!([{"type": "text", "text": words.repeat(12)}]), "stop"),
        })
        .collect();
    Value::Array(list)
}

#[divan::bench(args = [2_000])]
fn request_encode(bencher: divan::Bencher<'_, '_>, n: usize) {
    let model = pi_test_support::fixtures::mock_model("mock-ant", "mock-claude");
    let context = Context {
        system_prompt: Some("You are a benchmark.".to_owned()),
        messages: messages(transcript(n, &model)),
        ..Context::default()
    };
    let options = AnthropicOptions::default();
    bencher.bench_local(|| {
        serde_json::to_vec(&build_request_body(&model, &context, &options)).unwrap()
    });
}
