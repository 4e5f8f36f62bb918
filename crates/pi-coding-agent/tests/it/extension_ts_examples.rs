//! pi's own TypeScript example extensions (`examples/extensions/` of
//! `@mariozechner/pi-coding-agent@0.73.1`, unmodified, as `.ci/setup`
//! installs the package) loaded through the extension host and run on the
//! scenarios pi 0.73.1 ran them with (`fixtures/pi-0.73.1/extensions/`):
//! what pi-rs sent the model, wrote to the session and asked the rpc
//! client must be what pi did.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

use std::path::PathBuf;

use e2e_common::Scenario;
use extension_common::ts::{self, Run};
use extension_common::{
    add_providers, answer_no, assert_lines, assert_requests, assert_session, command, pi_example,
    request_bodies, system_prompt, text_answer, tool_answer, ui_requests,
};
use pi_coding_agent::extensions::host::HostHandle;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// pi's example `name` (a file or folder under `examples/extensions/`).
fn example(name: &str) -> Option<PathBuf> {
    ts::example_path(name)
}

/// rpc mode on an app with the script extensions `files`, through the host.
async fn start(
    scenario: &Scenario,
    files: &[PathBuf],
    settings: Option<&Value>,
) -> (extension_common::InProcessRpc, Vec<HostHandle>) {
    let run = Run {
        settings,
        ..Run::default()
    };
    ts::start(scenario, files, run).await
}

async fn stop(rpc: extension_common::InProcessRpc, hosts: Vec<HostHandle>) -> Vec<Value> {
    ts::stop(rpc, hosts).await.lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_gate_asks_and_blocks_as_in_pi() {
    let Some(file) = example("permission-gate") else {
        return;
    };
    let scenario = Scenario::start(Vec::new()).await;
    std::fs::create_dir(scenario.work.path().join("build")).unwrap();
    scenario.server.push(tool_answer(
        "bash",
        &json!({"command": "rm -rf build"}),
        "call_1",
    ));
    scenario.server.push(text_answer("I could not delete it."));
    let (mut rpc, hosts) = start(&scenario, &[file], None).await;
    rpc.prompt("Delete the build folder.", answer_no).await;
    let lines = stop(rpc, hosts).await;

    let name = "permission-gate";
    assert_lines(&lines, name, "extension_ui_request");
    assert_lines(&lines, name, "tool_execution_end");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    assert!(scenario.work.path().join("build").is_dir());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_paths_blocks_a_write_to_env_as_in_pi() {
    let Some(file) = example("protected-paths") else {
        return;
    };
    let scenario = Scenario::start(Vec::new()).await;
    let args = json!({"path": ".env", "content": "SECRET=1\n"});
    scenario.server.push(tool_answer("write", &args, "call_1"));
    scenario.server.push(text_answer("The write was blocked."));
    let (mut rpc, hosts) = start(&scenario, &[file], None).await;
    rpc.prompt("Put SECRET=1 into .env.", |_| None).await;
    let lines = stop(rpc, hosts).await;

    let name = "protected-paths";
    assert_lines(&lines, name, "extension_ui_request");
    assert_lines(&lines, name, "tool_execution_end");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    assert!(!scenario.work.path().join(".env").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todo_keeps_its_list_in_the_session_as_in_pi() {
    let Some(file) = example("todo") else {
        return;
    };
    let scenario = Scenario::start(Vec::new()).await;
    let server = &scenario.server;
    server.push(tool_answer(
        "todo",
        &json!({"action": "add", "text": "buy milk"}),
        "call_1",
    ));
    server.push(tool_answer("todo", &json!({"action": "list"}), "call_2"));
    server.push(text_answer("One todo."));
    let (mut rpc, hosts) = start(&scenario, &[file], None).await;
    rpc.prompt("Add a todo and list them.", |_| None).await;
    command(&mut rpc, "/todos").await;
    let lines = stop(rpc, hosts).await;

    let name = "todo";
    assert_lines(&lines, name, "tool_execution_end");
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_bash_expands_the_prompt_as_in_pi() {
    let Some(file) = example("inline-bash") else {
        return;
    };
    let scenario = Scenario::start(Vec::new()).await;
    scenario.server.push(text_answer("It says inline-output."));
    let (mut rpc, hosts) = start(&scenario, &[file], None).await;
    rpc.prompt("What does !{echo inline-output} print?", |_| None)
        .await;
    let lines = stop(rpc, hosts).await;

    let name = "inline-bash";
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pirate_changes_the_system_prompt_as_in_pi() {
    let Some(file) = example("pirate") else {
        return;
    };
    let scenario = Scenario::start(Vec::new()).await;
    let (mut rpc, hosts) = start(&scenario, &[file], None).await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("Hello.", |_| None).await;
    rpc.call(json!({"type": "prompt", "message": "/pirate"}))
        .await;
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Hello again.", |_| None).await;
    let lines = stop(rpc, hosts).await;

    let name = "pirate";
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
    // What pirate mode appends to the system prompt is pi's exactly.
    let pi = pi_example(name, "requests.jsonl");
    let pi_added = system_prompt(&pi[1])
        .strip_prefix(&system_prompt(&pi[0]))
        .unwrap()
        .to_owned();
    let ours = request_bodies(&scenario);
    assert_eq!(system_prompt(&ours[1]), system_prompt(&ours[0]) + &pi_added);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_compaction_summarizes_with_another_model_as_in_pi() {
    let Some(file) = example("custom-compaction") else {
        return;
    };
    let scenario = Scenario::start(Vec::new()).await;
    let url = format!("{}/v1", scenario.server.url());
    add_providers(
        &scenario,
        json!({"google": {"baseUrl": url, "api": "openai-completions", "apiKey": "mock-google-key",
            "models": [{"id": "gemini-2.5-flash", "name": "Mock Gemini Flash",
                        "contextWindow": 128000, "maxTokens": 8192}]}}),
    );
    let settings = json!({"compaction": {"keepRecentTokens": 1}});
    let (mut rpc, hosts) = start(&scenario, &[file], Some(&settings)).await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("First question.", |_| None).await;
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Second question.", |_| None).await;
    scenario
        .server
        .push(text_answer("## Goal\nTalk.\n## Progress\nSummary."));
    let response = rpc.call(json!({"type": "compact"})).await;
    let lines = stop(rpc, hosts).await;

    let name = "custom-compaction";
    assert_eq!(response["success"], true, "{response}");
    assert_lines(&lines, name, "extension_ui_request");
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prune_context_sends_the_last_four_messages_as_in_pi() {
    let scenario = Scenario::start(Vec::new()).await;
    let (mut rpc, hosts) = start(
        &scenario,
        &[ts::capture_extension("prune-context.ts")],
        None,
    )
    .await;
    for (n, prompt) in ["First question.", "Second question.", "Third question."]
        .iter()
        .enumerate()
    {
        scenario
            .server
            .push(text_answer(&format!("Answer {}.", n + 1)));
        rpc.prompt(prompt, |_| None).await;
    }
    let lines = stop(rpc, hosts).await;
    assert_eq!(ui_requests(&lines), Vec::<Value>::new());

    let name = "prune-context";
    assert_requests(&scenario, name);
    assert_session(&scenario, name);
}
