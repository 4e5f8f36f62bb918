//! Every standard message in the pi 0.73.1 fixture sessions, and the design
//! documents' tool exchange, parses into the pi-ai types and serializes back
//! to value-equal JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use pi_ai::{AssistantContent, Message, StopReason, UserBlock, UserContent};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1")
}

fn session_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let dir = entry.unwrap().path();
        for name in ["session.jsonl", "session.run1.jsonl"] {
            let file = dir.join(name);
            if file.is_file() {
                files.push(file);
            }
        }
    }
    files.sort();
    files
}

fn roundtrip(value: &Value) -> Value {
    let message: Message =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"));
    serde_json::to_value(&message).unwrap()
}

#[test]
fn every_fixture_message_round_trips() {
    let files = session_files();
    assert!(
        files.len() >= 17,
        "expected the fixture sessions, found {}",
        files.len()
    );
    let mut roles = std::collections::BTreeMap::<String, usize>::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let entry: Value = serde_json::from_str(line).unwrap();
            if entry["type"] != "message" {
                continue;
            }
            let message = &entry["message"];
            let role = message["role"].as_str().unwrap().to_owned();
            if !matches!(role.as_str(), "user" | "assistant" | "toolResult") {
                continue;
            }
            assert_eq!(&roundtrip(message), message, "{}:{}", file.display(), n + 1);
            *roles.entry(role).or_default() += 1;
        }
    }
    for role in ["user", "assistant", "toolResult"] {
        assert!(
            roles.get(role).copied().unwrap_or(0) > 0,
            "no {role} message in fixtures: {roles:?}"
        );
    }
}

#[test]
fn fixture_messages_parse_into_the_expected_variants() {
    let line =
        std::fs::read_to_string(fixtures_dir().join("f-continue-ant/session.jsonl")).unwrap();
    let entry: Value = serde_json::from_str(line.lines().nth(4).unwrap()).unwrap();
    let Message::Assistant(assistant) = serde_json::from_value(entry["message"].clone()).unwrap()
    else {
        panic!("expected an assistant message");
    };
    assert_eq!(assistant.stop_reason, StopReason::ToolUse);
    assert_eq!(assistant.response_id.as_deref(), Some("msg_mock0001"));
    assert_eq!(assistant.usage.total_tokens, 1340);
    let AssistantContent::Thinking(thinking) = &assistant.content[0] else {
        panic!("thinking first")
    };
    assert_eq!(
        thinking.thinking_signature.as_deref(),
        Some("EqQBCkYIBhgCIkBmockSigContinue1AAAA")
    );
    let AssistantContent::ToolCall(call) = &assistant.content[1] else {
        panic!("tool call second")
    };
    assert_eq!(call.name, "bash");
    assert_eq!(call.arguments, json!({"command": "ls"}));
}

fn design_doc_exchange() -> Value {
    let zero_usage = json!({
        "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    });
    json!([
        {"role": "user", "content": "Read auth.ts", "timestamp": 1_748_568_000_000_i64},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I will inspect that file."},
                {"type": "toolCall", "id": "call_read_001", "name": "read", "arguments": {"path": "auth.ts"}}
            ],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-6",
            "usage": zero_usage,
            "stopReason": "toolUse",
            "timestamp": 1_748_568_000_100_i64
        },
        {
            "role": "toolResult",
            "toolCallId": "call_read_001",
            "toolName": "read",
            "content": [{"type": "text", "text": "export function authorize() {}"}],
            "isError": false,
            "timestamp": 1_748_568_000_200_i64
        }
    ])
}

#[test]
fn design_doc_tool_exchange_round_trips() {
    let exchange = design_doc_exchange();
    let messages: Vec<Message> = serde_json::from_value(exchange.clone()).unwrap();
    assert_eq!(serde_json::to_value(&messages).unwrap(), exchange);

    let Message::User(user) = &messages[0] else {
        panic!("user first")
    };
    assert_eq!(
        user.content,
        UserContent::Text("Read auth.ts".into()),
        "a string stays a string"
    );
    let Message::Assistant(assistant) = &messages[1] else {
        panic!("assistant second")
    };
    let call = assistant.tool_calls().next().unwrap();
    let Message::ToolResult(result) = &messages[2] else {
        panic!("tool result third")
    };
    assert_eq!(result.tool_call_id, call.id);
    assert_eq!(
        result.content,
        vec![UserBlock::text("export function authorize() {}")]
    );
}

#[test]
fn unknown_fields_survive_and_absent_optionals_stay_absent() {
    let newer = json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": "hi", "textSignature": "sig", "futureBlockField": [1, 2]},
            {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": true},
            {"type": "toolCall", "id": "c1", "name": "x", "arguments": {}, "namespace": "ns", "thoughtSignature": "t"}
        ],
        "api": "some-new-api",
        "provider": "some-provider",
        "model": "m",
        "responseModel": "m-2026",
        "responseId": "r1",
        "diagnostics": [{"kind": "warning", "message": "x"}],
        "usage": {"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4, "totalTokens": 10,
                  "cost": {"input": 0.5, "output": 1.25, "cacheRead": 0, "cacheWrite": 0, "total": 1.75}},
        "stopReason": "deferred",
        "deferred": {"handle": "h"},
        "rawStopReason": "end_turn",
        "endTurn": true,
        "timestamp": 5,
        "futureTopLevel": {"nested": true}
    });
    assert_eq!(roundtrip(&newer), newer);

    let tool_result = json!({
        "role": "toolResult", "toolCallId": "c1", "toolName": "x",
        "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}],
        "details": {"diff": "-a\n+b"}, "usage": newer["usage"].clone(), "addedToolNames": ["y"],
        "isError": true, "timestamp": 6
    });
    assert_eq!(roundtrip(&tool_result), tool_result);

    let minimal = json!({"role": "toolResult", "toolCallId": "c", "toolName": "t", "content": [], "isError": false, "timestamp": 1});
    assert_eq!(roundtrip(&minimal), minimal, "absent optionals stay absent");
}

#[test]
fn unknown_role_is_an_error_naming_it() {
    let err = serde_json::from_value::<Message>(json!({"role": "bashExecution", "command": "ls"}))
        .unwrap_err();
    assert!(err.to_string().contains("bashExecution"), "{err}");
}
