//! Shared test helpers: models, fixture paths, SSE parsing, event summaries.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEvent, Model};
use pi_http::SseFrame;
use serde_json::{Value, json};

/// `fixtures/` at the workspace root.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// `fixtures/sse/openai-responses/`.
pub fn sse_dir() -> PathBuf {
    fixtures_dir().join("sse/openai-responses")
}

/// A model of pi's `models.json` for the mock servers (`mock-resp` provider).
pub fn fixture_model(provider: &str, id: &str) -> Model {
    let text = std::fs::read_to_string(fixtures_dir().join("pi-0.73.1/models.json")).unwrap();
    let config: Value = serde_json::from_str(&text).unwrap();
    let provider_config = &config["providers"][provider];
    let entry = provider_config["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap();
    let mut model = json!({
        "api": provider_config["api"],
        "provider": provider,
        "baseUrl": provider_config["baseUrl"],
    });
    for (key, value) in entry.as_object().unwrap() {
        model[key] = value.clone();
    }
    serde_json::from_value(model).unwrap()
}

/// `mock-resp/mock-resp`: no reasoning, text input only.
pub fn mock_resp() -> Model {
    fixture_model("mock-resp", "mock-resp")
}

/// An OpenAI reasoning model with image input and prices.
pub fn gpt5_mini() -> Model {
    serde_json::from_value(json!({
        "id": "gpt-5-mini", "name": "GPT-5 mini", "api": "openai-responses",
        "provider": "openai", "baseUrl": "https://api.openai.com/v1", "reasoning": true,
        "input": ["text", "image"],
        "cost": {"input": 0.25, "output": 2, "cacheRead": 0.025, "cacheWrite": 0},
        "contextWindow": 400000, "maxTokens": 128000
    }))
    .unwrap()
}

/// A model with `extra` fields merged into [`gpt5_mini`] (e.g. `thinkingLevelMap`, `compat`).
pub fn gpt5_mini_with(extra: Value) -> Model {
    let mut model = serde_json::to_value(gpt5_mini()).unwrap();
    for (key, value) in extra.as_object().unwrap() {
        model[key] = value.clone();
    }
    serde_json::from_value(model).unwrap()
}

/// Frames of raw SSE text, framed by the same parser the transport uses.
pub async fn parse_sse(text: &str) -> Vec<SseFrame> {
    futures::stream::iter([Ok::<_, std::convert::Infallible>(text.as_bytes().to_vec())])
        .eventsource()
        .map(|event| {
            let event = event.unwrap();
            SseFrame {
                event: event.event,
                data: event.data,
            }
        })
        .collect()
        .await
}

/// Raw SSE text split into frames as strings (for the mock server).
pub fn split_frames(text: &str) -> Vec<String> {
    text.split_inclusive("\n\n").map(str::to_owned).collect()
}

/// One event without its `partial` (which always shows the latest state).
pub fn event_summary(event: &AssistantMessageEvent) -> Value {
    match event {
        AssistantMessageEvent::Start { .. } => json!({"type": "start"}),
        AssistantMessageEvent::TextStart { content_index, .. }
        | AssistantMessageEvent::ThinkingStart { content_index, .. }
        | AssistantMessageEvent::ToolCallStart { content_index, .. } => {
            json!({"type": event.kind(), "contentIndex": content_index})
        }
        AssistantMessageEvent::TextDelta {
            content_index,
            delta,
            ..
        }
        | AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta,
            ..
        }
        | AssistantMessageEvent::ToolCallDelta {
            content_index,
            delta,
            ..
        } => json!({"type": event.kind(), "contentIndex": content_index, "delta": delta}),
        AssistantMessageEvent::TextEnd {
            content_index,
            content,
            ..
        }
        | AssistantMessageEvent::ThinkingEnd {
            content_index,
            content,
            ..
        } => json!({"type": event.kind(), "contentIndex": content_index, "content": content}),
        AssistantMessageEvent::ToolCallEnd {
            content_index,
            tool_call,
            ..
        } => json!({"type": event.kind(), "contentIndex": content_index, "toolCall": tool_call}),
        AssistantMessageEvent::Done { reason, .. } => json!({"type": "done", "reason": reason}),
        AssistantMessageEvent::Error { reason, .. } => json!({"type": "error", "reason": reason}),
    }
}

/// The settled message of a terminal event.
pub fn final_message(events: &[AssistantMessageEvent]) -> AssistantMessage {
    events
        .last()
        .and_then(AssistantMessageEvent::final_message)
        .cloned()
        .expect("the stream ends with done or error")
}

/// Asserts the stream contract: `start` first (unless the request was
/// refused: then the `error` is the only event), exactly one terminal event, last.
pub fn assert_well_formed(events: &[AssistantMessageEvent]) {
    assert!(
        matches!(events.first(), Some(AssistantMessageEvent::Start { .. }))
            || matches!(events, [AssistantMessageEvent::Error { .. }]),
        "start comes first"
    );
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1, "exactly one terminal event");
    assert!(
        events
            .last()
            .is_some_and(AssistantMessageEvent::is_terminal)
    );
}

/// The assistant messages of a fixture folder's `session.jsonl`, in order.
pub fn session_assistant_messages(folder: &str) -> Vec<Value> {
    session_entries(folder)
        .into_iter()
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "assistant")
        .map(|e| e["message"].clone())
        .collect()
}

/// Every entry of a fixture folder's `session.jsonl`.
pub fn session_entries(folder: &str) -> Vec<Value> {
    let path = fixtures_dir()
        .join("pi-0.73.1")
        .join(folder)
        .join("session.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}
