//! End-to-end: rpc `clone` and `get_available_models`, checked against pi
//! 0.73.1's capture in fixtures/pi-0.73.1/rpc-clone (made by
//! fixtures/capture/settings_scenarios.py).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::time::Duration;

use e2e_common::{Scenario, capture_answer, fixtures, jsonl};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

struct Rpc {
    _child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Rpc {
    fn start(s: &Scenario) -> Self {
        let mut command = tokio::process::Command::from(s.rpc_command());
        command
            .env_remove("PI_RS_MOCK_UNSET_KEY")
            .kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            lines: BufReader::new(child.stdout.take().unwrap()).lines(),
            _child: child,
        }
    }

    async fn until(&mut self, done: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if done(&v) {
                return v;
            }
        }
    }

    async fn send(&mut self, command: &Value) {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn call(&mut self, command: Value) -> Value {
        self.send(&command).await;
        let id = command["id"].clone();
        self.until(|v| v["type"] == "response" && v["id"] == id)
            .await
    }
}

fn pi_responses() -> Vec<Value> {
    let path = fixtures().join("rpc-clone/responses.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The scenario with pi's capture's extra provider, whose `apiKey` names an
/// unset variable (so, as in pi, the text itself is the key).
async fn scenario() -> Scenario {
    let s = Scenario::start(vec![capture_answer("Answer 1.")]).await;
    let path = s.agent_dir.path().join("models.json");
    let mut models: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    models["providers"]["mock-nokey"] = json!({
        "baseUrl": s.server.url(), "api": "openai-completions", "apiKey": "PI_RS_MOCK_UNSET_KEY",
        "models": [{"id": "mock-nokey", "name": "Mock No Key", "contextWindow": 128000, "maxTokens": 4096}]});
    std::fs::write(&path, models.to_string()).unwrap();
    s
}

fn entry_not_found(text: &str) -> bool {
    text.strip_prefix("Entry ")
        .and_then(|rest| rest.strip_suffix(" not found"))
        .is_some_and(|id| id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit()))
}

#[tokio::test(flavor = "multi_thread")]
async fn clone_continues_in_a_copy_of_the_branch_as_pi() {
    let pi = pi_responses();
    let s = scenario().await;
    let mut rpc = Rpc::start(&s);

    // Before the first answer nothing is on disk: pi cannot find the leaf.
    let early = rpc.call(json!({"id": "0", "type": "clone"})).await;
    assert_eq!(early["success"], pi[0]["success"]);
    assert!(entry_not_found(pi[0]["error"].as_str().unwrap()));
    assert!(entry_not_found(early["error"].as_str().unwrap()), "{early}");

    // The prompt's response and its events interleave: wait for the end only.
    rpc.send(&json!({"id": "1", "type": "prompt", "message": "Hello"}))
        .await;
    rpc.until(|v| v["type"] == "agent_end").await;
    // The run settles just after `agent_end`: wait until the state says idle.
    for attempt in 0.. {
        let state = rpc
            .call(json!({"id": format!("idle{attempt}"), "type": "get_state"}))
            .await;
        if state["data"]["isStreaming"] == false {
            break;
        }
        assert!(attempt < 100, "still streaming");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let source = s.session_files()[0].clone();

    let clone = rpc.call(json!({"id": "2", "type": "clone"})).await;
    assert_eq!(clone, pi[2]);

    let state = rpc.call(json!({"id": "3", "type": "get_state"})).await;
    let file = std::path::PathBuf::from(state["data"]["sessionFile"].as_str().unwrap());
    assert_ne!(file, source);
    assert_eq!(state["data"]["messageCount"], pi[3]["data"]["messageCount"]);
    assert_ne!(
        state["data"]["sessionId"],
        jsonl(&source)[0]["id"],
        "a new session id"
    );

    // The copy: a header naming the source, then the source's entries as they were.
    let ours = jsonl(&file);
    let theirs = jsonl(&source);
    assert_eq!(ours[0]["parentSession"], source.display().to_string());
    assert_eq!(&ours[1..], &theirs[1..]);
    let pi_clone = jsonl(&fixtures().join("rpc-clone/cloned.jsonl"));
    let pi_source = jsonl(&fixtures().join("rpc-clone/source.jsonl"));
    assert!(pi_clone[0]["parentSession"].is_string());
    assert_eq!(&pi_clone[1..], &pi_source[1..]);

    let messages = rpc.call(json!({"id": "5", "type": "get_messages"})).await;
    assert_eq!(
        messages["data"]["messages"].as_array().unwrap().len(),
        pi[5]["data"]["messages"].as_array().unwrap().len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn available_models_are_only_those_with_a_key() {
    let pi = pi_responses();
    let s = scenario().await;
    let mut rpc = Rpc::start(&s);
    let models = rpc
        .call(json!({"id": "4", "type": "get_available_models"}))
        .await;
    // The set, not the order: the registry's order is the model catalog's
    // business (pi lists models.json's in file order).
    let names = |v: &Value| -> Vec<String> {
        let mut names: Vec<String> = v["data"]["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                format!(
                    "{}/{}",
                    m["provider"].as_str().unwrap(),
                    m["id"].as_str().unwrap()
                )
            })
            .collect();
        names.sort();
        names
    };
    // No built-in provider has a key here, so only models.json's are listed.
    assert_eq!(names(&models), names(&pi[4]));
}
