//! Decodes a ~10 MiB recorded-style Chat Completions SSE stream (reasoning
//! deltas, text deltas, a long streamed tool-call argument, usage, `[DONE]`)
//! through the pure decoder into the event stream, and reports throughput
//! over the raw SSE bytes. SSE framing (pi-http) is not included: the input
//! is already split into frames, as the decoder receives it.
//!
//! `cargo bench -p pi-providers-openai-completions --bench decode`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use divan::counter::BytesCount;
use futures::StreamExt;
use pi_ai::{Api, AssistantMessage, Model, ModelCost, Provider};
use pi_http::SseFrame;
use pi_http::replay_sse;
use pi_providers_openai_completions::OpenAiCompletionsDecoder;
use serde_json::json;

fn main() {
    divan::main();
}

const TARGET_BYTES: usize = 10 << 20;

fn model() -> Model {
    Model {
        id: "mock-gpt".into(),
        name: "Mock GPT".into(),
        api: Api::OPENAI_COMPLETIONS,
        provider: Provider::new("mock-oai"),
        base_url: "http://127.0.0.1:18777/v1".into(),
        reasoning: true,
        input: vec![pi_ai::InputModality::Text],
        cost: ModelCost {
            input: 1.0,
            output: 4.0,
            cache_read: 0.1,
            cache_write: 0.0,
        },
        context_window: 128_000,
        max_tokens: 4096,
        headers: None,
        compat: None,
        extra: pi_ai::ExtraFields::new(),
    }
}

/// One `data:` line shaped like the recorded chunks.
fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    serde_json::to_string(&json!({
        "id": "chatcmpl-bench0001", "object": "chat.completion.chunk", "created": 1767225601,
        "model": "mock-gpt", "system_fingerprint": "fp_mock",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
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
    // 10% reasoning, 60% text, 30% tool-call argument fragments.
    while approx < TARGET_BYTES * 7 / 10 {
        let word = words[i % words.len()];
        let line = if i % 10 == 0 {
            chunk(json!({"reasoning_content": word}), None)
        } else {
            chunk(json!({"content": word}), None)
        };
        approx += line.len() + 8;
        data.push(line);
        i += 1;
    }
    data.push(chunk(json!({"tool_calls": [{"index": 0, "id": "call_bench", "type": "function", "function": {"name": "write", "arguments": "{\"path\":\"out.txt\",\"content\":\""}}]}), None));
    while approx < TARGET_BYTES {
        let line = chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "line of text \\n"}}]}),
            None,
        );
        approx += line.len() + 8;
        data.push(line);
    }
    data.push(chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"}"}}]}),
        None,
    ));
    data.push(chunk(json!({}), Some("tool_calls")));
    data.push(
        serde_json::to_string(&json!({"id": "chatcmpl-bench0001", "choices": [], "usage": {
            "prompt_tokens": 1200, "completion_tokens": 90000, "total_tokens": 91200,
            "prompt_tokens_details": {"cached_tokens": 1000}, "completion_tokens_details": {"reasoning_tokens": 9000}}}))
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
    let model = model();
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
                let mut stream = replay_sse(initial, frames, OpenAiCompletionsDecoder::new(&model));
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
