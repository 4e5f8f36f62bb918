//! Encoded request bodies under the compat switches, reasoning levels,
//! prompt caching and routing: snapshots plus value assertions.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use pi_ai::{CacheRetention, Context, Model, StopReason, StreamOptions, ThinkingLevel, UserBlock};
use pi_providers_openai_completions::{OpenAiCompletionsOptions, ToolChoice};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[test]
fn reasoning_levels() {
    let m = model("mock-gpt-think", true, false);
    let context = ctx(vec![user("think")]);
    let mut efforts = Vec::new();
    for level in [
        None,
        Some(ThinkingLevel::Minimal),
        Some(ThinkingLevel::Low),
        Some(ThinkingLevel::Medium),
        Some(ThinkingLevel::High),
        Some(ThinkingLevel::Xhigh),
    ] {
        let b = simple(&m, &context, level);
        efforts.push(b.get("reasoning_effort").cloned().unwrap_or(Value::Null));
    }
    assert_eq!(
        efforts,
        vec![
            Value::Null,
            json!("minimal"),
            json!("low"),
            json!("medium"),
            json!("high"),
            json!("high")
        ]
    );
    let xhigh = simple(
        &model("gpt-5.2", true, false),
        &context,
        Some(ThinkingLevel::Xhigh),
    );
    assert_eq!(xhigh["reasoning_effort"], json!("xhigh"));
    let not_reasoning = simple(
        &model("mock-gpt", false, false),
        &context,
        Some(ThinkingLevel::High),
    );
    assert_eq!(not_reasoning.get("reasoning_effort"), None);
    insta::assert_json_snapshot!(
        "reasoning_level_high",
        simple(&m, &context, Some(ThinkingLevel::High))
    );
}

fn with_compat(mut m: Model, compat: Value) -> Model {
    m.compat = Some(compat);
    m
}

