//! Cross-provider handoff: conversations pi 0.73.1 had on anthropic
//! (thinking with signatures, redacted thinking, `toolu_` tool-call ids)
//! continue on bedrock. As pi does: thinking of the other model becomes
//! text (a Claude model on Bedrock does not get the foreign signatures),
//! redacted thinking is dropped, ids keep `[a-zA-Z0-9_-]` (at most 64) and
//! each result follows its call; consecutive results share one user
//! message. The real pi capture of one such handoff is checked value for
//! value in `parity.rs` (`x-handoff-bed`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Context, Message, SimpleStreamOptions, ThinkingLevel};
use pi_providers_amazon_bedrock::{BedrockOptions, build_request_body, normalize_tool_call_id};
use pi_test_support::parity::CapturedSession;
use pretty_assertions::assert_eq;
use serde_json::Value;

fn encode_for_bedrock(id: &str, messages: Vec<Message>) -> Value {
    let model = common::CAPTURES.model(id);
    let context = Context {
        messages,
        ..Context::default()
    };
    let options = BedrockOptions::from_simple(
        &model,
        &SimpleStreamOptions {
            reasoning: Some(ThinkingLevel::Medium),
            ..SimpleStreamOptions::default()
        },
    );
    serde_json::to_value(build_request_body(&model, &context, &options)).unwrap()
}

#[test]
fn anthropic_sessions_continue_on_bedrock() {
    for folder in ["f-continue-ant", "h-json-thinking-ant", "c-read-edit-ant"] {
        let session = CapturedSession::load(folder);
        let originals: Vec<String> = session
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Assistant(a) => {
                    Some(a.tool_calls().map(|c| c.id.clone()).collect::<Vec<_>>())
                }
                _ => None,
            })
            .flatten()
            .collect();
        assert!(!originals.is_empty(), "{folder}");
        for model in [common::SONNET, common::NOVA] {
            let body = encode_for_bedrock(model, session.messages.clone());
            let mut calls = Vec::new();
            let mut answered = Vec::new();
            for message in body["messages"].as_array().unwrap() {
                for block in message["content"].as_array().unwrap() {
                    if let Some(call) = block.get("toolUse") {
                        calls.push(call["toolUseId"].as_str().unwrap().to_owned());
                    }
                    if let Some(result) = block.get("toolResult") {
                        answered.push(result["toolUseId"].as_str().unwrap().to_owned());
                    }
                    assert!(
                        block.get("reasoningContent").is_none(),
                        "{folder} on {model}: thinking of another model"
                    );
                }
            }
            let expected: Vec<String> = originals
                .iter()
                .map(|id| normalize_tool_call_id(id))
                .collect();
            assert_eq!(calls, expected, "{folder} on {model}");
            assert!(
                answered.iter().all(|id| calls.contains(id)),
                "{folder} on {model}"
            );
            assert!(
                !body.to_string().contains("redacted"),
                "{folder} on {model}"
            );
            // Roles alternate: tool results ride in user messages.
            let roles: Vec<&str> = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["role"].as_str().unwrap())
                .collect();
            assert!(
                roles.windows(2).all(|w| w[0] != w[1]),
                "{folder} on {model}: {roles:?}"
            );
        }
    }
}

#[test]
fn anthropic_thinking_is_replayed_as_text() {
    let session = CapturedSession::load("h-json-thinking-ant");
    let body = encode_for_bedrock(common::SONNET, session.messages.clone());
    let Message::Assistant(original) = session
        .messages
        .iter()
        .find(|m| matches!(m, Message::Assistant(_)))
        .unwrap()
    else {
        unreachable!()
    };
    let original = serde_json::to_value(&original.content).unwrap();
    let thinking = original
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "thinking" && b.get("redacted").is_none())
        .unwrap()["thinking"]
        .clone();
    let first_answer = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(first_answer["content"][0]["text"], thinking);
}

/// Ids another provider made with characters Bedrock refuses are cleaned,
/// and the result follows.
#[test]
fn foreign_ids_are_cleaned_for_bedrock() {
    let messages: Vec<Message> = serde_json::from_value(serde_json::json!([
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1|fc_abc.def", "name": "bash", "arguments": {"command": "ls"}}],
         "api": "openai-responses", "provider": "openai", "model": "gpt-5", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "call_1|fc_abc.def", "toolName": "bash", "content": [{"type": "text", "text": "a"}], "isError": false, "timestamp": 3}
    ]))
    .unwrap();
    let body = encode_for_bedrock(common::NOVA, messages);
    assert_eq!(
        body["messages"][1]["content"][0]["toolUse"]["toolUseId"],
        "call_1_fc_abc_def"
    );
    assert_eq!(
        body["messages"][2]["content"][0]["toolResult"]["toolUseId"],
        "call_1_fc_abc_def"
    );
}
