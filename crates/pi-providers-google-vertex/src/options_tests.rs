use pi_providers_google::wire::GoogleThinkingLevel;
use serde_json::json;

use super::*;

fn model(id: &str, reasoning: bool) -> Model {
    serde_json::from_value(json!({
        "id": id, "name": id, "api": "google-vertex", "provider": "google-vertex",
        "baseUrl": "https://{location}-aiplatform.googleapis.com",
        "reasoning": reasoning, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1_048_576, "maxTokens": 65_536
    }))
    .unwrap()
}

fn at(level: Option<ThinkingLevel>) -> SimpleStreamOptions {
    SimpleStreamOptions {
        reasoning: level,
        ..SimpleStreamOptions::default()
    }
}

#[test]
fn flash_lite_takes_the_flash_budgets() {
    let m = model("gemini-2.5-flash-lite", true);
    let o = simple_options(&m, &at(Some(ThinkingLevel::Minimal)));
    assert_eq!(o.google.thinking.unwrap().budget_tokens, Some(128));
    let custom = SimpleStreamOptions {
        thinking_budgets: Some(ThinkingBudgets {
            minimal: Some(77),
            ..ThinkingBudgets::default()
        }),
        ..at(Some(ThinkingLevel::Minimal))
    };
    assert_eq!(
        simple_options(&m, &custom)
            .google
            .thinking
            .unwrap()
            .budget_tokens,
        Some(77)
    );
    assert_eq!(o.google.base.max_tokens, Some(32000));
}

#[test]
fn gemma_4_has_no_level_rule_on_vertex() {
    let m = model("gemma-4-27b-it", true);
    let on = simple_options(&m, &at(Some(ThinkingLevel::High)));
    assert_eq!(
        on.google.thinking,
        Some(ThinkingSetting {
            enabled: true,
            budget_tokens: Some(-1),
            level: None
        })
    );
    let off = simple_options(&m, &at(None));
    assert_eq!(
        thinking_config(&m, off.google.thinking),
        Some(ThinkingConfig {
            thinking_budget: Some(0),
            ..ThinkingConfig::default()
        })
    );
}

#[test]
fn gemini_3_levels_and_disabled_levels() {
    let pro = model("gemini-3.1-pro-preview", true);
    let o = simple_options(&pro, &at(Some(ThinkingLevel::Medium)));
    assert_eq!(
        o.google.thinking.unwrap().level,
        Some(GoogleThinkingLevel::High)
    );
    let off = simple_options(&pro, &at(None));
    assert_eq!(
        thinking_config(&pro, off.google.thinking)
            .unwrap()
            .thinking_level,
        Some(GoogleThinkingLevel::Low)
    );
    let flash = model("gemini-3-flash-preview", true);
    let off = simple_options(&flash, &at(None));
    assert_eq!(
        thinking_config(&flash, off.google.thinking)
            .unwrap()
            .thinking_level,
        Some(GoogleThinkingLevel::Minimal)
    );
}

#[test]
fn models_without_reasoning_send_no_thinking_config() {
    let m = model("gemini-2.0-flash", false);
    let o = simple_options(&m, &at(Some(ThinkingLevel::High)));
    assert_eq!(thinking_config(&m, o.google.thinking), None);
}
