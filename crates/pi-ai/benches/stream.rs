//! Streams a long text answer and a long tool-call argument through the
//! event machinery (sink, shared partial, partial-JSON, consumer stream).
//! Run at 1x and 4x sizes: the time ratio must stay near 4 (linear).
//!
//! `cargo bench -p pi-ai --bench stream`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use futures::StreamExt;
use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply, tool_call_reply};
use pi_ai::{AssistantMessage, Context, StreamFunction, StreamOptions};
use serde_json::json;

fn main() {
    divan::main();
}

const TEXT_BYTES: usize = 1 << 20;
const ARG_BYTES: usize = 200 << 10;
const CHUNK: usize = 16;

fn drain(reply: AssistantMessage) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let provider = ScriptedProvider::new([reply]).with_chunk_size(CHUNK);
        let mut stream = provider.stream(
            &scripted_model(),
            Context::default().view(),
            StreamOptions::default(),
        );
        let mut events = 0;
        while stream.next().await.is_some() {
            events += 1;
        }
        events
    })
}

#[divan::bench(args = [1, 4], sample_count = 5)]
fn text_answer(bencher: divan::Bencher, scale: usize) {
    let text = "lorem ipsum ".repeat(TEXT_BYTES * scale / 12);
    bencher
        .with_inputs(|| text_reply(&text))
        .bench_values(drain);
}

#[divan::bench(args = [1, 4], sample_count = 5)]
fn tool_call_argument(bencher: divan::Bencher, scale: usize) {
    let content = "x = 1\n".repeat(ARG_BYTES * scale / 6);
    bencher
        .with_inputs(|| {
            tool_call_reply(&[(
                "call_1",
                "write",
                json!({"path": "a.txt", "content": content}),
            )])
        })
        .bench_values(drain);
}
