//! The pi 0.73.1 captures of this wire (`fixtures/pi-0.73.1-vertex`): their
//! folders and sessions, the mock models (`models.json` there) as pi reads
//! a models.json entry, and the test service account.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use pi_ai::{Message, Model, ThinkingLevel};
use pi_providers_google_vertex::VertexEnv;
use pi_test_support::fixtures_dir;
use pi_test_support::parity::read_jsonl;
use serde_json::{Value, json};

/// `fixtures/pi-0.73.1-vertex`.
pub fn captures_dir() -> PathBuf {
    fixtures_dir().join("pi-0.73.1-vertex")
}

fn config() -> Value {
    let text = std::fs::read_to_string(captures_dir().join("models.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Model `id` of `provider` (`mock-vtx` or `mock-vtx-adc`), with pi's
/// defaults for unset fields.
pub fn model(provider: &str, id: &str) -> Model {
    let config = config();
    let entry = &config["providers"][provider];
    let found = entry["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no model {provider}/{id}"));
    let mut model = json!({
        "api": entry["api"],
        "provider": provider,
        "baseUrl": entry["baseUrl"],
        "reasoning": false,
        "input": ["text"],
    });
    for (key, value) in found.as_object().unwrap() {
        model[key] = value.clone();
    }
    serde_json::from_value(model).unwrap()
}

/// The `apiKey` of `provider` in models.json.
pub fn api_key(provider: &str) -> String {
    config()["providers"][provider]["apiKey"]
        .as_str()
        .unwrap()
        .to_owned()
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

/// The test service account (`test-service-account.json`) as JSON.
pub fn service_account() -> Value {
    let text = std::fs::read_to_string(captures_dir().join("test-service-account.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The public half of the test service account's key (PEM).
pub fn public_key_pem() -> Vec<u8> {
    std::fs::read(captures_dir().join("test-service-account.pub.pem")).unwrap()
}

/// Writes `credentials` to `dir/adc.json` and returns its path.
pub fn write_credentials(dir: &Path, credentials: &Value) -> PathBuf {
    let path = dir.join("adc.json");
    std::fs::write(&path, serde_json::to_vec_pretty(credentials).unwrap()).unwrap();
    path
}

/// The test service account with its `token_uri` at `token_url`.
pub fn service_account_at(token_url: &str) -> Value {
    let mut sa = service_account();
    sa["token_uri"] = json!(token_url);
    sa
}

/// An ADC environment: credentials file, project, location and the SDK's
/// base URL variable (the model server), nothing from the process.
pub fn adc_env(credentials: &Path, model_server: &str) -> VertexEnv {
    VertexEnv::fixed([
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            credentials.to_str().unwrap(),
        ),
        ("GOOGLE_CLOUD_PROJECT", "mock-project"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
        ("GOOGLE_VERTEX_BASE_URL", model_server),
    ])
}

/// A token endpoint answer.
pub fn token_answer(token: &str, expires_in: u64) -> String {
    json!({"access_token": token, "expires_in": expires_in, "token_type": "Bearer"}).to_string()
}
