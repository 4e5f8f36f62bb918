//! `/compact` on a session smaller than the tokens compaction keeps: pi
//! 0.73.1 compacts it anyway (a summary of the empty history before the
//! cut, every entry kept), as captured in fixtures/pi-0.73.1/compact-small
//! by fixtures/capture/first_run_scenarios.py.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::{
    RpcProcess, Scenario, capture_answer, comparable_entry, comparable_request, fixtures, jsonl,
};
use pty_common::Tui;
use serde_json::{Value, json};

fn pi_file(name: &str) -> Value {
    let path = fixtures().join("compact-small").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A session entry comparable across runs, its summary text left out (the
/// mocks answer with different words).
fn entry_shape(entry: &Value) -> Value {
    let mut entry = comparable_entry(entry);
    if let Some(summary) = entry.get_mut("summary") {
        *summary = json!("<summary>");
    }
    entry
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_compact_of_two_messages_matches_pi() {
    // The capture's mock numbers its answers across scenarios: this
    // scenario's first answer was its second.
    let s = Scenario::start(vec![
        capture_answer("Answer 2."),
        capture_answer("The summary."),
    ])
    .await;
    let mut rpc = RpcProcess::start(s.rpc_command());
    rpc.prompt("Hi");
    let response = rpc.send(json!({"type": "compact"})).pop().unwrap();
    rpc.finish();

    let pi_rpc = pi_file("rpc.json");
    let pi_response = pi_rpc
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["type"] == "response" && l["command"] == "compact")
        .unwrap();
    assert_eq!(response["success"], true, "{response}");
    assert_eq!(response["data"]["summary"], "The summary.");
    for key in ["tokensBefore", "details"] {
        assert_eq!(response["data"][key], pi_response["data"][key], "{key}");
    }

    // The summary request: the same empty conversation pi sends.
    let ours: Vec<Value> = s
        .requests()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    let pi_requests = pi_file("requests.json");
    let pi_requests = pi_requests.as_array().unwrap();
    assert_eq!(ours.len(), pi_requests.len());
    assert_eq!(
        comparable_request(&ours[1]),
        comparable_request(&pi_requests[1])
    );
    assert!(
        ours[1]["messages"][1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<conversation>\n\n</conversation>")
    );

    // The session: the same entries, the compaction keeping from the first.
    let file = s.session_files().pop().unwrap();
    let entries = jsonl(&file);
    let pi_sessions = pi_file("session.json");
    let pi_entries = pi_sessions[0].as_array().unwrap();
    let shapes: Vec<Value> = entries.iter().skip(1).map(entry_shape).collect();
    let pi_shapes: Vec<Value> = pi_entries.iter().skip(1).map(entry_shape).collect();
    assert_eq!(shapes, pi_shapes);
    let compaction = entries.last().unwrap();
    assert_eq!(compaction["firstKeptEntryId"], entries[1]["id"]);
    assert_eq!(
        pi_entries.last().unwrap()["firstKeptEntryId"],
        pi_entries[1]["id"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_compact_of_a_short_session_compacts_it() {
    let s = Scenario::start(vec![
        capture_answer("Hello there."),
        capture_answer("Short summary."),
    ])
    .await;
    let mut tui = Tui::start(&s, &[], 100, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Hi");
    tui.wait_screen(|s| s.contains("Hello there."), "the answer");
    tui.submit("/compact");
    let screen = tui.wait_screen(
        |s| s.contains("Compacted from 520 tokens"),
        "the compaction card",
    );
    assert!(!screen.contains("Compaction failed"), "{screen}");
    assert_eq!(s.requests().len(), 2);
    assert!(tui.quit().success());
}
