//! Helpers shared by the integration tests: models, SSE files, decoding
//! frames through the real event stream, and compact event summaries.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, CancellationToken,
    ErrorReason, Model, Provider,
};
use pi_http::{SseDecoder, SseFrame, StreamEnd};
use pi_providers_google::GoogleDecoder;
use serde_json::{Value, json};

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// `fixtures/sse/google-generative-ai/`.
pub fn sse_dir() -> PathBuf {
    fixtures_dir().join("sse/google-generative-ai")
}

/// A model of pi's mock config (`fixtures/pi-0.73.1/models.json`), with
/// the defaults pi gives custom models.
pub fn mock_model(provider: &str, id: &str) -> Model {
    let path = fixtures_dir().join("pi-0.73.1/models.json");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let entry = &config["providers"][provider];
    let model = entry["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no model {provider}/{id}"));
    serde_json::from_value(json!({
        "id": id,
        "name": model["name"],
        "api": entry["api"],
        "provider": provider,
        "baseUrl": entry["baseUrl"],
        "reasoning": model.get("reasoning").cloned().unwrap_or(json!(false)),
        "input": model.get("input").cloned().unwrap_or(json!(["text"])),
        "contextWindow": model["contextWindow"],
        "maxTokens": model["maxTokens"],
    }))
    .unwrap()
}

/// The API key pi's mock config gives `provider`.
pub fn mock_api_key(provider: &str) -> String {
    let path = fixtures_dir().join("pi-0.73.1/models.json");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    config["providers"][provider]["apiKey"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A built-in catalog model.
pub fn catalog_model(provider: &str, id: &str) -> Model {
    pi_ai::get_model(provider, id)
        .unwrap_or_else(|| panic!("no catalog model {provider}/{id}"))
        .clone()
}

/// A Google model with an arbitrary id (for id-dependent rules).
pub fn google_model(id: &str, reasoning: bool, images: bool) -> Model {
    let input = if images {
        json!(["text", "image"])
    } else {
        json!(["text"])
    };
    serde_json::from_value(json!({
        "id": id, "name": id, "api": "google-generative-ai", "provider": "google",
        "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
        "reasoning": reasoning, "input": input,
        "cost": {"input": 1.25, "output": 10.0, "cacheRead": 0.31, "cacheWrite": 0.0},
        "contextWindow": 1_048_576, "maxTokens": 65_536
    }))
    .unwrap()
}

/// Splits raw SSE text into frames (LF or CRLF line endings; `data:` lines
/// joined with `\n`; event name `message` when absent).
pub fn parse_sse(text: &str) -> Vec<SseFrame> {
    let text = text.replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|block| {
            let mut event = None;
            let mut data: Vec<&str> = Vec::new();
            for line in block.lines() {
                if let Some(rest) = line.strip_prefix("data:") {
                    data.push(rest.strip_prefix(' ').unwrap_or(rest));
                } else if let Some(rest) = line.strip_prefix("event:") {
                    event = Some(rest.trim().to_owned());
                }
            }
            (!data.is_empty()).then(|| SseFrame {
                event: event.unwrap_or_else(|| "message".to_owned()),
                data: data.join("\n"),
            })
        })
        .collect()
}

/// Reads `fixtures/sse/google-generative-ai/<name>`.
pub fn read_sse(name: &str) -> String {
    std::fs::read_to_string(sse_dir().join(name)).unwrap()
}

/// Runs `frames` through `decoder` inside a real event stream, ending it as
/// the HTTP driver does, and collects every event.
pub async fn decode_frames(
    model: &Model,
    frames: Vec<SseFrame>,
    mut decoder: GoogleDecoder,
) -> Vec<AssistantMessageEvent> {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        Provider::new(model.provider.as_str()),
        model.id.clone(),
        1_700_000_000_000,
    );
    let stream = AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        move |mut sink| async move {
            sink.start();
            for frame in &frames {
                match decoder.frame(frame, &mut sink) {
                    Ok(None) => {}
                    Ok(Some(StreamEnd::Done(reason))) => return sink.done(reason),
                    Ok(Some(StreamEnd::Error(text))) | Err(text) => {
                        return sink.error(ErrorReason::Error, text);
                    }
                }
            }
            match decoder.end_of_stream(&mut sink) {
                StreamEnd::Done(reason) => sink.done(reason),
                StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
            }
        },
    );
    stream.collect().await
}

/// One event without its `partial`: kind, content index, delta, content,
/// tool call, reason and the settled message.
pub fn summarize(event: &AssistantMessageEvent) -> Value {
    let mut value = serde_json::to_value(event).unwrap();
    let object = value.as_object_mut().unwrap();
    object.remove("partial");
    value
}

/// Every event summarized.
pub fn summarize_all(events: &[AssistantMessageEvent]) -> Vec<Value> {
    events.iter().map(summarize).collect()
}

/// The settled message of the last event.
pub fn final_message(events: &[AssistantMessageEvent]) -> AssistantMessage {
    events
        .last()
        .and_then(AssistantMessageEvent::final_message)
        .cloned()
        .expect("a terminal event")
}
