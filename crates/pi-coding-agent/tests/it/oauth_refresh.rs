//! OAuth tokens as the agent uses them: pi's auth.json read unchanged,
//! expired tokens refreshed before a call, and concurrent refreshes — two
//! tasks, two processes — refreshing once under the auth.json lock.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::oauth_common;

use std::path::Path;
use std::time::Duration;

use oauth_common::{auth_json, now_ms};
use pi_coding_agent::auth::{OAuthEndpoints, OAuthKeyResolver, OAuthStore};
use pi_coding_agent::config::{AuthStorage, ModelRegistry};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::json;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/auth/pi-0.73.1-auth.json"
);

fn resolver(dir: &Path, mock: Option<&MockServer>, cli_key: Option<&str>) -> OAuthKeyResolver {
    let registry = ModelRegistry::load(dir).unwrap();
    let auth = AuthStorage::load(dir).unwrap();
    let resolver = OAuthKeyResolver::new(registry, auth, cli_key.map(str::to_owned));
    match mock {
        Some(mock) => resolver.with_endpoints(OAuthEndpoints::mock(&mock.url())),
        None => resolver,
    }
}

/// A token answer that takes `delay` to arrive, so refreshes overlap.
fn slow_tokens(access: &str, delay: Duration) -> MockResponse {
    MockResponse::Sse {
        frames: vec![
            json!({"access_token": access, "refresh_token": "rt-2", "expires_in": 3600})
                .to_string(),
        ],
        delay,
    }
}

fn write_expired(dir: &Path) {
    let stored = json!({"anthropic": {"type": "oauth", "refresh": "rt-1", "access": "sk-ant-oat01-old", "expires": now_ms() - 1}});
    std::fs::write(dir.join("auth.json"), stored.to_string()).unwrap();
}

#[tokio::test]
async fn a_pi_auth_json_with_oauth_logins_works_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(FIXTURE).unwrap();
    std::fs::write(dir.path().join("auth.json"), &original).unwrap();
    let resolver = resolver(dir.path(), None, None);
    assert_eq!(
        resolver.resolve("anthropic").await.as_deref(),
        Some("sk-ant-oat01-fixture-access")
    );
    let codex = resolver.resolve("openai-codex").await.unwrap();
    assert_eq!(
        pi_coding_agent::auth::openai_codex::account_id(&codex).as_deref(),
        Some("acc-fixture")
    );
    assert_eq!(
        resolver.resolve("github-copilot").await.as_deref(),
        Some("tid=fixture;exp=4102444800;proxy-ep=proxy.business.githubcopilot.com;")
    );
    assert_eq!(
        resolver.resolve("openai").await.as_deref(),
        Some("sk-fixture")
    );
    // The logins count as keys when listing models.
    let registry = ModelRegistry::load(dir.path()).unwrap();
    let auth = AuthStorage::load(dir.path()).unwrap();
    let available = registry.available_models(None, &auth);
    assert!(available.iter().any(|m| m.provider.as_str() == "anthropic"));
    assert!(
        available
            .iter()
            .any(|m| m.provider.as_str() == "github-copilot")
    );
    // Reading never rewrites the file; a rewrite keeps every entry as it was.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("auth.json")).unwrap(),
        original
    );
    AuthStorage::load(dir.path())
        .unwrap()
        .set_api_key("google", "g")
        .unwrap();
    let mut expected: serde_json::Value = serde_json::from_str(&original).unwrap();
    expected["google"] = json!({"type": "api_key", "key": "g"});
    assert_eq!(auth_json(dir.path()), expected);
    let rewritten = std::fs::read_to_string(dir.path().join("auth.json")).unwrap();
    let head = original.trim_end().strip_suffix('}').unwrap().trim_end();
    assert!(
        rewritten.starts_with(head),
        "same text, order and indentation:\n{rewritten}"
    );
}

