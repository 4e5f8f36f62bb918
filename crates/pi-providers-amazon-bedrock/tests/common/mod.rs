//! The pi 0.73.1 captures of this wire (`fixtures/pi-0.73.1-bedrock`): their
//! folders and sessions, the mock models (provider `mock-bed`), and recorded
//! answers framed exactly as a live body is (SSE text -> AWS event-stream
//! bytes -> [`EventStreamFraming`]).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use pi_ai::{Message, Model, ThinkingLevel};
use pi_http::{BodyFraming, SseFrame};
use pi_providers_amazon_bedrock::EventStreamFraming;
use pi_test_support::event_stream::encode_frame;
use pi_test_support::fixtures::rebase;
use pi_test_support::parity::read_jsonl;
use pi_test_support::{fixture, fixtures_dir, raw_frames, read_sse};
use serde_json::{Value, json};

/// The mock provider of the captures.
pub const PROVIDER: &str = "mock-bed";
/// The recordings' folder under `fixtures/sse`.
pub const WIRE: &str = "bedrock-converse-stream";
/// The mock models.
pub const NOVA: &str = "mock.nova-v1:0";
/// A budget-thinking Claude model (cache points, interleaved thinking).
pub const SONNET: &str = "us.anthropic.claude-sonnet-4-5-mock-v1:0";
/// An adaptive-thinking Claude model.
pub const OPUS: &str = "us.anthropic.claude-opus-4-6-mock-v1";

fn config() -> Value {
    let path = fixture("pi-0.73.1-bedrock/models.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Model `id` of `mock-bed`, with pi's defaults for unset fields.
pub fn model(id: &str) -> Model {
    let config = config();
    let entry = &config["providers"][PROVIDER];
    let found = entry["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no model {PROVIDER}/{id}"));
    let mut model = json!({
        "api": entry["api"],
        "provider": PROVIDER,
        "baseUrl": entry["baseUrl"],
        "reasoning": false,
        "input": ["text"],
    });
    for (key, value) in found.as_object().unwrap() {
        model[key] = value.clone();
    }
    serde_json::from_value(model).unwrap()
}

/// [`model`] served by the mock server at `server_url`.
pub fn model_at(id: &str, server_url: &str) -> Model {
    let mut model = model(id);
    model.base_url = rebase(&model.base_url, server_url);
    model
}

/// The frames of recording `name`, as the live transport frames them: each
/// SSE-text frame encoded as an event-stream message, the bytes cut by the
/// wire's framing in small chunks.
pub fn frames(name: &str) -> Vec<SseFrame> {
    let text = read_sse(WIRE, name);
    let bytes: Vec<u8> = raw_frames(&text)
        .iter()
        .flat_map(|f| encode_frame(f))
        .collect();
    let mut framing = EventStreamFraming::new();
    let mut out = Vec::new();
    for chunk in bytes.chunks(7) {
        framing.push(chunk, &mut out).unwrap();
    }
    framing.finish().unwrap();
    out
}

/// `fixtures/pi-0.73.1-bedrock`.
pub fn captures_dir() -> PathBuf {
    fixtures_dir().join("pi-0.73.1-bedrock")
}

/// The capture folders, sorted.
pub fn capture_folders() -> Vec<String> {
    let mut folders: Vec<String> = std::fs::read_dir(captures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("requests.jsonl").exists())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    folders
}

/// What a capture's `session.jsonl` says.
pub struct Session {
    /// Session id.
    pub id: String,
    /// The last thinking level set (`None` for `off`).
    pub thinking_level: Option<ThinkingLevel>,
    /// User, assistant and tool-result messages in order.
    pub messages: Vec<Message>,
    /// The assistant messages as stored.
    pub assistant_json: Vec<Value>,
}

/// Reads the session of capture `folder`.
pub fn session(folder: &str) -> Session {
    let entries = read_jsonl(captures_dir().join(folder).join("session.jsonl"));
    let mut out = Session {
        id: entries[0]["id"].as_str().unwrap().to_owned(),
        thinking_level: None,
        messages: Vec::new(),
        assistant_json: Vec::new(),
    };
    for entry in &entries {
        match entry["type"].as_str().unwrap_or_default() {
            "thinking_level_change" => {
                out.thinking_level = match entry["thinkingLevel"].as_str().unwrap() {
                    "off" => None,
                    level => Some(serde_json::from_value(Value::from(level)).unwrap()),
                };
            }
            "message" => {
                let message = &entry["message"];
                if message["role"] == "assistant" {
                    out.assistant_json.push(message.clone());
                }
                if matches!(
                    message["role"].as_str(),
                    Some("user" | "assistant" | "toolResult")
                ) {
                    out.messages
                        .push(serde_json::from_value(message.clone()).unwrap());
                }
            }
            _ => {}
        }
    }
    out
}

impl Session {
    /// Every message before the `index`-th (0-based) assistant message.
    pub fn messages_before(&self, index: usize) -> Vec<Message> {
        let cut = self
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m, Message::Assistant(_)))
            .nth(index)
            .map_or(self.messages.len(), |(at, _)| at);
        self.messages[..cut].to_vec()
    }
}
