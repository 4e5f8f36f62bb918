//! Auto-compaction wired into the binary: when the context passes
//! `contextWindow - reserveTokens` (checked before each prompt and after
//! each run), the model summarizes the older history, a `compaction` entry
//! is persisted, and the next request carries the summary instead of the
//! compacted messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{
    Scenario, capture_answer, comparable_entry, comparable_request, fixtures, jsonl, text,
};
use pi_test_support::mock_server::MockResponse;
use serde_json::{Value, json};

fn answer(text: &str) -> MockResponse {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    MockResponse::sse([
        chunk(json!({"role": "assistant", "content": text}), Value::Null),
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 500, "completion_tokens": 20, "total_tokens": 520}})
        ),
        "data: [DONE]\n\n".to_owned(),
    ])
}

/// The answers `fixtures/capture/app_scenarios.py`'s mock gave to pi's
/// requests: request `n` (counted from `first`) got `Answer n.`, or a
/// summary naming `n` when it asked for one.
fn capture_answers(requests: &[Value], first: u64) -> Vec<MockResponse> {
    requests
        .iter()
        .zip(first..)
        .map(|(body, n)| {
            let last = body["messages"].as_array().unwrap().last().unwrap();
            if last.to_string().contains("<conversation>") {
                capture_answer(&format!("## Goal\nTalk.\n## Progress\nSummary {n}."))
            } else {
                capture_answer(&format!("Answer {n}."))
            }
        })
        .collect()
}

fn event_kinds(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .filter(|k| k != "message_update")
        .collect()
}

/// pi 0.73.1 checks compaction before each prompt, not only after a run:
/// a session already over `contextWindow - reserveTokens` is compacted
/// first, so the session file holds the `compaction` entry before the new
/// user message and the prompt's request carries the summary. After the
/// run the context is over the threshold again and compacted again. The
/// requests, the session file and the events equal pi's
/// (`fixtures/pi-0.73.1/s-compact-before-prompt-oai`).
#[tokio::test(flavor = "multi_thread")]
async fn a_session_over_the_threshold_is_compacted_before_the_prompt() {
    let folder = fixtures().join("s-compact-before-prompt-oai");
    let pi_requests: Vec<Value> = [
        jsonl(&folder.join("requests.run1.jsonl")),
        jsonl(&folder.join("requests.run2.jsonl")),
    ]
    .concat();
    let run1 = jsonl(&folder.join("session.run1.jsonl"));
    let first_answer = run1.last().unwrap()["message"]["content"][0]["text"]
        .as_str()
        .unwrap();
    let first: u64 = first_answer
        .trim_start_matches("Answer ")
        .trim_end_matches('.')
        .parse()
        .unwrap();
    let s = Scenario::start(capture_answers(&pi_requests, first)).await;
    let model = ["--model", "mock-oai/mock-gpt"];
    let out = s
        .run(&[&["-p"][..], &model, &["First question."]].concat())
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"compaction":{"enabled":true,"reserveTokens":127990,"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let second = s
        .run(&[&["-c", "--mode", "json"][..], &model, &["Second question."]].concat())
        .await;
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));

    let ours: Vec<Value> = s
        .requests()
        .iter()
        .map(|r| comparable_request(&r.json()))
        .collect();
    let pis: Vec<Value> = pi_requests.iter().map(comparable_request).collect();
    assert_eq!(ours, pis, "requests: summary, prompt, then two summaries");

    let comparable =
        |entries: Vec<Value>| -> Vec<Value> { entries.iter().map(comparable_entry).collect() };
    assert_eq!(
        comparable(jsonl(&s.session_files()[0])),
        comparable(jsonl(&folder.join("session.run2.jsonl"))),
        "session file"
    );

    // pi stops printing once the prompt has returned, before its second
    // compaction ends; we print that `compaction_end` too.
    let pi_events: Vec<Value> = jsonl(&folder.join("events.run2.jsonl"));
    let mut expected: Vec<String> = pi_events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .filter(|k| k != "message_update")
        .collect();
    expected.push("compaction_end".to_owned());
    let stdout = text(&second.stdout);
    assert_eq!(event_kinds(&stdout), expected);
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ends: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "compaction_end")
        .collect();
    let pi_end = pi_events
        .iter()
        .find(|e| e["type"] == "compaction_end")
        .unwrap();
    let without_id = |e: &Value| {
        let mut e = e.clone();
        e["result"]
            .as_object_mut()
            .unwrap()
            .remove("firstKeptEntryId");
        e
    };
    assert_eq!(without_id(ends[0]), without_id(pi_end));

    // Back to the default budget: the next prompt carries the summary and
    // not the compacted messages.
    std::fs::remove_file(s.agent_dir.path().join("settings.json")).unwrap();
    s.server.push(capture_answer("Third answer."));
    let third = s
        .run(&[&["-c", "-p"][..], &model, &["Third question."]].concat())
        .await;
    assert_eq!(
        text(&third.stdout),
        "Third answer.\n",
        "{}",
        text(&third.stderr)
    );
    let last = s.requests().last().unwrap().json();
    let sent = last["messages"].to_string();
    assert!(
        sent.contains(
            "The conversation history before this point was compacted into the following summary:"
        ),
        "{sent}"
    );
    assert!(
        !sent.contains("First question.") && !sent.contains("Second question."),
        "compacted messages are not sent again: {sent}"
    );
}

/// pi's auto-retry in `--mode json`: `auto_retry_start` after the failed
/// run's `agent_end`, and `auto_retry_end` right after the `message_end` of
/// the answer that succeeded.
#[tokio::test(flavor = "multi_thread")]
async fn auto_retry_events_come_in_pis_order() {
    let failure = r#"{"error":{"message":"The server had an error","type":"server_error"}}"#;
    let s = Scenario::start(vec![
        MockResponse::json(500, failure),
        MockResponse::json(500, failure),
        MockResponse::json(500, failure),
        answer("Recovered."),
    ])
    .await;
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"retry":{"baseDelayMs":10}}"#,
    )
    .unwrap();
    let out = s
        .run(&["--mode", "json", "--model", "mock-oai/mock-gpt", "Hello?"])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .filter(|k| *k != "message_update")
        .collect();
    assert_eq!(
        kinds,
        [
            "session",
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "message_start",
            "message_end",
            "turn_end",
            "agent_end",
            "auto_retry_start",
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "auto_retry_end",
            "turn_end",
            "agent_end",
        ]
    );
    let start = events
        .iter()
        .find(|e| e["type"] == "auto_retry_start")
        .unwrap();
    assert_eq!(start["attempt"], 1);
    assert_eq!(start["maxAttempts"], 3);
    assert_eq!(start["delayMs"], 10);
    assert_eq!(start["errorMessage"], "500 The server had an error");
    let end = events
        .iter()
        .find(|e| e["type"] == "auto_retry_end")
        .unwrap();
    assert_eq!(
        end,
        &json!({"type": "auto_retry_end", "success": true, "attempt": 1})
    );
}
