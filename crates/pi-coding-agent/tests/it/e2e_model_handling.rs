//! Model handling as pi 0.73.1: `/new` and `/resume` return to the command
//! line's `--model` and `--thinking` (compared with pi's rpc answers in
//! fixtures/pi-0.73.1/cli-model/switch.json, made by
//! fixtures/capture/first_run_scenarios.py), an unknown `--model` is pi's
//! error, Shift+Tab reaches `xhigh` where the catalog's thinking-level map
//! allows it, and a steering message is expanded like a prompt.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::time::Duration;

use e2e_common::{RpcProcess, Scenario, capture_answer, fixtures};
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, slow, text_answer};
use serde_json::{Value, json};

/// The model and thinking level of a `get_state` answer.
fn model_and_level(state: &Value) -> (String, String, String) {
    let data = &state["data"];
    (
        data["model"]["provider"].as_str().unwrap().to_owned(),
        data["model"]["id"].as_str().unwrap().to_owned(),
        data["thinkingLevel"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn new_and_resumed_sessions_return_to_the_command_line_model() {
    let pi: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("cli-model/switch.json")).unwrap(),
    )
    .unwrap();
    let pi_state = |id: &str| {
        model_and_level(
            pi.iter()
                .find(|l| l["id"] == id && l["command"] == "get_state")
                .unwrap(),
        )
    };
    let s = Scenario::start(vec![capture_answer("Answer 1.")]).await;
    let dir = s.sessions_dir();
    let mut rpc = RpcProcess::start(s.command(&[
        "--session-dir",
        dir.to_str().unwrap(),
        "--mode",
        "rpc",
        "--model",
        "mock-oai/mock-gpt-think",
        "--thinking",
        "low",
    ]));
    rpc.prompt("Hi");
    let state = rpc.send(json!({"type": "get_state"})).pop().unwrap();
    assert_eq!(model_and_level(&state), pi_state("2"));
    let first = state["data"]["sessionFile"].as_str().unwrap().to_owned();
    rpc.send(json!({"type": "set_model", "provider": "mock-ant", "modelId": "mock-claude-think"}));
    rpc.send(json!({"type": "set_thinking_level", "level": "high"}));
    rpc.send(json!({"type": "new_session"}));
    let state = rpc.send(json!({"type": "get_state"})).pop().unwrap();
    assert_eq!(model_and_level(&state), pi_state("6"));
    rpc.send(json!({"type": "set_model", "provider": "mock-ant", "modelId": "mock-claude"}));
    let switched = rpc
        .send(json!({"type": "switch_session", "sessionPath": first}))
        .pop()
        .unwrap();
    assert_eq!(switched["success"], true, "{switched}");
    let state = rpc.send(json!({"type": "get_state"})).pop().unwrap();
    assert_eq!(model_and_level(&state), pi_state("9"));
    rpc.finish();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_model_or_provider_is_pi_s_error() {
    let s = Scenario::start(Vec::new()).await;
    let out = s.run(&["-p", "--model", "nothing-like-this", "Hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "Error: Model \"nothing-like-this\" not found. Use --list-models to see available models."
    );
    let out = s
        .run(&["-p", "--provider", "nope", "--model", "x", "Hi"])
        .await;
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "Error: Unknown provider \"nope\". Use --list-models to see available providers/models."
    );
    // A known provider with an id pi does not know: a custom model id.
    let s = Scenario::start(vec![capture_answer("Custom.")]).await;
    let out = s
        .run(&["-p", "--model", "mock-oai/my-own-model", "Hi"])
        .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Warning: Model \"my-own-model\" not found for provider \"mock-oai\". Using custom model id.\n"
    );
    let body = s.requests()[0].json();
    assert_eq!(body["model"], "my-own-model");
}

/// Presses Shift+Tab and waits for the status naming `level` (a new
/// status replaces the previous one).
fn shift_tab(tui: &mut Tui, level: &str, model: &str) {
    tui.send("\x1b[Z");
    let want = format!("Thinking level: {level}");
    tui.wait_screen(
        |s| s.lines().any(|l| l.trim() == want),
        &format!("{model}: {want}"),
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn shift_tab_reaches_xhigh_where_the_catalog_map_allows_it() {
    for (model, env, after_xhigh) in [
        (
            "anthropic/claude-opus-4-7",
            ("ANTHROPIC_API_KEY", "sk-ant-x"),
            "off",
        ),
        // `off` is mapped to null for gpt-5.5: the cycle wraps to minimal.
        ("openai/gpt-5.5", ("OPENAI_API_KEY", "sk-x"), "minimal"),
    ] {
        // A fresh agent dir each: a level change is saved as the default.
        let s = Scenario::start(Vec::new()).await;
        let mut tui = Tui::start_model(&s, model, &[env], 100, 40);
        tui.wait_screen(|s| s.contains("medium"), "the footer's level");
        shift_tab(&mut tui, "high", model);
        shift_tab(&mut tui, "xhigh", model);
        shift_tab(&mut tui, after_xhigh, model);
        assert!(tui.quit().success());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_steering_message_is_expanded_like_a_prompt() {
    let slow_parts: Vec<String> = (0..12).map(|i| format!("word{i} ")).collect();
    let parts: Vec<&str> = slow_parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![
        slow(text_answer(&parts, 100, 12), Duration::from_millis(250)),
        MockResponse::sse(text_answer(&["Steered answer."], 200, 3)),
    ])
    .await;
    let prompts = s.agent_dir.path().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(prompts.join("shorter.md"), "Make it shorter, $1.\n").unwrap();
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Tell me a long story");
    tui.wait_screen(|s| s.contains("word1"), "the slow answer streaming");
    tui.submit("/shorter please");
    tui.wait_screen(
        |s| s.contains("Steering: Make it shorter, please."),
        "the expanded steering message",
    );
    tui.wait_all(|s| s.contains("Steered answer."), "the steered answer");
    let requests = s.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].json().to_string();
    assert!(second.contains("Make it shorter, please."), "{second}");
    assert!(!second.contains("/shorter"), "{second}");
    assert!(tui.quit().success());
}
