//! Extensions in another process, through the host protocol
//! (docs/extension-protocol.md): the Python example client
//! (`examples/python-extension/`) loaded as pi-rs loads any script
//! extension, driven over rpc against the loopback mock. Its tool's result
//! reaches the model, its `tool_call` gate blocks, its command talks to
//! the UI and writes the session, and a host that dies fails closed and is
//! started again.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

use std::path::{Path, PathBuf};

use e2e_common::Scenario;
use extension_common::{
    InProcessRpc, app_with, request_bodies, session_lines, text_answer, tool_answer, ui_requests,
};
use pi_coding_agent::extensions::ExtensionSet;
use pi_coding_agent::extensions::host::{self, HostOptions};
use serde_json::{Value, json};

fn python_example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/python-extension")
        .join(name)
}

/// The script extensions `files` through their hosts, in rpc mode.
async fn start(scenario: &Scenario, files: &[PathBuf]) -> (InProcessRpc, Vec<host::HostHandle>) {
    assert!(
        pi_test_support::external::python3().is_some() || !pi_test_support::external::in_ci(),
        "python3 is needed"
    );
    let started = host::start(
        files,
        HostOptions {
            cwd: scenario.work.path().to_path_buf(),
            agent_dir: scenario.agent_dir.path().to_path_buf(),
            mode: "rpc".into(),
            output_to_terminal: false,
            ..HostOptions::default()
        },
    )
    .await;
    assert_eq!(started.warnings, Vec::<String>::new());
    let extensions = ExtensionSet(started.extensions);
    let app = app_with(scenario, extensions, None, "mock-oai/mock-gpt");
    (InProcessRpc::start(app), started.handles)
}

fn tool_results(scenario: &Scenario) -> Vec<Value> {
    request_bodies(scenario).last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_extension_adds_a_tool_gates_bash_and_runs_a_command() {
    let scenario = Scenario::start(Vec::new()).await;
    std::fs::create_dir(scenario.work.path().join("build")).unwrap();
    scenario
        .server
        .push(tool_answer("shout", &json!({"text": "hello"}), "call_1"));
    scenario.server.push(tool_answer(
        "bash",
        &json!({"command": "rm -rf build"}),
        "call_2",
    ));
    scenario.server.push(text_answer("Done."));
    let (mut rpc, hosts) = start(&scenario, &[python_example("hello.py")]).await;

    let commands = rpc.call(json!({"type": "get_commands"})).await;
    assert_eq!(commands["data"]["commands"][0]["name"], "py-hello");
    rpc.prompt("Shout hello, then delete build.", |_| None)
        .await;
    let response = rpc
        .call(json!({"type": "prompt", "message": "/py-hello Ada"}))
        .await;
    assert_eq!(response["success"], true, "{response}");
    rpc.settle(300).await;
    let lines = rpc.close().await;
    for host in &hosts {
        host.stop().await;
    }

    // The tool ran in Python; its result reached the model.
    let results = tool_results(&scenario);
    assert_eq!(results[0]["content"], "HELLO");
    // The gate blocked the command (fail closed: nothing deleted).
    assert!(
        results[1]["content"]
            .as_str()
            .unwrap()
            .contains("rm -rf is blocked by hello.py"),
        "{results:#?}"
    );
    assert!(scenario.work.path().join("build").is_dir());
    // The command notified through the rpc UI and wrote the session.
    assert_eq!(
        ui_requests(&lines),
        vec![json!({"type": "extension_ui_request", "method": "notify",
                     "message": "Hello, Ada!", "notifyType": "info"})]
    );
    let custom: Vec<Value> = session_lines(&scenario)
        .into_iter()
        .filter(|e| e["type"] == "custom")
        .collect();
    assert_eq!(custom.len(), 1, "{custom:#?}");
    assert_eq!(custom[0]["customType"], "py-hello");
    assert_eq!(custom[0]["data"]["name"], "Ada");
    // The session mirror had the entries so far (header aside: the
    // messages of the first prompt and the model change before them).
    assert!(
        custom[0]["data"]["entries"].as_u64().unwrap() >= 5,
        "{custom:#?}"
    );
}

/// A Python extension whose `tool_call` gate misbehaves (`FAULT`) on its
/// first call and allows every later one.
const FAULTY: &str = r#"
import os, sys, time
sys.path.insert(0, EXAMPLE_DIR)
from pi_extension import Extension

ext = Extension()
marker = os.path.join(os.getcwd(), "faulted-once")

@ext.on("tool_call")
def gate(event, ctx):
    if not os.path.exists(marker):
        open(marker, "w").close()
        FAULT
    return None

ext.run()
"#;

/// Two bash calls with the gate doing `fault` on the first: the tool
/// results the model got, every rpc line, and how long the prompt took.
async fn run_faulty(fault: &str) -> (Vec<Value>, Vec<Value>, std::time::Duration) {
    let scenario = Scenario::start(Vec::new()).await;
    let script = scenario.work.path().join("faulty.py");
    let dir = python_example("");
    let source = FAULTY
        .replace("EXAMPLE_DIR", &format!("{:?}", dir.to_str().unwrap()))
        .replace("FAULT", fault);
    std::fs::write(&script, source).unwrap();
    for (n, word) in ["first", "second"].iter().enumerate() {
        scenario.server.push(tool_answer(
            "bash",
            &json!({ "command": format!("echo {word}") }),
            &format!("call_{}", n + 1),
        ));
    }
    scenario.server.push(text_answer("Done."));
    let (mut rpc, hosts) = start(&scenario, &[script]).await;
    let started = std::time::Instant::now();
    rpc.prompt("Run two commands.", |_| None).await;
    let waited = started.elapsed();
    rpc.settle(300).await;
    let lines = rpc.close().await;
    for host in &hosts {
        host.stop().await;
    }
    (tool_results(&scenario), lines, waited)
}

/// The error notifications among rpc `lines`.
fn error_notifications(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["method"] == "notify" && l["notifyType"] == "error")
        .map(|l| l["message"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_dies_fails_closed_and_starts_again() {
    let (results, lines, _) = run_faulty("os._exit(3)").await;
    let first = results[0]["content"].as_str().unwrap();
    assert!(first.contains("extension host is down"), "{first}");
    assert_eq!(results[1]["content"], "second\n");
    let errors = error_notifications(&lines);
    assert_eq!(errors.len(), 1, "{lines:#?}");
    assert!(
        errors[0].starts_with("Extension host stopped"),
        "{errors:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_stops_answering_is_found_and_replaced() {
    // Silent but alive: it takes the lock every message out needs.
    let (results, _, waited) =
        run_faulty("ext.connection._write_lock.acquire(); time.sleep(3600)").await;
    let first = results[0]["content"].as_str().unwrap();
    assert!(first.contains("stopped answering"), "{first}");
    assert_eq!(results[1]["content"], "second\n");
    assert!(waited < std::time::Duration::from_secs(20), "{waited:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_writes_garbage_is_put_down_and_started_again() {
    let (results, lines, _) =
        run_faulty(r#"ext.connection._sock.sendall(b"this is not JSON\n")"#).await;
    let first = results[0]["content"].as_str().unwrap();
    assert!(first.contains("not a message"), "{first}");
    assert_eq!(results[1]["content"], "second\n");
    let errors = error_notifications(&lines);
    assert!(
        errors.iter().any(|e| e.contains("this is not JSON")),
        "{errors:#?}"
    );
}
