//! Helpers of the parity tests, which compare what a wire sends with what
//! pi 0.73.1 sent (`fixtures/pi-0.73.1/<folder>/requests.jsonl`).

use std::path::Path;

use pi_ai::{Message, Model, ThinkingLevel};
use serde_json::Value;

use crate::fixtures::{fixture, fixtures_dir, mock_api_key, mock_model};

/// What a captured session (`fixtures/pi-0.73.1/<folder>/session.jsonl`)
/// says about the calls pi made: the session id, the model, the thinking
/// level and the conversation.
#[derive(Debug, Clone)]
pub struct CapturedSession {
    /// The session id (pi sends it as the cache session id).
    pub id: String,
    /// The provider of the (last) model change.
    pub provider: String,
    /// The model id of the (last) model change.
    pub model_id: String,
    /// The last thinking level set (`None` for `off` or none).
    pub thinking_level: Option<ThinkingLevel>,
    /// The user, assistant and tool-result messages, in order.
    pub messages: Vec<Message>,
}

impl CapturedSession {
    /// Reads the session of `folder`.
    pub fn load(folder: &str) -> Self {
        let entries = read_jsonl(fixture(&format!("pi-0.73.1/{folder}/session.jsonl")));
        let mut session = Self {
            id: entries[0]["id"].as_str().unwrap().to_owned(),
            provider: String::new(),
            model_id: String::new(),
            thinking_level: None,
            messages: Vec::new(),
        };
        for entry in &entries {
            match entry["type"].as_str().unwrap_or_default() {
                "model_change" => {
                    session.provider = entry["provider"].as_str().unwrap().to_owned();
                    session.model_id = entry["modelId"].as_str().unwrap().to_owned();
                }
                "thinking_level_change" => {
                    session.thinking_level = match entry["thinkingLevel"].as_str().unwrap() {
                        "off" => None,
                        level => Some(serde_json::from_value(Value::from(level)).unwrap()),
                    };
                }
                "message" => {
                    let message = &entry["message"];
                    let role = message["role"].as_str().unwrap_or_default();
                    if matches!(role, "user" | "assistant" | "toolResult") {
                        session
                            .messages
                            .push(serde_json::from_value(message.clone()).unwrap());
                    }
                }
                _ => {}
            }
        }
        session
    }

    /// The session's model in pi's mock configuration.
    pub fn model(&self) -> Model {
        mock_model(&self.provider, &self.model_id)
    }

    /// The API key pi's mock configuration gives the session's provider.
    pub fn api_key(&self) -> String {
        mock_api_key(&self.provider)
    }

    /// The conversation of request `index` (0-based): every message before
    /// the answer to that request (the `index`-th assistant message).
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

/// Every line of a JSON Lines file, parsed (blank lines skipped).
pub fn read_jsonl(path: impl AsRef<Path>) -> Vec<Value> {
    let path = path.as_ref();
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The folders of `fixtures/pi-0.73.1/` with captured requests on `wire`,
/// sorted by name.
pub fn capture_folders(wire: &str) -> Vec<String> {
    let dir = fixtures_dir().join("pi-0.73.1");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut folders: Vec<String> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("requests.jsonl").exists())
        .filter(|path| {
            read_jsonl(path.join("requests.jsonl"))
                .iter()
                .any(|request| request["wire"] == wire)
        })
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    folders
}

/// The JSON pointers listed (as `` - `/pointer` `` lines) in the `## <wire>`
/// section of `docs/payload-differences.md`: body fields allowed to differ
/// from pi's.
pub fn listed_differences(wire: &str) -> Vec<String> {
    let path = fixtures_dir().join("../docs/payload-differences.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with(wire))
        .unwrap_or_default();
    section
        .lines()
        .filter_map(|line| line.strip_prefix("- `"))
        .filter_map(|rest| rest.split('`').next())
        .filter(|pointer| pointer.starts_with('/'))
        .map(str::to_owned)
        .collect()
}

/// Removes the value at each JSON pointer, where present. A `*` step
/// matches every array item; a last step on an array removes that item
/// (`*`: all of them).
pub fn remove_pointers(value: &mut Value, pointers: &[impl AsRef<str>]) {
    for pointer in pointers {
        let parts: Vec<&str> = pointer
            .as_ref()
            .trim_start_matches('/')
            .split('/')
            .collect();
        remove(value, &parts);
    }
}

fn remove(value: &mut Value, parts: &[&str]) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    match value {
        Value::Object(map) if rest.is_empty() => {
            map.shift_remove(*first);
        }
        Value::Object(map) => {
            if let Some(child) = map.get_mut(*first) {
                remove(child, rest);
            }
        }
        Value::Array(items) if *first == "*" => {
            if rest.is_empty() {
                items.clear();
            } else {
                items.iter_mut().for_each(|item| remove(item, rest));
            }
        }
        Value::Array(items) => {
            let Some(index) = first.parse::<usize>().ok().filter(|i| *i < items.len()) else {
                return;
            };
            if rest.is_empty() {
                items.remove(index);
            } else {
                remove(&mut items[index], rest);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_remove_keys_items_and_wildcards() {
        let mut value = json!({"a": {"b": 1, "c": [1, 2, 3]}, "d": [{"x": 1, "y": 2}, {"x": 3}]});
        remove_pointers(&mut value, &["/a/b", "/a/c/1", "/d/*/x", "/missing/x"]);
        assert_eq!(value, json!({"a": {"c": [1, 3]}, "d": [{"y": 2}, {}]}));
        remove_pointers(&mut value, &["/a/c/*"]);
        assert_eq!(value["a"]["c"], json!([]));
    }

    #[test]
    fn differences_come_from_the_wire_section() {
        let listed = listed_differences("openai-completions");
        assert!(listed.iter().all(|p| p.starts_with('/')), "{listed:?}");
        assert!(listed_differences("no-such-wire").is_empty());
        assert!(capture_folders("openai-completions").contains(&"a-text-oai".to_owned()));
        assert!(capture_folders("no-such-wire").is_empty());
    }

    #[test]
    fn a_captured_session_gives_each_request_its_conversation() {
        let session = CapturedSession::load("b-bash-ant");
        assert_eq!(session.provider, "mock-ant");
        assert_eq!(session.model().id, session.model_id);
        let first = session.messages_before(0);
        let second = session.messages_before(1);
        assert!(matches!(first.last(), Some(Message::User(_))), "{first:?}");
        assert!(second.len() > first.len());
        assert!(
            matches!(second.last(), Some(Message::ToolResult(_))),
            "{second:?}"
        );
        assert_eq!(session.messages_before(99).len(), session.messages.len());
    }
}
