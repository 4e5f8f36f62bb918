//! A folder of pi 0.73.1 captures (`fixtures/pi-0.73.1-<wire>`, made by a
//! script in `fixtures/capture/`): its mock models as pi reads a
//! models.json entry, its capture folders, their sessions and commands.

use std::path::PathBuf;

use pi_ai::{Message, Model, ThinkingLevel};
use serde_json::{Value, json};

use crate::fixtures::rebase;
use crate::fixtures_dir;
use crate::parity::read_jsonl;

/// The captures under `fixtures/<dir>`.
#[derive(Debug, Clone, Copy)]
pub struct Captures {
    dir: &'static str,
}

impl Captures {
    /// The captures of `fixtures/<dir>` (e.g. `pi-0.73.1-azure`).
    pub const fn new(dir: &'static str) -> Self {
        Self { dir }
    }

    /// `fixtures/<dir>`.
    pub fn dir(&self) -> PathBuf {
        fixtures_dir().join(self.dir)
    }

    /// The folder's `models.json`.
    fn config(&self) -> Value {
        let text = std::fs::read_to_string(self.dir().join("models.json"))
            .unwrap_or_else(|e| panic!("{}/models.json: {e}", self.dir));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}/models.json: {e}", self.dir))
    }

    /// Model `id` of `provider` in models.json, with pi's defaults for
    /// unset fields.
    pub fn model(&self, provider: &str, id: &str) -> Model {
        let config = self.config();
        let entry = &config["providers"][provider];
        let found = entry["models"]
            .as_array()
            .and_then(|models| models.iter().find(|m| m["id"] == id))
            .unwrap_or_else(|| panic!("no model {provider}/{id}"));
        let mut model = json!({
            "api": entry["api"],
            "provider": provider,
            "baseUrl": entry["baseUrl"],
            "reasoning": false,
            "input": ["text"],
        });
        for (key, value) in found.as_object().into_iter().flatten() {
            model[key] = value.clone();
        }
        serde_json::from_value(model).unwrap_or_else(|e| panic!("{provider}/{id}: {e}"))
    }

    /// The `apiKey` of `provider` in models.json.
    pub fn api_key(&self, provider: &str) -> String {
        self.config()["providers"][provider]["apiKey"]
            .as_str()
            .unwrap_or_else(|| panic!("no apiKey for {provider}"))
            .to_owned()
    }

    /// The capture folders (those with a `requests.jsonl`), sorted.
    pub fn folders(&self) -> Vec<String> {
        let entries = std::fs::read_dir(self.dir())
            .unwrap_or_else(|e| panic!("{}: {e}", self.dir))
            .flatten();
        let mut folders: Vec<String> = entries
            .map(|e| e.path())
            .filter(|p| p.join("requests.jsonl").exists())
            .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
            .collect();
        folders.sort();
        folders
    }

    /// What the `session.jsonl` of capture `folder` says.
    pub fn session(&self, folder: &str) -> CapturedSession {
        let entries = read_jsonl(self.dir().join(folder).join("session.jsonl"));
        let mut out = CapturedSession {
            id: entries[0]["id"].as_str().unwrap_or_default().to_owned(),
            thinking_level: None,
            messages: Vec::new(),
            assistant_json: Vec::new(),
        };
        for entry in &entries {
            match entry["type"].as_str().unwrap_or_default() {
                "thinking_level_change" => {
                    out.thinking_level = match entry["thinkingLevel"].as_str() {
                        Some("off") | None => None,
                        Some(level) => serde_json::from_value(Value::from(level)).ok(),
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
                        let typed = serde_json::from_value(message.clone())
                            .unwrap_or_else(|e| panic!("{folder}: {e}"));
                        out.messages.push(typed);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The environment assignments in front of `pi` in capture `folder`'s
    /// `command.txt` (`NAME=value` pairs, values may hold spaces; names are
    /// upper case with underscores).
    pub fn command_env(&self, folder: &str) -> Vec<(String, String)> {
        let command = self.command(folder);
        let after_cd = command
            .split_once("&& ")
            .map_or(command.as_str(), |(_, c)| c);
        let prefix = after_cd
            .split_once("pi \"")
            .map_or("", |(p, _)| p)
            .trim_end();
        let mut out: Vec<(String, String)> = Vec::new();
        for word in prefix.split(' ').filter(|w| !w.is_empty()) {
            match (word.split_once('='), out.last_mut()) {
                (Some((name, value)), _)
                    if !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
                {
                    out.push((name.to_owned(), value.to_owned()));
                }
                (_, Some(last)) => {
                    last.1.push(' ');
                    last.1.push_str(word);
                }
                (_, None) => panic!("{folder}: command.txt starts with {word:?}"),
            }
        }
        out
    }

    /// The `provider/model` given to `--model` in capture `folder`'s `command.txt`.
    pub fn command_model(&self, folder: &str) -> (String, String) {
        let command = self.command(folder);
        let words: Vec<&str> = command.split_whitespace().collect();
        words
            .iter()
            .position(|w| *w == "\"--model\"")
            .and_then(|at| words.get(at + 1)?.trim_matches('"').split_once('/'))
            .map(|(provider, id)| (provider.to_owned(), id.to_owned()))
            .unwrap_or_else(|| panic!("{folder}: no --model in command.txt"))
    }

    fn command(&self, folder: &str) -> String {
        std::fs::read_to_string(self.dir().join(folder).join("command.txt"))
            .unwrap_or_else(|e| panic!("{folder}/command.txt: {e}"))
    }
}

/// The captures of a wire whose tests read one mock provider: [`Captures`]
/// bound to that provider (`mock-az` in `pi-0.73.1-azure`, ...), the helpers
/// every wire crate's tests use.
#[derive(Debug, Clone, Copy)]
pub struct CapturedWire {
    /// The captures folder.
    pub captures: Captures,
    /// The mock provider of the captures.
    pub provider: &'static str,
}

impl CapturedWire {
    /// The captures of `fixtures/<dir>` for mock provider `provider`.
    pub const fn new(dir: &'static str, provider: &'static str) -> Self {
        Self {
            captures: Captures::new(dir),
            provider,
        }
    }

    /// Model `id` of the provider, with pi's defaults for unset fields.
    pub fn model(&self, id: &str) -> Model {
        self.captures.model(self.provider, id)
    }

    /// [`CapturedWire::model`] served by the mock server at `server_url`.
    pub fn model_at(&self, id: &str, server_url: &str) -> Model {
        let mut model = self.model(id);
        model.base_url = rebase(&model.base_url, server_url);
        model
    }

    /// The API key of the provider in models.json.
    pub fn api_key(&self) -> String {
        self.captures.api_key(self.provider)
    }

    /// `fixtures/<dir>`.
    pub fn dir(&self) -> PathBuf {
        self.captures.dir()
    }

    /// The capture folders, sorted.
    pub fn folders(&self) -> Vec<String> {
        self.captures.folders()
    }

    /// Reads the session of capture `folder`.
    pub fn session(&self, folder: &str) -> CapturedSession {
        self.captures.session(folder)
    }

    /// The environment assignments in front of `pi` in a capture's `command.txt`.
    pub fn command_env(&self, folder: &str) -> Vec<(String, String)> {
        self.captures.command_env(folder)
    }

    /// The `provider/model` given to `--model` in a capture's `command.txt`.
    pub fn command_model(&self, folder: &str) -> (String, String) {
        self.captures.command_model(folder)
    }
}

/// What a capture's `session.jsonl` says.
#[derive(Debug, Clone)]
pub struct CapturedSession {
    /// Session id (pi's `x-affinity`).
    pub id: String,
    /// The last thinking level set (`None` for `off`).
    pub thinking_level: Option<ThinkingLevel>,
    /// User, assistant and tool-result messages in order.
    pub messages: Vec<Message>,
    /// The assistant messages as stored.
    pub assistant_json: Vec<Value>,
}

impl CapturedSession {
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
