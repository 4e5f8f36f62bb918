//! This wire's test models (the shared helpers are in `pi-test-support`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::Model;
use serde_json::{Value, json};

/// `mock-resp/mock-resp` of pi's mock config: no reasoning, text input only.
pub fn mock_resp() -> Model {
    pi_test_support::mock_model("mock-resp", "mock-resp")
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
