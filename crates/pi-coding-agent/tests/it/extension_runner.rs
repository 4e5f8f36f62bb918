//! The runner's semantics seen from outside an app in rpc mode on the
//! loopback mock: what handlers change reaches the provider request (and
//! the session only where pi persists it), failures are `extension_error`
//! lines, and an app whose extensions listen to no run event installs no
//! hook. (The pure semantics are `src/extensions/runner_tests.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

use std::sync::Arc;

use e2e_common::{Scenario, jsonl};
use extension_common::{InProcessRpc, app_with, text_answer, tool_answer};
use pi_coding_agent::extensions::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn ext(
    path: &'static str,
    register: impl Fn(&mut ExtensionApi<'_>) + Send + Sync + 'static,
) -> FnExtension {
    FnExtension::new(path, register)
}

/// The rpc session of `extensions` on a fresh mock.
async fn start(extensions: Vec<FnExtension>) -> (Scenario, InProcessRpc) {
    let scenario = Scenario::start(Vec::new()).await;
    let app = app_with(
        &scenario,
        extensions.into_iter().collect(),
        None,
        "mock-oai/mock-gpt",
    );
    let rpc = InProcessRpc::start(app);
    (scenario, rpc)
}

/// The `messages` of every request the mock got, as text.
fn sent(scenario: &Scenario) -> Vec<String> {
    scenario
        .requests()
        .iter()
        .map(|r| r.json()["messages"].to_string())
        .collect()
}

/// The session file's message entries: `(role, content as text)`.
fn session_messages(scenario: &Scenario) -> Vec<(String, String)> {
    let files = scenario.session_files();
    assert_eq!(files.len(), 1, "one session file");
    jsonl(&files[0])
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| {
            let m = &e["message"];
            (
                m["role"].as_str().unwrap().to_owned(),
                m["content"].to_string(),
            )
        })
        .collect()
}

fn extension_errors(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "extension_error")
        .cloned()
        .collect()
}

