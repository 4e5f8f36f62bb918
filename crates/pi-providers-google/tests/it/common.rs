//! This wire's test models (the shared helpers are in `pi-test-support`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::Model;
use serde_json::json;

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
