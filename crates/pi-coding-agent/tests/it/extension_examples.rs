//! The extension examples (`examples/extensions/`) run the scenarios pi
//! 0.73.1 ran with their TypeScript originals
//! (`fixtures/pi-0.73.1/extensions/examples/<name>/`, described in that
//! README's "Examples"), in process over rpc against the same mock
//! answers, with dialogs answered as pi's driver answered them. What pi-rs
//! sent the model, wrote to the session and asked the rpc client must be
//! what pi did. Volatile values (ids, timestamps) and the parts pi-rs
//! builds differently by design (the system prompt's text and tool
//! descriptions, docs/payload-differences.md) are left out of the
//! comparison.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

#[path = "../../examples/extensions/custom_compaction.rs"]
mod custom_compaction;
#[path = "../../examples/extensions/inline_bash.rs"]
mod inline_bash;
#[path = "../../examples/extensions/permission_gate.rs"]
mod permission_gate;
#[path = "../../examples/extensions/pirate.rs"]
mod pirate;
#[path = "../../examples/extensions/protected_paths.rs"]
mod protected_paths;
#[path = "../../examples/extensions/prune_context.rs"]
mod prune_context;
#[path = "../../examples/extensions/todo.rs"]
mod todo;

use e2e_common::Scenario;
use extension_common::{
    InProcessRpc, add_providers, answer_no, app_with, assert_lines, assert_requests,
    assert_session, command, pi_example, request_bodies, session_lines, system_prompt, text_answer,
    tool_answer, ui_requests,
};
use pi_coding_agent::extensions::{Extension, ExtensionSet};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// rpc mode on an app with `extension` alone, on the capture's model.
fn start(
    scenario: &Scenario,
    extension: impl Extension + 'static,
    settings: Option<&Value>,
) -> InProcessRpc {
    let mut extensions = ExtensionSet::default();
    extensions.push(extension);
    InProcessRpc::start(app_with(
        scenario,
        extensions,
        settings,
        "mock-oai/mock-gpt",
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_gate_asks_and_blocks_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    std::fs::create_dir(scenario.work.path().join("build")).unwrap();
    scenario.server.push(tool_answer(
        "bash",
        &json!({"command": "rm -rf build"}),
        "call_1",
    ));
    scenario.server.push(text_answer("I could not delete it."));
    let mut rpc = start(&scenario, permission_gate::PermissionGate::default(), None);
    rpc.prompt("Delete the build folder.", answer_no).await;
    let lines = rpc.close().await;

    let name = "permission-gate";
    assert_lines(&lines, name, "extension_ui_request");
    assert_lines(&lines, name, "tool_execution_end");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    assert!(
        scenario.work.path().join("build").is_dir(),
        "the command did not run"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_paths_blocks_a_write_to_env_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    let args = json!({"path": ".env", "content": "SECRET=1\n"});
    scenario.server.push(tool_answer("write", &args, "call_1"));
    scenario.server.push(text_answer("The write was blocked."));
    let mut rpc = start(&scenario, protected_paths::ProtectedPaths, None);
    rpc.prompt("Put SECRET=1 into .env.", |_| None).await;
    let lines = rpc.close().await;

    let name = "protected-paths";
    assert_lines(&lines, name, "extension_ui_request");
    assert_lines(&lines, name, "tool_execution_end");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    assert!(!scenario.work.path().join(".env").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todo_keeps_its_list_in_the_session_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    let server = &scenario.server;
    server.push(tool_answer(
        "todo",
        &json!({"action": "add", "text": "buy milk"}),
        "call_1",
    ));
    server.push(tool_answer("todo", &json!({"action": "list"}), "call_2"));
    server.push(text_answer("One todo."));
    let mut rpc = start(&scenario, todo::TodoExtension::default(), None);
    rpc.prompt("Add a todo and list them.", |_| None).await;
    command(&mut rpc, "/todos").await;
    let captured = rpc.seen.clone();
    // Beyond pi's capture: the list is rebuilt from the session on
    // `session_start` (empty in a new session, back after the switch).
    let state = rpc.call(json!({"type": "get_state"})).await;
    let file = state["data"]["sessionFile"].clone();
    rpc.call(json!({"type": "new_session"})).await;
    command(&mut rpc, "/todos").await;
    rpc.call(json!({"type": "switch_session", "sessionPath": file}))
        .await;
    command(&mut rpc, "/todos").await;
    let lines = rpc.close().await;

    let name = "todo";
    assert_lines(&captured, name, "tool_execution_end");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    // pi's `/todos` opens a custom component (`ctx.ui.custom`), which
    // sends nothing over rpc: pi wrote no `extension_ui_request`. The Rust
    // example shows the list as a notification instead.
    assert_eq!(
        ui_requests(&pi_example(name, "rpc.jsonl")),
        Vec::<Value>::new()
    );
    let list = "Todos: 0/1 completed\n○ #1 buy milk";
    let notify = |message: &str| json!({"type": "extension_ui_request", "method": "notify", "message": message, "notifyType": "info"});
    assert_eq!(
        ui_requests(&lines),
        vec![
            notify(list),
            notify("No todos yet. Ask the agent to add some!"),
            notify(list)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_bash_expands_the_prompt_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    scenario.server.push(text_answer("It says inline-output."));
    let mut rpc = start(&scenario, inline_bash::InlineBash, None);
    rpc.prompt("What does !{echo inline-output} print?", |_| None)
        .await;
    let lines = rpc.close().await;

    let name = "inline-bash";
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pirate_changes_the_system_prompt_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    let mut rpc = start(&scenario, pirate::Pirate::default(), None);
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("Hello.", |_| None).await;
    rpc.call(json!({"type": "prompt", "message": "/pirate"}))
        .await;
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Hello again.", |_| None).await;
    let lines = rpc.close().await;

    let name = "pirate";
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    // pi-rs's system prompt is its own text; what pirate mode appends is
    // pi's exactly.
    let pi = pi_example(name, "requests.jsonl");
    let pi_added = system_prompt(&pi[1])
        .strip_prefix(&system_prompt(&pi[0]))
        .unwrap()
        .to_owned();
    assert_eq!(pi_added, pirate::PIRATE_PROMPT);
    let ours = request_bodies(&scenario);
    assert_eq!(system_prompt(&ours[1]), system_prompt(&ours[0]) + &pi_added);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_compaction_summarizes_with_another_model_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    // As the capture: the registry's google/gemini-2.5-flash is served by the mock.
    let url = format!("{}/v1", scenario.server.url());
    add_providers(
        &scenario,
        json!({"google": {"baseUrl": url, "api": "openai-completions", "apiKey": "mock-google-key",
            "models": [{"id": "gemini-2.5-flash", "name": "Mock Gemini Flash",
                        "contextWindow": 128000, "maxTokens": 8192}]}}),
    );
    let settings = json!({"compaction": {"keepRecentTokens": 1}});
    let mut rpc = start(
        &scenario,
        custom_compaction::CustomCompaction,
        Some(&settings),
    );
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("First question.", |_| None).await;
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Second question.", |_| None).await;
    let summary = "## Goal\nTalk.\n## Progress\nSummary.";
    scenario.server.push(text_answer(summary));
    let response = rpc.call(json!({"type": "compact"})).await;
    let lines = rpc.close().await;

    let name = "custom-compaction";
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    let session = session_lines(&scenario);
    let compaction = session.last().unwrap();
    assert_eq!(
        compaction["firstKeptEntryId"],
        session[session.len() - 2]["id"]
    );
    let pi_response = pi_example(name, "rpc.jsonl")
        .into_iter()
        .find(|l| l["id"] == "c3")
        .unwrap();
    let without_id = |mut r: Value| {
        r["data"]
            .as_object_mut()
            .unwrap()
            .remove("firstKeptEntryId");
        r.as_object_mut().unwrap().remove("id");
        r
    };
    assert_eq!(without_id(response), without_id(pi_response));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prune_context_sends_the_last_four_messages_as_pi_does() {
    let scenario = Scenario::start(Vec::new()).await;
    let mut rpc = start(&scenario, prune_context::PruneContext, None);
    for (n, prompt) in ["First question.", "Second question.", "Third question."]
        .iter()
        .enumerate()
    {
        scenario
            .server
            .push(text_answer(&format!("Answer {}.", n + 1)));
        rpc.prompt(prompt, |_| None).await;
    }
    rpc.close().await;

    let name = "prune-context";
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
}
