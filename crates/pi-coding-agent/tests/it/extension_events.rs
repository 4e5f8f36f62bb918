//! Event order and payloads: a Rust extension that logs every event it
//! hears (as `fixtures/capture/extensions/event-logger.ts` does in pi)
//! runs pi 0.73.1's captured rpc scenario (`fixtures/pi-0.73.1/extensions/`:
//! a prompt with a tool call, a steer, an abort, a compaction, a model and
//! thinking level switch, a fork, a new session and a switch back), and
//! must log what pi logged.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

use std::sync::{Arc, Mutex, PoisonError};

use e2e_common::{Scenario, jsonl};
use extension_common::{InProcessRpc, app_with, captures, stall_answer, text_answer, tool_answer};
use pi_coding_agent::extensions::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type Log = Arc<Mutex<Vec<Value>>>;

/// Logs every event as event-logger.ts does.
struct EventLogger(Log);

fn role_of(message: &Message) -> Value {
    let value = serde_json::to_value(message).unwrap();
    let mut out = json!({"role": value["role"]});
    if value["role"] == "custom" {
        out["customType"] = value["customType"].clone();
    }
    out
}

fn roles(messages: &[Message]) -> Value {
    json!(messages.iter().map(|m| m.role()).collect::<Vec<_>>())
}

fn model_name(model: &pi_ai::Model) -> String {
    format!("{}/{}", model.provider.as_str(), model.id)
}

impl EventLogger {
    fn on<E: Event>(
        &self,
        api: &mut ExtensionApi<'_>,
        line: impl Fn(&E) -> Value + Send + Sync + 'static,
    ) where
        E::Output: Send,
    {
        let log = Arc::clone(&self.0);
        api.on::<E, _, _>(move |event: E, _ctx| {
            let mut value = json!({"event": E::NAME});
            if let Value::Object(fields) = line(&event) {
                value.as_object_mut().unwrap().extend(fields);
            }
            log.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(value);
            async { Ok(None) }
        });
    }
}

impl Extension for EventLogger {
    fn path(&self) -> String {
        "<event-logger>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        self.on(
            api,
            |e: &ResourcesDiscoverEvent| json!({"reason": e.reason}),
        );
        self.on(api, |e: &SessionStartEvent| {
            json!({"reason": e.reason, "hasPreviousSessionFile": e.previous_session_file.is_some()})
        });
        self.on(api, |e: &SessionBeforeSwitchEvent| {
            json!({"reason": e.reason, "hasTargetSessionFile": e.target_session_file.is_some()})
        });
        self.on(
            api,
            |e: &SessionBeforeForkEvent| json!({"position": e.position}),
        );
        self.on(api, |e: &SessionBeforeCompactEvent| {
            json!({"customInstructions": e.custom_instructions, "hasPreparation": !e.preparation.is_null()})
        });
        self.on(
            api,
            |e: &SessionCompactEvent| json!({"fromExtension": e.from_extension}),
        );
        self.on(api, |e: &SessionShutdownEvent| {
            json!({"reason": e.reason, "hasTargetSessionFile": e.target_session_file.is_some()})
        });
        self.on(api, |e: &BeforeAgentStartEvent| json!({"prompt": e.prompt}));
        self.on(api, |_: &AgentStartEvent| json!({}));
        self.on(api, |e: &AgentEndEvent| {
            json!({"messageCount": e.messages.len(), "roles": roles(&e.messages)})
        });
        self.on(api, |e: &TurnStartEvent| json!({"turnIndex": e.turn_index}));
        self.on(api, |e: &TurnEndEvent| {
            json!({"turnIndex": e.turn_index, "toolResults": e.tool_results.len()})
        });
        self.on(api, |e: &MessageStartEvent| role_of(&e.message));
        self.on(api, |e: &MessageUpdateEvent| {
            json!({"type": serde_json::to_value(&*e.assistant_message_event).unwrap()["type"]})
        });
        self.on(api, |e: &MessageEndEvent| {
            let mut line = role_of(&e.message);
            if let Some(assistant) = e.message.as_assistant() {
                line["stopReason"] = serde_json::to_value(assistant.stop_reason).unwrap();
            }
            line
        });
        self.on(api, |e: &ToolExecutionStartEvent| {
            json!({"toolName": e.tool_name, "toolCallId": e.tool_call_id, "args": e.args})
        });
        self.on(api, |e: &ToolExecutionUpdateEvent| {
            json!({"toolName": e.tool_name, "toolCallId": e.tool_call_id})
        });
        self.on(api, |e: &ToolExecutionEndEvent| {
            json!({"toolName": e.tool_name, "toolCallId": e.tool_call_id, "isError": e.is_error})
        });
        self.on(api, |e: &ToolCallEvent| {
            json!({"toolName": e.tool_name, "toolCallId": e.tool_call_id, "input": e.input})
        });
        self.on(api, |e: &ToolResultEvent| {
            json!({"toolName": e.tool_name, "toolCallId": e.tool_call_id, "isError": e.is_error})
        });
        self.on(api, |e: &ContextEvent| json!({"roles": roles(&e.messages)}));
        self.on(api, |e: &BeforeProviderRequestEvent| {
            json!({"model": e.payload["model"],
                   "messages": e.payload["messages"].as_array().map_or(0, Vec::len)})
        });
        self.on(
            api,
            |e: &AfterProviderResponseEvent| json!({"status": e.status}),
        );
        self.on(api, |e: &ModelSelectEvent| {
            json!({"model": model_name(&e.model),
                   "previousModel": e.previous_model.as_ref().map(model_name), "source": e.source})
        });
        self.on(api, |e: &ThinkingLevelSelectEvent| {
            json!({"level": e.level, "previousLevel": e.previous_level})
        });
        self.on(api, |e: &UserBashEvent| {
            json!({"command": e.command, "excludeFromContext": e.exclude_from_context})
        });
        self.on(
            api,
            |e: &InputEvent| json!({"text": e.text, "source": e.source}),
        );
    }
}

