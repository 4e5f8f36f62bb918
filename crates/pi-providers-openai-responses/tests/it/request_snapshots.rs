//! Encoded request bodies for a matrix of contexts, snapshotted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{gpt5_mini, gpt5_mini_with, mock_resp};
use pi_ai::{CacheRetention, Context, Message, Model, StreamOptions, ThinkingLevel, Tool};
use pi_providers_openai_responses::{
    OpenAiResponsesOptions, ReasoningSummary, build_request_body, clamp_thinking_level,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A message from pi's JSON.
fn msg(value: Value) -> Message {
    serde_json::from_value(value).unwrap()
}

fn user(text: &str) -> Message {
    msg(json!({"role": "user", "content": text, "timestamp": 1}))
}

/// An assistant message of `model` with `content` and `stopReason`.
fn assistant(model: &Model, content: Value, stop_reason: &str) -> Message {
    msg(json!({
        "role": "assistant", "content": content, "api": model.api, "provider": model.provider,
        "model": model.id, "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": stop_reason, "timestamp": 2
    }))
}

fn tool_result(id: &str, name: &str, content: Value, is_error: bool) -> Message {
    msg(json!({
        "role": "toolResult", "toolCallId": id, "toolName": name, "content": content,
        "isError": is_error, "timestamp": 3
    }))
}

fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file.".into(),
        parameters: json!({"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}}),
    }
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are a helpful assistant.".into()),
        messages,
        tools: None,
        extra: Default::default(),
    }
}

fn options() -> OpenAiResponsesOptions {
    OpenAiResponsesOptions {
        base: StreamOptions {
            max_tokens: Some(4096),
            session_id: Some("session-1".into()),
            ..StreamOptions::default()
        },
        ..OpenAiResponsesOptions::default()
    }
}

fn body(model: &Model, context: &Context, options: &OpenAiResponsesOptions) -> Value {
    serde_json::to_value(build_request_body(model, context, options)).unwrap()
}

const PNG: &str = "iVBORw0KGgo=";

