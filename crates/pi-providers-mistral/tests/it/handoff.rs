//! Cross-provider handoff: conversations pi 0.73.1 had on anthropic
//! (thinking with signatures, redacted thinking, `toolu_` tool-call ids)
//! continue on mistral. As pi does: thinking becomes text, redacted thinking
//! is dropped, every id becomes 9 letters or digits (pi's hash) and each
//! result follows its call. The real pi capture of one such handoff is
//! checked value for value in `parity.rs` (`x-handoff-mis`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Context, Message, SimpleStreamOptions};
use pi_providers_mistral::{MistralOptions, build_request_body, derive_tool_call_id};
use pi_test_support::parity::CapturedSession;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn encode_for_mistral(messages: Vec<Message>) -> Value {
    let model = common::CAPTURES.model("mock-mistral");
    let context = Context {
        messages,
        ..Context::default()
    };
    let options = MistralOptions::from_simple(&model, &SimpleStreamOptions::default());
    serde_json::to_value(build_request_body(&model, &context, &options)).unwrap()
}

fn is_mistral_id(id: &str) -> bool {
    id.len() == 9 && id.chars().all(|c| c.is_ascii_alphanumeric())
}

#[test]
fn anthropic_sessions_continue_on_mistral() {
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
        let body = encode_for_mistral(session.messages.clone());
        let mut calls = Vec::new();
        for message in body["messages"].as_array().unwrap() {
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                calls.push(call["id"].as_str().unwrap().to_owned());
            }
            if message["role"] == "tool" {
                let answered = message["tool_call_id"].as_str().unwrap();
                assert!(calls.iter().any(|c| c == answered), "{folder}: {answered}");
            }
            for part in message["content"].as_array().into_iter().flatten() {
                assert_ne!(
                    part["type"], "thinking",
                    "{folder}: thinking of another model"
                );
            }
        }
        let expected: Vec<String> = originals
            .iter()
            .map(|id| derive_tool_call_id(id, 0))
            .collect();
        assert_eq!(calls, expected, "{folder}");
        assert!(
            calls.iter().all(|id| is_mistral_id(id)),
            "{folder}: {calls:?}"
        );
        assert!(!body.to_string().contains("toolu_"), "{folder}");
    }
}

#[test]
fn anthropic_thinking_becomes_text_and_redacted_thinking_is_dropped() {
    let session = CapturedSession::load("h-json-thinking-ant");
    let body = encode_for_mistral(session.messages.clone());
    let first_answer = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
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
    let texts: Vec<&Value> = first_answer["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["text"])
        .collect();
    assert_eq!(
        texts[0], &thinking,
        "the thinking is replayed as the first text part"
    );
    assert!(!body.to_string().contains("redacted"));
}

/// Two foreign ids that reduce to the same 9 characters get different
/// Mistral ids, and each result keeps following its own call.
#[test]
fn colliding_foreign_ids_stay_distinct() {
    let usage = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                       "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    let messages: Vec<Message> = serde_json::from_value(json!([
        {"role": "user", "content": "Go", "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "toolCall", "id": "Ab3dE5gH7", "name": "read", "arguments": {"path": "a"}},
            {"type": "toolCall", "id": "Ab3-dE5gH7", "name": "read", "arguments": {"path": "b"}}
        ], "api": "openai-completions", "provider": "mock-oai", "model": "mock-gpt",
         "usage": usage, "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "Ab3dE5gH7", "toolName": "read",
         "content": [{"type": "text", "text": "A"}], "isError": false, "timestamp": 3},
        {"role": "toolResult", "toolCallId": "Ab3-dE5gH7", "toolName": "read",
         "content": [{"type": "text", "text": "B"}], "isError": false, "timestamp": 4}
    ]))
    .unwrap();
    let body = encode_for_mistral(messages);
    let first = derive_tool_call_id("Ab3-dE5gH7", 1);
    assert_eq!(body["messages"][1]["tool_calls"][0]["id"], "Ab3dE5gH7");
    assert_eq!(body["messages"][1]["tool_calls"][1]["id"], first.as_str());
    assert_eq!(body["messages"][2]["tool_call_id"], "Ab3dE5gH7");
    assert_eq!(body["messages"][3]["tool_call_id"], first.as_str());
    assert_eq!(body["messages"][3]["content"][0]["text"], "B");
}
