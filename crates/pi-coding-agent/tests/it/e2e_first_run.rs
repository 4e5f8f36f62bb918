//! A first run: no key, no login. pi 0.73.1 starts anyway on its
//! placeholder `unknown` model (captured in fixtures/pi-0.73.1/first-run by
//! fixtures/capture/first_run_scenarios.py): rpc answers `get_state`,
//! `get_messages`, `get_available_models`, refuses a prompt, and loads a
//! session; print mode refuses the prompt; the terminal UI opens with a
//! warning, and `/login` with an API key selects the provider's default
//! model, whose prompt reaches the loopback mock.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::{RpcProcess, Scenario, fixtures};
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, text_answer};
use serde_json::{Value, json};

/// pi's refusal, up to where pi names its own docs.
const NO_KEY: &str = "No API key found for the selected model.\n\nUse /login to log into a provider via OAuth or API key.";

fn pi_rpc() -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join("first-run/rpc.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn pi_response(lines: &[Value], id: &str) -> Value {
    lines
        .iter()
        .find(|l| l["type"] == "response" && l["id"] == id)
        .cloned()
        .unwrap()
}

/// A scenario with no models.json: nothing has a key.
async fn bare() -> Scenario {
    let s = Scenario::start(Vec::new()).await;
    std::fs::remove_file(s.agent_dir.path().join("models.json")).unwrap();
    s
}

/// The response to `command` (its `id` dropped for comparison).
fn answer(rpc: &mut RpcProcess, command: Value) -> Value {
    let mut response = rpc.send(command).pop().unwrap();
    response.as_object_mut().unwrap().remove("id");
    response
}

fn without_id(mut value: Value) -> Value {
    value.as_object_mut().unwrap().remove("id");
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_without_a_key_answers_as_pi_does() {
    // A stored session to load, made while a key existed.
    let keyed = Scenario::start(vec![MockResponse::sse(text_answer(&["Hi there."], 10, 3))]).await;
    let made = keyed
        .run(&["-p", "--model", "mock-oai/mock-gpt", "Hello"])
        .await;
    assert!(made.status.success());
    let stored = keyed.session_files().pop().unwrap();

    let pi = pi_rpc();
    let s = bare().await;
    let dir = s.sessions_dir();
    let mut rpc =
        RpcProcess::start(s.command(&["--session-dir", dir.to_str().unwrap(), "--mode", "rpc"]));

    let state = answer(&mut rpc, json!({"type": "get_state"}));
    let pi_state = pi_response(&pi, "1");
    assert_eq!(state["data"]["model"], pi_state["data"]["model"]);
    assert_eq!(
        state["data"]["thinkingLevel"],
        pi_state["data"]["thinkingLevel"]
    );
    assert_eq!(state["data"]["messageCount"], 0);
    assert_eq!(
        answer(&mut rpc, json!({"type": "get_messages"})),
        without_id(pi_response(&pi, "2"))
    );
    assert_eq!(
        answer(&mut rpc, json!({"type": "get_available_models"})),
        without_id(pi_response(&pi, "3"))
    );
    let refused = answer(&mut rpc, json!({"type": "prompt", "message": "Hi"}));
    assert_eq!(refused["success"], false, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().starts_with(NO_KEY),
        "{refused}"
    );
    assert!(
        pi_response(&pi, "4")["error"]
            .as_str()
            .unwrap()
            .starts_with(NO_KEY)
    );
    assert_eq!(
        answer(
            &mut rpc,
            json!({"type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt"})
        ),
        without_id(pi_response(&pi, "5"))
    );
    assert_eq!(
        answer(
            &mut rpc,
            json!({"type": "switch_session", "sessionPath": stored.to_str().unwrap()})
        ),
        without_id(pi_response(&pi, "6"))
    );
    let loaded = answer(&mut rpc, json!({"type": "get_messages"}));
    let roles: Vec<&str> = loaded["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant"]);
    let pi_loaded = pi_response(&pi, "7");
    assert_eq!(pi_loaded["data"]["messages"].as_array().unwrap().len(), 2);
    // The stored model has no key: the placeholder stays, as in pi.
    assert_eq!(
        answer(&mut rpc, json!({"type": "get_state"}))["data"]["model"],
        pi_response(&pi, "8")["data"]["model"]
    );
    rpc.finish();
    assert!(s.requests().is_empty(), "nothing reached a provider");
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_without_a_key_refuses_the_prompt_as_pi_does() {
    let s = bare().await;
    let out = s.run(&["-p", "Hi"]).await;
    let pi: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("first-run/print.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        out.status.code(),
        pi["exit_code"].as_i64().map(|c| c as i32)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with(NO_KEY), "{stderr}");
    assert!(pi["stderr"].as_str().unwrap().starts_with(NO_KEY));
    assert!(out.stdout.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_terminal_opens_without_a_key_and_login_selects_a_model() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(
        &["Logged in and answering."],
        12,
        4,
    ))])
    .await;
    // Only groq's address is changed (to the mock); no provider has a key.
    std::fs::write(
        s.agent_dir.path().join("models.json"),
        json!({"providers": {"groq": {"baseUrl": format!("{}/v1", s.server.url())}}}).to_string(),
    )
    .unwrap();
    let mut tui = Tui::start_without_model(&s, &[], 100, 40);
    tui.wait_screen(
        |s| s.contains("No models available. Use /login"),
        "the first-run warning",
    );
    tui.login_with_api_key("groq");
    tui.send("gsk-first-run\r");
    tui.wait_all(
        |s| s.contains("Saved API key for groq. Selected openai/gpt-oss-120b."),
        "the saved status naming the selected model",
    );
    tui.submit("What now?");
    tui.wait_screen(
        |s| s.contains("Logged in and answering."),
        "the mock's answer",
    );
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer gsk-first-run")
    );
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["model"], "openai/gpt-oss-120b");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn json_mode_without_a_key_says_why_on_stderr() {
    let s = bare().await;
    let out = s.run(&["--mode", "json", "Hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "only the session header: {stdout}");
    assert_eq!(lines[0]["type"], "session");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(NO_KEY));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_key_without_a_model_is_refused_as_pi_refuses_it() {
    let s = bare().await;
    let out = s.run(&["--api-key", "sk-x", "-p", "Hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "Error: --api-key requires a model to be specified via --model, --provider/--model, or --models"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_model_that_is_gone_is_named_when_the_terminal_opens() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&["Stored."], 10, 2))]).await;
    let made = s
        .run(&["-p", "--model", "mock-oai/mock-gpt", "Hello"])
        .await;
    assert!(made.status.success());
    let stored = s.session_files().pop().unwrap();
    // mock-oai is gone; the other mock providers stay.
    let path = s.agent_dir.path().join("models.json");
    let mut models: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    models["providers"]
        .as_object_mut()
        .unwrap()
        .remove("mock-oai");
    std::fs::write(&path, models.to_string()).unwrap();
    let mut tui = Tui::start_without_model(&s, &["--session", stored.to_str().unwrap()], 100, 40);
    let screen = tui.wait_screen(
        |s| s.contains("Warning: Could not restore model mock-oai/mock-gpt. Using mock-"),
        "pi's fallback warning",
    );
    // The model it names is the one the footer shows.
    let line = screen
        .lines()
        .find(|l| l.contains("Could not restore model"))
        .unwrap();
    let used = line.rsplit("Using ").next().unwrap().trim();
    let (provider, id) = used.split_once('/').unwrap();
    assert!(screen.contains(&format!("({provider}) {id}")), "{screen}");
    assert!(tui.quit().success());
}
