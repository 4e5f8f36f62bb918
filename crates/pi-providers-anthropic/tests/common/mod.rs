//! Helpers shared by the integration tests: fixture paths, test models,
//! SSE framing of recorded streams, a pure decode loop and event summaries.

#![allow(dead_code)]

use std::path::PathBuf;

use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, CancellationToken,
    ErrorReason, InputModality, Model, ModelCost, now_ms,
};
use pi_http::{SseDecoder, SseFrame, StreamEnd};
use pi_providers_anthropic::AnthropicDecoder;
use serde_json::{Value, json};

/// `<repo>/fixtures/<rest>`.
pub fn fixtures(rest: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rest)
}

/// A model of the `anthropic-messages` wire.
pub fn model(id: &str, reasoning: bool) -> Model {
    Model {
        id: id.to_owned(),
        name: id.to_owned(),
        api: pi_ai::Api::ANTHROPIC_MESSAGES,
        provider: pi_ai::Provider::ANTHROPIC,
        base_url: "https://api.anthropic.com".to_owned(),
        reasoning,
        input: vec![InputModality::Text, InputModality::Image],
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

/// The frames of a raw SSE body, framed by `pi_http::SseParser` (as the
/// transport does), the body fed in small chunks.
pub async fn frames(body: &str) -> Vec<SseFrame> {
    let mut parser = pi_http::SseParser::new();
    let mut frames = Vec::new();
    for chunk in body.as_bytes().chunks(7) {
        parser.push(chunk, &mut frames).unwrap();
    }
    frames
}

/// Runs `frames` through `decoder` the way `pi_http::stream_sse` does, and
/// collects the events.
pub async fn decode_frames(
    frames: Vec<SseFrame>,
    model: &Model,
    mut decoder: AnthropicDecoder,
) -> Vec<AssistantMessageEvent> {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        now_ms(),
    );
    let stream = AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            for frame in &frames {
                match decoder.frame(frame, &mut sink) {
                    Ok(None) => {}
                    Ok(Some(end)) => return finish(sink, end),
                    Err(text) => return sink.error(ErrorReason::Error, text),
                }
            }
            let end = decoder.end_of_stream(&mut sink);
            finish(sink, end);
        },
    );
    stream.collect().await
}

fn finish(sink: pi_ai::EventSink, end: StreamEnd) {
    match end {
        StreamEnd::Done(reason) => sink.done(reason),
        StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
    }
}

/// Decodes the recorded stream `fixtures/sse/anthropic-messages/<name>`.
pub async fn decode_file(name: &str, model: &Model) -> Vec<AssistantMessageEvent> {
    let body = std::fs::read_to_string(fixtures("sse/anthropic-messages").join(name)).unwrap();
    decode_frames(
        frames(&body).await,
        model,
        AnthropicDecoder::new(model.clone()),
    )
    .await
}

/// The final message of a stream as JSON, with the timestamp zeroed.
pub fn final_message(events: &[AssistantMessageEvent]) -> Value {
    let last = events.last().unwrap();
    let mut message = last.final_message().unwrap().clone();
    message.timestamp = 0;
    serde_json::to_value(pi_ai::Message::Assistant(message)).unwrap()
}

/// `{events: [{type, contentIndex?, delta?, content?, reason?}], message}`:
/// what a stream said, without the (shared, always-latest) partials.
pub fn summary(events: &[AssistantMessageEvent]) -> Value {
    let list: Vec<Value> = events
        .iter()
        .map(|event| {
            let mut entry = serde_json::to_value(event).unwrap();
            let object = entry.as_object_mut().unwrap();
            object.shift_remove("partial");
            object.shift_remove("message");
            object.shift_remove("error");
            if let Some(call) = object.get_mut("toolCall") {
                *call =
                    json!({"id": call["id"], "name": call["name"], "arguments": call["arguments"]});
            }
            entry
        })
        .collect();
    json!({"events": list, "message": final_message(events)})
}