#[tokio::test]
async fn the_cli_key_wins_and_an_expired_login_is_refreshed_before_the_call() {
    let mock = MockServer::start([slow_tokens("sk-ant-oat01-new", Duration::ZERO)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_expired(dir.path());
    assert_eq!(
        resolver(dir.path(), Some(&mock), Some("cli"))
            .resolve("anthropic")
            .await
            .as_deref(),
        Some("cli")
    );
    assert!(mock.requests().is_empty());
    let resolver = resolver(dir.path(), Some(&mock), None);
    assert_eq!(
        resolver.resolve("anthropic").await.as_deref(),
        Some("sk-ant-oat01-new")
    );
    assert_eq!(
        resolver.resolve("anthropic").await.as_deref(),
        Some("sk-ant-oat01-new")
    );
    assert_eq!(mock.requests().len(), 1);
    assert_eq!(auth_json(dir.path())["anthropic"]["refresh"], "rt-2");
}

#[tokio::test]
async fn a_revoked_login_gives_no_key_and_keeps_the_credentials() {
    let mock = MockServer::start([MockResponse::json(400, r#"{"error":"invalid_grant"}"#)])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_expired(dir.path());
    let before = std::fs::read_to_string(dir.path().join("auth.json")).unwrap();
    assert_eq!(
        resolver(dir.path(), Some(&mock), None)
            .resolve("anthropic")
            .await,
        None
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("auth.json")).unwrap(),
        before
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tasks_needing_a_refresh_refresh_once() {
    let mock = MockServer::start([slow_tokens("sk-ant-oat01-once", Duration::from_millis(300))])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_expired(dir.path());
    // Two resolvers, as two agents on the same auth.json would have.
    let a = resolver(dir.path(), Some(&mock), None);
    let b = resolver(dir.path(), Some(&mock), None);
    let (ka, kb) = tokio::join!(a.resolve("anthropic"), b.resolve("anthropic"));
    assert_eq!(ka.as_deref(), Some("sk-ant-oat01-once"));
    assert_eq!(kb.as_deref(), Some("sk-ant-oat01-once"));
    assert_eq!(mock.requests().len(), 1, "one refresh request");
}

const CHILD_DIR: &str = "PI_OAUTH_TEST_CHILD_DIR";
const CHILD_MOCK: &str = "PI_OAUTH_TEST_CHILD_MOCK";

/// Run by `two_processes_needing_a_refresh_refresh_once` in child processes.
#[tokio::test]
#[ignore = "a child process of two_processes_needing_a_refresh_refresh_once"]
async fn child_refresh() {
    let (Ok(dir), Ok(mock)) = (std::env::var(CHILD_DIR), std::env::var(CHILD_MOCK)) else {
        return;
    };
    let store = OAuthStore::new(Path::new(&dir)).with_endpoints(OAuthEndpoints::mock(&mock));
    let key = store.api_key("anthropic").await.unwrap().unwrap();
    println!("KEY={key}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_needing_a_refresh_refresh_once() {
    let mock = MockServer::start([slow_tokens("sk-ant-oat01-proc", Duration::from_millis(500))])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_expired(dir.path());
    let spawn = || {
        tokio::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "oauth_refresh::child_refresh",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_MOCK, mock.url())
            .output()
    };
    let (first, second) = tokio::join!(spawn(), spawn());
    for output in [first.unwrap(), second.unwrap()] {
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("KEY=sk-ant-oat01-proc"), "{stdout}");
    }
    assert_eq!(
        mock.requests().len(),
        1,
        "one refresh request for both processes"
    );
    assert_eq!(
        auth_json(dir.path())["anthropic"]["access"],
        "sk-ant-oat01-proc"
    );
}

#[tokio::test]
async fn a_refused_refresh_uses_the_token_another_pi_stored_meanwhile() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    write_expired(dir.path());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let path = dir.path().join("auth.json");
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await.unwrap();
        // pi (which does not take pi-rs's lock) rotated the token meanwhile.
        let theirs = json!({"anthropic": {"type": "oauth", "refresh": "rt-pi", "access": "sk-ant-oat01-by-pi", "expires": now_ms() + 3_600_000}});
        std::fs::write(&path, theirs.to_string()).unwrap();
        let body = r#"{"error":"invalid_grant"}"#;
        let response = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(response.as_bytes()).await.unwrap();
    });
    let store = OAuthStore::new(dir.path()).with_endpoints(OAuthEndpoints::mock(&url));
    assert_eq!(
        store.api_key("anthropic").await.unwrap().as_deref(),
        Some("sk-ant-oat01-by-pi")
    );
    server.await.unwrap();
    assert_eq!(auth_json(dir.path())["anthropic"]["refresh"], "rt-pi");
}
