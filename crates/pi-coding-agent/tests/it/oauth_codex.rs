//! OpenAI Codex (ChatGPT) OAuth against a loopback mock: authorize URL,
//! redirect login, paste fallback when the callback port is taken, the
//! account id from the token, refresh and revocation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::oauth_common;

use oauth_common::{Scripted, auth_json, form, jwt, now_ms, param, query, redirect};
use pi_coding_agent::auth::pkce::Pkce;
use pi_coding_agent::auth::{OAuthEndpoints, OAuthError, OAuthProvider, OAuthStore, openai_codex};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::json;

fn access_token(account: &str) -> String {
    jwt(&json!({"https://api.openai.com/auth": {"chatgpt_account_id": account}, "exp": 1}))
}

fn tokens(account: &str) -> String {
    json!({"access_token": access_token(account), "refresh_token": "rt-new", "expires_in": 864000, "id_token": "x"})
        .to_string()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn the_authorize_url_is_pis() {
    let pkce = Pkce::from_verifier("v".to_owned());
    let url = openai_codex::authorize_url(
        &OAuthEndpoints::default(),
        &pkce,
        "0123abcd",
        &openai_codex::redirect_uri(1455),
    );
    assert!(url.starts_with("https://auth.openai.com/oauth/authorize?response_type=code&"));
    assert_eq!(
        query(&url),
        pairs(&[
            ("response_type", "code"),
            ("client_id", "app_EMoamEEZ73f0CkXaXp7hrann"),
            ("redirect_uri", "http://localhost:1455/auth/callback"),
            ("scope", "openid profile email offline_access"),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("state", "0123abcd"),
            ("id_token_add_organizations", "true"),
            ("codex_cli_simplified_flow", "true"),
            ("originator", "pi"),
        ])
    );
}

#[tokio::test]
async fn login_through_the_redirect_stores_the_account_id() {
    let mock = MockServer::start([MockResponse::json(200, tokens("acc-42"))])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, mut auth_rx) = Scripted::new(&[]);
    let browser = async {
        let info = auth_rx.recv().await.unwrap();
        let state = param(&info.url, "state");
        assert_eq!(state.len(), 32, "16 random bytes as hex");
        // A wrong state is refused and does not end the login.
        let uri = param(&info.url, "redirect_uri");
        assert_eq!(redirect(&uri, "bad", "not-the-state").await.0, 400);
        let page = redirect(&uri, "code-1", &state).await;
        (info, page)
    };
    let before = now_ms();
    let (result, (info, page)) =
        tokio::join!(store.login(OAuthProvider::OpenaiCodex, &callbacks), browser);
    result.unwrap();
    assert_eq!(page.0, 200);
    assert_eq!(
        info.instructions.as_deref(),
        Some("A browser window should open. Complete login to finish.")
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/codex/token");
    assert_eq!(
        requests[0].header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    let body = form(&requests[0]);
    let verifier = body
        .iter()
        .find(|(k, _)| k == "code_verifier")
        .unwrap()
        .1
        .clone();
    assert_eq!(
        param(&info.url, "code_challenge"),
        Pkce::from_verifier(verifier.clone()).challenge
    );
    assert_eq!(
        body,
        pairs(&[
            ("grant_type", "authorization_code"),
            ("client_id", "app_EMoamEEZ73f0CkXaXp7hrann"),
            ("code", "code-1"),
            ("code_verifier", &verifier),
            ("redirect_uri", &param(&info.url, "redirect_uri")),
        ])
    );
    let entry = &auth_json(dir.path())["openai-codex"];
    let keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "access", "refresh", "expires", "accountId"]);
    assert_eq!(entry["accountId"], "acc-42");
    assert_eq!(entry["refresh"], "rt-new");
    let expires = entry["expires"].as_i64().unwrap();
    assert!((before + 864_000_000..before + 864_005_000).contains(&expires));
}

#[tokio::test]
async fn a_taken_callback_port_falls_back_to_pasting() {
    let mock = MockServer::start([MockResponse::json(200, tokens("acc-1"))])
        .await
        .unwrap();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let mut endpoints = OAuthEndpoints::mock(&mock.url());
    endpoints.codex_callback_port = port;
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(endpoints);
    let (callbacks, _auth_rx) = Scripted::new(&["  pasted-code  "]);
    store
        .login(OAuthProvider::OpenaiCodex, &callbacks)
        .await
        .unwrap();
    let prompts = callbacks.prompts.lock().unwrap().clone();
    assert_eq!(prompts.len(), 1);
    assert_eq!(
        prompts[0].message,
        "Paste the authorization code (or full redirect URL):"
    );
    let body = form(&mock.requests()[0]);
    assert!(body.contains(&("code".to_owned(), "pasted-code".to_owned())));
    assert!(body.contains(&(
        "redirect_uri".to_owned(),
        format!("http://localhost:{port}/auth/callback")
    )));
    drop(busy);
}

#[tokio::test]
async fn a_token_without_an_account_id_is_refused() {
    let body =
        json!({"access_token": jwt(&json!({"sub": "x"})), "refresh_token": "r", "expires_in": 1})
            .to_string();
    let mock = MockServer::start([MockResponse::json(200, body)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let (callbacks, _rx) = Scripted::new(&[]);
    let (callbacks, paste) = callbacks.with_manual_input();
    paste.send("c".to_owned()).unwrap();
    let error = store
        .login(OAuthProvider::OpenaiCodex, &callbacks)
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Failed to extract accountId from token");
}

#[tokio::test]
async fn refresh_posts_the_form_and_a_revoked_token_says_to_log_in_again() {
    let mock = MockServer::start([
        MockResponse::json(200, tokens("acc-2")),
        MockResponse::json(401, r#"{"error":{"code":"refresh_token_reused"}}"#),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let expired = json!({"openai-codex": {"type": "oauth", "access": access_token("acc-1"), "refresh": "rt-old", "expires": now_ms() - 1, "accountId": "acc-1"}});
    std::fs::write(dir.path().join("auth.json"), expired.to_string()).unwrap();
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&mock.url()));
    let key = store.api_key("openai-codex").await.unwrap().unwrap();
    assert_eq!(openai_codex::account_id(&key).as_deref(), Some("acc-2"));
    assert_eq!(
        form(&mock.requests()[0]),
        pairs(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", "rt-old"),
            ("client_id", "app_EMoamEEZ73f0CkXaXp7hrann"),
        ])
    );
    assert_eq!(auth_json(dir.path())["openai-codex"]["accountId"], "acc-2");

    // The next refresh is refused.
    let mut stored = auth_json(dir.path());
    stored["openai-codex"]["expires"] = json!(0);
    std::fs::write(dir.path().join("auth.json"), stored.to_string()).unwrap();
    let error = store.api_key("openai-codex").await.unwrap_err();
    assert!(
        matches!(error, OAuthError::LoginExpired { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("`pi login openai-codex`"));
}
