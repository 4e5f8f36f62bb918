//! Recorded streams (`fixtures/sse/google-vertex/`) decoded through the
//! wire's decoder: every file's events are snapshotted and checked against
//! the stream contract, and the answers pi 0.73.1 decoded in the captures
//! give the assistant messages pi stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{AssistantContent, AssistantMessage, AssistantMessageEvent, Message, Model};
use pi_providers_google_vertex::VertexDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::parity::read_jsonl;
use pi_test_support::{
    assert_stream_contract, event_summary, final_message, replay_events, sse_file, sse_file_names,
};
use pretty_assertions::assert_eq;
use serde_json::Value;

const WIRE: &str = "google-vertex";
const ID_TIME: i64 = 1_700_000_000_123;

async fn decode(model: &Model, name: &str) -> Vec<AssistantMessageEvent> {
    let decoder = VertexDecoder::with_fixed_id_time(model, ID_TIME);
    let events = replay_events(model, sse_file(WIRE, name), decoder).await;
    assert_stream_contract(&events);
    events
}

#[tokio::test]
async fn every_recording_decodes_to_its_snapshot() {
    let names = sse_file_names(WIRE);
    assert_eq!(names.len(), 14, "{names:?}");
    let model = common::CAPTURES.model("mock-vtx", "mock-vertex");
    for name in names {
        let events = decode(&model, &name).await;
        let summary: Vec<Value> = events.iter().map(event_summary).collect();
        insta::assert_json_snapshot!(format!("sse__{}", name.trim_end_matches(".sse")), summary);
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
    let mut compared = 0;
    for folder in common::CAPTURES.folders() {
        // pi's answers on this wire (a handed-off session starts with
        // anthropic's).
        let stored: Vec<AssistantMessage> = common::CAPTURES
            .session(&folder)
            .assistant_json
            .into_iter()
            .filter(|m| m["api"] == WIRE)
            .map(|m| match serde_json::from_value(m).unwrap() {
                Message::Assistant(message) => message,
                other => panic!("{other:?}"),
            })
            .collect();
        let responses = read_jsonl(common::CAPTURES.dir().join(&folder).join("responses.jsonl"));
        assert_eq!(stored.len(), responses.len(), "{folder}");
        for (seq, mut pis) in (1..).zip(stored) {
            let model = common::CAPTURES.model(pis.provider.as_str(), &pis.model);
            let events = decode(&model, &format!("pi-{folder}-{seq}.sse")).await;
            let mut ours = final_message(&events);
            normalize_generated_ids(&mut ours);
            normalize_generated_ids(&mut pis);
            ours.timestamp = pis.timestamp;
            assert_eq!(ours, pis, "{folder} #{seq}");
            compared += 1;
        }
    }
    assert_eq!(compared, 9);
}

/// pi's recorded text answer cut before its last chunk, the one carrying
/// `finishReason: STOP`: an error keeping the text, where pi 0.73.1 would
/// settle it as a stop (the Gemini decoder's rule).
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let model = common::CAPTURES.model("mock-vtx", "mock-vertex");
    let events = decode(&model, "eof-before-terminal-event.sse").await;
    assert_failed_keeping_text(
        &events,
        "mock-vtx: Stream ended without finishReason",
        "Hello! I am a mock",
    );
}
