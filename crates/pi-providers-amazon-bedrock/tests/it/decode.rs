//! Recorded ConverseStream answers (`fixtures/sse/bedrock-converse-stream/*.sse`,
//! encoded as AWS event-stream messages and framed as a live body is)
//! decoded through the pure decoder: every file's event sequence is
//! snapshotted and checked against the streaming contract; the answers pi
//! 0.73.1 decoded itself must give the assistant message pi stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::WIRE;
use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEvent, Model, StopReason};
use pi_providers_amazon_bedrock::BedrockDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::{
    assert_stream_contract, event_summary, final_message, replay_from, sse_file_names,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn initial(model: &Model) -> AssistantMessage {
    AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    )
}

async fn decode_with(model: &Model, file: &str) -> Vec<AssistantMessageEvent> {
    replay_from(
        initial(model),
        common::frames(file),
        BedrockDecoder::new(model),
    )
    .collect()
    .await
}

async fn decode(file: &str) -> Vec<AssistantMessageEvent> {
    decode_with(&common::CAPTURES.model(common::SONNET), file).await
}

#[tokio::test]
async fn every_recording_decodes_to_its_snapshot() {
    let names = sse_file_names(WIRE);
    assert!(names.len() >= 19, "{names:?}");
    for name in names {
        let events = decode(&name).await;
        assert_stream_contract(&events);
        let summary: Vec<Value> = events.iter().map(event_summary).collect();
        let stem = name.trim_end_matches(".sse");
        insta::assert_json_snapshot!(format!("sse__{stem}"), summary);
    }
}

/// What pi stored for each captured answer: content, stop reason, usage,
/// error text.
#[tokio::test]
async fn pi_recordings_decode_to_the_messages_pi_stored() {
    for folder in [
        "a-text-bed",
        "b-bash-bed",
        "i-image-bed",
        "t-think-bed",
        "t-adaptive-bed",
        "x-handoff-bed",
        "k-bearer-bed",
        "e-throttle-bed",
    ] {
        let stored: Vec<Value> = common::CAPTURES
            .session(folder)
            .assistant_json
            .into_iter()
            .filter(|m| m["api"] == WIRE)
            .collect();
        assert!(!stored.is_empty(), "{folder}");
        for (at, pi_message) in stored.iter().enumerate() {
            let model = common::CAPTURES.model(pi_message["model"].as_str().unwrap());
            let events = decode_with(&model, &format!("{folder}-{}.sse", at + 1)).await;
            let ours = serde_json::to_value(final_message(&events)).unwrap();
            for key in ["content", "stopReason", "usage", "errorMessage", "api"] {
                assert_eq!(
                    ours[key],
                    pi_message[key],
                    "{folder} answer {} {key}",
                    at + 1
                );
            }
        }
    }
}

#[tokio::test]
async fn endings_and_usage() {
    let cases = [
        (
            "no-message-stop.sse",
            StopReason::Error,
            Some("mock-bed: Stream ended without messageStop"),
        ),
        (
            "unknown-stop-reason.sse",
            StopReason::Error,
            Some("An unknown error occurred"),
        ),
        ("max-tokens.sse", StopReason::Length, None),
        (
            "user-message-start.sse",
            StopReason::Error,
            Some("Unexpected assistant message start but got user message start instead"),
        ),
        (
            "model-stream-error.sse",
            StopReason::Error,
            Some("Model stream error: Model stream ended unexpectedly"),
        ),
    ];
    for (file, stop, error) in cases {
        let message = final_message(&decode(file).await);
        assert_eq!(message.stop_reason, stop, "{file}");
        assert_eq!(message.error_message.as_deref(), error, "{file}");
    }
    let message = final_message(&decode("invalid-json.sse").await);
    assert_eq!(message.text(), "Before the bad event");
    let error = message.error_message.unwrap();
    assert!(
        error.starts_with("Invalid JSON in the Bedrock contentBlockDelta event: "),
        "{error}"
    );
    let message = final_message(&decode("unknown-event-and-cache-usage.sse").await);
    assert_eq!(message.text(), "Known events only.");
    let usage = serde_json::to_value(message.usage).unwrap();
    assert_eq!(usage["input"], 30);
    assert_eq!(usage["cacheRead"], 1000);
    assert_eq!(usage["cacheWrite"], 200);
    assert_eq!(usage["totalTokens"], 35, "no total: input + output");
    // Prices of the Sonnet mock are 0; the catalog's would apply.
    assert_eq!(usage["cost"]["total"], 0);
}

#[tokio::test]
async fn parallel_tool_calls_follow_their_block_indexes() {
    let message = final_message(&decode("parallel-tool-calls.sse").await);
    let calls: Vec<_> = message.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("tooluse_read1", "read")
    );
    assert_eq!(calls[0].arguments, json!({"path": "a.txt"}));
    assert_eq!(calls[1].arguments, json!({"command": "ls"}));
    assert_eq!(message.stop_reason, StopReason::ToolUse);
}

#[tokio::test]
async fn reasoning_signatures_join_and_text_follows() {
    let message = final_message(&decode("thinking-signature-in-pieces.sse").await);
    let content = serde_json::to_value(&message.content).unwrap();
    assert_eq!(
        content,
        json!([
            {"type": "thinking", "thinking": "Thinking hard.", "thinkingSignature": "c2lnLW1vcmU="},
            {"type": "thinking", "thinking": "", "thinkingSignature": ""},
            {"type": "text", "text": "Answer."}
        ])
    );
}

/// pi's recorded text answer cut before `messageStop` (and `metadata`): an
/// error keeping the text, where pi 0.73.1 would settle it as a stop.
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode("eof-before-terminal-event.sse").await;
    assert_stream_contract(&events);
    assert_failed_keeping_text(
        &events,
        "mock-bed: Stream ended without messageStop",
        "Hello! I am a mock model. 2 + 2 = 4.",
    );
}
