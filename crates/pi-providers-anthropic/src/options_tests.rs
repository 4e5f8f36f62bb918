use pi_ai::{CacheRetention, ThinkingBudgets, ThinkingLevel};
use serde_json::json;

use super::*;

fn model(id: &str) -> Model {
    serde_json::from_value(json!({
        "id": id, "name": id, "api": "anthropic-messages", "provider": "anthropic",
        "baseUrl": "https://api.anthropic.com", "reasoning": true,
        "contextWindow": 200000, "maxTokens": 64000
    }))
    .unwrap()
}

#[test]
fn budget_grows_the_limit_and_shrinks_when_it_cannot_fit() {
    assert_eq!(
        adjust_max_tokens_for_thinking(32_000, 64_000, ThinkingLevel::High, None),
        (48_384, 16_384)
    );
    assert_eq!(
        adjust_max_tokens_for_thinking(8192, 8192, ThinkingLevel::Medium, None),
        (8192, 7168)
    );
    // A limit below the minimum output leaves no budget at all.
    assert_eq!(
        adjust_max_tokens_for_thinking(512, 512, ThinkingLevel::Minimal, None),
        (512, 0)
    );
    let custom = ThinkingBudgets {
        minimal: Some(500),
        ..ThinkingBudgets::default()
    };
    assert_eq!(
        adjust_max_tokens_for_thinking(1000, 64_000, ThinkingLevel::Minimal, Some(&custom)),
        (1500, 500)
    );
    assert_eq!(
        adjust_max_tokens_for_thinking(1000, 64_000, ThinkingLevel::Low, Some(&custom)),
        (3048, 2048),
        "unset levels keep pi's defaults"
    );
}

#[test]
fn adaptive_models_and_efforts() {
    assert!(uses_adaptive_thinking(&model("claude-opus-4-6")));
    assert!(uses_adaptive_thinking(&model(
        "anthropic/claude-sonnet-4.6"
    )));
    assert!(uses_adaptive_thinking(&model("claude-opus-4-7-20260416")));
    assert!(!uses_adaptive_thinking(&model("claude-sonnet-4-5")));
    let mut forced = model("my-alias");
    forced.compat = Some(json!({"forceAdaptiveThinking": true}));
    assert!(uses_adaptive_thinking(&forced));

    assert_eq!(
        effort_for(&model("claude-opus-4-6"), ThinkingLevel::Xhigh),
        Effort::Max
    );
    assert_eq!(
        effort_for(&model("claude-opus-4-7"), ThinkingLevel::Xhigh),
        Effort::Xhigh
    );
    assert_eq!(
        effort_for(&model("claude-sonnet-4-6"), ThinkingLevel::Xhigh),
        Effort::High
    );
    assert_eq!(
        effort_for(&model("claude-sonnet-4-6"), ThinkingLevel::Minimal),
        Effort::Low
    );
    let mut mapped = model("claude-opus-4-6");
    mapped.extra.insert(
        "thinkingLevelMap".into(),
        json!({"medium": "high", "low": null}),
    );
    assert_eq!(
        effort_for(&mapped, ThinkingLevel::Medium),
        Effort::Other("high".into())
    );
    assert_eq!(
        effort_for(&mapped, ThinkingLevel::Low),
        Effort::Low,
        "null falls back"
    );
}

#[test]
fn cache_retention_comes_from_options_then_environment() {
    let env_long = |name: &str| (name == "PI_CACHE_RETENTION").then(|| "long".to_owned());
    let env_none = |_: &str| None;
    assert_eq!(
        resolve_cache_retention(None, env_long),
        CacheRetention::Long
    );
    assert_eq!(
        resolve_cache_retention(None, env_none),
        CacheRetention::Short
    );
    assert_eq!(
        resolve_cache_retention(Some(CacheRetention::None), env_long),
        CacheRetention::None
    );
}

#[test]
fn compat_defaults_and_overrides() {
    let defaults = AnthropicCompat::of(&model("claude-test"));
    assert!(defaults.supports_eager_tool_input_streaming);
    assert!(defaults.supports_long_cache_retention);
    assert!(defaults.supports_cache_control_on_tools);
    assert!(!defaults.send_session_affinity_headers);
    assert!(!defaults.allow_empty_signature);
    assert!(!defaults.force_adaptive_thinking);
    let mut custom = model("claude-test");
    custom.compat =
        Some(json!({"supportsLongCacheRetention": false, "allowEmptySignature": "yes"}));
    let compat = AnthropicCompat::of(&custom);
    assert!(!compat.supports_long_cache_retention);
    assert!(
        !compat.allow_empty_signature,
        "non-boolean values are ignored"
    );
}
