//! The pi 0.73.1 captures of this wire (`fixtures/pi-0.73.1-codex`, made by
//! `fixtures/capture/responses_family_scenarios.py`): their folders and
//! sessions, and the mock models (`models.json` there, provider
//! `mock-cdx`) as pi reads a models.json entry.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use pi_ai::{Message, Model, ThinkingLevel};
use pi_test_support::fixtures::rebase;
use pi_test_support::fixtures_dir;
use pi_test_support::parity::read_jsonl;
use serde_json::{Value, json};

/// The mock provider of the captures.
pub const PROVIDER: &str = "mock-cdx";

fn config() -> Value {
    let path = captures_dir().join("models.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Model `id` of `mock-cdx`, with pi's defaults for unset fields.
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

/// The API key of `mock-cdx`.
pub fn api_key() -> String {
    config()["providers"][PROVIDER]["apiKey"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// `fixtures/pi-0.73.1-codex`.
pub fn captures_dir() -> PathBuf {
    fixtures_dir().join("pi-0.73.1-codex")
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

/// The environment assignments in front of `pi` in a capture's
/// `command.txt` (`NAME=value` pairs, values may hold spaces; names are
/// upper case with underscores).
pub fn command_env(folder: &str) -> Vec<(String, String)> {
    let command = std::fs::read_to_string(captures_dir().join(folder).join("command.txt")).unwrap();
    let after_cd = command.split_once("&& ").unwrap().1;
    let prefix = after_cd.split_once("pi \"").unwrap().0.trim_end();
    let mut out: Vec<(String, String)> = Vec::new();
    for word in prefix.split(' ').filter(|w| !w.is_empty()) {
        match word.split_once('=') {
            Some((name, value))
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                out.push((name.to_owned(), value.to_owned()));
            }
            _ => {
                let last = out.last_mut().unwrap();
                last.1.push(' ');
                last.1.push_str(word);
            }
        }
    }
    out
}

/// What a capture's `session.jsonl` says: session id, last thinking level,
/// messages, and the raw assistant messages.
pub struct Session {
    /// Session id (pi's `x-affinity`).
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

/// The `provider/model` given to `--model` in a capture's `command.txt`.
pub fn command_model(folder: &str) -> (String, String) {
    let command = std::fs::read_to_string(captures_dir().join(folder).join("command.txt")).unwrap();
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "\"--model\"").unwrap();
    let (provider, id) = words[at + 1].trim_matches('"').split_once('/').unwrap();
    (provider.to_owned(), id.to_owned())
}
