//! CPU time of encoding a long context into the request body's JSON
//! (`build_request_body` then `serde_json::to_vec`, as a call does): the
//! mean of enough runs for 0.2 s of this thread's CPU time, and of the
//! typed request alone.
//!
//! `cargo run --release -p pi-providers-anthropic --example anthropic_encode -- [messages]`

#![allow(clippy::unwrap_used, clippy::print_stdout, missing_docs)]

use pi_ai::{Context, Model};
use pi_providers_anthropic::{AnthropicOptions, build_request_body};
use pi_test_support::contexts::{messages, zero_usage};
use serde_json::{Value, json};

/// CPU time of this thread so far, seconds.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns * 1e-9)
}

/// `n` messages in the shape of a coding session (a request, a tool call,
/// its ~1 KB result, the answer) by `model`.
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

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(2_000, |arg| arg.parse().unwrap());
    let model = pi_test_support::fixtures::mock_model("mock-ant", "mock-claude");
    let context = Context {
        system_prompt: Some("You are a benchmark.".to_owned()),
        messages: messages(transcript(n, &model)),
        ..Context::default()
    };
    let options = AnthropicOptions::default();
    let (mut total, mut runs, mut bytes) = (0.0, 0u32, 0);
    while total < 0.2 || runs < 3 {
        let start = cpu_seconds();
        let body = serde_json::to_vec(&build_request_body(&model, &context, &options)).unwrap();
        total += cpu_seconds() - start;
        runs += 1;
        bytes = body.len();
    }
    // The typed request alone (what borrowing changes), then dropped.
    let (mut typed, mut typed_runs) = (0.0, 0u32);
    while typed < 0.2 || typed_runs < 3 {
        let start = cpu_seconds();
        drop(std::hint::black_box(build_request_body(
            &model, &context, &options,
        )));
        typed += cpu_seconds() - start;
        typed_runs += 1;
    }
    println!(
        "anthropic request encode, {n} messages, {bytes} bytes: {:.3} ms CPU (mean of {runs}); typed request alone: {:.3} ms",
        total / f64::from(runs) * 1e3,
        typed / f64::from(typed_runs) * 1e3
    );
}
