//! Cloudflare Workers AI and AI Gateway on loopback: their catalog base
//! URLs carry `{CLOUDFLARE_ACCOUNT_ID}` / `{CLOUDFLARE_GATEWAY_ID}`, filled
//! from the environment as pi 0.73.1 fills them (captured in
//! fixtures/pi-0.73.1/cloudflare by fixtures/capture/first_run_scenarios.py,
//! with the base host pointed at its mock through models.json). The request
//! path, the gateway's `cf-aig-authorization`, the body and a missing
//! variable's error are compared with pi's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, capture_answer, comparable_body, fixtures};
use serde_json::{Value, json};

fn pi_runs() -> Value {
    let path = fixtures().join("cloudflare/runs.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `pi -p --model MODEL Hi` with `provider`'s base URL moved to the
/// mock (the placeholders kept) and the variables set or not.
async fn run(
    provider: &str,
    path: &str,
    model: &str,
    set: bool,
) -> (Scenario, std::process::Output) {
    let s = Scenario::start(vec![capture_answer("Answer.")]).await;
    std::fs::write(
        s.agent_dir.path().join("models.json"),
        json!({"providers": {provider: {"baseUrl": format!("{}{path}", s.server.url())}}})
            .to_string(),
    )
    .unwrap();
    // A passthrough rejects the mock's answer; no retries wait for it.
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"retry": {"enabled": false}}"#,
    )
    .unwrap();
    let dir = s.sessions_dir();
    let mut command = s.command(&[
        "--session-dir",
        dir.to_str().unwrap(),
        "-p",
        "--model",
        model,
        "Hi",
    ]);
    command
        .env("CLOUDFLARE_API_KEY", "cf-key")
        .env_remove("CLOUDFLARE_ACCOUNT_ID")
        .env_remove("CLOUDFLARE_GATEWAY_ID");
    if set {
        command
            .env("CLOUDFLARE_ACCOUNT_ID", "acct-123")
            .env("CLOUDFLARE_GATEWAY_ID", "gw-9");
    }
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    (s, out)
}

/// The request went where pi's went, authorized as pi's was.
fn same_address_and_auth(ours: &pi_test_support::mock_server::RecordedRequest, pi: &Value) {
    assert_eq!(ours.path, pi["path"].as_str().unwrap());
    for header in ["authorization", "cf-aig-authorization", "x-api-key"] {
        assert_eq!(ours.header(header), pi[header].as_str(), "{header}");
    }
}

async fn check(name: &str, provider: &str, path: &str, model: &str) {
    let runs = pi_runs();
    let pi = &runs[format!("{name}-set")];
    let (s, out) = run(provider, path, model, true).await;
    assert_eq!(
        out.status.code().map(i64::from),
        pi["exit_code"].as_i64(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    let expected = &pi["requests"][0];
    same_address_and_auth(&requests[0], expected);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(comparable_body(&body), comparable_body(&expected["body"]));

    let pi = &runs[format!("{name}-unset")];
    let (s, out) = run(provider, path, model, false).await;
    assert_eq!(out.status.code().map(i64::from), pi["exit_code"].as_i64());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        pi["stderr"].as_str().unwrap()
    );
    assert!(s.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn workers_ai_fills_the_account_id() {
    check(
        "workers-ai",
        "cloudflare-workers-ai",
        "/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1",
        "cloudflare-workers-ai/@cf/moonshotai/kimi-k2.6",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_ai_gateway_fills_account_and_gateway_and_uses_its_header() {
    check(
        "gateway-compat",
        "cloudflare-ai-gateway",
        "/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
        "cloudflare-ai-gateway/workers-ai/@cf/moonshotai/kimi-k2.6",
    )
    .await;
}

/// The OpenAI and Anthropic passthroughs of the gateway: the same address
/// and authorization as pi's first request (the mock's chat completion is
/// not their wire, so only the request is compared).
#[tokio::test(flavor = "multi_thread")]
async fn the_gateway_passthroughs_are_addressed_and_authorized_as_pi_does() {
    let runs = pi_runs();
    for (name, model) in [
        ("gateway-openai", "cloudflare-ai-gateway/gpt-4"),
        (
            "gateway-anthropic",
            "cloudflare-ai-gateway/claude-3-5-haiku",
        ),
    ] {
        let (s, _) = run(
            "cloudflare-ai-gateway",
            "/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
            model,
            true,
        )
        .await;
        let requests = s.requests();
        assert!(!requests.is_empty(), "{name}");
        same_address_and_auth(&requests[0], &runs[format!("{name}-set")]["requests"][0]);
    }
}
