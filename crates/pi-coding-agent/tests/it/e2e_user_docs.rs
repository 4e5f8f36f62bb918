//! The agent can explain itself: the built-in system prompt points the
//! model at pi-rs's documentation, written from the binary to
//! `<agent dir>/pi-rs-docs/`, and the `read` tool returns it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, capture_answer, tool_call_answer};
use serde_json::{Value, json};

fn system_prompt(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "system" || m["role"] == "developer")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn repo_readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_is_pointed_at_the_docs_and_can_read_them() {
    let s = Scenario::start(Vec::new()).await;
    let docs = s.agent_dir.path().join("pi-rs-docs");
    let readme = docs.join("README.md");
    let answers = vec![
        tool_call_answer("call_1", "read", &json!({"path": readme.to_str().unwrap()})),
        capture_answer("pi-rs is a Rust re-implementation of pi."),
    ];
    let s = Scenario {
        server: pi_test_support::mock_server::MockServer::start(answers)
            .await
            .unwrap(),
        ..s
    };
    e2e_common::use_server(&s, &s.server);
    let out = s
        .run(&["-p", "--model", "mock-oai/mock-gpt", "What is pi-rs?"])
        .await;
    assert!(out.status.success(), "{}", e2e_common::text(&out.stderr));

    let requests = s.requests();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let prompt = system_prompt(&first);
    let pointer = format!("{}/README.md", docs.to_string_lossy());
    assert!(prompt.contains(&pointer), "{prompt}");
    assert!(prompt.contains(&format!("Topics in {}/docs/", docs.to_string_lossy())));

    // The files are there, and what the model read is this project's README.
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), repo_readme());
    assert!(docs.join("docs/interactive.md").is_file());
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let tool_result = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    let text = tool_result["content"].to_string();
    assert!(text.contains("# pi-rs"), "{text}");
    assert!(
        text.contains("A Rust re-implementation of the *pi* coding agent"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_custom_system_prompt_has_no_pointer_and_writes_nothing() {
    let s = Scenario::start(vec![capture_answer("ok")]).await;
    let out = s
        .run(&[
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "--system-prompt",
            "You are terse.",
            "hi",
        ])
        .await;
    assert!(out.status.success(), "{}", e2e_common::text(&out.stderr));
    let body: Value = serde_json::from_slice(&s.requests()[0].body).unwrap();
    assert!(!system_prompt(&body).contains("pi-rs-docs"));
    assert!(!s.agent_dir.path().join("pi-rs-docs").exists());
}
