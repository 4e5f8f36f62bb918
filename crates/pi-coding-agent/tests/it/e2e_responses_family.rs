//! The `pi` binary on the azure-openai-responses and openai-codex-responses
//! wires, against the answers pi 0.73.1 got in `fixtures/pi-0.73.1-azure`
//! and `fixtures/pi-0.73.1-codex`: the request pi-rs sends equals pi's (the
//! app's own differences blanked), and the built-in `openai-codex` provider
//! runs on the ChatGPT login stored in auth.json (access token as bearer,
//! account id header), as pi does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, comparable_body, jsonl, recorded_responses, text};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// `fixtures/<dir>/<folder>` as a scenario path under `fixtures/pi-0.73.1`.
fn capture(dir: &str, folder: &str) -> String {
    format!("../{dir}/{folder}")
}

fn captured_requests(scenario: &str) -> Vec<Value> {
    jsonl(&e2e_common::fixtures().join(scenario).join("requests.jsonl"))
}

/// Adds providers (or provider overrides) to the scenario's models.json.
fn add_providers(scenario: &Scenario, providers: Value) {
    let path = scenario.agent_dir.path().join("models.json");
    let mut models: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let url = scenario.server.url();
    let text = providers
        .to_string()
        .replace("http://127.0.0.1:18777", &url);
    for (name, entry) in serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_object()
        .unwrap()
    {
        models["providers"][name] = entry.clone();
    }
    std::fs::write(&path, models.to_string()).unwrap();
}

fn capture_providers(dir: &str) -> Value {
    let path = e2e_common::fixtures()
        .join("..")
        .join(dir)
        .join("models.json");
    let models: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    models["providers"].clone()
}

#[tokio::test]
async fn azure_text_answer_and_the_request_pi_sends() {
    let scenario_name = capture("pi-0.73.1-azure", "a-text-az");
    let scenario = Scenario::start(recorded_responses(&scenario_name)).await;
    add_providers(&scenario, capture_providers("pi-0.73.1-azure"));
    let output = scenario
        .run(&[
            "-p",
            "--model",
            "mock-az/mock-az",
            "What is 2 + 2? Also say hello.",
        ])
        .await;
    assert_eq!(text(&output.stderr), "");
    assert_eq!(
        text(&output.stdout),
        "Hello! I am a mock model. 2 + 2 = 4.\n"
    );
    let pis = captured_requests(&scenario_name);
    let ours = scenario.requests();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].path, pis[0]["path"].as_str().unwrap());
    assert_eq!(ours[0].header("api-key"), Some("mock-azure-api-key"));
    assert_eq!(
        comparable_body(&ours[0].json()),
        comparable_body(&pis[0]["body"])
    );
}

#[tokio::test]
async fn codex_runs_on_the_chatgpt_login_in_auth_json() {
    let scenario_name = capture("pi-0.73.1-codex", "o-oauth-cdx");
    let scenario = Scenario::start(recorded_responses(&scenario_name)).await;
    add_providers(
        &scenario,
        json!({"openai-codex": {"baseUrl": "http://127.0.0.1:18777/backend-api"}}),
    );
    let token = capture_providers("pi-0.73.1-codex")["mock-cdx"]["apiKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let auth = json!({"openai-codex": {"type": "oauth", "access": token, "refresh": "rt-mock",
        "expires": 4_102_444_800_000_i64, "accountId": "acc-mock-0001"}});
    std::fs::write(
        scenario.agent_dir.path().join("auth.json"),
        auth.to_string(),
    )
    .unwrap();
    let output = scenario
        .run(&[
            "-p",
            "--model",
            "openai-codex/gpt-5.4-mini",
            "What is 2 + 2? Also say hello.",
        ])
        .await;
    assert_eq!(text(&output.stderr), "");
    assert_eq!(
        text(&output.stdout),
        "Hello! I am a mock model. 2 + 2 = 4.\n"
    );
    let pis = captured_requests(&scenario_name);
    let ours = scenario.requests();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].path, "/backend-api/codex/responses");
    assert_eq!(ours[0].path, pis[0]["path"].as_str().unwrap());
    assert_eq!(
        ours[0].header("authorization"),
        Some(format!("Bearer {token}").as_str())
    );
    for name in ["chatgpt-account-id", "originator", "openai-beta", "accept"] {
        assert_eq!(
            ours[0].header(name),
            pis[0]["headers"][name].as_str(),
            "{name}"
        );
    }
    // The session id keys the cache and names the session in headers.
    let session = ours[0].header("session_id").unwrap();
    assert_eq!(ours[0].json()["prompt_cache_key"], session);
    assert_eq!(
        comparable_body(&ours[0].json()),
        comparable_body(&pis[0]["body"])
    );
}
