//! Encoded request bodies for a matrix of contexts, snapshotted, with the
//! rules that matter asserted on the values as well.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::google_model;
use pi_ai::{
    Api, AssistantContent, AssistantMessage, Context, Message, Model, Provider,
    SimpleStreamOptions, StopReason, StreamOptions, TextContent, ThinkingContent, ThinkingLevel,
    Tool, ToolCall, ToolResultMessage, Usage, UserBlock, UserMessage,
};
use pi_providers_google::wire::FunctionCallingMode;
use pi_providers_google::{GoogleOptions, build_request_body, simple_options};
use pi_test_support::mock_model;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const SIG_A: &str = "CiQBcsjafPHNNvzsbEkJJHTVwqXNGlRAwdtwfsSeOl4Ei+t1eO8=";
const SIG_B: &str = "EqQBCkYIBhgCIkB0aG91Z2h0c2lnbmF0dXJlZm9ydGV4dA==";

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

fn assistant_from(model: &Model, content: Vec<AssistantContent>, stop: StopReason) -> Message {
    let mut message = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        2,
    );
    message.content = content;
    message.stop_reason = stop;
    message.usage = Usage::default();
    Message::Assistant(message)
}

fn text(text: &str, signature: Option<&str>) -> AssistantContent {
    AssistantContent::Text(TextContent {
        text: text.into(),
        text_signature: signature.map(Into::into),
        ..TextContent::default()
    })
}

fn thinking(text: &str, signature: Option<&str>, redacted: bool) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: signature.map(Into::into),
        redacted: redacted.then_some(true),
        ..ThinkingContent::default()
    })
}

fn call(id: &str, name: &str, args: Value, signature: Option<&str>) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args,
        thought_signature: signature.map(Into::into),
        ..ToolCall::default()
    })
}

fn result(id: &str, name: &str, content: Vec<UserBlock>, is_error: bool) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        is_error,
        timestamp: 3,
        ..ToolResultMessage::default()
    })
}

fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "bash".into(),
            description: "Run a shell command.".into(),
            parameters: json!({
                "type": "object",
                "required": ["command"],
                "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}
            }),
        },
        Tool {
            name: "read".into(),
            description: "Read a file.".into(),
            parameters: json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"path": {"anyOf": [{"type": "string"}, {"type": "null"}]}}
            }),
        },
    ]
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are a helpful assistant.".into()),
        messages,
        tools: Some(tools()),
        ..Context::default()
    }
}

fn encode(model: &Model, context: &Context, options: &GoogleOptions) -> Value {
    serde_json::to_value(build_request_body(model, context, options)).unwrap()
}

fn encode_simple(model: &Model, context: &Context, reasoning: Option<ThinkingLevel>) -> Value {
    let options = SimpleStreamOptions {
        reasoning,
        ..SimpleStreamOptions::default()
    };
    encode(model, context, &simple_options(model, &options))
}

/// A same-model Gemini 2.5 conversation with every content kind.
fn every_content_kind(model: &Model) -> Vec<Message> {
    vec![
        user("Plain string prompt."),
        user_blocks(vec![
            UserBlock::text("What is in this picture?"),
            UserBlock::image(PNG, "image/png"),
        ]),
        assistant_from(
            model,
            vec![
                thinking("Signed thought.", Some(SIG_A), false),
                thinking("Unsigned thought.", None, false),
                thinking("Bad signature.", Some("not base64!"), false),
                thinking("   ", Some(SIG_A), false),
                text("A red pixel.", Some(SIG_B)),
                text("", None),
                call("call_1", "bash", json!({"command": "ls"}), Some(SIG_A)),
                call("call_2", "read", json!({"path": "a.png"}), None),
                // Redacted thinking of the same model survives the transform
                // and is replayed like any signed thought.
                thinking("[Reasoning redacted]", Some(SIG_B), true),
            ],
            StopReason::ToolUse,
        ),
        result(
            "call_1",
            "bash",
            vec![UserBlock::text("a.png\n"), UserBlock::text("b.txt")],
            false,
        ),
        result(
            "call_2",
            "read",
            vec![
                UserBlock::text("Read image file [image/png]"),
                UserBlock::image(PNG, "image/png"),
            ],
            false,
        ),
        user("And the next one?"),
        assistant_from(
            model,
            vec![call("call_3", "read", Value::Null, None)],
            StopReason::ToolUse,
        ),
        result(
            "call_3",
            "read",
            vec![UserBlock::image(PNG, "image/png")],
            true,
        ),
        result("call_unknown", "bash", vec![], true),
    ]
}

