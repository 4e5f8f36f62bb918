//! Anthropic (Claude Pro/Max) OAuth against a loopback mock of the token
//! endpoint: authorize URL, redirect and pasted-code logins, code exchange,
//! refresh, expiry margin, and a revoked refresh token.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::oauth_common;

use oauth_common::{Scripted, auth_json, now_ms, param, query, redirect};
use pi_coding_agent::auth::pkce::Pkce;
use pi_coding_agent::auth::{OAuthEndpoints, OAuthError, OAuthProvider, OAuthStore, anthropic};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::json;

const CLIENT_ID: &str = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
const TOKENS: &str = r#"{"access_token":"sk-ant-oat01-new","refresh_token":"sk-ant-ort01-new","expires_in":3600,"token_type":"Bearer"}"#;

#[test]
fn the_authorize_url_is_pis() {
    let pkce = Pkce::from_verifier("verifier-1".to_owned());
    let url = anthropic::authorize_url(
        &OAuthEndpoints::default(),
        &pkce,
        &anthropic::redirect_uri(53692),
    );
    assert!(
        url.starts_with("https://claude.ai/oauth/authorize?code=true&client_id="),
        "{url}"
    );
    // URLSearchParams encoding: spaces as '+', ':' and '/' escaped.
    assert!(
        url.contains("&scope=org%3Acreate_api_key+user%3Aprofile+user%3Ainference+"),
        "{url}"
    );
    let expected: Vec<(String, String)> = [
        ("code", "true"),
        ("client_id", CLIENT_ID),
        ("response_type", "code"),
        ("redirect_uri", "http://localhost:53692/callback"),
        (
            "scope",
            "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload",
        ),
        ("code_challenge", pkce.challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "verifier-1"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    assert_eq!(query(&url), expected);
}

#[tokio::test]
async fn login_through_the_redirect_exchanges_the_code_and_stores_pis_entry() {
    let mock = MockServer::start([MockResponse::json(200, TOKENS)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, mut auth_rx) = Scripted::new(&[]);
    let browser = async {
        let info = auth_rx.recv().await.unwrap();
        let state = param(&info.url, "state");
        let uri = param(&info.url, "redirect_uri");
        let page = redirect(&uri, "the-code", &state).await;
        (info, page)
    };
    let before = now_ms();
    let (result, (info, page)) =
        tokio::join!(store.login(OAuthProvider::Anthropic, &callbacks), browser);
    let credentials = result.unwrap();
    assert_eq!(page.0, 200);
    assert!(
        page.1.contains("Anthropic authentication completed"),
        "{}",
        page.1
    );
    assert!(
        info.url
            .starts_with(&format!("{}/anthropic/authorize?", mock.url()))
    );

    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/anthropic/token");
    assert_eq!(requests[0].header("content-type"), Some("application/json"));
    assert_eq!(requests[0].header("accept"), Some("application/json"));
    let body = requests[0].json();
    let verifier = body["code_verifier"].as_str().unwrap().to_owned();
    // The verifier is the state, and the URL's challenge is its S256.
    assert_eq!(param(&info.url, "state"), verifier);
    assert_eq!(
        param(&info.url, "code_challenge"),
        Pkce::from_verifier(verifier.clone()).challenge
    );
    assert_eq!(
        body,
        json!({
            "grant_type": "authorization_code",
            "client_id": CLIENT_ID,
            "code": "the-code",
            "state": verifier,
            "redirect_uri": param(&info.url, "redirect_uri"),
            "code_verifier": verifier,
        })
    );
    assert_eq!(
        callbacks.progress.lock().unwrap().as_slice(),
        ["Exchanging authorization code for tokens..."]
    );

    // Stored as pi stores it; expiry 5 minutes before the token's.
    let stored = auth_json(dir.path());
    let entry = &stored["anthropic"];
    let keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "refresh", "access", "expires"]);
    assert_eq!(entry["type"], "oauth");
    assert_eq!(entry["access"], "sk-ant-oat01-new");
    assert_eq!(entry["refresh"], "sk-ant-ort01-new");
    let expires = entry["expires"].as_i64().unwrap();
    assert_eq!(expires, credentials.expires());
    let margin = before + 3_600_000 - 300_000;
    assert!(
        (margin..margin + 5_000).contains(&expires),
        "{expires} vs {margin}"
    );
    #[cfg(unix)]
    assert_eq!(oauth_common::auth_mode(dir.path()), 0o600);
}

#[tokio::test]
async fn a_pasted_code_with_state_wins_over_the_redirect() {
    let mock = MockServer::start([MockResponse::json(200, TOKENS)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, mut auth_rx) = Scripted::new(&[]);
    let (callbacks, paste) = callbacks.with_manual_input();
    let user = async {
        let info = auth_rx.recv().await.unwrap();
        let state = param(&info.url, "state");
        paste.send(format!("pasted-code#{state}")).unwrap();
    };
    let (result, ()) = tokio::join!(store.login(OAuthProvider::Anthropic, &callbacks), user);
    result.unwrap();
    let body = mock.requests()[0].json();
    assert_eq!(body["code"], "pasted-code");
    assert_eq!(body["state"], body["code_verifier"]);
    assert_eq!(
        auth_json(dir.path())["anthropic"]["access"],
        "sk-ant-oat01-new"
    );
}

#[tokio::test]
async fn a_pasted_state_that_does_not_match_fails_without_a_token_request() {
    let mock = MockServer::start([MockResponse::json(200, TOKENS)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _auth_rx) = Scripted::new(&[]);
    let (callbacks, paste) = callbacks.with_manual_input();
    paste.send("code#other-state".to_owned()).unwrap();
    let error = store
        .login(OAuthProvider::Anthropic, &callbacks)
        .await
        .unwrap_err();
    assert!(matches!(error, OAuthError::StateMismatch), "{error}");
    assert!(mock.requests().is_empty());
    assert!(!dir.path().join("auth.json").exists());
}

#[tokio::test]
async fn a_failed_exchange_names_the_status_and_body() {
    let mock = MockServer::start([MockResponse::json(400, r#"{"error":"invalid_grant"}"#)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _auth_rx) = Scripted::new(&[]);
    let (callbacks, paste) = callbacks.with_manual_input();
    paste.send("just-a-code".to_owned()).unwrap();
    let error = store
        .login(OAuthProvider::Anthropic, &callbacks)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("Token exchange request failed"), "{error}");
    assert!(error.contains("status=400"), "{error}");
    assert!(error.contains("invalid_grant"), "{error}");
}

fn expired_entry() -> String {
    json!({"anthropic": {"type": "oauth", "refresh": "sk-ant-ort01-old", "access": "sk-ant-oat01-old", "expires": now_ms() - 1000}})
        .to_string()
}

#[tokio::test]
async fn an_expired_token_is_refreshed_once_and_stored() {
    let mock = MockServer::start([MockResponse::json(200, TOKENS)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("auth.json"), expired_entry()).unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    assert_eq!(
        store.api_key("anthropic").await.unwrap().as_deref(),
        Some("sk-ant-oat01-new")
    );
    // Fresh now: no second request.
    assert_eq!(
        store.api_key("anthropic").await.unwrap().as_deref(),
        Some("sk-ant-oat01-new")
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].json(),
        json!({"grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": "sk-ant-ort01-old"})
    );
    let entry = &auth_json(dir.path())["anthropic"];
    assert_eq!(entry["refresh"], "sk-ant-ort01-new");
    assert!(entry["expires"].as_i64().unwrap() > now_ms() + 3_000_000);
    #[cfg(unix)]
    assert_eq!(oauth_common::auth_mode(dir.path()), 0o600);
}

#[tokio::test]
async fn a_revoked_refresh_token_says_to_log_in_again_and_keeps_the_file() {
    let mock = MockServer::start([MockResponse::json(
        400,
        r#"{"error":"invalid_grant","error_description":"Refresh token revoked"}"#,
    )])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let original = expired_entry();
    std::fs::write(dir.path().join("auth.json"), &original).unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let error = store.api_key("anthropic").await.unwrap_err();
    assert!(
        matches!(error, OAuthError::LoginExpired { .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("Log in again with /login or `pi login anthropic`"),
        "{text}"
    );
    assert!(text.contains("Refresh token revoked"), "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("auth.json")).unwrap(),
        original
    );
}

#[tokio::test]
async fn a_server_error_on_refresh_is_not_a_revocation() {
    let mock = MockServer::start([MockResponse::json(503, "{}")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("auth.json"), expired_entry()).unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let error = store.api_key("anthropic").await.unwrap_err();
    assert!(
        matches!(error, OAuthError::RefreshFailed { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("Failed to refresh OAuth token for anthropic")
    );
}
