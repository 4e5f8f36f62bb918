use pi_ai::{Model, SimpleStreamOptions, StreamOptions, ThinkingBudgets, ThinkingLevel};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::wire::GoogleThinkingLevel as G;

fn model(id: &str, reasoning: bool) -> Model {
    serde_json::from_value(json!({
        "id": id, "name": id, "api": "google-generative-ai", "provider": "google",
        "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
        "reasoning": reasoning, "input": ["text", "image"],
        "contextWindow": 1_048_576, "maxTokens": 65_536
    }))
    .unwrap()
}

fn simple(reasoning: Option<ThinkingLevel>) -> SimpleStreamOptions {
    SimpleStreamOptions {
        reasoning,
        ..SimpleStreamOptions::default()
    }
}

#[test]
fn gemini3_families_follow_pis_patterns() {
    assert!(is_gemini3(&model("gemini-3-pro-preview", true), "pro"));
    assert!(is_gemini3(&model("gemini-3.1-pro-preview", true), "pro"));
    assert!(is_gemini3(&model("models/Gemini-3-Flash", true), "flash"));
    assert!(is_gemini3(
        &model("gemini-3.1-flash-lite-preview", true),
        "flash"
    ));
    assert!(!is_gemini3(&model("gemini-3.x-pro", true), "pro"));
    assert!(!is_gemini3(&model("gemini-2.5-pro", true), "pro"));
    assert!(!is_gemini3(&model("gemini-flash-latest", true), "flash"));
    assert!(is_gemma4(&model("gemma-4-27b-it", true)));
    assert!(is_gemma4(&model("gemma4", true)));
    assert!(!is_gemma4(&model("gemma-3-27b-it", true)));
}

#[test]
fn multimodal_function_responses_need_gemini_3_or_a_non_gemini_model() {
    let nested = |id| supports_multimodal_function_response(&model(id, true));
    assert!(!nested("gemini-2.5-flash"));
    assert!(!nested("gemini-live-2.5-flash"));
    assert!(nested("gemini-3-pro-preview"));
    assert!(nested("gemini-10-ultra"));
    assert!(nested("gemini-flash-latest"));
    assert!(nested("claude-sonnet-4-5"));
}

#[test]
fn levels_map_per_family() {
    let level = |id, l| simple_options(&model(id, true), &simple(Some(l))).thinking;
    let with_level = |level| {
        Some(ThinkingSetting {
            enabled: true,
            budget_tokens: None,
            level: Some(level),
        })
    };
    assert_eq!(
        level("gemini-3-pro-preview", ThinkingLevel::Minimal),
        with_level(G::Low)
    );
    assert_eq!(
        level("gemini-3-pro-preview", ThinkingLevel::Medium),
        with_level(G::High)
    );
    assert_eq!(
        level("gemini-3-flash-preview", ThinkingLevel::Minimal),
        with_level(G::Minimal)
    );
    assert_eq!(
        level("gemini-3-flash-preview", ThinkingLevel::Medium),
        with_level(G::Medium)
    );
    assert_eq!(
        level("gemini-3-flash-preview", ThinkingLevel::Xhigh),
        with_level(G::High)
    );
    assert_eq!(
        level("gemma-4-27b", ThinkingLevel::Low),
        with_level(G::Minimal)
    );
    assert_eq!(
        level("gemma-4-27b", ThinkingLevel::Medium),
        with_level(G::High)
    );
}

#[test]
fn budgets_follow_pis_tables_and_custom_budgets_win() {
    let budget = |id, level, custom: Option<ThinkingBudgets>| {
        let options = SimpleStreamOptions {
            reasoning: Some(level),
            thinking_budgets: custom,
            ..SimpleStreamOptions::default()
        };
        simple_options(&model(id, true), &options)
            .thinking
            .and_then(|t| t.budget_tokens)
    };
    assert_eq!(
        budget("gemini-2.5-pro", ThinkingLevel::Minimal, None),
        Some(128)
    );
    assert_eq!(
        budget("gemini-2.5-pro", ThinkingLevel::High, None),
        Some(32768)
    );
    assert_eq!(
        budget("gemini-2.5-flash", ThinkingLevel::High, None),
        Some(24576)
    );
    assert_eq!(
        budget("gemini-2.5-flash-lite", ThinkingLevel::Minimal, None),
        Some(512)
    );
    assert_eq!(
        budget("gemini-2.5-flash", ThinkingLevel::Xhigh, None),
        Some(24576)
    );
    assert_eq!(
        budget("gemini-2.0-flash-thinking", ThinkingLevel::Medium, None),
        Some(-1)
    );
    let custom = ThinkingBudgets {
        medium: Some(5000),
        ..ThinkingBudgets::default()
    };
    assert_eq!(
        budget("gemini-2.5-pro", ThinkingLevel::Medium, Some(custom)),
        Some(5000)
    );
    assert_eq!(
        budget("gemini-2.5-pro", ThinkingLevel::Low, Some(custom)),
        Some(2048)
    );
}

#[test]
fn thinking_config_is_only_for_reasoning_models() {
    let on = Some(ThinkingSetting {
        enabled: true,
        budget_tokens: Some(1024),
        level: None,
    });
    assert_eq!(thinking_config(&model("gemini-2.0-flash", false), on), None);
    assert_eq!(
        thinking_config(&model("gemini-2.5-flash", true), None),
        None
    );
    assert_eq!(
        thinking_config(&model("gemini-2.5-flash", true), on),
        Some(crate::wire::ThinkingConfig {
            include_thoughts: Some(true),
            thinking_level: None,
            thinking_budget: Some(1024),
        })
    );
    let off = Some(ThinkingSetting::OFF);
    let disabled =
        |id| thinking_config(&model(id, true), off).map(|c| serde_json::to_value(c).unwrap());
    assert_eq!(
        disabled("gemini-2.5-pro"),
        Some(json!({"thinkingBudget": 0}))
    );
    assert_eq!(
        disabled("gemini-3-pro-preview"),
        Some(json!({"thinkingLevel": "LOW"}))
    );
    assert_eq!(
        disabled("gemini-3-flash-preview"),
        Some(json!({"thinkingLevel": "MINIMAL"}))
    );
    assert_eq!(
        disabled("gemma-4-27b"),
        Some(json!({"thinkingLevel": "MINIMAL"}))
    );
}

#[test]
fn simple_max_tokens_default_to_the_model_limit_capped_at_32000() {
    let no_reasoning = simple(None);
    assert_eq!(
        simple_options(&model("gemini-2.5-pro", true), &no_reasoning)
            .base
            .max_tokens,
        Some(32_000)
    );
    let mut small = model("gemini-2.0-flash", false);
    small.max_tokens = 8192;
    assert_eq!(
        simple_options(&small, &no_reasoning).base.max_tokens,
        Some(8192)
    );
    small.max_tokens = 0;
    assert_eq!(simple_options(&small, &no_reasoning).base.max_tokens, None);
    let explicit = SimpleStreamOptions {
        base: StreamOptions {
            max_tokens: Some(77),
            ..StreamOptions::default()
        },
        ..SimpleStreamOptions::default()
    };
    assert_eq!(simple_options(&small, &explicit).base.max_tokens, Some(77));
    assert_eq!(
        simple_options(&small, &no_reasoning).thinking,
        Some(ThinkingSetting::OFF),
        "no level means thinking explicitly off"
    );
}