#[test]
fn thinking_formats() {
    let context = ctx(vec![user("think")]);
    let base = model("qwen3", true, false);
    let mut cases = serde_json::Map::new();
    for format in [
        "zai",
        "qwen",
        "qwen-chat-template",
        "deepseek",
        "openrouter",
    ] {
        let m = with_compat(base.clone(), json!({"thinkingFormat": format}));
        let on = simple(&m, &context, Some(ThinkingLevel::Low));
        let off = simple(&m, &context, None);
        let pick = |b: &Value| {
            let keys = [
                "enable_thinking",
                "chat_template_kwargs",
                "thinking",
                "reasoning",
                "reasoning_effort",
            ];
            Value::Object(
                keys.iter()
                    .filter_map(|k| b.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                    .collect(),
            )
        };
        cases.insert(
            format.to_owned(),
            json!({"on": pick(&on), "off": pick(&off)}),
        );
    }
    assert_eq!(
        Value::Object(cases.clone()),
        json!({
            "zai": {"on": {"enable_thinking": true}, "off": {"enable_thinking": false}},
            "qwen": {"on": {"enable_thinking": true}, "off": {"enable_thinking": false}},
            "qwen-chat-template": {
                "on": {"chat_template_kwargs": {"enable_thinking": true, "preserve_thinking": true}},
                "off": {"chat_template_kwargs": {"enable_thinking": false, "preserve_thinking": true}}
            },
            "deepseek": {"on": {"thinking": {"type": "enabled"}, "reasoning_effort": "low"}, "off": {"thinking": {"type": "disabled"}}},
            "openrouter": {"on": {"reasoning": {"effort": "low"}}, "off": {"reasoning": {"effort": "none"}}}
        })
    );
    let mapped = with_compat(
        base.clone(),
        json!({"reasoningEffortMap": {"low": "default"}}),
    );
    assert_eq!(
        simple(&mapped, &context, Some(ThinkingLevel::Low))["reasoning_effort"],
        json!("default")
    );
    let mut level_map = base.clone();
    level_map.extra.insert(
        "thinkingLevelMap".into(),
        json!({"off": "none", "high": "max"}),
    );
    assert_eq!(
        simple(&level_map, &context, Some(ThinkingLevel::High))["reasoning_effort"],
        json!("max")
    );
    assert_eq!(
        simple(&level_map, &context, None)["reasoning_effort"],
        json!("none")
    );
    let no_effort = with_compat(base, json!({"supportsReasoningEffort": false}));
    assert_eq!(
        simple(&no_effort, &context, Some(ThinkingLevel::High)).get("reasoning_effort"),
        None
    );
}

#[test]
fn compat_switches_change_the_body() {
    let m = with_compat(
        model("local", true, false),
        json!({
            "supportsStore": false, "supportsDeveloperRole": false, "supportsUsageInStreaming": false,
            "maxTokensField": "max_tokens", "supportsStrictMode": false, "requiresToolResultName": true,
            "requiresAssistantAfterToolResult": true, "requiresThinkingAsText": true,
            "requiresReasoningContentOnAssistantMessages": true, "zaiToolStream": true
        }),
    );
    let context = Context {
        tools: Some(tools()),
        ..ctx(vec![
            user("go"),
            assistant_from(
                &m,
                vec![
                    thinking("plan", Some("reasoning_content")),
                    text("Running."),
                    call("c1", "bash", json!({"command": "ls"})),
                ],
                StopReason::ToolUse,
            ),
            tool_result("c1", "bash", vec![UserBlock::text("ok")], false),
            user("thanks"),
            assistant_from(
                &m,
                vec![call("c2", "bash", json!({"command": "pwd"}))],
                StopReason::ToolUse,
            ),
        ])
    };
    let options = OpenAiCompletionsOptions {
        base: StreamOptions {
            max_tokens: Some(1000),
            temperature: Some(0.2),
            ..StreamOptions::default()
        },
        ..OpenAiCompletionsOptions::default()
    };
    let b = body_with(&m, &context, options);
    insta::assert_json_snapshot!("compat_switches", b);
    let ms = messages(&b);
    assert_eq!(ms[0]["role"], json!("system"));
    assert_eq!(
        ms[2],
        json!({"role": "assistant", "content": [{"type": "text", "text": "plan"}, {"type": "text", "text": "Running."}],
               "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}],
               "reasoning_content": ""})
    );
    assert_eq!(
        ms[3],
        json!({"role": "tool", "content": "ok", "tool_call_id": "c1", "name": "bash"})
    );
    assert_eq!(
        ms[4],
        json!({"role": "assistant", "content": "I have processed the tool results."})
    );
    assert_eq!(
        ms[6]["content"],
        json!(""),
        "assistant content defaults to an empty string"
    );
    assert_eq!(
        (
            b.get("store"),
            b.get("stream_options"),
            b.get("max_completion_tokens")
        ),
        (None, None, None)
    );
    assert_eq!(
        (&b["max_tokens"], &b["temperature"], &b["tool_stream"]),
        (&json!(1000), &json!(0.2), &json!(true))
    );
    assert_eq!(b["tools"][0]["function"].get("strict"), None);
}

#[test]
fn caching_and_routing() {
    let context = Context {
        tools: Some(tools()),
        ..ctx(vec![
            user("a"),
            user_blocks(vec![
                UserBlock::text("b"),
                UserBlock::image(PNG, "image/png"),
            ]),
        ])
    };
    let claude = with_compat(
        model_at(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "anthropic/claude-sonnet-4.5",
            false,
        ),
        json!({"openRouterRouting": {"only": ["anthropic"], "allow_fallbacks": false}}),
    );
    let options = OpenAiCompletionsOptions {
        base: StreamOptions {
            session_id: Some("sess-1".into()),
            cache_retention: Some(CacheRetention::Short),
            ..StreamOptions::default()
        },
        ..OpenAiCompletionsOptions::default()
    };
    let b = body_with(&claude, &context, options.clone());
    insta::assert_json_snapshot!("openrouter_anthropic_cache_and_routing", b);
    assert_eq!(
        messages(&b)[0]["content"],
        json!([{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(
        messages(&b)[1]["content"],
        json!("a"),
        "only the last user message is marked"
    );
    assert_eq!(
        messages(&b)[2]["content"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert_eq!(b["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(
        b["provider"],
        json!({"only": ["anthropic"], "allow_fallbacks": false})
    );
    assert_eq!(b.get("prompt_cache_key"), None);

    let openai = model_at("openai", "https://api.openai.com/v1", "gpt-4.1", false);
    let b = body_with(&openai, &context, options.clone());
    assert_eq!(b["prompt_cache_key"], json!("sess-1"));
    assert_eq!(b.get("prompt_cache_retention"), None);
    let long = OpenAiCompletionsOptions {
        base: StreamOptions {
            cache_retention: Some(CacheRetention::Long),
            ..options.base.clone()
        },
        ..options.clone()
    };
    let b = body_with(&openai, &context, long);
    assert_eq!(
        (&b["prompt_cache_key"], &b["prompt_cache_retention"]),
        (&json!("sess-1"), &json!("24h"))
    );
    let none = OpenAiCompletionsOptions {
        base: StreamOptions {
            cache_retention: Some(CacheRetention::None),
            ..options.base.clone()
        },
        ..options
    };
    assert_eq!(
        body_with(&openai, &context, none).get("prompt_cache_key"),
        None
    );

    let vercel = with_compat(
        model_at(
            "vercel-ai-gateway",
            "https://ai-gateway.vercel.sh/v1",
            "anthropic/claude",
            false,
        ),
        json!({"vercelGatewayRouting": {"order": ["bedrock", "anthropic"]}}),
    );
    let b = body(&vercel, &ctx(vec![user("x")]));
    assert_eq!(
        b["providerOptions"],
        json!({"gateway": {"order": ["bedrock", "anthropic"]}})
    );
    // Routing preferences are only sent to the service they are for.
    let elsewhere = with_compat(
        model("m", false, false),
        json!({"openRouterRouting": {"only": ["a"]}}),
    );
    assert_eq!(
        body(&elsewhere, &ctx(vec![user("x")])).get("provider"),
        None
    );
}

#[test]
fn named_tool_choice_and_empty_system_prompt() {
    let m = model("mock-gpt", false, false);
    let context = Context {
        system_prompt: Some(String::new()),
        tools: Some(tools()),
        ..ctx(vec![user("x")])
    };
    let b = body_with(
        &m,
        &context,
        OpenAiCompletionsOptions {
            tool_choice: Some(ToolChoice::Function("bash".into())),
            ..Default::default()
        },
    );
    assert_eq!(
        b["tool_choice"],
        json!({"type": "function", "function": {"name": "bash"}})
    );
    assert_eq!(
        messages(&b)[0]["role"],
        json!("user"),
        "an empty system prompt is not sent"
    );
    let no_tools = Context {
        tools: Some(Vec::new()),
        ..ctx(vec![user("x")])
    };
    assert_eq!(
        body(&m, &no_tools).get("tools"),
        None,
        "an empty tool list without tool history is omitted"
    );
}

#[test]
fn the_cache_marker_skips_turns_without_text() {
    let claude = model_at(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "anthropic/claude-sonnet-4.5",
        false,
    );
    // The last turns with text: the assistant's "b" (its tool call alone
    // would carry none), then a tool result and an image-only user turn.
    let context = ctx(vec![
        user("a"),
        assistant_from(&claude, vec![text("b")], StopReason::Stop),
        assistant_from(
            &claude,
            vec![call("call_1", "read", json!({"path": "x"}))],
            StopReason::ToolUse,
        ),
        tool_result("call_1", "read", vec![UserBlock::text("contents")], false),
        user_blocks(vec![UserBlock::image(PNG, "image/png")]),
    ]);
    let options = OpenAiCompletionsOptions {
        base: StreamOptions {
            cache_retention: Some(CacheRetention::Short),
            ..StreamOptions::default()
        },
        ..OpenAiCompletionsOptions::default()
    };
    let b = body_with(&claude, &context, options);
    let marked: Vec<usize> = messages(&b)
        .iter()
        .enumerate()
        .filter(|(_, m)| m.to_string().contains("cache_control"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        marked,
        vec![0, 2],
        "the system prompt and the assistant's b"
    );
    assert_eq!(
        messages(&b)[2]["content"],
        json!([{"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}}])
    );
}
