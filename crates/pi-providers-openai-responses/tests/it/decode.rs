//! Recorded SSE streams (`fixtures/sse/openai-responses/*.sse`) decoded into
//! event sequences and snapshotted; the streams pi received are also
//! checked against the messages pi stored in its session files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{gpt5_mini, mock_resp};
use pi_ai::{AssistantMessageEvent, Message, Model, StopReason};
use pi_providers_openai_responses::OpenAiResponsesDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::fixtures::session_assistant_messages;
use pi_test_support::summary::stream_summary;
use pi_test_support::{assert_stream_contract, final_message, replay_events, sse_file};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Decodes `name`.sse for `model`; returns the events.
async fn decode(name: &str, model: &Model) -> Vec<AssistantMessageEvent> {
    let frames = sse_file("openai-responses", &format!("{name}.sse"));
    let decoder = OpenAiResponsesDecoder::new(model.clone(), None);
    let events = replay_events(model, frames, decoder).await;
    assert_stream_contract(&events);
    events
}

/// Snapshots the events (without partials) and the settled message.
fn snapshot(name: &str, events: &[AssistantMessageEvent]) {
    let value = stream_summary(events);
    insta::assert_json_snapshot!(format!("sse__{name}"), value, {".message.timestamp" => "[timestamp]"});
}

/// A stream pi received: snapshotted, and its settled message equals the
/// one pi stored (timestamps aside).
async fn check_recorded(folder: &str, seq: usize) {
    let name = format!("{folder}-{seq}");
    let events = decode(&name, &mock_resp()).await;
    snapshot(&name, &events);
    let mut ours = serde_json::to_value(Message::Assistant(final_message(&events))).unwrap();
    let mut pis = session_assistant_messages(folder)[seq - 1].clone();
    for message in [&mut ours, &mut pis] {
        message.as_object_mut().unwrap().remove("timestamp");
    }
    assert_eq!(ours, pis);
}

#[tokio::test]
async fn a_text_resp_matches_pis_stored_message() {
    check_recorded("a-text-resp", 1).await;
}

#[tokio::test]
async fn b_bash_resp_matches_pis_stored_messages() {
    check_recorded("b-bash-resp", 1).await;
    check_recorded("b-bash-resp", 2).await;
}

#[tokio::test]
async fn c_read_edit_resp_matches_pis_stored_messages() {
    for seq in 1..=3 {
        check_recorded("c-read-edit-resp", seq).await;
    }
}

#[tokio::test]
async fn h_json_parallel_resp_matches_pis_stored_messages() {
    check_recorded("h-json-parallel-resp", 1).await;
    check_recorded("h-json-parallel-resp", 2).await;
}

#[tokio::test]
async fn reasoning_summary_is_thinking_with_the_item_as_signature() {
    let events = decode("reasoning-summary", &gpt5_mini()).await;
    snapshot("reasoning-summary", &events);
    let message = final_message(&events);
    let thinking = match &message.content[0] {
        pi_ai::AssistantContent::Thinking(t) => t,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        thinking.thinking,
        "**Reading the question**\n\nTwo plus two.\n\n**Answering**\n\nIt is four."
    );
    let item: Value =
        serde_json::from_str(thinking.thinking_signature.as_deref().unwrap()).unwrap();
    assert_eq!(
        item["encrypted_content"],
        "gAAAAABoEncryptedReasoningPayload=="
    );
    assert_eq!(item["id"], "rs_0a1b2c");
    // 1500 of 2000 input tokens came from the cache.
    assert_eq!(
        (
            message.usage.input,
            message.usage.cache_read,
            message.usage.output,
            message.usage.total_tokens
        ),
        (500, 1500, 300, 2300)
    );
    assert_eq!(message.response_id.as_deref(), Some("resp_think01"));
}

#[tokio::test]
async fn encrypted_only_reasoning_then_tool_call() {
    let events = decode("reasoning-encrypted-tool-call", &gpt5_mini()).await;
    snapshot("reasoning-encrypted-tool-call", &events);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    // priority tier doubles the price: (904 * 0.25 + 64 * 2 + 4096 * 0.025) / 1e6 * 2
    let expected = (904.0 * 0.25 + 64.0 * 2.0 + 4096.0 * 0.025) / 1e6 * 2.0;
    assert!(
        (message.usage.cost.total - expected).abs() < 1e-12,
        "{}",
        message.usage.cost.total
    );
}

#[tokio::test]
async fn raw_reasoning_text() {
    let events = decode("reasoning-text", &gpt5_mini()).await;
    snapshot("reasoning-text", &events);
}

#[tokio::test]
async fn refusal_becomes_text() {
    let events = decode("refusal", &mock_resp()).await;
    snapshot("refusal", &events);
    assert_eq!(final_message(&events).text(), "I can't help with that.");
}

#[tokio::test]
async fn incomplete_response_stops_with_length() {
    let events = decode("incomplete-max-tokens", &mock_resp()).await;
    snapshot("incomplete-max-tokens", &events);
    assert_eq!(final_message(&events).stop_reason, StopReason::Length);
}

