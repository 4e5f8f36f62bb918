#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Durability through the real binary: save failures are errors, the
//! first user message is on disk before the request, signals save the
//! partial answer, a second writer of a session file is refused.

mod e2e_common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use e2e_common::{Scenario, text};
use serde_json::Value;

/// A session file that cannot be created: a dangling symlink into a
/// directory that does not exist.
fn unwritable_session(s: &Scenario) -> std::path::PathBuf {
    let link = s.work.path().join("broken.jsonl");
    std::os::unix::fs::symlink(s.work.path().join("missing/dir/file.jsonl"), &link).unwrap();
    link
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_fails_when_the_session_cannot_be_saved() {
    let s = Scenario::fixture("a-text-oai").await;
    let link = unwritable_session(&s);
    let out = s
        .run(&[
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "--session",
            link.to_str().unwrap(),
            "What is 2 + 2? Also say hello.",
        ])
        .await;
    assert_eq!(text(&out.stdout), "Hello! I am a mock model. 2 + 2 = 4.\n");
    assert!(
        text(&out.stderr).contains("Error: Cannot save the session"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn json_mode_reports_the_save_error_and_fails() {
    let s = Scenario::fixture("a-text-oai").await;
    let link = unwritable_session(&s);
    let out = s
        .run(&[
            "--mode",
            "json",
            "--model",
            "mock-oai/mock-gpt",
            "--session",
            link.to_str().unwrap(),
            "What is 2 + 2? Also say hello.",
        ])
        .await;
    assert!(text(&out.stdout).contains(r#""type":"session_save_error""#));
    assert_eq!(out.status.code(), Some(1));
}

/// Runs rpc mode with `input` on stdin; returns the output lines up to
/// the one `until` accepts.
fn rpc_session(s: &Scenario, input: &[u8], until: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let dir = s.sessions_dir();
    let mut child = s
        .command(&[
            "--mode",
            "rpc",
            "--model",
            "mock-oai/mock-gpt",
            "--session-dir",
            dir.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        lines.push(serde_json::from_str::<Value>(&line.unwrap()).unwrap());
        if until(&lines) {
            break;
        }
    }
    drop(stdin);
    child.wait().unwrap();
    lines
}

fn responses<'a>(lines: &'a [Value], command: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "response" && l["command"] == command)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_refuses_a_switch_to_a_missing_directory_and_reports_save_errors() {
    let s = Scenario::fixture("a-text-oai").await;
    let link = unwritable_session(&s);
    let missing = s.work.path().join("nowhere/session.jsonl");
    let input = format!(
        "{}\n{}\n{}\n",
        serde_json::json!({"id": "1", "type": "switch_session", "sessionPath": missing}),
        serde_json::json!({"id": "2", "type": "switch_session", "sessionPath": link}),
        serde_json::json!({"id": "3", "type": "prompt", "message": "What is 2 + 2? Also say hello."}),
    );
    let lines = tokio::task::block_in_place(|| {
        rpc_session(&s, input.as_bytes(), |lines| {
            responses(lines, "prompt").len() >= 2
        })
    });
    let switches = responses(&lines, "switch_session");
    assert_eq!(switches[0]["success"], false, "{:?}", switches[0]);
    assert!(
        switches[0]["error"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    assert_eq!(switches[1]["success"], true);
    let prompts = responses(&lines, "prompt");
    assert_eq!(prompts[0]["success"], true);
    assert_eq!(prompts[1]["success"], false);
    assert_eq!(prompts[1]["id"], "3");
    assert!(
        prompts[1]["error"]
            .as_str()
            .unwrap()
            .contains("Cannot save the session")
    );
    assert!(lines.iter().any(|l| l["type"] == "session_save_error"));
}
