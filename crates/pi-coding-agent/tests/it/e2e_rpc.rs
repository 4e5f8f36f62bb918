//! `pi --mode rpc` as another program drives it: prompt, a user shell
//! command, state and messages, abort mid-stream, malformed input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::time::Duration;

use e2e_common::{Scenario, recorded_responses};
use pi_test_support::mock_server::MockResponse;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

struct Rpc {
    child: Child,
    stdin: ChildStdin,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    seen: Vec<Value>,
}

impl Rpc {
    fn start(scenario: &Scenario) -> Self {
        let mut command = tokio::process::Command::from(scenario.rpc_command());
        command.kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            stdout,
            seen: Vec::new(),
        }
    }

    async fn send(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Reads lines until one satisfies `done`; returns it.
    async fn until(&mut self, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let line = tokio::time::timeout_at(deadline, self.stdout.next_line())
                .await
                .expect("timed out")
                .unwrap()
                .expect("pi exited");
            let value: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            self.seen.push(value.clone());
            if done(&value) {
                return value;
            }
        }
    }

    async fn response(&mut self, id: &str) -> Value {
        self.until(|v| v["type"] == "response" && v["id"] == id)
            .await
    }
}

fn slow_answer() -> MockResponse {
    let mut frames: Vec<String> = (0..100)
        .map(|i| format!("data: {}\n\n", json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": format!("word{i} ")}}]})))
        .collect();
    frames.push("data: [DONE]\n\n".to_owned());
    MockResponse::Sse {
        frames,
        delay: Duration::from_millis(50),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_rpc_session_prompts_runs_bash_reads_state_and_aborts() {
    let mut responses = recorded_responses("b-bash-oai");
    responses.push(slow_answer());
    let scenario = Scenario::start(responses).await;
    let mut rpc = Rpc::start(&scenario);

    rpc.send(r#"{"id":"1","type":"prompt","message":"List the files in the current directory."}"#)
        .await;
    let ack = rpc.response("1").await;
    assert_eq!(ack["success"], true);
    rpc.until(|v| v["type"] == "agent_end").await;
    let kinds: Vec<&str> = rpc.seen.iter().filter_map(|v| v["type"].as_str()).collect();
    assert!(kinds.contains(&"tool_execution_end"), "{kinds:?}");

    rpc.send(r#"{"id":"2","type":"bash","command":"echo from-user"}"#)
        .await;
    let bash = rpc.response("2").await;
    assert_eq!(bash["success"], true, "{bash}");
    assert_eq!(
        bash["data"],
        json!({"output": "from-user\n", "exitCode": 0, "cancelled": false, "truncated": false})
    );

    rpc.send(r#"{"id":"3","type":"get_state"}"#).await;
    let state = rpc.response("3").await;
    assert_eq!(state["data"]["messageCount"], 5);
    assert_eq!(state["data"]["isStreaming"], false);
    assert_eq!(state["data"]["model"]["id"], "mock-gpt");
    assert_eq!(state["data"]["thinkingLevel"], "off");

    rpc.send(r#"{"id":"4","type":"get_messages"}"#).await;
    let messages = rpc.response("4").await;
    let roles: Vec<&str> = messages["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "bashExecution"
        ]
    );

    rpc.send(r#"{"id":"5","type":"prompt","message":"Tell me a long story."}"#)
        .await;
    rpc.until(|v| v["type"] == "message_update").await;
    rpc.send(r#"{"id":"6","type":"abort"}"#).await;
    let end = rpc.until(|v| v["type"] == "agent_end").await;
    let last = end["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["stopReason"], "aborted");
    assert!(
        last["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("word0"),
        "partial text kept: {last}"
    );

    rpc.send("this is not json").await;
    let parse = rpc
        .until(|v| v["type"] == "response" && v["command"] == "parse")
        .await;
    assert_eq!(parse["success"], false);
    assert!(
        parse["error"]
            .as_str()
            .unwrap()
            .starts_with("Failed to parse command"),
        "{parse}"
    );

    rpc.send(r#"{"id":"7","type":"nope"}"#).await;
    let unknown = rpc
        .until(|v| v["type"] == "response" && v["command"] == "nope")
        .await;
    assert_eq!(unknown["error"], "Unknown command: nope");
    // pi answers without the id, so its own RpcClient never hears back.
    assert_eq!(unknown["id"], "7", "{unknown}");

    rpc.send(r#"{"id":"8","type":"get_last_assistant_text"}"#)
        .await;
    let text = rpc.response("8").await;
    assert!(text["data"]["text"].as_str().unwrap().starts_with("word0"));

    rpc.send(r#"{"id":"9","type":"get_fork_messages"}"#).await;
    let forks = rpc.response("9").await;
    let forks = forks["data"]["messages"].as_array().unwrap().clone();
    let texts: Vec<&str> = forks.iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            "List the files in the current directory.",
            "Tell me a long story."
        ]
    );

    rpc.send(r#"{"id":"10","type":"get_state"}"#).await;
    let original = rpc.response("10").await["data"].clone();
    let original_file = original["sessionFile"].as_str().unwrap().to_owned();

    rpc.send(&json!({"id": "11", "type": "fork", "entryId": forks[1]["entryId"]}).to_string())
        .await;
    let fork = rpc.response("11").await;
    assert_eq!(
        fork["data"],
        json!({"text": "Tell me a long story.", "cancelled": false}),
        "{fork}"
    );
    rpc.send(r#"{"id":"12","type":"get_state"}"#).await;
    let forked = rpc.response("12").await["data"].clone();
    assert_eq!(
        forked["messageCount"], 5,
        "the path up to the forked message's parent"
    );
    assert_ne!(forked["sessionId"], original["sessionId"]);

    rpc.send(r#"{"id":"13","type":"export_html"}"#).await;
    let export = rpc.response("13").await;
    let html = std::fs::read_to_string(
        scenario
            .work
            .path()
            .join(export["data"]["path"].as_str().unwrap()),
    )
    .unwrap();
    assert!(
        html.contains("from-user"),
        "the export holds the transcript"
    );

    rpc.send(r#"{"id":"14","type":"new_session"}"#).await;
    assert_eq!(
        rpc.response("14").await["data"],
        json!({"cancelled": false})
    );
    rpc.send(r#"{"id":"15","type":"get_state"}"#).await;
    assert_eq!(rpc.response("15").await["data"]["messageCount"], 0);

    rpc.send(
        &json!({"id": "16", "type": "switch_session", "sessionPath": original_file}).to_string(),
    )
    .await;
    assert_eq!(rpc.response("16").await["success"], true);
    rpc.send(r#"{"id":"17","type":"get_state"}"#).await;
    let back = rpc.response("17").await["data"].clone();
    assert_eq!(back["sessionId"], original["sessionId"]);
    assert_eq!(back["messageCount"], original["messageCount"]);

    drop(rpc.stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), rpc.child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
    let session = std::fs::read_to_string(&original_file).unwrap();
    assert!(
        session.contains("\"role\":\"bashExecution\""),
        "the user command is persisted"
    );
}

/// `switch_session` to a stored session whose `cwd` is gone fails with
/// pi's message (pi asserts the directory before replacing the session) and
/// leaves the current session in place.
#[tokio::test(flavor = "multi_thread")]
async fn switching_to_a_session_whose_cwd_is_gone_is_refused() {
    let s = Scenario::start(Vec::new()).await;
    let gone = e2e_common::fixtures().join("m-missing-cwd-oai/stored-session.jsonl");
    let file = s.work.path().join("gone.jsonl");
    std::fs::copy(&gone, &file).unwrap();
    let mut rpc = Rpc::start(&s);
    rpc.send(r#"{"id":"1","type":"get_state"}"#).await;
    let before = rpc.response("1").await["data"].clone();
    rpc.send(&json!({"id": "2", "type": "switch_session", "sessionPath": file}).to_string())
        .await;
    let refused = rpc.response("2").await;
    assert_eq!(refused["success"], false, "{refused}");
    assert_eq!(
        refused["error"],
        format!(
            "Stored session working directory does not exist: /nonexistent/pi-rs-gone\nSession file: {}\nCurrent working directory: {}",
            file.display(),
            s.work.path().display()
        )
    );
    rpc.send(r#"{"id":"3","type":"get_state"}"#).await;
    let after = rpc.response("3").await["data"].clone();
    assert_eq!(after["sessionId"], before["sessionId"]);
    assert!(s.requests().is_empty());
}
