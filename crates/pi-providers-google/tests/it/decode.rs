//! Recorded and hand-made SSE streams (`fixtures/sse/google-generative-ai/`)
//! decoded into event sequences, snapshotted, and checked against what pi
//! stored for the same streams.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::catalog_model;
use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEvent, Message, Model, StopReason, Usage,
};
use pi_providers_google::GoogleDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::fixtures::session_assistant_messages;
use pi_test_support::{
    assert_stream_contract, event_summary, final_message, mock_model, replay_events, sse_file,
    sse_file_names,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const ID_TIME: i64 = 1_700_000_000_123;

/// The model a fixture was recorded for: pi's mock for `pi-*`, Gemini 2.5 Flash otherwise.
fn model_for(name: &str) -> Model {
    if name.starts_with("pi-") {
        mock_model("mock-goog", "mock-gemini")
    } else {
        catalog_model("google", "gemini-2.5-flash")
    }
}

const WIRE: &str = "google-generative-ai";

/// Decodes `name` with ids at a fixed time, checking the stream contract.
async fn decode(name: &str) -> Vec<AssistantMessageEvent> {
    let model = model_for(name);
    let decoder = GoogleDecoder::with_fixed_id_time(&model, ID_TIME);
    let events = replay_events(&model, sse_file(WIRE, name), decoder).await;
    assert_stream_contract(&events);
    events
}

#[tokio::test]
async fn every_recording_decodes_to_its_snapshot() {
    let names = sse_file_names(WIRE);
    assert!(names.len() >= 20, "{names:?}");
    for name in names {
        let events = decode(&name).await;
        let snapshot = name.trim_end_matches(".sse").to_owned();
        let summary: Vec<Value> = events.iter().map(event_summary).collect();
        insta::assert_json_snapshot!(snapshot, summary);
    }
}

/// pi's session message for response `seq` of `folder`.
fn pi_session_message(folder: &str, seq: usize) -> AssistantMessage {
    let message = session_assistant_messages(folder).swap_remove(seq - 1);
    match serde_json::from_value(message).unwrap() {
        Message::Assistant(message) => message,
        other => panic!("not an assistant message: {other:?}"),
    }
}

/// pi's generated ids are `<name>_<unix ms>_<counter>`; ours use a fixed time.
fn normalize_generated_ids(message: &mut AssistantMessage) {
    for block in &mut message.content {
        if let AssistantContent::ToolCall(call) = block {
            let parts: Vec<&str> = call.id.rsplitn(3, '_').collect();
            assert_eq!(parts.len(), 3, "{}", call.id);
            assert_eq!(parts[2], call.name, "{}", call.id);
            assert!(parts[1].len() == 13 && parts[1].bytes().all(|b| b.is_ascii_digit()));
            assert!(parts[0].parse::<u64>().is_ok(), "{}", call.id);
            call.id = format!("{}_<ms>_<n>", call.name);
        }
    }
}

#[tokio::test]
async fn pi_recordings_decode_to_the_messages_pi_stored() {
    for (folder, requests) in [
        ("a-text-goog", 1),
        ("b-bash-goog", 2),
        ("c-read-edit-goog", 3),
    ] {
        for seq in 1..=requests {
            let events = decode(&format!("pi-{folder}-{seq}.sse")).await;
            let mut ours = final_message(&events);
            let mut pis = pi_session_message(folder, seq);
            normalize_generated_ids(&mut ours);
            normalize_generated_ids(&mut pis);
            ours.timestamp = pis.timestamp;
            assert_eq!(ours, pis, "{folder} #{seq}");
        }
    }
}

#[tokio::test]
async fn generated_ids_use_the_clock_and_a_process_wide_counter() {
    let model = model_for("pi-b-bash-goog-1.sse");
    let frames = sse_file(WIRE, "pi-b-bash-goog-1.sse");
    let first =
        final_message(&replay_events(&model, frames.clone(), GoogleDecoder::new(&model)).await);
    let second = final_message(&replay_events(&model, frames, GoogleDecoder::new(&model)).await);
    let counter = |m: &AssistantMessage| {
        let id = &m.tool_calls().next().unwrap().id;
        let parts: Vec<&str> = id.split('_').collect();
        assert_eq!(parts[0], "bash");
        let ms: i64 = parts[1].parse().unwrap();
        assert!((pi_ai::now_ms() - ms).abs() < 60_000, "{id}");
        parts[2].parse::<u64>().unwrap()
    };
    assert!(counter(&second) > counter(&first));
}

#[tokio::test]
async fn thinking_signatures_and_usage_are_kept() {
    let message = final_message(&decode("thinking-then-text.sse").await);
    assert_eq!(message.stop_reason, StopReason::Stop);
    let AssistantContent::Thinking(thinking) = &message.content[0] else {
        panic!("{message:?}")
    };
    assert_eq!(
        thinking.thinking,
        "**Planning the answer**\n\nThe user asks for 2 + 2. Simple arithmetic."
    );
    assert_eq!(thinking.thinking_signature, None);
    let AssistantContent::Text(text) = &message.content[1] else {
        panic!("{message:?}")
    };
    assert_eq!(text.text, "2 + 2 = 4.");
    assert_eq!(
        text.text_signature.as_deref(),
        Some("EqQBCkYIBhgCIkB0aG91Z2h0c2lnbmF0dXJlZm9ydGV4dA==")
    );
    assert_eq!((message.usage.input, message.usage.output), (40, 58));
    assert_eq!(message.response_id.as_deref(), Some("resp-hand-001"));
}

#[tokio::test]
async fn a_signed_call_after_thinking_is_tool_use() {
    let message = final_message(&decode("thinking-then-tool-call.sse").await);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let call = message.tool_calls().next().unwrap();
    assert_eq!(call.id, format!("bash_{ID_TIME}_1"));
    assert_eq!(call.arguments, json!({"command": "ls -la"}));
    assert_eq!(
        call.thought_signature.as_deref(),
        Some("CiQBcsjafPHNNvzsbEkJJHTVwqXNGlRAwdtwfsSeOl4Ei+t1eO8=")
    );
}

#[tokio::test]
async fn given_ids_are_kept_unless_repeated() {
    let message = final_message(&decode("parallel-tool-calls.sse").await);
    let calls: Vec<(&str, &str, &Value)> = message
        .tool_calls()
        .map(|c| (c.id.as_str(), c.name.as_str(), &c.arguments))
        .collect();
    let regenerated = format!("read_{ID_TIME}_1");
    let generated = format!("list_tools_{ID_TIME}_2");
    assert_eq!(
        calls,
        [
            ("call-read-1", "read", &json!({"path": "a.txt"})),
            (regenerated.as_str(), "read", &json!({"path": "b.txt"})),
            (generated.as_str(), "list_tools", &json!({})),
        ]
    );
    assert_eq!(message.stop_reason, StopReason::ToolUse);
}

#[tokio::test]
async fn cached_tokens_move_from_input_to_cache_read() {
    let model = catalog_model("google", "gemini-2.5-flash");
    let message = final_message(&decode("usage-with-cache.sse").await);
    let mut expected = Usage {
        input: 2000,
        output: 105,
        cache_read: 10_000,
        cache_write: 0,
        total_tokens: 12_105,
        ..Usage::default()
    };
    pi_ai::calculate_cost(&model, &mut expected);
    assert_eq!(message.usage, expected);
    assert!(message.usage.cost.total > 0.0);
}

#[tokio::test]
async fn finish_reasons_and_stream_errors_settle_the_message() {
    let cases = [
        (
            "max-tokens.sse",
            StopReason::Length,
            None,
            "This answer is cut off here",
        ),
        (
            "safety.sse",
            StopReason::Error,
            Some("An unknown error occurred (finishReason: SAFETY)"),
            "Here is how",
        ),
        (
            "unknown-finish-reason.sse",
            StopReason::Error,
            Some("Unhandled stop reason: SOMETHING_NEW"),
            "Hmm",
        ),
        (
            "in-stream-error.sse",
            StopReason::Error,
            Some("503 The model is overloaded. Please try again later."),
            "Partial answer",
        ),
        (
            "prompt-blocked.sse",
            StopReason::Error,
            Some("Prompt blocked by Google (blockReason: PROHIBITED_CONTENT)"),
            "",
        ),
        (
            "no-finish-reason.sse",
            StopReason::Error,
            Some("google: Stream ended without finishReason"),
            "The stream ends without a finish reason.",
        ),
        (
            "crlf-framing.sse",
            StopReason::Stop,
            None,
            "Line one\nLine two",
        ),
        ("signature-only-part.sse", StopReason::Stop, None, "Done."),
    ];
    for (name, stop, error, text) in cases {
        let message = final_message(&decode(name).await);
        assert_eq!(message.stop_reason, stop, "{name}");
        assert_eq!(message.error_message.as_deref(), error, "{name}");
        assert_eq!(message.text(), text, "{name}");
    }
    let invalid = final_message(&decode("invalid-json.sse").await);
    assert_eq!(invalid.stop_reason, StopReason::Error);
    assert_eq!(invalid.text(), "Before the bad event");
    let error = invalid.error_message.unwrap();
    assert!(
        error.starts_with("Invalid JSON in Google stream event: EOF while parsing a string"),
        "{error}"
    );
}

#[tokio::test]
async fn an_empty_signature_part_signs_the_open_text_block() {
    let message = final_message(&decode("signature-only-part.sse").await);
    assert_eq!(message.content.len(), 1);
    let AssistantContent::Text(text) = &message.content[0] else {
        panic!("{message:?}")
    };
    assert_eq!(
        text.text_signature.as_deref(),
        Some("CmUBcsjafLoV0gZr8dq/ZTuSDbkZM3ctfi1MeRwzMkTBUaAk1HvNlw==")
    );
}

#[tokio::test]
async fn kind_switches_open_new_blocks() {
    let message = final_message(&decode("interleaved-thought-and-text.sse").await);
    let shape: Vec<(&str, &str, Option<&str>)> = message
        .content
        .iter()
        .map(|b| match b {
            AssistantContent::Thinking(t) => (
                "thinking",
                t.thinking.as_str(),
                t.thinking_signature.as_deref(),
            ),
            AssistantContent::Text(t) => ("text", t.text.as_str(), t.text_signature.as_deref()),
            AssistantContent::ToolCall(c) => ("toolCall", c.name.as_str(), None),
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("thinking", "Let me check.", None),
            ("text", "First part. ", None),
            (
                "thinking",
                "Reconsidering.",
                Some("CiQBcsjafPHNNvzsbEkJJHTVwqXNGlRAwdtwfsSeOl4Ei+t1eO8=")
            ),
            ("text", "Final part.", None),
        ]
    );
}

/// pi's recorded text answer cut before its last chunk, the one carrying
/// `finishReason: STOP`: an error keeping the text, where pi 0.73.1 would
/// settle it as a stop.
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode("eof-before-terminal-event.sse").await;
    assert_failed_keeping_text(
        &events,
        "google: Stream ended without finishReason",
        "Hello! I am a mock model",
    );
}
