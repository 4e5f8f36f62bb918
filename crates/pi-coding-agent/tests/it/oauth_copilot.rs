//! GitHub Copilot's device flow against a loopback mock: device code,
//! polling through `authorization_pending` and `slow_down`, the Copilot
//! token exchange, the model policy calls, Enterprise domains, errors,
//! refresh and revocation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::oauth_common;

use std::time::Duration;

use oauth_common::{Scripted, auth_json, form, now_ms};
use pi_coding_agent::auth::{
    OAuthEndpoints, OAuthError, OAuthProvider, OAuthStore, github_copilot,
};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::json;

const CLIENT_ID: &str = "Iv1.b507a08c87ecfe98";
const COPILOT_TOKEN: &str = "tid=abc;exp=1;sku=x;proxy-ep=proxy.individual.githubcopilot.com;";

fn device(interval: u64, expires_in: u64) -> MockResponse {
    MockResponse::json(
        200,
        json!({"device_code": "dc-1", "user_code": "ABCD-1234", "verification_uri": "https://github.com/login/device", "interval": interval, "expires_in": expires_in}).to_string(),
    )
}

fn copilot_token(expires_at: i64) -> MockResponse {
    MockResponse::json(
        200,
        json!({"token": COPILOT_TOKEN, "expires_at": expires_at, "refresh_in": 1500}).to_string(),
    )
}

