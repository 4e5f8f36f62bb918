//! Recorded SSE bodies (`fixtures/sse/mistral-conversations/*.sse`) decoded
//! through the pure decoder: every file's event sequence is snapshotted and
//! checked against the streaming contract; the recordings pi 0.73.1 decoded
//! itself must give the assistant message pi stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEvent, Model, StopReason};
use pi_providers_mistral::MistralDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::{
    assert_stream_contract, event_summary, final_message, replay_from, sse_file, sse_file_names,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const WIRE: &str = "mistral-conversations";

fn initial(model: &Model) -> AssistantMessage {
    AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    )
}

async fn decode_with(model: &Model, file: &str) -> Vec<AssistantMessageEvent> {
    let frames = sse_file(WIRE, file);
    replay_from(initial(model), frames, MistralDecoder::new(model))
        .collect()
        .await
}

async fn decode(file: &str) -> Vec<AssistantMessageEvent> {
    decode_with(&common::CAPTURES.model("mock-mistral"), file).await
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
/// response id (the timestamp and model fields aside).
#[tokio::test]
async fn pi_recordings_decode_to_the_messages_pi_stored() {
    for folder in [
        "a-text-mis",
        "b-bash-mis",
        "i-image-mis",
        "t-think-mis",
        "x-handoff-mis",
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
            for key in [
                "content",
                "stopReason",
                "usage",
                "responseId",
                "api",
                "provider",
            ] {
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
async fn tool_call_pieces_and_derived_ids() {
    let message = final_message(&decode("tool-call-in-pieces.sse").await);
    let calls: Vec<_> = message.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "Tc1pIeCe5");
    assert_eq!(calls[0].arguments, json!({"command": "ls -la"}));
    assert_eq!(message.stop_reason, StopReason::ToolUse);

    let message = final_message(&decode("tool-call-null-id-object-args.sse").await);
    let calls: Vec<_> = message.tool_calls().collect();
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    // pi derives a missing id from `toolcall:<index>`: its alphanumerics
    // are already 9 characters, so they are kept.
    assert_eq!(ids, ["toolcall0", "toolcall1"]);
    assert_eq!(calls[0].arguments, json!({"path": "notes.txt"}));
    assert_eq!(calls[1].arguments, json!({"command": "pwd"}));
}

#[tokio::test]
async fn interleaved_thinking_and_text_make_separate_blocks() {
    let message = final_message(&decode("thinking-text-interleaved.sse").await);
    let content = serde_json::to_value(&message.content).unwrap();
    assert_eq!(
        content,
        json!([
            {"type": "text", "text": ""},
            {"type": "thinking", "thinking": "First thought."},
            {"type": "text", "text": "Answer part one. "},
            {"type": "thinking", "thinking": "Second thought."},
            {"type": "text", "text": "Answer part two."}
        ])
    );
    assert_eq!(message.usage.total_tokens, 120);
}

#[tokio::test]
async fn finish_reasons_and_usage() {
    for (file, stop) in [
        ("finish-length.sse", StopReason::Length),
        ("finish-model-length.sse", StopReason::Length),
        ("finish-error.sse", StopReason::Error),
    ] {
        assert_eq!(
            final_message(&decode(file).await).stop_reason,
            stop,
            "{file}"
        );
    }
    let usage = final_message(&decode("usage-without-total.sse").await).usage;
    assert_eq!((usage.input, usage.output, usage.total_tokens), (7, 3, 10));
}

/// pi's recorded text answer cut before the chunk with its `finish_reason`
/// (and `[DONE]`): an error keeping the text, where pi 0.73.1 would settle
/// it as a stop.
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode("eof-before-terminal-event.sse").await;
    assert_stream_contract(&events);
    assert_failed_keeping_text(
        &events,
        "Stream ended without finish_reason",
        "Hello! I am a mock model. 2 + 2 = 4.",
    );
}