#[test]
fn user_text_string_and_blocks_with_images() {
    let messages = vec![
        user("What is in these pictures?"),
        msg(json!({"role": "user", "timestamp": 1, "content": [
            {"type": "text", "text": "First:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "image", "data": PNG, "mimeType": "image/jpeg"},
            {"type": "text", "text": "Done."}
        ]})),
        msg(json!({"role": "user", "timestamp": 1, "content": []})),
    ];
    let ctx = context(messages);
    insta::assert_json_snapshot!(
        "user_blocks_vision_model",
        body(&gpt5_mini(), &ctx, &options())
    );
    insta::assert_json_snapshot!(
        "user_blocks_text_only_model",
        body(&mock_resp(), &ctx, &options())
    );
}

#[test]
fn assistant_text_signatures_and_thinking_of_the_same_model() {
    let model = gpt5_mini();
    let reasoning = json!({"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAA==",
        "summary": [{"type": "summary_text", "text": "Plan."}]});
    let long_id = format!("msg_{}", "x".repeat(70));
    let messages = vec![
        user("Hi"),
        assistant(
            &model,
            json!([
                {"type": "thinking", "thinking": "Plan.", "thinkingSignature": reasoning.to_string()},
                {"type": "thinking", "thinking": "", "thinkingSignature": json!({"id": "rs_2", "type": "reasoning", "encrypted_content": "gBBBB==", "summary": []}).to_string()},
                {"type": "thinking", "thinking": "unsigned thinking is not replayed"},
                {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": json!({"id": "rs_3", "type": "reasoning", "encrypted_content": "gCCCC==", "summary": []}).to_string(), "redacted": true},
                {"type": "thinking", "thinking": "not JSON", "thinkingSignature": "EqQBCkYIBhgC"},
                {"type": "text", "text": "Commentary.", "textSignature": "{\"v\":1,\"id\":\"msg_a\",\"phase\":\"commentary\"}"},
                {"type": "text", "text": "Legacy id.", "textSignature": "msg_legacy"},
                {"type": "text", "text": "No signature."},
                {"type": "text", "text": "Too long an id.", "textSignature": json!({"v": 1, "id": long_id}).to_string()}
            ]),
            "stop",
        ),
        user("And now?"),
        assistant(
            &model,
            json!([{"type": "text", "text": "Second turn, no signature."}]),
            "stop",
        ),
    ];
    insta::assert_json_snapshot!(
        "assistant_same_model",
        body(&model, &context(messages), &options())
    );
}

#[test]
fn tool_calls_and_results_with_text_images_and_errors() {
    let model = gpt5_mini();
    let messages = vec![
        user("Look at the screenshot and the log."),
        assistant(
            &model,
            json!([
                {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {"path": "shot.png"}},
                {"type": "toolCall", "id": "call_2|fc_2", "name": "read", "arguments": {"path": "log.txt", "limit": 10.0}},
                {"type": "toolCall", "id": "call_3|fc_3", "name": "read", "arguments": {"path": "missing"}}
            ]),
            "toolUse",
        ),
        tool_result(
            "call_1|fc_1",
            "read",
            json!([
                {"type": "text", "text": "Read image file [image/png]"},
                {"type": "image", "data": PNG, "mimeType": "image/png"}
            ]),
            false,
        ),
        tool_result(
            "call_2|fc_2",
            "read",
            json!([
                {"type": "text", "text": "line 1"}, {"type": "text", "text": "line 2"}
            ]),
            false,
        ),
        tool_result(
            "call_3|fc_3",
            "read",
            json!([{"type": "text", "text": "ENOENT: missing"}]),
            true,
        ),
        assistant(
            &model,
            json!([
                {"type": "toolCall", "id": "call_4|fc_4", "name": "read", "arguments": {"path": "only-image.png"}}
            ]),
            "toolUse",
        ),
        tool_result(
            "call_4|fc_4",
            "read",
            json!([{"type": "image", "data": PNG, "mimeType": "image/png"}]),
            false,
        ),
    ];
    let mut ctx = context(messages);
    ctx.tools = Some(vec![read_tool()]);
    insta::assert_json_snapshot!("tool_results_vision_model", body(&model, &ctx, &options()));

    // The same transcript for a text-only model of the same provider and api:
    // images become placeholders, and the other model's `fc_` ids are dropped.
    let mut text_only = gpt5_mini_with(json!({"id": "gpt-text", "input": ["text"]}));
    text_only.reasoning = false;
    insta::assert_json_snapshot!(
        "tool_results_text_only_other_model",
        body(&text_only, &ctx, &options())
    );
}

#[test]
fn failed_turns_are_skipped_and_orphaned_calls_get_a_result() {
    let model = gpt5_mini();
    let messages = vec![
        user("Run two things."),
        assistant(
            &model,
            json!([
                {"type": "text", "text": "Running.", "textSignature": "{\"v\":1,\"id\":\"msg_r\"}"},
                {"type": "toolCall", "id": "call_a|fc_a", "name": "bash", "arguments": {"command": "ls"}},
                {"type": "toolCall", "id": "call_b|fc_b", "name": "bash", "arguments": {"command": "pwd"}}
            ]),
            "toolUse",
        ),
        tool_result(
            "call_a|fc_a",
            "bash",
            json!([{"type": "text", "text": "a.txt"}]),
            false,
        ),
        user("Stop, do something else."),
        assistant(
            &model,
            json!([{"type": "text", "text": "partial"}]),
            "error",
        ),
        assistant(
            &model,
            json!([{"type": "text", "text": "cancelled"}]),
            "aborted",
        ),
        user("Hello again."),
    ];
    insta::assert_json_snapshot!(
        "orphans_and_failed_turns",
        body(&model, &context(messages), &options())
    );
}

/// A conversation produced by the Anthropic thinking model (signed thinking,
/// redacted thinking, a tool call), as pi stores it.
fn anthropic_conversation() -> Vec<Message> {
    let claude: Model = serde_json::from_value(json!({
        "id": "mock-claude-think", "name": "Mock Claude Thinking", "api": "anthropic-messages",
        "provider": "mock-ant", "baseUrl": "http://127.0.0.1:18777", "reasoning": true,
        "contextWindow": 200000, "maxTokens": 8192
    }))
    .unwrap();
    vec![
        user("List the files."),
        assistant(
            &claude,
            json!([
                {"type": "thinking", "thinking": "The user wants the directory listing. I should call bash with ls.",
                 "thinkingSignature": "EqQBCkYIBhgCIkBmockSigTurn1AAAA"},
                {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "EmwKAhgBEgy3va3pzix", "redacted": true},
                {"type": "text", "text": "Let me look."},
                {"type": "toolCall", "id": "toolu_01A09q90qw90lq917835lq9A", "name": "bash", "arguments": {"command": "ls"}}
            ]),
            "toolUse",
        ),
        tool_result(
            "toolu_01A09q90qw90lq917835lq9A",
            "bash",
            json!([{"type": "text", "text": "notes.txt\nsrc\n"}]),
            false,
        ),
        assistant(
            &claude,
            json!([
                {"type": "thinking", "thinking": "The listing shows notes.txt and src.", "thinkingSignature": "EqQBCkYIBhgCIkBmockSigTurn2BBBB"},
                {"type": "thinking", "thinking": "   "},
                {"type": "text", "text": "There are two entries: notes.txt and src/."}
            ]),
            "stop",
        ),
        user("Thanks. Which one is a directory?"),
    ]
}

#[test]
fn cross_provider_replay_of_an_anthropic_conversation() {
    let mut ctx = context(anthropic_conversation());
    ctx.tools = Some(vec![read_tool()]);
    let mut opts = options();
    opts.reasoning_effort = Some(ThinkingLevel::Medium);
    // OpenAI (ids normalized for the Responses rules) and the mock provider.
    let openai = body(&gpt5_mini(), &ctx, &opts);
    insta::assert_json_snapshot!("cross_provider_to_openai", openai);
    let mock = body(&mock_resp(), &ctx, &options());
    insta::assert_json_snapshot!("cross_provider_to_mock_resp", mock);

    // The transform_messages rules, checked on the encoded input directly:
    // signed thinking became plain text, redacted and blank thinking are gone,
    // the tool call kept its id without an item id, and its result follows it.
    let input = openai["input"].as_array().unwrap();
    let assistant_texts: Vec<&str> = input
        .iter()
        .filter(|item| item["type"] == "message")
        .map(|item| item["content"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        assistant_texts,
        [
            "The user wants the directory listing. I should call bash with ls.",
            "Let me look.",
            "The listing shows notes.txt and src.",
            "There are two entries: notes.txt and src/.",
        ]
    );
    assert!(
        !openai.to_string().contains("EqQBCkYIBhgC"),
        "no Anthropic signature is sent"
    );
    let call = input
        .iter()
        .find(|item| item["type"] == "function_call")
        .unwrap();
    assert_eq!(
        call,
        &json!({"type": "function_call", "call_id": "toolu_01A09q90qw90lq917835lq9A", "name": "bash", "arguments": "{\"command\":\"ls\"}"})
    );
}

#[test]
fn openai_ids_from_another_api_are_normalized() {
    let azure: Model = serde_json::from_value(json!({
        "id": "gpt-5", "name": "GPT-5 (Azure)", "api": "azure-openai-responses", "provider": "azure-openai-responses",
        "baseUrl": "https://example.openai.azure.com/openai/v1", "reasoning": true, "contextWindow": 400000, "maxTokens": 128000
    }))
    .unwrap();
    let weird = "call+1/ä|item:2__";
    let messages = vec![
        user("Go."),
        assistant(
            &azure,
            json!([{"type": "toolCall", "id": weird, "name": "read", "arguments": {"path": "a"}}]),
            "toolUse",
        ),
        tool_result(weird, "read", json!([{"type": "text", "text": "A"}]), false),
    ];
    let ctx = context(messages);
    let openai = body(&gpt5_mini(), &ctx, &options());
    let mock = body(&mock_resp(), &ctx, &options());
    insta::assert_json_snapshot!("foreign_ids_openai", openai["input"]);
    // Providers other than openai/openai-codex/opencode keep ids as they are.
    assert_eq!(mock["input"][2]["call_id"], "call+1/ä");
    assert_eq!(mock["input"][2]["id"], "item:2__");
}

#[test]
fn reasoning_levels_summaries_and_maps() {
    let model = gpt5_mini();
    let ctx = context(vec![user("Think.")]);
    let reasoning_of = |model: &Model,
                        effort: Option<ThinkingLevel>,
                        summary: Option<ReasoningSummary>| {
        let mut opts = options();
        opts.reasoning_effort = effort;
        opts.reasoning_summary = summary;
        let body = body(model, &ctx, &opts);
        json!({"reasoning": body["reasoning"], "include": body["include"], "systemRole": body["input"][0]["role"]})
    };
    let mut table = serde_json::Map::new();
    for level in [
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::Xhigh,
    ] {
        table.insert(
            level.as_str().into(),
            reasoning_of(&model, Some(level), None),
        );
    }
    table.insert("off".into(), reasoning_of(&model, None, None));
    table.insert(
        "summaryOnly".into(),
        reasoning_of(&model, None, Some(ReasoningSummary::Detailed)),
    );
    table.insert(
        "highConcise".into(),
        reasoning_of(
            &model,
            Some(ThinkingLevel::High),
            Some(ReasoningSummary::Concise),
        ),
    );
    let mapped = gpt5_mini_with(json!({"thinkingLevelMap": {"off": "minimal", "high": "max"}}));
    table.insert(
        "mappedHigh".into(),
        reasoning_of(&mapped, Some(ThinkingLevel::High), None),
    );
    table.insert("mappedOff".into(), reasoning_of(&mapped, None, None));
    let no_off = gpt5_mini_with(json!({"thinkingLevelMap": {"off": null}}));
    table.insert("offUnsupported".into(), reasoning_of(&no_off, None, None));
    let copilot = gpt5_mini_with(json!({"provider": "github-copilot"}));
    table.insert("copilotOff".into(), reasoning_of(&copilot, None, None));
    table.insert(
        "nonReasoningModel".into(),
        reasoning_of(&mock_resp(), Some(ThinkingLevel::High), None),
    );
    insta::assert_json_snapshot!("reasoning_levels", table);
}

#[test]
fn thinking_levels_are_clamped_like_pi() {
    let model = gpt5_mini();
    assert_eq!(
        clamp_thinking_level(&model, ThinkingLevel::Xhigh),
        Some(ThinkingLevel::High)
    );
    assert_eq!(
        clamp_thinking_level(&model, ThinkingLevel::Low),
        Some(ThinkingLevel::Low)
    );
    let gpt52 = gpt5_mini_with(json!({"id": "gpt-5.2"}));
    assert_eq!(
        clamp_thinking_level(&gpt52, ThinkingLevel::Xhigh),
        Some(ThinkingLevel::Xhigh)
    );
    let mapped = gpt5_mini_with(json!({"thinkingLevelMap": {"minimal": null, "xhigh": "xhigh"}}));
    assert_eq!(
        clamp_thinking_level(&mapped, ThinkingLevel::Minimal),
        Some(ThinkingLevel::Low)
    );
    assert_eq!(
        clamp_thinking_level(&mapped, ThinkingLevel::Xhigh),
        Some(ThinkingLevel::Xhigh)
    );
    let gpt52_without_xhigh =
        gpt5_mini_with(json!({"id": "gpt-5.2", "thinkingLevelMap": {"high": "high"}}));
    assert_eq!(
        clamp_thinking_level(&gpt52_without_xhigh, ThinkingLevel::Xhigh),
        Some(ThinkingLevel::High),
        "a model with a map supports xhigh only when the map names it"
    );
    assert_eq!(
        clamp_thinking_level(&mock_resp(), ThinkingLevel::High),
        None
    );
}

#[test]
fn cache_retention_temperature_tier_and_limits() {
    let ctx = context(vec![user("Hi")]);
    let with = |retention: Option<CacheRetention>, model: &Model| {
        let mut opts = options();
        opts.base.cache_retention = retention;
        opts.base.temperature = Some(1.0);
        opts.service_tier = Some("flex".into());
        let body = body(model, &ctx, &opts);
        json!({
            "prompt_cache_key": body["prompt_cache_key"],
            "prompt_cache_retention": body["prompt_cache_retention"],
            "temperature": body["temperature"],
            "service_tier": body["service_tier"],
        })
    };
    let no_long = gpt5_mini_with(json!({"compat": {"supportsLongCacheRetention": false}}));
    insta::assert_json_snapshot!(
        "cache_retention",
        json!({
            "default": with(None, &gpt5_mini()),
            "none": with(Some(CacheRetention::None), &gpt5_mini()),
            "long": with(Some(CacheRetention::Long), &gpt5_mini()),
            "longUnsupported": with(Some(CacheRetention::Long), &no_long),
        })
    );

    let mut bare = OpenAiResponsesOptions::default();
    bare.base.max_tokens = Some(0);
    let mut empty = context(vec![user("Hi")]);
    empty.system_prompt = Some(String::new());
    empty.tools = Some(Vec::new());
    insta::assert_json_snapshot!("bare_request", body(&mock_resp(), &empty, &bare));
}
