//! Encoded request bodies for a matrix of contexts and options, snapshotted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::model;
use pi_ai::{
    Api, AssistantContent, AssistantMessage, CacheRetention, Context, InputModality, Message,
    Model, Provider, SimpleStreamOptions, StopReason, StreamOptions, TextContent, ThinkingContent,
    ThinkingLevel, Tool, ToolCall, ToolResultMessage, UserBlock, UserMessage,
};
use pi_providers_anthropic::simple_to_anthropic;
use pi_providers_anthropic::{
    AnthropicOptions, ThinkingDisplay, ToolChoiceOption, build_request_body,
};
use serde_json::{Value, json};

const PNG: &str = "iVBORw0KGgo=";

fn user(text: &str) -> Message {
    Message::User(UserMessage {
        content: text.into(),
        timestamp: 1,
        ..UserMessage::default()
    })
}

fn user_blocks(blocks: Vec<UserBlock>) -> Message {
    Message::User(UserMessage {
        content: blocks.into(),
        timestamp: 1,
        ..UserMessage::default()
    })
}

fn assistant_from(
    provider: &str,
    api: &str,
    model_id: &str,
    content: Vec<AssistantContent>,
) -> Message {
    let mut message = AssistantMessage::empty(Api::new(api), Provider::new(provider), model_id, 2);
    message.content = content;
    message.stop_reason = if message.tool_calls().next().is_some() {
        StopReason::ToolUse
    } else {
        StopReason::Stop
    };
    Message::Assistant(message)
}

/// An assistant message of the test model `claude-test` (same model).
fn assistant(content: Vec<AssistantContent>) -> Message {
    assistant_from("anthropic", "anthropic-messages", "claude-test", content)
}

fn thinking(text: &str, signature: Option<&str>) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: text.to_owned(),
        thinking_signature: signature.map(str::to_owned),
        ..ThinkingContent::default()
    })
}

fn redacted(data: &str) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: "[Reasoning redacted]".to_owned(),
        thinking_signature: Some(data.to_owned()),
        redacted: Some(true),
        ..ThinkingContent::default()
    })
}

fn call(id: &str, name: &str, arguments: Value) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
        ..ToolCall::default()
    })
}

fn result(id: &str, name: &str, content: Vec<UserBlock>, is_error: bool) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        content,
        is_error,
        timestamp: 3,
        ..ToolResultMessage::default()
    })
}

fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "number"}},
                "required": ["path"],
                "additionalProperties": false
            }),
        },
        Tool {
            name: "bash".into(),
            description: "Run a command".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        },
    ]
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are a test.".into()),
        messages,
        ..Context::default()
    }
}

fn encode(model: &Model, context: &Context, options: &AnthropicOptions) -> Value {
    serde_json::to_value(build_request_body(model, context, options)).unwrap()
}

fn plain(model: &Model, context: &Context) -> Value {
    encode(model, context, &AnthropicOptions::default())
}

fn simple(model: &Model, context: &Context, reasoning: Option<ThinkingLevel>) -> Value {
    let options = SimpleStreamOptions {
        reasoning,
        ..SimpleStreamOptions::default()
    };
    encode(model, context, &simple_to_anthropic(model, options))
}

fn text_only(mut model: Model) -> Model {
    model.input = vec![InputModality::Text];
    model
}

#[test]
fn user_content_kinds() {
    let messages = vec![
        user("plain string"),
        user("   \n\t"),
        user_blocks(vec![
            UserBlock::text("look at this"),
            UserBlock::image(PNG, "image/png"),
            UserBlock::text("  "),
            UserBlock::image(PNG, "image/jpeg"),
        ]),
        user_blocks(vec![UserBlock::text(" ")]),
        user("last question"),
    ];
    let ctx = context(messages);
    insta::assert_json_snapshot!(
        "user_vision_model",
        plain(&model("claude-test", false), &ctx)
    );
    insta::assert_json_snapshot!(
        "user_text_only_model",
        plain(&text_only(model("claude-test", false)), &ctx)
    );
}