fn roles(messages: &[Message]) -> Vec<String> {
    messages.iter().map(|m| m.role().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_changes_reach_the_request_never_the_session() {
    let (scenario, mut rpc) = start(vec![
        // Keeps only the last message, its text edited.
        ext("<pruner>", |api| {
            api.on(|event: ContextEvent, _| async move {
                let mut last = event
                    .messages
                    .last()
                    .cloned()
                    .into_iter()
                    .collect::<Vec<_>>();
                if let Some(Message::Standard(pi_ai::Message::User(user))) = last.first_mut() {
                    user.content = "edited by the pruner".into();
                }
                Ok(Some(ContextResult {
                    messages: Some(last),
                }))
            });
        }),
        ext("<broken>", |api| {
            api.on(|_: ContextEvent, _| async { Err(ExtensionError::new("context broke")) });
        }),
        // Sees the pruner's output despite the failure between them.
        ext("<checker>", |api| {
            api.on(|event: ContextEvent, _| async move {
                assert_eq!(roles(&event.messages), ["user"]);
                Ok(None)
            });
        }),
    ])
    .await;
    scenario.server.push(text_answer("First."));
    scenario.server.push(text_answer("Second."));
    rpc.prompt("First question.", |_| None).await;
    rpc.prompt("Second question.", |_| None).await;
    let agent_roles = roles(&rpc.app.agent.messages());
    let lines = rpc.close().await;

    let requests = sent(&scenario);
    assert!(
        requests[1].contains("edited by the pruner"),
        "{}",
        requests[1]
    );
    assert!(!requests[1].contains("First"), "{}", requests[1]);
    let session = session_messages(&scenario);
    assert_eq!(session.len(), 4, "the session keeps every message");
    assert!(session[2].1.contains("Second question."));
    assert_eq!(agent_roles, ["user", "assistant", "user", "assistant"]);
    let error = json!({"type": "extension_error", "extensionPath": "<broken>",
                       "event": "context", "error": "context broke"});
    assert_eq!(extension_errors(&lines), [error.clone(), error]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_input_is_what_runs_and_a_failing_gate_blocks() {
    let (scenario, mut rpc) = start(vec![ext("<gate>", |api| {
        api.on(|event: ToolCallEvent, _| async move {
            match event.input["command"].as_str() {
                Some("echo hi") => Ok(Some(ToolCallResult {
                    input: Some(json!({"command": "echo changed"})),
                    ..Default::default()
                })),
                _ => Err(ExtensionError::new("gate crashed")),
            }
        });
    })])
    .await;
    let server = &scenario.server;
    server.push(tool_answer(
        "bash",
        &json!({"command": "echo hi"}),
        "call_1",
    ));
    server.push(text_answer("Ran."));
    rpc.prompt("Run echo hi.", |_| None).await;
    server.push(tool_answer(
        "bash",
        &json!({"command": "echo other"}),
        "call_2",
    ));
    server.push(text_answer("Blocked."));
    rpc.prompt("Run echo other.", |_| None).await;
    let lines = rpc.close().await;

    let session = session_messages(&scenario);
    let results: Vec<&String> = session
        .iter()
        .filter(|(role, _)| role == "toolResult")
        .map(|(_, content)| content)
        .collect();
    assert!(results[0].contains("changed"), "{}", results[0]);
    assert!(results[1].contains("gate crashed"), "{}", results[1]);
    assert_eq!(
        extension_errors(&lines),
        [json!({"type": "extension_error", "extensionPath": "<gate>",
                "event": "tool_call", "error": "gate crashed"})]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn message_end_keeps_same_role_replacements_and_refuses_others() {
    let (scenario, mut rpc) = start(vec![ext("<rewriter>", |api| {
        api.on(|event: MessageEndEvent, _| async move {
            let message =
                match &*event.message {
                    Message::Standard(pi_ai::Message::Assistant(assistant)) => {
                        let mut replaced = assistant.clone();
                        replaced.content = vec![pi_ai::AssistantContent::text("Replaced.")];
                        Message::Standard(pi_ai::Message::Assistant(replaced))
                    }
                    // An assistant message for a user message: refused.
                    _ => Message::Standard(pi_ai::Message::Assistant(
                        pi_ai::AssistantMessage::empty("x".into(), "x".into(), "m", 1),
                    )),
                };
            Ok(Some(MessageEndResult {
                message: Some(message),
            }))
        });
    })])
    .await;
    scenario.server.push(text_answer("Original."));
    rpc.prompt("Hello.", |_| None).await;
    let lines = rpc.close().await;
    let session = session_messages(&scenario);
    assert_eq!(session[0].0, "user");
    assert!(session[0].1.contains("Hello."));
    assert_eq!(session[1].0, "assistant");
    assert!(session[1].1.contains("Replaced."), "{}", session[1].1);
    assert_eq!(
        extension_errors(&lines),
        [
            json!({"type": "extension_error", "extensionPath": "<rewriter>", "event": "message_end",
                "error": "message_end handlers must return a message with the same role"})
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_transforms_chain_handled_stops_and_commands_come_first() {
    let heard: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&heard);
    let (scenario, mut rpc) = start(vec![ext("<input>", move |api| {
        let log = Arc::clone(&log);
        api.on(move |event: InputEvent, _| {
            log.lock().unwrap().push(event.text.clone());
            async move {
                Ok(Some(match event.text.as_str() {
                    "skip" => InputResult::Handled,
                    text => InputResult::Transform {
                        text: format!("{text} (a)"),
                        images: None,
                    },
                }))
            }
        });
        api.on(|event: InputEvent, _| async move {
            Ok(Some(InputResult::Transform {
                text: format!("{} (b)", event.text),
                images: None,
            }))
        });
        api.register_command("cmd", None, |_, _| async { Ok(()) });
    })])
    .await;
    scenario.server.push(text_answer("Ok."));
    rpc.prompt("hi", |_| None).await;
    rpc.call(json!({"type": "prompt", "message": "skip"})).await;
    rpc.call(json!({"type": "prompt", "message": "/cmd now"}))
        .await;
    rpc.settle(200).await;
    rpc.close().await;
    let requests = sent(&scenario);
    assert_eq!(
        requests.len(),
        1,
        "handled input and commands make no request"
    );
    assert!(requests[0].contains("hi (a) (b)"), "{}", requests[0]);
    assert_eq!(
        *heard.lock().unwrap(),
        ["hi", "skip"],
        "no input for a command"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_agent_start_adds_messages_and_sets_the_prompt_for_one_run() {
    let (scenario, mut rpc) = start(vec![ext("<starter>", |api| {
        api.on(|event: BeforeAgentStartEvent, _| async move {
            if event.prompt != "First." {
                return Ok(None);
            }
            Ok(Some(BeforeAgentStartResult {
                message: Some(NewCustomMessage {
                    custom_type: "note".to_owned(),
                    content: "a note from the extension".to_owned().into(),
                    display: true,
                    details: None,
                }),
                system_prompt: Some(format!("{}\nPIRATE MODE", event.system_prompt)),
            }))
        });
    })])
    .await;
    scenario.server.push(text_answer("Arr."));
    scenario.server.push(text_answer("Plain."));
    rpc.prompt("First.", |_| None).await;
    rpc.prompt("Second.", |_| None).await;
    rpc.close().await;
    let system = |r: &pi_test_support::mock_server::RecordedRequest| {
        r.json()["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let requests = scenario.requests();
    assert!(system(&requests[0]).ends_with("\nPIRATE MODE"));
    assert_eq!(
        format!("{}\nPIRATE MODE", system(&requests[1])),
        system(&requests[0]),
        "the next run is back on the base prompt"
    );
    assert!(sent(&scenario)[0].contains("a note from the extension"));
    // Saved too (as pi saves it: a `custom_message` entry).
    let file = std::fs::read_to_string(&scenario.session_files()[0]).unwrap();
    let note = jsonl(&scenario.session_files()[0])
        .into_iter()
        .find(|e| e.to_string().contains("a note from the extension"));
    assert!(note.is_some(), "{file}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_switch_or_fork_leaves_the_session_as_it_was() {
    let (scenario, mut rpc) = start(vec![ext("<keeper>", |api| {
        api.on(|_: SessionBeforeSwitchEvent, _| async { Ok(Some(CancelResult { cancel: true })) });
        api.on(|_: SessionBeforeForkEvent, _| async {
            Ok(Some(ForkResult {
                cancel: true,
                skip_conversation_restore: false,
            }))
        });
    })])
    .await;
    scenario.server.push(text_answer("Kept."));
    rpc.prompt("Keep me.", |_| None).await;
    let before = rpc.call(json!({"type": "get_state"})).await["data"].clone();
    let new = rpc.call(json!({"type": "new_session"})).await;
    assert_eq!(new["data"], json!({"cancelled": true}));
    let forks = rpc.call(json!({"type": "get_fork_messages"})).await;
    let entry = forks["data"]["messages"][0]["entryId"].clone();
    let fork = rpc.call(json!({"type": "fork", "entryId": entry})).await;
    assert_eq!(fork["data"]["cancelled"], json!(true));
    let after = rpc.call(json!({"type": "get_state"})).await["data"].clone();
    assert_eq!(after["sessionFile"], before["sessionFile"]);
    assert_eq!(after["messageCount"], before["messageCount"]);
    assert_eq!(rpc.app.agent.messages().len(), 2);
    rpc.close().await;
    assert_eq!(scenario.session_files().len(), 1);
}

/// Whether the app's agent has none of the extension hooks.
fn no_hooks(app: &pi_coding_agent::app::App) -> bool {
    app.agent.update_settings(|s| {
        s.transform_context.is_none()
            && s.before_tool_call.is_none()
            && s.after_tool_call.is_none()
            && s.finalize_message.is_none()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extensions_of_other_events_install_no_hook() {
    let scenario = Scenario::start(Vec::new()).await;
    let none = app_with(
        &scenario,
        ExtensionSet::default(),
        None,
        "mock-oai/mock-gpt",
    );
    assert!(no_hooks(&none));
    let unrelated: ExtensionSet = ExtensionSet::from_iter(vec![ext("<start>", |api| {
        api.on(|_: SessionStartEvent, _| async { Ok(None) });
    })]);
    let scenario = Scenario::start(Vec::new()).await;
    let app = app_with(&scenario, unrelated, None, "mock-oai/mock-gpt");
    assert!(no_hooks(&app));
    let listening: ExtensionSet = ExtensionSet::from_iter(vec![ext("<context>", |api| {
        api.on(|_: ContextEvent, _| async { Ok(None) });
    })]);
    let scenario = Scenario::start(Vec::new()).await;
    let app = app_with(&scenario, listening, None, "mock-oai/mock-gpt");
    assert!(!no_hooks(&app));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_queued_during_a_run_goes_through_input_first() {
    let (scenario, mut rpc) = start(vec![ext("<shout>", |api| {
        api.on(|event: InputEvent, _| async move {
            Ok(Some(InputResult::Transform {
                text: format!("{} ({})", event.text.to_uppercase(), event.source),
                images: None,
            }))
        });
    })])
    .await;
    scenario.server.push(tool_answer(
        "bash",
        &json!({"command": "sleep 1"}),
        "call_1",
    ));
    scenario.server.push(text_answer("Done."));
    let mut queued = false;
    rpc.prompt("run it", |line| {
        (line["type"] == "tool_execution_start" && !std::mem::replace(&mut queued, true)).then(
            || json!({"type": "prompt", "message": "also this", "streamingBehavior": "steer"}),
        )
    })
    .await;
    rpc.settle(200).await;
    rpc.close().await;
    let requests = sent(&scenario);
    assert!(requests[0].contains("RUN IT (rpc)"), "{}", requests[0]);
    // The steering message reached the second call transformed.
    assert!(requests[1].contains("ALSO THIS (rpc)"), "{}", requests[1]);
}
