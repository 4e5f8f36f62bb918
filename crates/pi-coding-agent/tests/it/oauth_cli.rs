//! `pi login` / `pi logout` from the command line (pi-rs's terminal form of
//! pi's `/login` and `/logout`), on a temporary agent dir.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use pretty_assertions::assert_eq;
use serde_json::json;

fn pi(agent_dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pi"))
        .args(args)
        .env("PI_CODING_AGENT_DIR", agent_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn login_stores_an_api_key_for_a_provider_without_a_subscription() {
    let dir = tempfile::tempdir().unwrap();
    let out = pi(dir.path(), &["login", "openai"], "  sk-typed  \n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("Enter API key:"));
    assert_eq!(
        text(&out.stdout).trim(),
        format!(
            "Saved API key for openai. Credentials saved to {}",
            dir.path().join("auth.json").display()
        )
    );
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("auth.json")).unwrap())
            .unwrap();
    assert_eq!(
        stored,
        json!({"openai": {"type": "api_key", "key": "sk-typed"}})
    );
}

#[test]
fn login_names_an_unknown_provider_and_a_closed_stdin_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let out = pi(dir.path(), &["login", "nope"], "");
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr).trim(),
        "Error: Unknown OAuth provider: nope"
    );
    // Choosing a subscription, but stdin ends.
    let out = pi(dir.path(), &["login"], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("1. Anthropic (Claude Pro/Max) (anthropic)"),
        "{err}"
    );
    assert!(
        err.contains("3. ChatGPT Plus/Pro (Codex Subscription) (openai-codex)"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("Error: Login cancelled"), "{err}");
    assert!(!dir.path().join("auth.json").exists());
}

#[test]
fn logout_removes_the_chosen_credentials_with_pis_messages() {
    let dir = tempfile::tempdir().unwrap();
    let auth = json!({
        "anthropic": {"type": "oauth", "refresh": "r", "access": "a", "expires": 1},
        "openai": {"type": "api_key", "key": "k"}
    });
    std::fs::write(dir.path().join("auth.json"), auth.to_string()).unwrap();
    let out = pi(dir.path(), &["logout"], "9\n1\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        "Logged out of Anthropic (Claude Pro/Max)"
    );
    let out = pi(dir.path(), &["logout", "openai"], "");
    assert_eq!(
        text(&out.stdout).trim(),
        "Removed stored API key for openai. Environment variables and models.json config are unchanged."
    );
    let out = pi(dir.path(), &["logout"], "");
    assert!(text(&out.stdout).starts_with("No stored credentials to remove."));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("auth.json")).unwrap(),
        "{}"
    );
}