#[tokio::test]
async fn the_device_flow_polls_through_pending_and_slow_down() {
    let expires_at = now_ms() / 1000 + 1800;
    let mock = MockServer::start([
        device(1, 900),
        MockResponse::json(
            200,
            r#"{"error":"authorization_pending","error_description":"pending"}"#,
        ),
        MockResponse::json(200, r#"{"error":"slow_down","interval":3}"#),
        MockResponse::json(
            200,
            r#"{"access_token":"gho_token","token_type":"bearer","scope":"read:user"}"#,
        ),
        copilot_token(expires_at),
        MockResponse::json(200, "{}"),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let endpoints = OAuthEndpoints::mock(&mock.url());
    let second = endpoints.poll_second;
    let store = OAuthStore::new(dir.path()).with_endpoints(endpoints);
    let (callbacks, _rx) = Scripted::new(&[""]);
    let started = std::time::Instant::now();
    store
        .login(OAuthProvider::GithubCopilot, &callbacks)
        .await
        .unwrap();
    // Waits: 1.2 × 1 s, 1.2 × 1 s, then 1.4 × the 3 s slow_down asked for.
    assert!(
        started.elapsed() >= second.mul_f64(1.2 + 1.2 + 4.2),
        "{:?}",
        started.elapsed()
    );

    let prompts = callbacks.prompts.lock().unwrap().clone();
    assert_eq!(
        prompts[0].message,
        "GitHub Enterprise URL/domain (blank for github.com)"
    );
    assert_eq!(prompts[0].placeholder.as_deref(), Some("company.ghe.com"));
    assert!(prompts[0].allow_empty);
    let infos = callbacks.infos.lock().unwrap().clone();
    assert_eq!(infos[0].url, "https://github.com/login/device");
    assert_eq!(
        infos[0].instructions.as_deref(),
        Some("Enter code: ABCD-1234")
    );
    assert_eq!(
        callbacks.progress.lock().unwrap().as_slice(),
        ["Enabling models..."]
    );

    let requests = mock.requests();
    assert_eq!(requests[0].path, "/github/login/device/code");
    assert_eq!(requests[0].header("accept"), Some("application/json"));
    assert_eq!(
        requests[0].header("user-agent"),
        Some("GitHubCopilotChat/0.35.0")
    );
    let pairs = |l: &[(&str, &str)]| -> Vec<(String, String)> {
        l.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    assert_eq!(
        form(&requests[0]),
        pairs(&[("client_id", CLIENT_ID), ("scope", "read:user")])
    );
    for poll in &requests[1..4] {
        assert_eq!(poll.path, "/github/login/oauth/access_token");
        assert_eq!(
            form(poll),
            pairs(&[
                ("client_id", CLIENT_ID),
                ("device_code", "dc-1"),
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ])
        );
    }
    let exchange = &requests[4];
    assert_eq!(exchange.method, "GET");
    assert_eq!(exchange.path, "/github/copilot_internal/v2/token");
    assert_eq!(exchange.header("authorization"), Some("Bearer gho_token"));
    assert_eq!(exchange.header("editor-version"), Some("vscode/1.107.0"));
    assert_eq!(
        exchange.header("editor-plugin-version"),
        Some("copilot-chat/0.35.0")
    );
    assert_eq!(
        exchange.header("copilot-integration-id"),
        Some("vscode-chat")
    );
    // Then one policy call per catalog Copilot model.
    let policies: Vec<_> = requests[5..].iter().collect();
    assert_eq!(policies.len(), pi_ai::get_models("github-copilot").len());
    assert!(
        policies
            .iter()
            .all(|r| r.path.starts_with("/copilot/models/")
                && r.path.ends_with("/policy")
                && r.json() == json!({"state": "enabled"})
                && r.header("authorization") == Some(&format!("Bearer {COPILOT_TOKEN}"))
                && r.header("openai-intent") == Some("chat-policy"))
    );

    assert_eq!(
        auth_json(dir.path()),
        json!({"github-copilot": {"type": "oauth", "refresh": "gho_token", "access": COPILOT_TOKEN, "expires": expires_at * 1000 - 300_000}})
    );
}

#[tokio::test]
async fn an_enterprise_domain_is_normalized_and_stored() {
    let mock = MockServer::start([
        device(1, 900),
        MockResponse::json(200, r#"{"access_token":"ghu_ent"}"#),
        copilot_token(now_ms() / 1000 + 1800),
        MockResponse::json(200, "{}"),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _rx) = Scripted::new(&["https://company.ghe.com/login"]);
    let credentials = store
        .login(OAuthProvider::GithubCopilot, &callbacks)
        .await
        .unwrap();
    assert_eq!(
        auth_json(dir.path())["github-copilot"]["enterpriseUrl"],
        "company.ghe.com"
    );
    assert_eq!(
        github_copilot::base_url_for(&credentials),
        "https://api.individual.githubcopilot.com"
    );
}

#[tokio::test]
async fn an_invalid_enterprise_domain_stops_before_any_request() {
    let mock = MockServer::start([device(1, 900)]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _rx) = Scripted::new(&["http://[oops"]);
    let error = store
        .login(OAuthProvider::GithubCopilot, &callbacks)
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Invalid GitHub Enterprise URL/domain");
    assert!(mock.requests().is_empty());
}

#[tokio::test]
async fn a_denied_authorization_ends_the_flow_with_githubs_reason() {
    let mock = MockServer::start([
        device(1, 900),
        MockResponse::json(200, r#"{"error":"access_denied","error_description":"The user has denied your application access."}"#),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _rx) = Scripted::new(&[""]);
    let error = store
        .login(OAuthProvider::GithubCopilot, &callbacks)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Device flow failed: access_denied: The user has denied your application access."
    );
    assert!(!dir.path().join("auth.json").exists());
}

#[tokio::test]
async fn an_expired_device_code_times_out_mentioning_slow_down() {
    let mock = MockServer::start([
        device(1, 5),
        MockResponse::json(200, r#"{"error":"slow_down"}"#),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _rx) = Scripted::new(&[""]);
    let error = tokio::time::timeout(
        Duration::from_secs(10),
        store.login(OAuthProvider::GithubCopilot, &callbacks),
    )
    .await
    .unwrap()
    .unwrap_err();
    assert!(
        matches!(error, OAuthError::DeviceFlowTimedOut { slow_down: true }),
        "{error:?}"
    );
    assert!(error.to_string().contains("clock drift"));
}

#[tokio::test]
async fn refresh_exchanges_the_github_token_again_and_revocation_says_log_in() {
    let expires_at = now_ms() / 1000 + 1800;
    let mock = MockServer::start([
        copilot_token(expires_at),
        MockResponse::json(401, r#"{"message":"Bad credentials"}"#),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let stored = json!({"github-copilot": {"type": "oauth", "refresh": "ghu_keep", "access": "tid=old", "expires": 1, "enterpriseUrl": "company.ghe.com"}});
    std::fs::write(dir.path().join("auth.json"), stored.to_string()).unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    assert_eq!(
        store.api_key("github-copilot").await.unwrap().as_deref(),
        Some(COPILOT_TOKEN)
    );
    assert_eq!(
        mock.requests()[0].header("authorization"),
        Some("Bearer ghu_keep")
    );
    assert_eq!(
        auth_json(dir.path())["github-copilot"],
        json!({"type": "oauth", "refresh": "ghu_keep", "access": COPILOT_TOKEN, "expires": expires_at * 1000 - 300_000, "enterpriseUrl": "company.ghe.com"})
    );
    let mut again = auth_json(dir.path());
    again["github-copilot"]["expires"] = json!(0);
    std::fs::write(dir.path().join("auth.json"), again.to_string()).unwrap();
    let error = store.api_key("github-copilot").await.unwrap_err();
    assert!(
        matches!(error, OAuthError::LoginExpired { .. }),
        "{error:?}"
    );
}
