#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Durability through the real binary: save failures are errors, the
//! first user message is on disk before the request, signals save the
//! partial answer, a second writer of a session file is refused.

use crate::e2e_common;

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
    let mut child = s.rpc_command().spawn().unwrap();
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

/// The first frames of the recorded answer (role and "Hello! I am "),
/// then silence until the client gives up.
fn stalled_answer() -> pi_test_support::mock_server::MockResponse {
    let recorded = e2e_common::recorded_responses("a-text-oai");
    let pi_test_support::mock_server::MockResponse::Sse { frames, .. } = &recorded[0] else {
        panic!("the fixture answer is SSE");
    };
    pi_test_support::mock_server::MockResponse::StallSse {
        frames: frames[..2].to_vec(),
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed().as_secs() < 20,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn kill(child: &std::process::Child, signal: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
}

/// Starts `pi -p` on a stalled answer and waits until the partial text
/// has been received and the prompt is on disk.
fn start_stalled_print(s: &Scenario) -> (std::process::Child, std::path::PathBuf) {
    let dir = s.sessions_dir();
    let child = s
        .command(&[
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "--session-dir",
            dir.to_str().unwrap(),
            "What is 2 + 2? Also say hello.",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the request", || !s.requests().is_empty());
    // The prompt was written before the request was sent.
    let files = s.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let entries = e2e_common::jsonl(&files[0]);
    assert_eq!(entries.len(), 4, "{entries:#?}");
    assert_eq!(entries[0]["type"], "session");
    assert_eq!(entries[3]["message"]["role"], "user");
    // Let the first frames arrive.
    std::thread::sleep(std::time::Duration::from_millis(300));
    (child, files[0].clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signal_saves_the_partial_answer_as_aborted() {
    use nix::sys::signal::Signal;
    for (signal, code) in [
        (Signal::SIGTERM, 143),
        (Signal::SIGINT, 130),
        (Signal::SIGHUP, 129),
    ] {
        let s = Scenario::start(vec![stalled_answer()]).await;
        let (child, file) = tokio::task::block_in_place(|| start_stalled_print(&s));
        kill(&child, signal);
        let out = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
        assert_eq!(
            out.status.code(),
            Some(code),
            "{signal}: {}",
            text(&out.stderr)
        );
        let entries = e2e_common::jsonl(&file);
        let last = entries.last().unwrap();
        assert_eq!(last["message"]["role"], "assistant", "{signal}");
        assert_eq!(last["message"]["stopReason"], "aborted");
        assert_eq!(last["message"]["content"][0]["text"], "Hello! I am ");
        assert_eq!(last["parentId"], entries[entries.len() - 2]["id"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_signal_exits_at_once() {
    use nix::sys::signal::Signal;
    let s = Scenario::start(vec![stalled_answer()]).await;
    let (child, _) = tokio::task::block_in_place(|| start_stalled_print(&s));
    // Two signals back to back: the second ends the process whatever the
    // first is doing.
    kill(&child, Signal::SIGINT);
    kill(&child, Signal::SIGTERM);
    let out = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
    assert!(
        matches!(out.status.code(), Some(130 | 143)),
        "{:?}",
        out.status
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_that_sent_nothing_leaves_no_file() {
    let s = Scenario::fixture("a-text-oai").await;
    let lines = tokio::task::block_in_place(|| {
        rpc_session(&s, b"{\"id\":\"1\",\"type\":\"get_state\"}\n", |lines| {
            !responses(lines, "get_state").is_empty()
        })
    });
    assert_eq!(lines.len(), 1);
    assert!(s.session_files().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_pi_on_a_session_file_in_use_is_refused() {
    let s = Scenario::start(vec![stalled_answer()]).await;
    let (child, file) = tokio::task::block_in_place(|| start_stalled_print(&s));
    let before = std::fs::read(&file).unwrap();
    let out = s
        .run(&["-p", "--session", file.to_str().unwrap(), "another prompt"])
        .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is in use by another pi process"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing was written");
    assert_eq!(s.requests().len(), 1, "no request was sent");
    kill(&child, nix::sys::signal::Signal::SIGTERM);
    tokio::task::block_in_place(|| child.wait_with_output().unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_answers_an_invalid_utf8_line_and_reads_on() {
    let s = Scenario::fixture("a-text-oai").await;
    let mut input = b"{\"id\":\"1\",\"type\":\"get_state\"}\n".to_vec();
    input.extend_from_slice(b"{\"id\":\"2\",\"type\":\"get_\xff\xfestate\"}\n");
    input.extend_from_slice(b"{\"id\":\"3\",\"type\":\"get_state\"}\r\n");
    let lines = tokio::task::block_in_place(|| {
        rpc_session(&s, &input, |lines| responses(lines, "get_state").len() >= 2)
    });
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert_eq!(lines[0]["id"], "1");
    assert_eq!(lines[1]["command"], "parse");
    assert_eq!(lines[1]["success"], false);
    assert!(lines[1]["error"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(lines[2]["id"], "3");
    assert_eq!(lines[2]["success"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_mode_saves_the_partial_answer_on_sigterm() {
    let s = Scenario::start(vec![stalled_answer()]).await;
    let mut child = s.rpc_command().spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"id\":\"1\",\"type\":\"prompt\",\"message\":\"hello\"}\n")
        .unwrap();
    tokio::task::block_in_place(|| {
        wait_for("the request", || !s.requests().is_empty());
        std::thread::sleep(std::time::Duration::from_millis(300));
    });
    kill(&child, nix::sys::signal::Signal::SIGTERM);
    let out = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
    drop(stdin);
    assert_eq!(out.status.code(), Some(143));
    let files = s.session_files();
    let entries = e2e_common::jsonl(&files[0]);
    let last = entries.last().unwrap();
    assert_eq!(last["message"]["stopReason"], "aborted");
    assert_eq!(last["message"]["content"][0]["text"], "Hello! I am ");
}