#[test]
fn assistant_content_kinds_same_model() {
    let messages = vec![
        user("hi"),
        assistant(vec![
            thinking("signed thought", Some("c2lnMQ==")),
            thinking("unsigned thought", None),
            thinking("empty signature", Some("")),
            thinking("   ", Some("c2lnMg==")),
            redacted("cmVkYWN0ZWQ="),
            AssistantContent::text("visible"),
            AssistantContent::text(" "),
            call("toolu_1", "read", json!({"path": "a.txt"})),
            call("toolu_2", "bash", Value::Null),
        ]),
        result("toolu_1", "read", vec![UserBlock::text("alpha")], false),
        result("toolu_2", "bash", vec![UserBlock::text("boom")], true),
    ];
    let ctx = context(messages);
    insta::assert_json_snapshot!(
        "assistant_same_model",
        plain(&model("claude-test", true), &ctx)
    );
    let mut lenient = model("claude-test", true);
    lenient.compat = Some(json!({"allowEmptySignature": true}));
    insta::assert_json_snapshot!("assistant_allow_empty_signature", plain(&lenient, &ctx));
}

#[test]
fn tool_results_with_images_and_errors() {
    let messages = vec![
        user("run them"),
        assistant(vec![
            call("toolu_a", "read", json!({"path": "img.png"})),
            call("toolu_b", "read", json!({"path": "both.png"})),
            call("toolu_c", "bash", json!({"command": "false"})),
            call("toolu_d", "bash", json!({"command": "echo"})),
        ]),
        result(
            "toolu_a",
            "read",
            vec![UserBlock::image(PNG, "image/png")],
            false,
        ),
        result(
            "toolu_b",
            "read",
            vec![
                UserBlock::text("Read image file [image/png]"),
                UserBlock::image(PNG, "image/png"),
                UserBlock::image(PNG, "image/png"),
            ],
            false,
        ),
        result(
            "toolu_c",
            "bash",
            vec![UserBlock::text("line 1"), UserBlock::text("exit 1")],
            true,
        ),
        result("toolu_d", "bash", vec![], false),
    ];
    let ctx = context(messages);
    insta::assert_json_snapshot!(
        "tool_results_vision",
        plain(&model("claude-test", false), &ctx)
    );
    insta::assert_json_snapshot!(
        "tool_results_text_only_model",
        plain(&text_only(model("claude-test", false)), &ctx)
    );
}

#[test]
fn cross_provider_replay() {
    let messages = vec![
        user("start on gpt"),
        assistant_from(
            "openai",
            "openai-responses",
            "gpt-5",
            vec![
                AssistantContent::Thinking(ThinkingContent {
                    thinking: "gpt reasoning".into(),
                    thinking_signature: Some("{\"type\":\"reasoning\"}".into()),
                    ..ThinkingContent::default()
                }),
                redacted("b3BhcXVl"),
                thinking("  ", None),
                AssistantContent::Text(TextContent {
                    text: "gpt text".into(),
                    text_signature: Some("msg_123".into()),
                    ..TextContent::default()
                }),
                call("call_abc|fc_0123456789", "read", json!({"path": "x"})),
                call("call+odd id", "bash", json!({"command": "ls"})),
            ],
        ),
        result(
            "call_abc|fc_0123456789",
            "read",
            vec![UserBlock::text("x")],
            false,
        ),
        // The second call never got a result: a synthetic error result is inserted.
        user("now on claude"),
        {
            let mut failed = assistant(vec![AssistantContent::text("half an answer")]);
            if let Message::Assistant(m) = &mut failed {
                m.stop_reason = StopReason::Error;
            }
            failed
        },
        user("again"),
    ];
    insta::assert_json_snapshot!(
        "cross_provider_replay",
        plain(&model("claude-test", true), &context(messages))
    );
}

#[test]
fn trailing_unanswered_tool_calls_get_synthetic_results() {
    let messages = vec![
        user("go"),
        assistant(vec![
            call("toolu_1", "read", json!({"path": "a"})),
            call("toolu_2", "read", json!({"path": "b"})),
        ]),
        result("toolu_1", "read", vec![UserBlock::text("a")], false),
    ];
    insta::assert_json_snapshot!(
        "trailing_unanswered_tool_calls",
        plain(&model("claude-test", false), &context(messages))["messages"]
    );
}

