//! Decodes a ~10 MiB Anthropic SSE stream (thinking, text and tool-call
//! deltas, generated from the shape of pi's recordings) through the pure
//! decoder into an event sink, draining the consumer stream. Reports bytes/s.
//!
//! `cargo bench -p pi-providers-anthropic --bench decode`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fmt::Write as _;

use divan::counter::BytesCount;
use eventsource_stream::Eventsource;
use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, CancellationToken, ErrorReason, InputModality,
    Model, ModelCost,
};
use pi_http::{SseDecoder, SseFrame, StreamEnd};
use pi_providers_anthropic::AnthropicDecoder;

fn main() {
    divan::main();
}

const TARGET_BYTES: usize = 10 << 20;

fn model() -> Model {
    Model {
        id: "claude-bench".into(),
        name: "bench".into(),
        api: pi_ai::Api::ANTHROPIC_MESSAGES,
        provider: pi_ai::Provider::ANTHROPIC,
        base_url: String::new(),
        reasoning: true,
        input: vec![InputModality::Text],
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
        context_window: 200_000,
        max_tokens: 64_000,
        headers: None,
        compat: None,
        extra: pi_ai::ExtraFields::new(),
    }
}

fn push(out: &mut String, event: &str, data: &str) {
    write!(out, "event: {event}\ndata: {data}\n\n").unwrap();
}

/// A recorded-style body of about [`TARGET_BYTES`]: rounds of a thinking
/// block (with signature), a text block and a tool call, with pings.
fn body() -> String {
    let mut out = String::with_capacity(TARGET_BYTES + (64 << 10));
    push(
        &mut out,
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","content":[],"model":"claude-bench","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1200,"cache_creation_input_tokens":0,"cache_read_input_tokens":30000,"output_tokens":1}}}"#,
    );
    let mut index = 0;
    while out.len() < TARGET_BYTES {
        push(
            &mut out,
            "content_block_start",
            &format!(
                r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"thinking","thinking":"","signature":""}}}}"#
            ),
        );
        for _ in 0..40 {
            push(
                &mut out,
                "content_block_delta",
                &format!(
                    r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"thinking_delta","thinking":"Let me consider the directory listing first. "}}}}"#
                ),
            );
        }
        push(
            &mut out,
            "content_block_delta",
            &format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"signature_delta","signature":"EqQBCkYIBhgCIkBmockSigTurn1AAAAbGlzdGluZyB0aGUgZGlyZWN0b3J5Lg0K"}}}}"#
            ),
        );
        push(
            &mut out,
            "content_block_stop",
            &format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
        );
        index += 1;
        push(&mut out, "ping", r#"{"type": "ping"}"#);
        push(
            &mut out,
            "content_block_start",
            &format!(
                r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"text","text":""}}}}"#
            ),
        );
        for _ in 0..80 {
            push(
                &mut out,
                "content_block_delta",
                &format!(
                    r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"text_delta","text":"The directory contains `notes.txt` and `src/`.\n"}}}}"#
                ),
            );
        }
        push(
            &mut out,
            "content_block_stop",
            &format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
        );
        index += 1;
        push(
            &mut out,
            "content_block_start",
            &format!(
                r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"tool_use","id":"toolu_{index}","name":"write","input":{{}}}}}}"#
            ),
        );
        push(
            &mut out,
            "content_block_delta",
            &format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"input_json_delta","partial_json":"{{\"path\": \"notes.txt\", \"content\": \""}}}}"#
            ),
        );
        for _ in 0..40 {
            push(
                &mut out,
                "content_block_delta",
                &format!(
                    r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"input_json_delta","partial_json":"alpha beta gamma delta\\n"}}}}"#
                ),
            );
        }
        push(
            &mut out,
            "content_block_delta",
            &format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"input_json_delta","partial_json":"\"}}"}}}}"#
            ),
        );
        push(
            &mut out,
            "content_block_stop",
            &format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
        );
        index += 1;
    }
    push(
        &mut out,
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":250000}}"#,
    );
    push(&mut out, "message_stop", r#"{"type":"message_stop"}"#);
    out
}

/// Frames `body` with eventsource-stream, as the transport does.
async fn frame(body: String) -> Vec<SseFrame> {
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = body
        .as_bytes()
        .chunks(16 << 10)
        .map(|c| Ok(c.to_vec()))
        .collect();
    futures::stream::iter(chunks)
        .eventsource()
        .map(|e| {
            let e = e.unwrap();
            SseFrame {
                event: e.event,
                data: e.data,
            }
        })
        .collect()
        .await
}

/// Feeds `frames` to the decoder inside an event stream and drains it;
/// returns the number of events.
async fn decode(frames: Vec<SseFrame>) -> usize {
    let model = model();
    let mut decoder = AnthropicDecoder::new(model.clone());
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    );
    let stream = AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        |mut sink| async move {
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
            let end = decoder.end_of_stream(&mut sink);
            match end {
                StreamEnd::Done(reason) => sink.done(reason),
                StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
            }
        },
    );
    let events: Vec<_> = stream.collect().await;
    assert_eq!(events.last().unwrap().kind(), "done");
    events.len()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

/// Decoder + sink + consumer, frames prepared beforehand.
#[divan::bench(sample_count = 10)]
fn decode_frames(bencher: divan::Bencher) {
    let body = body();
    let bytes = body.len();
    let rt = runtime();
    let frames = rt.block_on(frame(body));
    bencher
        .counter(BytesCount::new(bytes))
        .with_inputs(|| frames.clone())
        .bench_local_values(|frames| rt.block_on(decode(frames)));
}

/// SSE framing (eventsource-stream) plus decoding, from raw bytes.
#[divan::bench(sample_count = 10)]
fn frame_and_decode(bencher: divan::Bencher) {
    let body = body();
    let bytes = body.len();
    let rt = runtime();
    bencher
        .counter(BytesCount::new(bytes))
        .with_inputs(|| body.clone())
        .bench_local_values(|body| rt.block_on(async { decode(frame(body).await).await }));
}
