//! Encoded request bodies for small contexts, as insta snapshots: text,
//! tool calls and results (errors, images for text-only and image models),
//! skipped blank turns, prompt mode and reasoning effort, tool choice and
//! temperature.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{
    Context, Message, Model, SimpleStreamOptions, StreamOptions, ThinkingLevel, get_model,
};
use pi_providers_mistral::{MistralOptions, ToolChoice, build_request_body};
use pi_test_support::contexts::{PNG, brief_context as context, messages, zero_usage};
use serde_json::{Value, json};

/// One mistral turn with a tool call, its result, and a final user turn.
fn tool_conversation(is_error: bool, result: Value) -> Vec<Message> {
    messages(json!([
        {"role": "user", "content": "Read it.", "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "text", "text": "  "},
            {"type": "thinking", "thinking": "Need the file."},
            {"type": "toolCall", "id": "Rd7nT2xQ9", "name": "read", "arguments": {"path": "a.png"}}
        ], "api": "mistral-conversations", "provider": "mock-mis", "model": "mock-mistral",
         "usage": zero_usage(),
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "Rd7nT2xQ9", "toolName": "read", "content": result,
         "isError": is_error, "timestamp": 3},
        {"role": "user", "content": [{"type": "text", "text": "Thanks."}], "timestamp": 4}
    ]))
}

fn encode(model: &Model, context: &Context, simple: &SimpleStreamOptions) -> Value {
    let options = MistralOptions::from_simple(model, simple);
    serde_json::to_value(build_request_body(model, context, &options)).unwrap()
}

#[test]
fn text_turn() {
    let model = common::CAPTURES.model("mock-mistral");
    let ctx = context(messages(
        json!([{"role": "user", "content": "Hi", "timestamp": 1}]),
    ));
    insta::assert_json_snapshot!(encode(&model, &ctx, &SimpleStreamOptions::default()));
}

#[test]
fn tool_error_with_image_on_a_text_model() {
    let model = common::CAPTURES.model("mock-mistral");
    let result = json!([{"type": "text", "text": "boom\n"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]);
    let ctx = context(tool_conversation(true, result));
    insta::assert_json_snapshot!(encode(&model, &ctx, &SimpleStreamOptions::default()));
}

#[test]
fn images_on_an_image_model() {
    let model = common::CAPTURES.model("mock-pixtral");
    let result = json!([{"type": "image", "data": PNG, "mimeType": "image/png"}]);
    let mut msgs = tool_conversation(false, result);
    msgs.insert(
        0,
        messages(json!([{"role": "user", "content": [
            {"type": "text", "text": "Look:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ], "timestamp": 0}]))
        .remove(0),
    );
    insta::assert_json_snapshot!(encode(
        &model,
        &context(msgs),
        &SimpleStreamOptions::default()
    ));
}

#[test]
fn image_only_user_turn_on_a_text_model_and_empty_result() {
    let model = common::CAPTURES.model("mock-mistral");
    let mut msgs = messages(json!([{"role": "user", "content": [
        {"type": "image", "data": PNG, "mimeType": "image/png"}
    ], "timestamp": 0}]));
    msgs.extend(tool_conversation(false, json!([])));
    insta::assert_json_snapshot!(encode(
        &model,
        &context(msgs),
        &SimpleStreamOptions::default()
    ));
}

#[test]
fn reasoning_prompt_mode_and_effort() {
    let simple = SimpleStreamOptions {
        reasoning: Some(ThinkingLevel::Xhigh),
        ..SimpleStreamOptions::default()
    };
    let ctx = context(messages(
        json!([{"role": "user", "content": "Think.", "timestamp": 1}]),
    ));
    let magistral = encode(&common::CAPTURES.model("mock-magistral"), &ctx, &simple);
    assert_eq!(magistral["prompt_mode"], "reasoning");
    assert!(magistral.get("reasoning_effort").is_none());
    let small = get_model("mistral", "mistral-small-latest").unwrap();
    let small_body = encode(small, &ctx, &simple);
    assert_eq!(small_body["reasoning_effort"], "high");
    assert!(small_body.get("prompt_mode").is_none());
    assert_eq!(small_body["max_tokens"], 32000, "min(model max, 32000)");
    // A non-reasoning model gets neither; no level gets neither.
    let plain = encode(&common::CAPTURES.model("mock-mistral"), &ctx, &simple);
    assert!(plain.get("prompt_mode").is_none() && plain.get("reasoning_effort").is_none());
    let off = encode(small, &ctx, &SimpleStreamOptions::default());
    assert!(off.get("reasoning_effort").is_none());
    insta::assert_json_snapshot!(json!({"magistral": magistral, "small": small_body}));
}

#[test]
fn tool_choice_and_temperature() {
    let model = common::CAPTURES.model("mock-mistral");
    let ctx = context(messages(
        json!([{"role": "user", "content": "Hi", "timestamp": 1}]),
    ));
    let mut options = MistralOptions::from_simple(
        &model,
        &SimpleStreamOptions {
            base: StreamOptions {
                temperature: Some(0.3),
                max_tokens: Some(100),
                ..StreamOptions::default()
            },
            ..SimpleStreamOptions::default()
        },
    );
    let mut bodies = Vec::new();
    for choice in [
        ToolChoice::Any,
        ToolChoice::Required,
        ToolChoice::Function("read".into()),
    ] {
        options.tool_choice = Some(choice);
        let body = serde_json::to_value(build_request_body(&model, &ctx, &options)).unwrap();
        bodies.push(json!({"tool_choice": body["tool_choice"], "temperature": body["temperature"], "max_tokens": body["max_tokens"]}));
    }
    insta::assert_json_snapshot!(bodies);
}