#[tokio::test]
async fn failed_response_is_an_error_keeping_the_text() {
    let events = decode("failed", &mock_resp()).await;
    snapshot("failed", &events);
    let message = final_message(&events);
    assert_eq!(
        message.error_message.as_deref(),
        Some("server_error: The model failed to generate a response.")
    );
    assert_eq!(message.text(), "Partial answ");
}

#[tokio::test]
async fn error_event_names_its_code() {
    let events = decode("error-event", &mock_resp()).await;
    snapshot("error-event", &events);
    assert_eq!(
        final_message(&events).error_message.as_deref(),
        Some("Error Code rate_limit_exceeded: Rate limit reached for gpt-5-mini.")
    );
}

#[tokio::test]
async fn arguments_from_the_done_events() {
    let events = decode("function-call-arguments-done", &mock_resp()).await;
    snapshot("function-call-arguments-done", &events);
    let message = final_message(&events);
    let calls: Vec<_> = message
        .tool_calls()
        .map(|c| (c.id.as_str(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        vec![
            ("call_A|fc_only_done", json!({"path": "README.md"})),
            ("call_B|fc_no_added", json!({"path": "Cargo.toml"})),
        ]
    );
}

/// A body that ends mid-answer without `response.completed` is an error
/// keeping the text (pi 0.73.1 ends it done).
#[tokio::test]
async fn a_stream_without_completed_is_an_error_keeping_the_text() {
    let events = decode("no-terminal-event", &mock_resp()).await;
    snapshot("no-terminal-event", &events);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("mock-resp: Stream ended without response.completed")
    );
    assert_eq!(message.text(), "No terminal event follows");
}

/// pi's recorded text answer cut just before `response.completed`: every
/// item is done, but the answer is not complete.
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode("eof-before-terminal-event", &mock_resp()).await;
    snapshot("eof-before-terminal-event", &events);
    assert_failed_keeping_text(
        &events,
        "mock-resp: Stream ended without response.completed",
        "Hello! I am a mock model. 2 + 2 = 4.",
    );
}

/// `data: [DONE]` without a terminal event: the server closed the answer
/// itself, a stop (as pi).
#[tokio::test]
async fn done_without_a_terminal_event_is_a_stop() {
    let events = decode("done-without-terminal-event", &mock_resp()).await;
    snapshot("done-without-terminal-event", &events);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.error_message, None);
    assert_eq!(message.text(), "The server says it is done");
}

#[tokio::test]
async fn invalid_json_is_an_error_keeping_the_text() {
    let events = decode("invalid-json", &mock_resp()).await;
    snapshot("invalid-json", &events);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(
        message
            .error_message
            .as_deref()
            .unwrap()
            .starts_with("Invalid openai-responses stream event: EOF while parsing a string"),
        "{:?}",
        message.error_message
    );
    assert_eq!(message.text(), "Before the bad frame");
}

#[tokio::test]
async fn a_proxy_error_object_is_reported_with_its_message() {
    let events = decode("proxy-error-object", &mock_resp()).await;
    snapshot("proxy-error-object", &events);
    assert_eq!(
        final_message(&events).error_message.as_deref(),
        Some("Upstream provider returned 503")
    );
}

#[tokio::test]
async fn a_decoded_message_replays_as_the_same_items() {
    let model = gpt5_mini();
    let mut messages = Vec::new();
    for name in ["reasoning-encrypted-tool-call", "reasoning-summary"] {
        let message = final_message(&decode(name, &model).await);
        messages.push(Message::User(pi_ai::UserMessage {
            content: "Go on.".into(),
            timestamp: 1,
            extra: Default::default(),
        }));
        messages.push(Message::Assistant(message));
    }
    messages.insert(
        2,
        Message::ToolResult(pi_ai::ToolResultMessage {
            tool_call_id: "call_Q1w2E3r4T5y6|fc_6c5b4a".into(),
            tool_name: "bash".into(),
            content: vec![pi_ai::UserBlock::text("a.txt")],
            ..Default::default()
        }),
    );
    let context = pi_ai::Context {
        messages,
        ..Default::default()
    };
    let body = pi_providers_openai_responses::build_request_body(
        &model,
        &context,
        &pi_providers_openai_responses::OpenAiResponsesOptions::default(),
    );
    let input = serde_json::to_value(&body).unwrap()["input"].clone();
    assert_eq!(
        input,
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "Go on."}]},
            {"id": "rs_9f8e7d", "type": "reasoning", "encrypted_content": "gAAAAABoOpaqueOnlyNoSummary==", "summary": []},
            {"type": "function_call", "id": "fc_6c5b4a", "call_id": "call_Q1w2E3r4T5y6", "name": "bash", "arguments": "{\"command\":\"ls -la\"}"},
            {"type": "function_call_output", "call_id": "call_Q1w2E3r4T5y6", "output": "a.txt"},
            {"role": "user", "content": [{"type": "input_text", "text": "Go on."}]},
            {"id": "rs_0a1b2c", "type": "reasoning", "encrypted_content": "gAAAAABoEncryptedReasoningPayload==", "summary": [
                {"type": "summary_text", "text": "**Reading the question**\n\nTwo plus two."},
                {"type": "summary_text", "text": "**Answering**\n\nIt is four."}
            ]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "2 + 2 = 4. Hello!", "annotations": []}],
             "status": "completed", "id": "msg_0d1e2f", "phase": "final_answer"}
        ])
    );
}
