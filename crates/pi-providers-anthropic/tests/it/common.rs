//! This wire's test model (the shared helpers are in `pi-test-support`).

#![allow(dead_code)]

use pi_ai::{InputModality, Model, ModelCost};

/// A model of the `anthropic-messages` wire, priced like Claude Sonnet.
pub fn model(id: &str, reasoning: bool) -> Model {
    Model {
        id: id.to_owned(),
        name: id.to_owned(),
        api: pi_ai::Api::ANTHROPIC_MESSAGES,
        provider: pi_ai::Provider::ANTHROPIC,
        base_url: "https://api.anthropic.com".to_owned(),
        reasoning,
        input: vec![InputModality::Text, InputModality::Image],
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
        context_window: 200_000,
        max_tokens: 64_000,
        headers: None,
        compat: None,
        extra: pi_ai::ExtraFields::new(),
    }
}
