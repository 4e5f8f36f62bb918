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
        .find(|e| e["type"] == "auto_compaction_start")
        .expect("auto_compaction_start");
    assert_eq!(start["reason"], "threshold");
    let end = events
        .iter()
        .find(|e| e["type"] == "auto_compaction_end")
        .expect("auto_compaction_end");
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