#[test]
fn tools_and_their_compat_switches() {
    let mut ctx = context(vec![user("hi")]);
    ctx.tools = Some(tools());
    insta::assert_json_snapshot!("tools_default", plain(&model("claude-test", false), &ctx));
    let mut compat = model("claude-test", false);
    compat.compat = Some(json!({
        "supportsEagerToolInputStreaming": false,
        "supportsCacheControlOnTools": false
    }));
    insta::assert_json_snapshot!("tools_compat_off", plain(&compat, &ctx));
    ctx.tools = Some(Vec::new());
    let body = plain(&model("claude-test", false), &ctx);
    assert!(
        body.get("tools").is_none(),
        "empty tools are omitted: {body}"
    );
}

#[test]
fn reasoning_levels_budget_model() {
    let ctx = context(vec![user("think")]);
    let budget = model("claude-sonnet-4-5", true);
    let mut out = serde_json::Map::new();
    for level in [
        None,
        Some(ThinkingLevel::Minimal),
        Some(ThinkingLevel::Low),
        Some(ThinkingLevel::Medium),
        Some(ThinkingLevel::High),
        Some(ThinkingLevel::Xhigh),
    ] {
        let body = simple(&budget, &ctx, level);
        let key = level.map_or("off", ThinkingLevel::as_str);
        out.insert(
            key.into(),
            json!({"max_tokens": body["max_tokens"], "thinking": body["thinking"]}),
        );
    }
    // An 8192-token model cannot hold the 8192 medium budget: it shrinks to 7168.
    let small = Model {
        max_tokens: 8192,
        ..budget.clone()
    };
    let body = simple(&small, &ctx, Some(ThinkingLevel::Medium));
    out.insert(
        "medium_on_8192_model".into(),
        json!({"max_tokens": body["max_tokens"], "thinking": body["thinking"]}),
    );
    // Custom budgets and an explicit output limit.
    let options = SimpleStreamOptions {
        base: StreamOptions {
            max_tokens: Some(4000),
            ..StreamOptions::default()
        },
        reasoning: Some(ThinkingLevel::Low),
        thinking_budgets: Some(pi_ai::ThinkingBudgets {
            low: Some(3000),
            ..pi_ai::ThinkingBudgets::default()
        }),
    };
    let body = encode(&budget, &ctx, &simple_to_anthropic(&budget, options));
    out.insert(
        "low_custom_budget_max_4000".into(),
        json!({"max_tokens": body["max_tokens"], "thinking": body["thinking"]}),
    );
    let non_reasoning = simple(
        &model("claude-3-5-haiku", false),
        &ctx,
        Some(ThinkingLevel::High),
    );
    out.insert(
        "non_reasoning_model".into(),
        json!({"max_tokens": non_reasoning["max_tokens"], "thinking": non_reasoning.get("thinking")}),
    );
    insta::assert_json_snapshot!("reasoning_budget_model", out);
}

#[test]
fn reasoning_levels_adaptive_models() {
    let ctx = context(vec![user("think")]);
    let mut out = serde_json::Map::new();
    let mut mapped = model("claude-custom-adaptive", true);
    mapped.compat = Some(json!({"forceAdaptiveThinking": true}));
    mapped.extra.insert(
        "thinkingLevelMap".into(),
        json!({"minimal": "low", "high": "max"}),
    );
    for model in [
        model("claude-opus-4-6", true),
        model("claude-opus-4-7", true),
        model("claude-sonnet-4-6", true),
        mapped,
    ] {
        for level in [
            None,
            Some(ThinkingLevel::Minimal),
            Some(ThinkingLevel::Medium),
            Some(ThinkingLevel::High),
            Some(ThinkingLevel::Xhigh),
        ] {
            let body = simple(&model, &ctx, level);
            let key = format!(
                "{}/{}",
                model.id,
                level.map_or("off", ThinkingLevel::as_str)
            );
            out.insert(
                key,
                json!({
                    "max_tokens": body["max_tokens"],
                    "thinking": body["thinking"],
                    "output_config": body.get("output_config"),
                }),
            );
        }
    }
    insta::assert_json_snapshot!("reasoning_adaptive_models", out);
}