#[test]
fn every_content_kind_for_gemini_2_5() {
    let model = google_model("gemini-2.5-flash", true, true);
    let body = encode(
        &model,
        &context(every_content_kind(&model)),
        &GoogleOptions::default(),
    );
    insta::assert_json_snapshot!(body);
    // Images of tool results go into a separate user turn for Gemini 2.x.
    assert_eq!(
        body["contents"][4]["parts"][0],
        json!({"text": "Tool result image:"})
    );
}

#[test]
fn every_content_kind_for_gemini_3_nests_tool_images_and_signs_unsigned_calls() {
    let model = google_model("gemini-3-pro-preview", true, true);
    let body = encode(
        &model,
        &context(every_content_kind(&model)),
        &GoogleOptions::default(),
    );
    insta::assert_json_snapshot!(body);
    let model_turn = &body["contents"][2]["parts"];
    assert_eq!(model_turn[3]["thoughtSignature"], SIG_B);
    assert_eq!(model_turn[4]["thoughtSignature"], SIG_A);
    assert_eq!(
        model_turn[5]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    assert_eq!(
        body["contents"][3]["parts"][1]["functionResponse"]["parts"][0]["inlineData"]["mimeType"],
        "image/png"
    );
}

#[test]
fn images_become_placeholders_for_a_text_only_model() {
    let model = google_model("gemma-3-27b-it", false, false);
    let body = encode(
        &model,
        &context(every_content_kind(&model)),
        &GoogleOptions::default(),
    );
    insta::assert_json_snapshot!(body);
    assert_eq!(
        body["contents"][1]["parts"][1]["text"],
        "(image omitted: model does not support images)"
    );
    assert!(!body.to_string().contains("inlineData"));
}

#[test]
fn consecutive_tool_results_share_one_user_turn() {
    let model = mock_model("mock-goog", "mock-gemini");
    let messages = vec![
        user("Run three things."),
        assistant_from(
            &model,
            vec![
                call("a", "bash", json!({"command": "one"}), None),
                call("b", "bash", json!({"command": "two"}), None),
                call("c", "bash", json!({"command": "three"}), None),
            ],
            StopReason::ToolUse,
        ),
        result("a", "bash", vec![UserBlock::text("1")], false),
        result("b", "bash", vec![UserBlock::text("2")], true),
        result("c", "bash", vec![UserBlock::text("3")], false),
    ];
    let body = encode(&model, &context(messages), &GoogleOptions::default());
    insta::assert_json_snapshot!(body["contents"]);
    assert_eq!(body["contents"].as_array().unwrap().len(), 3);
    assert_eq!(body["contents"][2]["parts"].as_array().unwrap().len(), 3);
    assert_eq!(
        body["contents"][2]["parts"][1],
        json!({"functionResponse": {"name": "bash", "response": {"error": "2"}}})
    );
}

#[test]
fn failed_turns_are_dropped_and_orphaned_calls_get_a_result() {
    let model = mock_model("mock-goog", "mock-gemini");
    let messages = vec![
        user("Try."),
        assistant_from(
            &model,
            vec![text("half an answer", None)],
            StopReason::Error,
        ),
        assistant_from(&model, vec![text("cancelled", None)], StopReason::Aborted),
        assistant_from(
            &model,
            vec![call("x", "bash", json!({"command": "ls"}), None)],
            StopReason::ToolUse,
        ),
        user("Never mind."),
    ];
    let body = encode(&model, &context(messages), &GoogleOptions::default());
    insta::assert_json_snapshot!(body["contents"]);
    assert_eq!(
        body["contents"][2]["parts"][0]["functionResponse"]["response"],
        json!({"error": "No result provided"})
    );
}

#[test]
fn claude_behind_google_gets_normalized_call_ids() {
    let model = google_model("claude-sonnet-4-5", true, true);
    let other = mock_model("mock-resp", "mock-resp");
    let messages = vec![
        user("Go."),
        assistant_from(
            &other,
            vec![call(
                "call_abc|fc_123+/=",
                "bash",
                json!({"command": "ls"}),
                None,
            )],
            StopReason::ToolUse,
        ),
        result(
            "call_abc|fc_123+/=",
            "bash",
            vec![UserBlock::text("ok")],
            false,
        ),
    ];
    let body = encode(&model, &context(messages), &GoogleOptions::default());
    insta::assert_json_snapshot!(body["contents"]);
    assert_eq!(
        body["contents"][1]["parts"][0]["functionCall"]["id"],
        "call_abc_fc_123___"
    );
    assert_eq!(
        body["contents"][2]["parts"][0]["functionResponse"]["id"],
        "call_abc_fc_123___"
    );
}

#[test]
fn generation_config_tools_and_tool_choice() {
    let model = google_model("gemini-2.0-flash", false, true);
    let options = GoogleOptions {
        base: StreamOptions {
            temperature: Some(0.7),
            max_tokens: Some(1024),
            ..StreamOptions::default()
        },
        tool_choice: Some(FunctionCallingMode::Any),
        thinking: None,
    };
    let body = encode(&model, &context(vec![user("Hi")]), &options);
    insta::assert_json_snapshot!(body);
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY"}})
    );
    assert_eq!(
        body["generationConfig"],
        json!({"temperature": 0.7, "maxOutputTokens": 1024})
    );

    let whole = GoogleOptions {
        base: StreamOptions {
            temperature: Some(1.0),
            ..StreamOptions::default()
        },
        ..GoogleOptions::default()
    };
    let bare = Context {
        messages: vec![user("Hi")],
        ..Context::default()
    };
    let body = encode(&model, &bare, &whole);
    assert_eq!(
        body.to_string(),
        r#"{"contents":[{"parts":[{"text":"Hi"}],"role":"user"}],"generationConfig":{"temperature":1}}"#,
        "no system instruction, tools or tool config; whole temperatures written as integers"
    );
    let body = encode(&model, &bare, &GoogleOptions::default());
    assert_eq!(
        body["generationConfig"],
        json!({}),
        "the SDK always writes generationConfig"
    );
}