/// The events pi's loop calls directly (not through its event queue).
const DIRECT: [&str; 5] = [
    "context",
    "before_provider_request",
    "after_provider_response",
    "tool_call",
    "tool_result",
];

/// pi's log made comparable with pi-rs's: pi's rpc mode binds extensions
/// twice after a fork, a new session and a switch (its runtime's rebind
/// and the command's own), so `session_start` + `resources_discover`
/// come twice there; pi-rs starts a session once.
fn without_rebinds(log: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for line in log {
        let n = out.len();
        let repeats_pair = line["event"] == "resources_discover"
            && n >= 3
            && out[n - 1]["event"] == "session_start"
            && out[n - 2]["event"] == "resources_discover"
            && out[n - 3] == out[n - 1];
        if repeats_pair {
            out.pop();
            continue;
        }
        out.push(line.clone());
    }
    out
}

/// The two orders compared: the run's events as the extension hears them
/// in order, and the loop's direct hooks in order. pi delivers the first
/// through an asynchronous queue whose interleaving with the second is an
/// artifact of JavaScript's task scheduling (its `context` may come
/// before the `turn_start` it belongs to); pi-rs awaits every event where
/// it happens.
fn split(log: &[Value]) -> (Vec<Value>, Vec<Value>) {
    log.iter()
        .cloned()
        .partition(|l| !DIRECT.contains(&l["event"].as_str().unwrap_or_default()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rust_extension_hears_what_pi_0_73_1_extensions_hear() {
    let scenario = Scenario::start(Vec::new()).await;
    let log: Log = Arc::default();
    let mut extensions = ExtensionSet::default();
    extensions.push(EventLogger(Arc::clone(&log)));
    let settings = json!({"compaction": {"keepRecentTokens": 1}});
    let app = app_with(&scenario, extensions, Some(&settings), "mock-oai/mock-gpt");
    let mut rpc = InProcessRpc::start(app);
    let server = &scenario.server;

    // 1. A prompt with one tool call.
    server.push(tool_answer(
        "bash",
        &json!({"command": "echo hi"}),
        "call_1",
    ));
    server.push(text_answer("The command printed hi."));
    rpc.prompt("Run echo hi.", |_| None).await;
    // 2. A steer sent while the tool runs.
    server.push(tool_answer(
        "bash",
        &json!({"command": "sleep 1 && echo slow"}),
        "call_2",
    ));
    server.push(text_answer("Done after steering."));
    let mut steered = false;
    rpc.prompt("Run the slow command.", |line| {
        (line["type"] == "tool_execution_start" && !std::mem::replace(&mut steered, true))
            .then(|| json!({"type": "steer", "message": "Also say done."}))
    })
    .await;
    // 3. A prompt aborted after its first text delta.
    server.push(stall_answer("Partial answer"));
    let mut aborted = false;
    rpc.prompt("Write a long answer.", |line| {
        let delta = line["type"] == "message_update"
            && line["assistantMessageEvent"]["type"] == "text_delta";
        (delta && !std::mem::replace(&mut aborted, true)).then(|| json!({"type": "abort"}))
    })
    .await;
    rpc.settle(300).await;
    // 4. A compaction with instructions (its turn is split: two summaries).
    let summary = "## Goal\nTalk.\n## Progress\nSummary.";
    server.push(text_answer(summary));
    server.push(text_answer(summary));
    rpc.call(json!({"type": "compact", "customInstructions": "Keep it short."}))
        .await;
    // 5. A user shell command.
    rpc.call(json!({"type": "bash", "command": "echo from-user"}))
        .await;
    // 6. Model and thinking level.
    rpc.call(json!({"type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt-think"}))
        .await;
    rpc.call(json!({"type": "set_thinking_level", "level": "high"}))
        .await;
    // 7. A prompt after the compaction.
    rpc.prompt("After compaction.", |_| None).await;
    let state = rpc.call(json!({"type": "get_state"})).await;
    let first = state["data"]["sessionFile"].as_str().unwrap().to_owned();
    // 8. A fork at the second user message.
    let forks = rpc.call(json!({"type": "get_fork_messages"})).await;
    let entry = forks["data"]["messages"][1]["entryId"].clone();
    rpc.call(json!({"type": "fork", "entryId": entry})).await;
    // 9. A new session, then back to the first.
    rpc.call(json!({"type": "new_session"})).await;
    rpc.call(json!({"type": "switch_session", "sessionPath": first}))
        .await;
    rpc.settle(300).await;
    rpc.close().await;

    let ours = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
    // `EXTENSION_EVENTS_DUMP=file` keeps pi-rs's log for a closer look.
    if let Ok(path) = std::env::var("EXTENSION_EVENTS_DUMP") {
        let lines: Vec<String> = ours.iter().map(Value::to_string).collect();
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }
    let pi = without_rebinds(&jsonl(&captures().join("events.jsonl")));
    let (our_events, our_hooks) = split(&ours);
    let (pi_events, pi_hooks) = split(&pi);
    assert_eq!(our_events, pi_events, "the run's events, in order");
    assert_eq!(our_hooks, pi_hooks, "the loop's hooks, in order");
}
