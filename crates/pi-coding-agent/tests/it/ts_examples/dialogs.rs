//! Examples that ask the user: confirmations before session changes,
//! timed dialogs, rpc-demo's every dialog kind, and the editor of handoff
//! and qna.

use serde_json::{Value, json};

use super::setup;
use crate::extension_common::text_answer;
use crate::extension_common::tool_answer;
use crate::extension_common::ts::{
    Neutral, Run, answers, assert_responses, check, check_with, command_answering, data, fork_ids,
    git_repo, start, stop, write,
};

const UI: &str = "extension_ui_request";

/// Sends `command` answering its dialogs with `replies`; its response.
async fn call(
    rpc: &mut crate::extension_common::InProcessRpc,
    command: Value,
    replies: Vec<Value>,
) -> Value {
    rpc.call_answering(command, answers(replies)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_destructive_asks_before_session_changes() {
    let name = "confirm-destructive";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("Hello.", |_| None).await;
    let state = rpc.call(json!({"type": "get_state"})).await;
    let first = data(&state)["sessionFile"].as_str().unwrap().to_owned();
    let new = json!({"type": "new_session"});
    call(&mut rpc, new.clone(), vec![json!({"confirmed": false})]).await;
    call(&mut rpc, new, vec![json!({"confirmed": true})]).await;
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Second session.", |_| None).await;
    let switch = json!({"type": "switch_session", "sessionPath": first});
    call(&mut rpc, switch.clone(), vec![json!({"confirmed": false})]).await;
    call(&mut rpc, switch, vec![json!({"confirmed": true})]).await;
    let ids = fork_ids(&mut rpc).await;
    let fork = json!({"type": "fork", "entryId": ids[0]});
    let no = json!({"value": "No, stay in current session"});
    call(&mut rpc, fork.clone(), vec![no]).await;
    call(&mut rpc, fork, vec![json!({"value": "Yes, create fork"})]).await;
    let ran = stop(rpc, hosts).await;
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent])
        .with(r"Fork from entry [0-9a-f]{8}\?", "Fork from entry <id>?");
    check_with(&scenario, name, &ran, &[UI], &neutral);
    let commands = ["new_session", "switch_session", "fork"];
    assert_responses(&ran.lines, name, &neutral, &commands);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dirty_repo_guard_asks_while_files_are_uncommitted() {
    let name = "dirty-repo-guard";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let work = scenario.work.path();
    git_repo(work, &[("README.md", "# demo\n")]);
    write(&work.join("notes.txt"), "uncommitted\n");
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("Hello.", |_| None).await;
    let new = json!({"type": "new_session"});
    let no = json!({"value": "No, let me commit first"});
    call(&mut rpc, new.clone(), vec![no]).await;
    let ids = fork_ids(&mut rpc).await;
    let fork = json!({"type": "fork", "entryId": ids[0]});
    call(
        &mut rpc,
        fork,
        vec![json!({"value": "Yes, proceed anyway"})],
    )
    .await;
    let commit = "git add -A && git commit -q -m notes && git status --porcelain";
    rpc.call(json!({"type": "bash", "command": commit})).await;
    call(&mut rpc, new, Vec::new()).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI]);
    let commands = ["new_session", "fork", "bash"];
    assert_responses(&ran.lines, name, &neutral, &commands);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_confirm_dialogs_time_out() {
    let name = "timed-confirm";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    command_answering(&mut rpc, "/timed", vec![json!({"confirmed": true})]).await;
    let b = json!({"value": "Option B"});
    command_answering(&mut rpc, "/timed-select", vec![b]).await;
    // Left unanswered: the dialog's timeout, then the extension's own
    // AbortSignal, end them after 5 s each.
    command_answering(&mut rpc, "/timed", vec![Value::Null]).await;
    command_answering(&mut rpc, "/timed-signal", vec![Value::Null]).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI]);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_demo_uses_every_dialog() {
    let name = "rpc-demo";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let server = &scenario.server;
    let rm = json!({"command": "rm -rf build"});
    server.push(tool_answer("bash", &rm, "call_1"));
    server.push(text_answer("It was blocked."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    let block = answers(vec![json!({"value": "Block"})]);
    rpc.prompt("Clean the build folder.", block).await;
    server.push(tool_answer("bash", &rm, "call_1"));
    server.push(text_answer("Removed."));
    let allow = answers(vec![json!({"value": "Allow"})]);
    rpc.prompt("Clean it anyway.", allow).await;
    command_answering(&mut rpc, "/rpc-input", vec![json!({"value": "hello"})]).await;
    let cancel = json!({"cancelled": true});
    command_answering(&mut rpc, "/rpc-input", vec![cancel]).await;
    command_answering(&mut rpc, "/rpc-editor", vec![json!({"value": "A\nB"})]).await;
    command_answering(&mut rpc, "/rpc-prefill", Vec::new()).await;
    let new = json!({"type": "new_session"});
    call(&mut rpc, new.clone(), vec![json!({"confirmed": false})]).await;
    call(&mut rpc, new, vec![json!({"confirmed": true})]).await;
    let ran = stop(rpc, hosts).await;
    // pi 0.73.1 runs every extension's factory again for a new session
    // (its turn count starts again at 0); pi-rs keeps the extensions it
    // loaded, and their state (docs/extensions.md).
    let last = ran.lines.iter().rev().find(|l| l["method"] == "setStatus");
    assert_eq!(last.unwrap()["statusText"], "Turns: 4");
    let neutral =
        Neutral::new(&scenario, &[&ran.lines, &ran.sent]).with(r"Turns: \d+", "Turns: <n>");
    check_with(&scenario, name, &ran, &[UI, "tool_execution_end"], &neutral);
    assert_responses(&ran.lines, name, &neutral, &["new_session"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handoff_moves_to_a_new_session() {
    let name = "handoff";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("We decided to use SQLite.", |_| None).await;
    command_answering(&mut rpc, "/handoff", Vec::new()).await;
    let cancel = json!({"cancelled": true});
    command_answering(&mut rpc, "/handoff add tests", vec![cancel]).await;
    let goal = json!({"value": "Add tests for the SQLite layer."});
    command_answering(&mut rpc, "/handoff add tests", vec![goal]).await;
    let state = rpc.call(json!({"type": "get_state"})).await;
    assert_eq!(data(&state)["messageCount"], 0, "{state}");
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Add tests for the SQLite layer.", |_| None)
        .await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, name, &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qna_loads_the_questions_into_the_editor() {
    let name = "qna";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command_answering(&mut rpc, "/qna", Vec::new()).await;
    let questions = "Which database do you prefer? Should we use TypeScript?";
    scenario.server.push(text_answer(questions));
    rpc.prompt("Help me set up the project.", |_| None).await;
    command_answering(&mut rpc, "/qna", Vec::new()).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, name, &ran, &[UI]);
}
