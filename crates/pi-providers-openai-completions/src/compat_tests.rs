use pi_ai::{Api, Model, ModelCost, Provider};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn model(provider: &str, base_url: &str, id: &str) -> Model {
    Model {
        id: id.to_owned(),
        name: id.to_owned(),
        api: Api::OPENAI_COMPLETIONS,
        provider: Provider::new(provider),
        base_url: base_url.to_owned(),
        reasoning: true,
        input: vec![pi_ai::InputModality::Text],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 4096,
        headers: None,
        compat: None,
        extra: pi_ai::ExtraFields::new(),
    }
}

#[test]
fn openai_defaults_are_standard() {
    let c = ResolvedCompat::detect(&model("openai", "https://api.openai.com/v1", "gpt-4o"));
    assert!(c.supports_store && c.supports_developer_role && c.supports_reasoning_effort);
    assert!(c.supports_usage_in_streaming && c.supports_strict_mode);
    assert_eq!(c.max_tokens_field, MaxTokensField::MaxCompletionTokens);
    assert_eq!(c.thinking_format, ThinkingFormat::Openai);
    assert_eq!(c.cache_control_format, None);
    assert!(c.reasoning_effort_map.is_empty());
    assert!(!c.requires_tool_result_name && !c.requires_assistant_after_tool_result);
    assert!(!c.requires_thinking_as_text && !c.requires_reasoning_content_on_assistant_messages);
}

#[test]
fn non_standard_servers_lose_store_and_developer_role() {
    for (provider, url) in [
        ("cerebras", "https://api.cerebras.ai/v1"),
        ("custom", "https://api.cerebras.ai/v1"),
        ("xai", "https://api.x.ai/v1"),
        ("custom", "https://llm.chutes.ai/v1"),
        ("custom", "https://api.deepseek.com/v1"),
        ("zai", "https://api.z.ai/api/paas/v4"),
        ("opencode", "https://example.com/v1"),
        ("custom", "https://opencode.ai/zen/v1"),
    ] {
        let c = ResolvedCompat::detect(&model(provider, url, "m"));
        assert!(!c.supports_store, "{provider} {url}");
        assert!(!c.supports_developer_role, "{provider} {url}");
    }
}

#[test]
fn server_specific_detection() {
    let xai = ResolvedCompat::detect(&model("custom", "https://api.x.ai/v1", "grok-4"));
    assert!(!xai.supports_reasoning_effort);
    let zai = ResolvedCompat::detect(&model("zai", "https://example.com", "glm-4.6"));
    assert!(!zai.supports_reasoning_effort);
    assert_eq!(zai.thinking_format, ThinkingFormat::Zai);
    let chutes = ResolvedCompat::detect(&model("chutes", "https://llm.chutes.ai/v1", "m"));
    assert_eq!(chutes.max_tokens_field, MaxTokensField::MaxTokens);
    let deepseek = ResolvedCompat::detect(&model("deepseek", "https://example.com", "deepseek-v4"));
    assert_eq!(deepseek.thinking_format, ThinkingFormat::Deepseek);
    assert!(deepseek.requires_reasoning_content_on_assistant_messages);
    let groq = ResolvedCompat::detect(&model(
        "groq",
        "https://api.groq.com/openai/v1",
        "qwen/qwen3-32b",
    ));
    assert_eq!(groq.reasoning_effort_map.len(), 5);
    assert_eq!(
        groq.reasoning_effort_map.get("xhigh").map(String::as_str),
        Some("default")
    );
    let other_groq =
        ResolvedCompat::detect(&model("groq", "https://api.groq.com/openai/v1", "llama"));
    assert!(other_groq.reasoning_effort_map.is_empty());
    let or_claude = ResolvedCompat::detect(&model(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "anthropic/claude-sonnet-4.5",
    ));
    assert_eq!(
        or_claude.cache_control_format,
        Some(CacheControlFormat::Anthropic)
    );
    // Ollama, vLLM, llama.cpp and LM Studio rely on the defaults.
    let ollama = ResolvedCompat::detect(&model("ollama", "http://localhost:11434/v1", "qwen3"));
    assert_eq!(
        ollama,
        ResolvedCompat::detect(&model("openai", "https://api.openai.com/v1", "qwen3"))
    );
}

#[test]
fn explicit_compat_wins_field_by_field() {
    let mut m = model("cerebras", "https://api.cerebras.ai/v1", "m");
    m.compat = Some(json!({
        "supportsStore": true,
        "maxTokensField": "max_tokens",
        "thinkingFormat": "qwen-chat-template",
        "reasoningEffortMap": {"high": "max"},
        "requiresToolResultName": true,
        "openRouterRouting": {"only": ["anthropic"], "sort": "price"},
        "someFutureFlag": 1
    }));
    let c = ResolvedCompat::for_model(&m);
    assert!(c.supports_store);
    assert!(
        !c.supports_developer_role,
        "unset fields keep the detected value"
    );
    assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens);
    assert_eq!(c.thinking_format, ThinkingFormat::QwenChatTemplate);
    assert_eq!(
        c.reasoning_effort_map.get("high").map(String::as_str),
        Some("max")
    );
    assert!(c.requires_tool_result_name);
    let routing = c.open_router_routing.unwrap();
    assert_eq!(routing.only, Some(vec!["anthropic".to_owned()]));
    assert_eq!(routing.extra.get("sort"), Some(&json!("price")));
}

#[test]
fn unknown_enum_values_and_invalid_compat_are_tolerated() {
    let mut m = model("custom", "http://localhost:8000/v1", "m");
    m.compat = Some(json!({"thinkingFormat": "together", "cacheControlFormat": "gemini"}));
    let c = ResolvedCompat::for_model(&m);
    assert_eq!(c.thinking_format, ThinkingFormat::Unknown);
    assert_eq!(c.cache_control_format, Some(CacheControlFormat::Unknown));
    m.compat = Some(json!({"supportsStore": "yes"}));
    assert_eq!(
        ResolvedCompat::for_model(&m),
        ResolvedCompat::detect(&m),
        "an invalid compat object is ignored as a whole"
    );
}

#[test]
fn compat_round_trips_in_camel_case() {
    let compat = OpenAiCompletionsCompat {
        supports_developer_role: Some(false),
        max_tokens_field: Some(MaxTokensField::MaxTokens),
        thinking_format: Some(ThinkingFormat::Zai),
        ..OpenAiCompletionsCompat::default()
    };
    let value = serde_json::to_value(&compat).unwrap();
    assert_eq!(
        value,
        json!({"supportsDeveloperRole": false, "maxTokensField": "max_tokens", "thinkingFormat": "zai"})
    );
    assert_eq!(
        OpenAiCompletionsCompat::deserialize(&value).unwrap(),
        compat
    );
}
