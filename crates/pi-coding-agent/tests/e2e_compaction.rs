//! Auto-compaction wired into the binary: when the context passes
//! `contextWindow - reserveTokens` after a run, the model summarizes the
//! older history, a `compaction` entry is persisted, and the next request
//! carries the summary instead of the compacted messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod e2e_common;

use e2e_common::{Scenario, jsonl, text};
use pi_http::mock_server::MockResponse;
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

#[tokio::test(flavor = "multi_thread")]
async fn crossing_the_threshold_compacts_and_the_next_request_carries_the_summary() {
    let s = Scenario::start(vec![
        answer("First answer."),
        answer("Second answer."),
        answer("## Goal\nTalk.\n## Progress\nTwo questions answered."),
        answer("Third answer."),
    ])
    .await;
    let model = ["--model", "mock-oai/mock-gpt"];
    let first = s
        .run(&[&["-p"][..], &model, &["First question."]].concat())
        .await;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    // Now a tiny budget: the next run ends above the threshold, and little is kept verbatim.
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"compaction":{"enabled":true,"reserveTokens":127990,"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let second = s
        .run(&[&["-c", "--mode", "json"][..], &model, &["Second question."]].concat())
        .await;
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let events: Vec<Value> = text(&second.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = events
        .iter()
        .find(|e| e["type"] == "compaction_start")
        .expect("compaction_start");
    assert_eq!(start["reason"], "threshold");
    let end = events
        .iter()
        .find(|e| e["type"] == "compaction_end")
        .expect("compaction_end");
    assert!(
        end["result"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("## Goal"),
        "{end}"
    );

    let entries = jsonl(&s.session_files()[0]);
    let compaction = entries
        .iter()
        .find(|e| e["type"] == "compaction")
        .expect("a compaction entry");
    assert!(
        compaction["summary"]
            .as_str()
            .unwrap()
            .contains("Two questions answered.")
    );
    assert!(
        entries
            .iter()
            .any(|e| e["id"] == compaction["firstKeptEntryId"])
    );

    std::fs::remove_file(s.agent_dir.path().join("settings.json")).unwrap();
    let third = s
        .run(&[&["-c", "-p"][..], &model, &["Third question."]].concat())
        .await;
    assert_eq!(
        text(&third.stdout),
        "Third answer.\n",
        "{}",
        text(&third.stderr)
    );
    let requests = s.requests();
    let summary_request = requests[2].json();
    let summary_prompt = summary_request["messages"].to_string();
    assert!(
        summary_prompt.contains("First question."),
        "the summarizer sees the old history"
    );
    let last = requests.last().unwrap().json();
    let sent = last["messages"].to_string();
    assert!(
        sent.contains(
            "The conversation history before this point was compacted into the following summary:"
        ),
        "{sent}"
    );
    assert!(
        !sent.contains("First question."),
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
