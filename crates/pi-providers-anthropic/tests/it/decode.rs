//! Recorded SSE streams (`fixtures/sse/anthropic-messages/*.sse`) decoded
//! into event sequences and snapshotted; pi's own recordings must settle to
//! exactly the assistant messages pi stored in its session files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::model;
use pi_ai::{AssistantMessageEvent, Model, StopReason};
use pi_providers_anthropic::AnthropicDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::fixtures::session_assistant_messages;
use pi_test_support::summary::stream_summary;
use pi_test_support::{assert_stream_contract, fixture, mock_model, replay_events, sse_file};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const WIRE: &str = "anthropic-messages";

/// Decodes `fixtures/sse/anthropic-messages/<name>` for `model`, checking
/// the stream contract.
async fn decode_file(name: &str, model: &Model) -> Vec<AssistantMessageEvent> {
    let decoder = AnthropicDecoder::new(model.clone());
    let events = replay_events(model, sse_file(WIRE, name), decoder).await;
    assert_stream_contract(&events);
    events
}

/// The settled message as JSON, timestamp zeroed.
fn final_message(events: &[AssistantMessageEvent]) -> Value {
    stream_summary(events)["message"].clone()
}

#[tokio::test]
async fn every_recorded_stream_decodes_to_its_snapshot() {
    let names = pi_test_support::sse_file_names(WIRE);
    assert!(names.len() >= 25, "{names:?}");
    let priced = model("claude-test", true);
    for name in names {
        let events = decode_file(&name, &priced).await;
        let snapshot = name.trim_end_matches(".sse").to_owned();
        insta::assert_json_snapshot!(snapshot, stream_summary(&events));
    }
}

#[tokio::test]
async fn pi_recordings_settle_to_the_messages_pi_stored() {
    let folders = [
        ("a-text-ant", "mock-claude"),
        ("b-bash-ant", "mock-claude"),
        ("c-read-edit-ant", "mock-claude"),
        ("f-continue-ant", "mock-claude-think"),
        ("h-json-thinking-ant", "mock-claude-think"),
    ];
    let mut compared = 0;
    for (folder, model_id) in folders {
        for (at, mut expected) in session_assistant_messages(folder).into_iter().enumerate() {
            let file = format!("pi-{folder}-{}.sse", at + 1);
            let events = decode_file(&file, &mock_model("mock-ant", model_id)).await;
            expected["timestamp"] = json!(0);
            assert_eq!(final_message(&events), expected, "{file}");
            compared += 1;
        }
    }
    assert_eq!(compared, 11);
}

#[tokio::test]
async fn streamed_events_match_pi_event_sequence() {
    // pi's --mode json events for the thinking fixture: kinds, indices and deltas.
    let text =
        std::fs::read_to_string(fixture("pi-0.73.1/h-json-thinking-ant/events.jsonl")).unwrap();
    let mut expected: Vec<Vec<Value>> = vec![Vec::new()];
    for line in text.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        match event["type"].as_str() {
            Some("message_update") => {
                let e = &event["assistantMessageEvent"];
                expected.last_mut().unwrap().push(json!([
                    e["type"],
                    e["contentIndex"],
                    e["delta"]
                ]));
            }
            Some("message_end") if event["message"]["role"] == "assistant" => {
                expected.push(Vec::new());
            }
            _ => {}
        }
    }
    expected.pop();
    for (at, pi_events) in expected.into_iter().enumerate() {
        let file = format!("pi-h-json-thinking-ant-{}.sse", at + 1);
        let events = decode_file(&file, &mock_model("mock-ant", "mock-claude-think")).await;
        let ours: Vec<Value> = events
            .iter()
            .filter(|e| !matches!(e, AssistantMessageEvent::Start { .. }) && !e.is_terminal())
            .map(|e| {
                let v = serde_json::to_value(e).unwrap();
                json!([v["type"], v["contentIndex"], v["delta"]])
            })
            .collect();
        assert_eq!(ours, pi_events, "{file}");
    }
}

#[tokio::test]
async fn usage_is_priced_and_totalled() {
    let events = decode_file("usage-with-cache.sse", &model("claude-test", false)).await;
    let message = events.last().unwrap().final_message().unwrap();
    assert_eq!(message.stop_reason, StopReason::Stop);
    let usage = message.usage;
    assert_eq!(
        (
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write
        ),
        (120, 42, 30_000, 2_000)
    );
    assert_eq!(usage.total_tokens, 32_162);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(usage.cost.input, 120.0 * 3.0 / 1e6));
    assert!(close(usage.cost.output, 42.0 * 15.0 / 1e6));
    assert!(close(usage.cost.cache_read, 30_000.0 * 0.3 / 1e6));
    assert!(close(usage.cost.cache_write, 2_000.0 * 3.75 / 1e6));
    assert!(close(
        usage.cost.total,
        usage.cost.input + usage.cost.output + usage.cost.cache_read + usage.cost.cache_write
    ));
}

/// pi's recorded text answer cut just before `message_stop` (the
/// `message_delta` with `end_turn` arrived): an error keeping the text, where
/// pi 0.73.1 would settle it as a stop.
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let model = mock_model("mock-ant", "mock-claude");
    let events = decode_file("eof-before-terminal-event.sse", &model).await;
    assert_failed_keeping_text(
        &events,
        "Anthropic stream ended without message_stop",
        "Hello! I am a mock model. 2 + 2 = 4.",
    );
}
