//! The mock Mistral models of the captures
//! (`fixtures/pi-0.73.1/models-mistral.json`, provider `mock-mis`), as pi
//! reads a models.json entry.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::Model;
use pi_test_support::fixture;
use pi_test_support::fixtures::rebase;
use serde_json::{Value, json};

/// The mock provider of the captures.
pub const PROVIDER: &str = "mock-mis";

fn config() -> Value {
    let path = fixture("pi-0.73.1/models-mistral.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Model `id` of `mock-mis`, with pi's defaults for unset fields.
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

/// The API key of `mock-mis`.
pub fn api_key() -> String {
    config()["providers"][PROVIDER]["apiKey"]
        .as_str()
        .unwrap()
        .to_owned()
}
