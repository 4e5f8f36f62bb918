//! A login done inside the interactive mode (`/login` writes auth.json, then
//! calls [`App::reload_models`]) takes effect at once, as pi's
//! `modelRegistry.refresh()`: a GitHub Copilot login moves the Copilot
//! models, the current one included, to the API base its token names;
//! `/logout` moves them back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_coding_agent::app::{App, SessionChoice, StartOptions, build_app};
use serde_json::json;

const INDIVIDUAL: &str = "https://api.individual.githubcopilot.com";
const BUSINESS: &str = "https://api.business.githubcopilot.com";

fn copilot_bases(app: &App) -> Vec<String> {
    let registry = app.registry();
    let bases: Vec<String> = registry
        .models()
        .iter()
        .filter(|m| m.provider.as_str() == "github-copilot")
        .map(|m| m.base_url.clone())
        .collect();
    assert!(!bases.is_empty());
    bases
}

#[test]
fn a_copilot_login_moves_its_models_at_once() {
    let (agent_dir, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = build_app(StartOptions {
        cwd: cwd.path().to_path_buf(),
        session: SessionChoice::InMemory,
        agent_dir: Some(agent_dir.path().to_path_buf()),
        provider: Some("github-copilot".to_owned()),
        model: Some("claude-haiku-4.5".to_owned()),
        ..StartOptions::default()
    })
    .unwrap();
    assert_eq!(app.agent.model().base_url, INDIVIDUAL);

    // What the login flow stores (pi's auth.json format).
    let login = json!({"github-copilot": {
        "type": "oauth", "refresh": "ghu-1", "expires": 4_102_444_800_000_i64,
        "access": "tid=x;exp=4102444800;proxy-ep=proxy.business.githubcopilot.com;"
    }});
    std::fs::write(agent_dir.path().join("auth.json"), login.to_string()).unwrap();
    app.auth.reload().unwrap();
    // Re-reading auth.json alone changes no model (the bug: it took a restart).
    assert!(copilot_bases(&app).iter().all(|b| b == INDIVIDUAL));

    app.reload_models();
    assert!(copilot_bases(&app).iter().all(|b| b == BUSINESS));
    let current = app.agent.model();
    assert_eq!(
        (
            current.provider.as_str(),
            current.id.as_str(),
            current.base_url.as_str()
        ),
        ("github-copilot", "claude-haiku-4.5", BUSINESS)
    );

    app.auth.remove("github-copilot").unwrap();
    app.reload_models();
    assert!(copilot_bases(&app).iter().all(|b| b == INDIVIDUAL));
    assert_eq!(app.agent.model().base_url, INDIVIDUAL);
}