#[test]
fn reasoning_levels_per_model_family() {
    let ctx = Context {
        messages: vec![user("Think.")],
        ..Context::default()
    };
    let levels = [
        None,
        Some(ThinkingLevel::Minimal),
        Some(ThinkingLevel::Low),
        Some(ThinkingLevel::Medium),
        Some(ThinkingLevel::High),
        Some(ThinkingLevel::Xhigh),
    ];
    let mut table = serde_json::Map::new();
    for id in [
        "gemini-2.5-pro",
        "gemini-2.5-flash",
        "gemini-2.5-flash-lite",
        "gemini-3-pro-preview",
        "gemini-3-flash-preview",
        "gemma-4-27b-it",
        "gemini-exp-thinking",
    ] {
        let model = google_model(id, true, true);
        let row: Vec<Value> = levels
            .iter()
            .map(|level| encode_simple(&model, &ctx, *level)["generationConfig"].clone())
            .collect();
        table.insert(id.to_owned(), Value::Array(row));
    }
    let plain = google_model("gemini-2.0-flash", false, true);
    table.insert(
        "gemini-2.0-flash (no reasoning)".to_owned(),
        encode_simple(&plain, &ctx, Some(ThinkingLevel::High))["generationConfig"].clone(),
    );
    insta::assert_json_snapshot!(table);
    assert_eq!(
        table["gemini-2.5-pro"][3],
        json!({"maxOutputTokens": 32000, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 8192}})
    );
    assert_eq!(
        table["gemini-3-pro-preview"][0],
        json!({"maxOutputTokens": 32000, "thinkingConfig": {"thinkingLevel": "LOW"}})
    );
    assert_eq!(
        table["gemini-2.0-flash (no reasoning)"],
        json!({"maxOutputTokens": 32000})
    );
}

