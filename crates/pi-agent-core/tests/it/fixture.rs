//! Our `--mode json`-level events for a bash tool run against pi 0.73.1's
//! real output (`fixtures/pi-0.73.1/h-json-bash-oai/events.jsonl`): the same
//! event types in the same order, and the same field names per event.
//!
//! The provider replays the assistant events pi received (in pi's order,
//! with the same deltas), and a stand-in bash tool streams the same updates.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

use pi_agent_core::{Agent, AgentEvent, AgentOptions, AgentToolResult, NoCustom};
use pi_ai::scripted::scripted_model;
use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, ContextRef, DoneReason, Model, StopReason,
    StreamFunction, StreamOptions, UserBlock,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{FnTool, Recorder};

fn fixture_events(folder: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pi-0.73.1")
        .join(folder)
        .join("events.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        // The first line is the coding agent's session header, not an agent event.
        .filter(|event| event["type"] != "session")
        .collect()
}

/// The provider events and the settled message of each assistant message.
fn assistant_turns(events: &[Value]) -> VecDeque<(Vec<Value>, AssistantMessage)> {
    let mut turns = VecDeque::new();
    let mut current = Vec::new();
    for event in events {
        match event["type"].as_str() {
            Some("message_update") => current.push(event["assistantMessageEvent"].clone()),
            Some("message_end") if event["message"]["role"] == "assistant" => {
                let message = pi_ai::tagged::assistant::deserialize(&event["message"]).unwrap();
                turns.push_back((std::mem::take(&mut current), message));
            }
            _ => {}
        }
    }
    turns
}

/// Replays recorded assistant events through an `EventSink`, yielding
/// between events as a network stream would.
struct Replay {
    turns: Mutex<VecDeque<(Vec<Value>, AssistantMessage)>>,
}

impl StreamFunction for Replay {
    fn stream(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let (events, settled) = self.turns.lock().unwrap().pop_front().unwrap();
        let initial = AssistantMessage::empty(
            model.api.clone(),
            model.provider.clone(),
            &model.id,
            settled.timestamp,
        );
        AssistantMessageEventStream::new(initial, options.cancel, move |mut sink| async move {
            sink.start();
            tokio::task::yield_now().await;
            sink.update(|m| m.response_id.clone_from(&settled.response_id));
            for event in events {
                let index = event["contentIndex"].as_u64().unwrap() as usize;
                let delta = event["delta"].as_str().unwrap_or_default();
                match event["type"].as_str().unwrap() {
                    "text_start" => assert_eq!(sink.text_start(), index),
                    "text_delta" => sink.text_delta(index, delta),
                    "text_end" => sink.text_end(index),
                    "toolcall_start" => {
                        let call = &event["partial"]["content"][index];
                        let id = call["id"].as_str().unwrap();
                        let name = call["name"].as_str().unwrap();
                        assert_eq!(sink.tool_call_start(id, name), index);
                    }
                    "toolcall_delta" => sink.tool_call_delta(index, delta),
                    "toolcall_end" => sink.tool_call_end(index),
                    other => panic!("unexpected event {other}"),
                }
                tokio::task::yield_now().await;
            }
            sink.update(|m| m.usage = settled.usage);
            let reason = match settled.stop_reason {
                StopReason::ToolUse => DoneReason::ToolUse,
                _ => DoneReason::Stop,
            };
            sink.done(reason);
        })
    }
}

/// A stand-in for the coding agent's bash tool, with its update pattern:
/// an empty partial result, then the output with `details: {}`.
fn bash() -> Arc<dyn pi_agent_core::AgentTool> {
    let schema = json!({
        "type": "object",
        "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}},
        "required": ["command"]
    });
    FnTool::arc("bash", schema, |_, _, on_update| {
        Box::pin(async move {
            on_update(AgentToolResult::default());
            let output = "notes.txt\nsrc\n";
            on_update(AgentToolResult {
                content: vec![UserBlock::text(output)],
                details: json!({}),
                terminate: None,
            });
            Ok(AgentToolResult::text(output))
        })
    })
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// The type and the field names of an event, with those of its nested
/// objects (`partial` is left out: pi's is a timing-dependent snapshot with
/// provider-internal fields).
fn shape(event: &Value) -> Vec<String> {
    let mut shape = vec![format!(
        "{} {:?}",
        event["type"].as_str().unwrap(),
        keys(event)
    )];
    for field in [
        "message",
        "result",
        "partialResult",
        "assistantMessageEvent",
    ] {
        if let Some(inner) = event.get(field) {
            let mut inner_keys = keys(inner);
            inner_keys.remove("partial");
            shape.push(format!("  {field} {inner_keys:?}"));
        }
    }
    for field in ["toolResults", "messages"] {
        for (i, inner) in event[field].as_array().into_iter().flatten().enumerate() {
            shape.push(format!("  {field}[{i}] {:?}", keys(inner)));
        }
    }
    shape
}

#[tokio::test]
async fn a_bash_tool_run_has_the_event_shape_of_pi() {
    let theirs = fixture_events("h-json-bash-oai");
    let mut model: Model = scripted_model();
    model.api = pi_ai::Api::OPENAI_COMPLETIONS;
    let mut options = AgentOptions::<NoCustom>::new(model);
    options.settings.stream_fn = Arc::new(Replay {
        turns: Mutex::new(assistant_turns(&theirs)),
    });
    options.tools = vec![bash()];
    let agent = Agent::new(options);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent
        .prompt("List the files in the current directory.")
        .await
        .unwrap();

    let ours: Vec<Value> = recorder
        .events()
        .iter()
        .map(|e: &AgentEvent| serde_json::to_value(e).unwrap())
        .collect();
    let ours: Vec<String> = ours.iter().flat_map(shape).collect();
    let theirs: Vec<String> = theirs.iter().flat_map(shape).collect();
    assert_eq!(ours.join("\n"), theirs.join("\n"));
}