#[test]
fn options_temperature_metadata_tool_choice_display() {
    let mut ctx = context(vec![user("hi")]);
    ctx.tools = Some(tools());
    let mut metadata = serde_json::Map::new();
    metadata.insert("user_id".into(), json!("user-42"));
    metadata.insert("other".into(), json!("ignored"));
    let base = StreamOptions {
        temperature: Some(0.3),
        max_tokens: Some(1000),
        metadata: Some(metadata),
        ..StreamOptions::default()
    };
    let no_thinking = AnthropicOptions {
        tool_choice: Some(ToolChoiceOption::Tool("read".into())),
        ..AnthropicOptions::from(base.clone())
    };
    let thinking = AnthropicOptions {
        thinking_enabled: Some(true),
        thinking_budget_tokens: Some(0),
        thinking_display: Some(ThinkingDisplay::Omitted),
        tool_choice: Some(ToolChoiceOption::Any),
        ..AnthropicOptions::from(base)
    };
    let reasoning = model("claude-sonnet-4-5", true);
    let strip = |mut body: Value| {
        let object = body.as_object_mut().unwrap();
        object.shift_remove("messages");
        object.shift_remove("tools");
        object.shift_remove("system");
        body
    };
    insta::assert_json_snapshot!(
        "options_without_thinking",
        strip(encode(&reasoning, &ctx, &no_thinking))
    );
    insta::assert_json_snapshot!(
        "options_with_thinking",
        strip(encode(&reasoning, &ctx, &thinking))
    );
    let mut raw = AnthropicOptions {
        tool_choice: Some(ToolChoiceOption::None),
        ..AnthropicOptions::default()
    };
    let body = encode(&model("claude-test", false), &ctx, &raw);
    assert_eq!(body["tool_choice"], json!({"type": "none"}));
    assert_eq!(
        body["max_tokens"],
        json!(21_333),
        "raw stream default is model.maxTokens / 3"
    );
    raw.tool_choice = Some(ToolChoiceOption::Auto);
    let body = encode(&model("claude-test", false), &ctx, &raw);
    assert_eq!(body["tool_choice"], json!({"type": "auto"}));
}

#[test]
fn cache_retention_variants() {
    let mut ctx = context(vec![
        user("first"),
        assistant(vec![AssistantContent::text("answer")]),
        user("second"),
    ]);
    ctx.tools = Some(tools());
    let mut out = serde_json::Map::new();
    let mut no_long = model("claude-test", false);
    no_long.compat = Some(json!({"supportsLongCacheRetention": false}));
    for (key, model, retention) in [
        ("none", model("claude-test", false), CacheRetention::None),
        ("short", model("claude-test", false), CacheRetention::Short),
        ("long", model("claude-test", false), CacheRetention::Long),
        ("long_without_support", no_long, CacheRetention::Long),
    ] {
        let options = AnthropicOptions::from(StreamOptions {
            cache_retention: Some(retention),
            ..StreamOptions::default()
        });
        out.insert(key.into(), encode(&model, &ctx, &options));
    }
    insta::assert_json_snapshot!("cache_retention", out);
    // A trailing assistant turn gets no breakpoint; no system prompt, no system.
    let mut tail = context(vec![
        user("q"),
        assistant(vec![AssistantContent::text("a")]),
    ]);
    tail.system_prompt = Some(String::new());
    insta::assert_json_snapshot!(
        "trailing_assistant_no_system",
        plain(&model("claude-test", false), &tail)
    );
}

#[test]
fn oauth_requests_present_as_claude_code() {
    let mut ctx = context(vec![
        user("list"),
        assistant(vec![call("toolu_1", "bash", json!({"command": "ls"}))]),
        result("toolu_1", "bash", vec![UserBlock::text("a.txt")], false),
    ]);
    ctx.tools = Some(tools());
    let options = AnthropicOptions::from(StreamOptions {
        api_key: Some("sk-ant-oat01-test".into()),
        ..StreamOptions::default()
    });
    insta::assert_json_snapshot!(
        "oauth",
        encode(&model("claude-test", false), &ctx, &options)
    );
}