/// Item 4 of the issue: a conversation the anthropic thinking model produced
/// (thinking with signatures, redacted thinking, text, a tool call, a tool
/// result, then thinking and text), replayed to Google.
fn anthropic_conversation() -> Vec<Message> {
    let claude = |content, stop| {
        let mut message = AssistantMessage::empty(
            Api::ANTHROPIC_MESSAGES,
            Provider::new("mock-ant"),
            "mock-claude-think",
            1_795_996_519_129,
        );
        message.content = content;
        message.stop_reason = stop;
        message.response_id = Some("msg_mock0001".into());
        Message::Assistant(message)
    };
    vec![
        user_blocks(vec![UserBlock::text(
            "List the files in the current directory.",
        )]),
        claude(
            vec![
                thinking(
                    "The user wants the directory listing. I should call bash with ls.",
                    Some(
                        "EqQBCkYIBhgCIkBmockSigTurn1AAAAbGlzdGluZyB0aGUgZGlyZWN0b3J5Lg0KEgxtb2NrLXNpZ25hdHVyZRoMbW9jay1zaWctMDAx",
                    ),
                    false,
                ),
                thinking(
                    "[Reasoning redacted]",
                    Some(
                        "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URjmockRedacted",
                    ),
                    true,
                ),
                text("Let me look.", None),
                call(
                    "toolu_01A09q90qw90lq917835lq9A",
                    "bash",
                    json!({"command": "ls"}),
                    None,
                ),
            ],
            StopReason::ToolUse,
        ),
        result(
            "toolu_01A09q90qw90lq917835lq9A",
            "bash",
            vec![UserBlock::text("notes.txt\nsrc\n")],
            false,
        ),
        claude(
            vec![
                thinking(
                    "The listing shows notes.txt and src.",
                    Some(
                        "EqQBCkYIBhgCIkBmockSigTurn2BBBBdGhlIGxpc3Rpbmcgc2hvd3Mgbm90ZXMudHh0Lg0KEgxtb2NrLXNpZ25hdHVyZRoMbW9jay1zaWctMDAy",
                    ),
                    false,
                ),
                text("There are two entries: notes.txt and src/.", None),
            ],
            StopReason::Stop,
        ),
        user("What did you find earlier?"),
    ]
}

#[test]
fn cross_provider_replay_of_an_anthropic_conversation() {
    let ctx = context(anthropic_conversation());
    let gemini25 = mock_model("mock-goog", "mock-gemini-think");
    let body = encode_simple(&gemini25, &ctx, Some(ThinkingLevel::Medium));
    insta::assert_json_snapshot!("cross_provider_mock_gemini_think", body);
    let gemini3 = google_model("gemini-3-pro-preview", true, true);
    let body3 = encode_simple(&gemini3, &ctx, Some(ThinkingLevel::Medium));
    insta::assert_json_snapshot!("cross_provider_gemini_3", body3);

    // Thinking became plain text, redacted thinking is gone, no Claude
    // signature survives, and the call carries no id.
    let expected_model_turn = json!([
        {"text": "The user wants the directory listing. I should call bash with ls."},
        {"text": "Let me look."},
        {"functionCall": {"args": {"command": "ls"}, "name": "bash"}}
    ]);
    assert_eq!(body["contents"][1]["parts"], expected_model_turn);
    assert_eq!(
        body["contents"][3]["parts"],
        json!([{"text": "The listing shows notes.txt and src."}, {"text": "There are two entries: notes.txt and src/."}])
    );
    assert!(!body.to_string().contains("Reasoning redacted"));
    assert!(!body.to_string().contains("mockSig"));
    assert!(!body.to_string().contains("thought\""));
    // Gemini 3 needs a signature on the replayed call: the sentinel.
    assert_eq!(
        body3["contents"][1]["parts"][2]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    assert_eq!(
        body3["contents"][2]["parts"][0]["functionResponse"]["name"],
        "bash"
    );
}
