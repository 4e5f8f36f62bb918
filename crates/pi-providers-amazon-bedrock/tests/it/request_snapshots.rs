//! The encoded ConverseStream bodies of representative contexts, as insta
//! snapshots: cache points and their TTL, budget and adaptive thinking, tool
//! choice, images, grouped tool results, GovCloud, non-Claude reasoning.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{
    CacheRetention, Context, Message, SimpleStreamOptions, StreamOptions, ThinkingLevel, Tool,
};
use pi_http::Wire;
use pi_providers_amazon_bedrock::{AwsEnvironment, BedrockOptions, BedrockWire, ToolChoice};
use serde_json::{Value, json};

fn context() -> Context {
    context_by(common::SONNET)
}

/// The conversation, its assistant turn made by `author` on amazon-bedrock.
fn context_by(author: &str) -> Context {
    let messages: Vec<Message> = serde_json::from_value(json!([
        {"role": "user", "content": [{"type": "text", "text": "Look at this."}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Two reads.", "thinkingSignature": "sig-1"},
            {"type": "text", "text": "   "},
            {"type": "toolCall", "id": "tooluse_a", "name": "read", "arguments": {"path": "a"}},
            {"type": "toolCall", "id": "tooluse_b", "name": "read", "arguments": {"path": "b"}}],
         "api": "bedrock-converse-stream", "provider": "amazon-bedrock", "model": author,
         "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "tooluse_a", "toolName": "read", "content": [{"type": "text", "text": "A"}], "isError": false, "timestamp": 3},
        {"role": "toolResult", "toolCallId": "tooluse_b", "toolName": "read", "content": [{"type": "text", "text": "missing"}, {"type": "image", "data": "R0lGOD==", "mimeType": "image/gif"}], "isError": true, "timestamp": 4}
    ]))
    .unwrap();
    Context {
        system_prompt: Some("Be brief.".into()),
        messages,
        tools: Some(vec![Tool {
            name: "read".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }]),
        ..Context::default()
    }
}

fn encode(
    model_id: &str,
    vars: &[(&str, &str)],
    simple: SimpleStreamOptions,
    change: impl FnOnce(&mut BedrockOptions),
) -> Value {
    encode_context(model_id, &context(), vars, simple, change)
}

fn encode_context(
    model_id: &str,
    context: &Context,
    vars: &[(&str, &str)],
    simple: SimpleStreamOptions,
    change: impl FnOnce(&mut BedrockOptions),
) -> Value {
    let mut model = common::CAPTURES.model(model_id);
    model.provider = pi_ai::Provider::new("amazon-bedrock");
    let wire = BedrockWire::with_env(AwsEnvironment::from_vars(vars.iter().copied()));
    let mut options = BedrockOptions::from_simple(&model, &simple);
    change(&mut options);
    let wire = wire.resolve(&model, &mut options).unwrap();
    serde_json::to_value(wire.body(&model, context.view(), &options)).unwrap()
}

fn thinking(level: ThinkingLevel) -> SimpleStreamOptions {
    SimpleStreamOptions {
        reasoning: Some(level),
        ..SimpleStreamOptions::default()
    }
}

#[test]
fn claude_with_budget_thinking_and_short_cache() {
    insta::assert_json_snapshot!(encode(
        common::SONNET,
        &[],
        thinking(ThinkingLevel::Low),
        |_| {}
    ));
}

#[test]
fn claude_adaptive_thinking_long_cache_and_a_named_tool() {
    insta::assert_json_snapshot!(encode(
        common::OPUS,
        &[("PI_CACHE_RETENTION", "long")],
        thinking(ThinkingLevel::Xhigh),
        |o| o.tool_choice = Some(ToolChoice::Tool("read".into())),
    ));
}

#[test]
fn govcloud_drops_the_display_and_interleaving_can_be_off() {
    insta::assert_json_snapshot!(encode(
        common::SONNET,
        &[("AWS_REGION", "us-gov-west-1")],
        thinking(ThinkingLevel::High),
        |o| o.interleaved_thinking = Some(false),
    ));
}

#[test]
fn other_models_get_reasoning_without_signature_and_no_cache_points() {
    // Nova's own thinking comes back as reasoning without the signature.
    let context = context_by(common::NOVA);
    let body = encode_context(
        common::NOVA,
        &context,
        &[],
        thinking(ThinkingLevel::High),
        |o| {
            o.tool_choice = Some(ToolChoice::Any);
        },
    );
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({"reasoningContent": {"reasoningText": {"text": "Two reads."}}})
    );
    assert_eq!(body.get("additionalModelRequestFields"), None);
    insta::assert_json_snapshot!(body);
}

#[test]
fn forced_cache_no_retention_tool_choice_none_and_metadata() {
    let forced = encode(
        common::NOVA,
        &[("AWS_BEDROCK_FORCE_CACHE", "1")],
        SimpleStreamOptions::default(),
        |_| {},
    );
    assert_eq!(
        forced["system"][1],
        json!({"cachePoint": {"type": "default"}})
    );
    let none = encode(
        common::SONNET,
        &[],
        SimpleStreamOptions {
            base: StreamOptions {
                cache_retention: Some(CacheRetention::None),
                temperature: Some(0.5),
                max_tokens: Some(100),
                ..StreamOptions::default()
            },
            ..SimpleStreamOptions::default()
        },
        |o| {
            o.tool_choice = Some(ToolChoice::None);
            o.request_metadata = Some([("team".to_owned(), "pi".to_owned())].into());
        },
    );
    assert!(!none.to_string().contains("cachePoint"));
    insta::assert_json_snapshot!(none);
}

#[test]
fn an_unknown_image_type_fails_the_encoding_with_pis_text() {
    let mut context = context();
    let Message::User(user) = &mut context.messages[0] else {
        unreachable!()
    };
    let mut blocks = serde_json::to_value(&user.content).unwrap();
    blocks[1]["mimeType"] = json!("image/bmp");
    user.content = serde_json::from_value(blocks).unwrap();
    let model = common::CAPTURES.model(common::NOVA);
    let options = BedrockOptions::from_simple(&model, &SimpleStreamOptions::default());
    let body = BedrockWire::default().body(&model, context.view(), &options);
    let error = serde_json::to_string(&body).unwrap_err();
    assert_eq!(error.to_string(), "Unknown image type: image/bmp");
}
