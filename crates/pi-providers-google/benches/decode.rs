//! Decodes a ~10 MiB recorded-style Google SSE stream (thought chunks, text
//! chunks with usage metadata, signed function calls) through the pure
//! decoder into a real event stream, and reports the throughput.
//!
//! `cargo bench -p pi-providers-google --bench decode`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use divan::counter::BytesCount;
use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEventStream, CancellationToken, ErrorReason, Model};
use pi_http::{SseDecoder, SseFrame, StreamEnd};
use pi_providers_google::GoogleDecoder;
use serde_json::json;

fn main() {
    divan::main();
}

const TARGET_BYTES: usize = 10 << 20;

fn model() -> Model {
    pi_ai::get_model("google", "gemini-2.5-flash")
        .unwrap()
        .clone()
}

/// One data frame as the API writes it.
fn frame(parts: serde_json::Value, finish: Option<&str>, output: usize) -> String {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    let chunk = json!({
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 5123,
            "candidatesTokenCount": output,
            "thoughtsTokenCount": 812,
            "cachedContentTokenCount": 4096,
            "totalTokenCount": 5123 + 812 + output
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "bench-response-0001"
    });
    format!("data: {chunk}\r\n\r\n")
}

/// The stream: repeated rounds of thoughts, text and a signed call, up to ~10 MiB.
fn recording() -> (Vec<SseFrame>, usize) {
    let sentence = "The quick brown fox jumps over the lazy dog, then checks the build log. ";
    let mut raw = String::with_capacity(TARGET_BYTES + 4096);
    let mut n = 0usize;
    while raw.len() < TARGET_BYTES {
        for _ in 0..4 {
            raw.push_str(&frame(
                json!([{"text": sentence, "thought": true}]),
                None,
                n,
            ));
        }
        for _ in 0..40 {
            n += 1;
            raw.push_str(&frame(
                json!([{"text": format!("{n}: {sentence}")}]),
                None,
                n,
            ));
        }
        raw.push_str(&frame(
            json!([{
                "functionCall": {"name": "bash", "args": {"command": format!("cargo test -p crate_{n}"), "timeout": 120}},
                "thoughtSignature": "CiQBcsjafPHNNvzsbEkJJHTVwqXNGlRAwdtwfsSeOl4Ei+t1eO8="
            }]),
            None,
            n,
        ));
    }
    raw.push_str(&frame(json!([{"text": "Done."}]), Some("STOP"), n));
    let frames = raw
        .split("\r\n\r\n")
        .filter_map(|block| block.strip_prefix("data: "))
        .map(|data| SseFrame {
            event: "message".to_owned(),
            data: data.to_owned(),
        })
        .collect();
    (frames, raw.len())
}

async fn decode(model: Model, frames: Vec<SseFrame>) -> usize {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    );
    let mut decoder = GoogleDecoder::with_fixed_id_time(&model, 0);
    let mut stream = AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        move |mut sink| async move {
            sink.start();
            for frame in &frames {
                match decoder.frame(frame.as_frame_ref(), &mut sink) {
                    Ok(None) => {}
                    Ok(Some(StreamEnd::Done(reason))) => return sink.done(reason),
                    Ok(Some(StreamEnd::Error(text))) => {
                        return sink.error(ErrorReason::Error, text);
                    }
                    Err(error) => {
                        return sink.error(ErrorReason::Error, error.into_message());
                    }
                }
            }
            match decoder.end_of_stream(&mut sink) {
                StreamEnd::Done(reason) => sink.done(reason),
                StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
            }
        },
    );
    let mut events = 0;
    while stream.next().await.is_some() {
        events += 1;
    }
    events
}

#[divan::bench(sample_count = 10)]
fn decode_10_mib(bencher: divan::Bencher) {
    let (frames, bytes) = recording();
    let model = model();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    bencher
        .counter(BytesCount::new(bytes))
        .with_inputs(|| (model.clone(), frames.clone()))
        .bench_values(|(model, frames)| {
            let events = runtime.block_on(decode(model, frames));
            assert!(events > 30_000, "{events}");
            events
        });
}
