//! Paths into the repository's `fixtures/` folder, and pi's mock provider
//! configuration (`fixtures/pi-0.73.1/models.json`).

use std::path::PathBuf;

use pi_ai::Model;
use serde_json::{Value, json};

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// `fixtures/<rest>`.
pub fn fixture(rest: &str) -> PathBuf {
    fixtures_dir().join(rest)
}

/// `fixtures/sse/<wire>/`: the recorded SSE bodies of one wire (named by
/// its api, e.g. `anthropic-messages`).
pub fn sse_dir(wire: &str) -> PathBuf {
    fixtures_dir().join("sse").join(wire)
}

/// The names of every `*.sse` file of `wire`, sorted.
pub fn sse_file_names(wire: &str) -> Vec<String> {
    let dir = sse_dir(wire);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sse"))
        .collect();
    names.sort();
    names
}

/// pi's mock provider configuration (`fixtures/pi-0.73.1/models.json`).
fn mock_config() -> Value {
    let path = fixture("pi-0.73.1/models.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Model `id` of `provider` in pi's mock configuration, with the defaults
/// pi gives custom models (text input, no reasoning, zero prices).
pub fn mock_model(provider: &str, id: &str) -> Model {
    let config = mock_config();
    let entry = &config["providers"][provider];
    let found = entry["models"]
        .as_array()
        .unwrap_or_else(|| panic!("no provider {provider} in models.json"))
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no model {provider}/{id} in models.json"));
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

/// [`mock_model`] served by the mock server at `server_url`: the scheme and
/// host of its base URL replaced, its path (`/v1`, `/v1beta`) kept.
pub fn mock_model_at(provider: &str, id: &str, server_url: &str) -> Model {
    let mut model = mock_model(provider, id);
    model.base_url = rebase(&model.base_url, server_url);
    model
}

/// `base` with its `scheme://host[:port]` replaced by `server_url`.
pub fn rebase(base: &str, server_url: &str) -> String {
    let after_scheme = base.find("://").map_or(0, |at| at + 3);
    let path = base[after_scheme..]
        .find('/')
        .map_or("", |at| &base[after_scheme + at..]);
    format!("{}{path}", server_url.trim_end_matches('/'))
}

/// The API key pi's mock configuration gives `provider`.
pub fn mock_api_key(provider: &str) -> String {
    mock_config()["providers"][provider]["apiKey"]
        .as_str()
        .unwrap_or_else(|| panic!("no apiKey for {provider} in models.json"))
        .to_owned()
}

/// Every entry of `fixtures/pi-0.73.1/<folder>/session.jsonl`, in order.
pub fn session_entries(folder: &str) -> Vec<Value> {
    let path = fixture(&format!("pi-0.73.1/{folder}/session.jsonl"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The assistant messages pi stored in a fixture folder's session, in order.
pub fn session_assistant_messages(folder: &str) -> Vec<Value> {
    session_entries(folder)
        .into_iter()
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "assistant")
        .map(|e| e["message"].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebase_keeps_the_path() {
        assert_eq!(
            rebase("http://127.0.0.1:18777/v1beta", "http://127.0.0.1:5/"),
            "http://127.0.0.1:5/v1beta"
        );
        assert_eq!(
            rebase("http://127.0.0.1:18777", "http://127.0.0.1:5"),
            "http://127.0.0.1:5"
        );
    }

    #[test]
    fn mock_models_get_pis_defaults() {
        let model = mock_model("mock-goog", "mock-gemini-think");
        assert!(model.reasoning);
        assert_eq!(model.max_tokens, 4096);
        assert_eq!(model.input, vec![pi_ai::InputModality::Text]);
        assert_eq!(mock_api_key("mock-goog"), "mock-google-api-key");
    }
}
