//! Event JSON from a scripted stream has the shape of pi's events in the
//! fixtures: the same `type` names and the same field names per type.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use futures::StreamExt;
use pi_ai::scripted::{ScriptedProvider, scripted_model};
use pi_ai::{AssistantMessage, Context, StreamFunction, StreamOptions};
use pretty_assertions::assert_eq;
use serde_json::Value;

type Shapes = BTreeMap<String, BTreeSet<String>>;

fn keys(event: &Value) -> (String, BTreeSet<String>) {
    let kind = event["type"].as_str().unwrap().to_owned();
    (kind, event.as_object().unwrap().keys().cloned().collect())
}

/// pi's assistant events and the settled assistant messages of one fixture.
fn pi_events(folder: &str) -> (Shapes, Vec<AssistantMessage>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pi-0.73.1")
        .join(folder)
        .join("events.jsonl");
    let mut shapes = Shapes::new();
    let mut messages = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        match event["type"].as_str() {
            Some("message_update") => {
                let (kind, fields) = keys(&event["assistantMessageEvent"]);
                shapes.entry(kind).or_default().extend(fields);
            }
            Some("message_end") if event["message"]["role"] == "assistant" => {
                messages.push(pi_ai::tagged::assistant::deserialize(&event["message"]).unwrap());
            }
            _ => {}
        }
    }
    (shapes, messages)
}

async fn our_events(replies: Vec<AssistantMessage>) -> Shapes {
    let calls = replies.len();
    let provider = ScriptedProvider::new(replies);
    let mut shapes = Shapes::new();
    for _ in 0..calls {
        let mut stream = provider.stream(
            &scripted_model(),
            Context::default().view(),
            StreamOptions::default(),
        );
        while let Some(event) = stream.next().await {
            let (kind, fields) = keys(&serde_json::to_value(&event).unwrap());
            shapes.entry(kind).or_default().extend(fields);
        }
    }
    shapes
}

#[tokio::test]
async fn scripted_events_match_pi_event_shapes() {
    for folder in [
        "h-json-thinking-ant",
        "h-json-bash-oai",
        "h-json-parallel-resp",
    ] {
        let (pi, messages) = pi_events(folder);
        assert!(!messages.is_empty(), "{folder}: no assistant messages");
        let mut ours = our_events(messages).await;
        // pi's --mode json stream shows only the non-terminal events inside message_update.
        for terminal in ["start", "done", "error"] {
            ours.remove(terminal);
        }
        assert_eq!(ours, pi, "{folder}");
    }
}
