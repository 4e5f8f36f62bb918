//! Examples that bring tools: a replaced `read`, tools registered at run
//! time, one that ends the run, one that truncates, the tool picker, tools
//! that shut pi down, and git checkpoints around the built-in `write`.

use serde_json::json;

use super::setup;
use crate::extension_common::ts::{
    Neutral, Run, assert_responses, check, check_with, fork_ids, git, git_repo, start, stop, write,
};
use crate::extension_common::{captures, command, text_answer, tool_answer};

const UI: &str = "extension_ui_request";
const TOOL_END: &str = "tool_execution_end";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_override_replaces_read_and_logs_access() {
    let name = "tool-override";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let work = scenario.work.path();
    write(&work.join("notes.txt"), "first line\nsecond line\n");
    write(&work.join(".env"), "SECRET=1\n");
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    command(&mut rpc, "/read-log").await;
    let server = &scenario.server;
    server.push(tool_answer("read", &json!({"path": "notes.txt"}), "call_1"));
    server.push(tool_answer("read", &json!({"path": ".env"}), "call_2"));
    let part = json!({"path": "notes.txt", "offset": 2, "limit": 1});
    server.push(tool_answer("read", &part, "call_3"));
    server.push(tool_answer(
        "read",
        &json!({"path": "missing.txt"}),
        "call_4",
    ));
    server.push(text_answer("Done reading."));
    rpc.prompt("Read my notes and .env.", |_| None).await;
    command(&mut rpc, "/read-log").await;
    let ran = stop(rpc, hosts).await;
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent])
        .with(r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\]", "[<time>]");
    check_with(&scenario, name, &ran, &[UI, TOOL_END], &neutral);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
    let log = std::fs::read_to_string(scenario.agent_dir.path().join("read-access.log")).unwrap();
    let pi_log = captures()
        .join("examples")
        .join(name)
        .join("read-access.log");
    assert_eq!(neutral.text(&log), std::fs::read_to_string(pi_log).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamic_tools_register_tools_at_run_time() {
    let name = "dynamic-tools";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    let server = &scenario.server;
    let hi = json!({"message": "hi"});
    server.push(tool_answer("echo_session", &hi, "call_1"));
    server.push(text_answer("Echoed."));
    rpc.prompt("Echo hi.", |_| None).await;
    command(&mut rpc, "/add-echo-tool shout").await;
    command(&mut rpc, "/add-echo-tool shout").await;
    command(&mut rpc, "/add-echo-tool Bad-Name!").await;
    let loud = json!({"message": "loud"});
    server.push(tool_answer("shout", &loud, "call_1"));
    server.push(text_answer("Shouted."));
    rpc.prompt("Shout loud.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI, TOOL_END]);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_tool_truncates_rg_output_as_pi_does() {
    let name = "truncated-tool";
    if pi_test_support::external::rg().is_none() {
        return;
    }
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let work = scenario.work.path();
    write(&work.join("src/a.txt"), "needle one\nhay\nneedle two\n");
    let big: String = (1..=2100).map(|i| format!("line {i}\n")).collect();
    write(&work.join("big.txt"), &big);
    let server = &scenario.server;
    let needle = json!({"pattern": "needle", "path": "src"});
    server.push(tool_answer("rg", &needle, "call_1"));
    let line = json!({"pattern": "line", "path": "big.txt"});
    server.push(tool_answer("rg", &line, "call_2"));
    let absent = json!({"pattern": "absent", "glob": "*.txt"});
    server.push(tool_answer("rg", &absent, "call_3"));
    server.push(text_answer("Searched."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Search for needle, line and absent.", |_| None)
        .await;
    let ran = stop(rpc, hosts).await;
    // The full output goes to a fresh folder in the host's temp dir (pi's
    // capture ran with TMPDIR=<root>/tmp).
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent])
        .with(r"[^\s:]*/pi-rg-[A-Za-z0-9]{6}", "<root>/tmp/pi-rg-XXXXXX");
    check_with(&scenario, name, &ran, &[UI, TOOL_END], &neutral);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_picker_needs_a_terminal() {
    let name = "tools";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    command(&mut rpc, "/tools").await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("Hello.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI]);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

/// shutdown-command's runs: a tool whose `ctx.shutdown()` ends pi after the
/// next command (`deploy_and_exit`, `finish_and_exit`).
async fn shutdown_by_tool(run: &str, tool: &str, args: serde_json::Value, prompt: &str) {
    let Some((scenario, file)) = setup("shutdown-command").await else {
        return;
    };
    scenario.server.push(tool_answer(tool, &args, "call_1"));
    let after = if tool == "deploy_and_exit" {
        "Deployed."
    } else {
        "Finished."
    };
    scenario.server.push(text_answer(after));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt(prompt, |_| None).await;
    // rpc mode checks for a requested shutdown after each command.
    rpc.call(json!({"type": "get_state"})).await;
    let ran = stop(rpc, hosts).await;
    check(
        &scenario,
        run,
        &ran,
        &[UI, TOOL_END, "tool_execution_update"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_command_deploy_exits_after_the_run() {
    let args = json!({"environment": "staging"});
    shutdown_by_tool(
        "shutdown-command",
        "deploy_and_exit",
        args,
        "Deploy to staging.",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_command_finish_exits_after_the_run() {
    let run = "shutdown-command/finish";
    shutdown_by_tool(run, "finish_and_exit", json!({}), "Finish up.").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_command_quit_exits() {
    let Some((scenario, file)) = setup("shutdown-command").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    command(&mut rpc, "/quit").await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "shutdown-command/quit", &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_checkpoint_stashes_at_each_turn() {
    let name = "git-checkpoint";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let work = scenario.work.path();
    git_repo(work, &[("file.txt", "original\n")]);
    let change = json!({"path": "file.txt", "content": "changed\n"});
    scenario
        .server
        .push(tool_answer("write", &change, "call_1"));
    scenario.server.push(text_answer("Changed."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Change file.txt.", |_| None).await;
    let ids = fork_ids(&mut rpc).await;
    rpc.call(json!({"type": "fork", "entryId": ids[0]})).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI, TOOL_END]);
    assert_responses(&ran.lines, name, &neutral, &["fork"]);
    // What `git stash create` left, hashes aside (the host's git runs
    // with the current date).
    let mut out = format!(
        "$ git status --porcelain\n{}",
        git(work, &["status", "--porcelain"])
    );
    out += &format!("$ git stash list\n{}", git(work, &["stash", "list"]));
    let hash = regex::Regex::new("[0-9a-f]{40}").unwrap();
    let mut lost: Vec<String> = git(work, &["fsck", "--unreachable", "--no-reflogs"])
        .lines()
        .map(|l| hash.replace_all(l, "<sha>").into_owned())
        .collect();
    lost.sort();
    let pi =
        std::fs::read_to_string(captures().join("examples").join(name).join("git.txt")).unwrap();
    let mut pi_lost: Vec<String> = pi
        .lines()
        .skip_while(|l| !l.starts_with("$ git fsck"))
        .skip(1)
        .take_while(|l| !l.starts_with('$'))
        .map(|l| hash.replace_all(l, "<sha>").into_owned())
        .collect();
    pi_lost.sort();
    assert!(pi.starts_with(&out), "{out}");
    assert_eq!(lost, pi_lost);
}
