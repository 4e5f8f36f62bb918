//! `--models` scoping at startup and model cycling through the scope, with
//! the mock providers of the fixture models.json.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use pi_coding_agent::app::{App, SessionChoice, StartOptions, build_app};

fn app_with(
    agent_dir: &Path,
    cwd: &Path,
    models: Option<&[&str]>,
    settings: &str,
) -> std::sync::Arc<App> {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1/models.json");
    std::fs::copy(fixture, agent_dir.join("models.json")).unwrap();
    std::fs::write(agent_dir.join("settings.json"), settings).unwrap();
    build_app(StartOptions {
        cwd: cwd.to_path_buf(),
        session: SessionChoice::InMemory,
        agent_dir: Some(agent_dir.to_path_buf()),
        models: models.map(|m| m.iter().map(|s| (*s).to_owned()).collect()),
        ..StartOptions::default()
    })
    .unwrap()
}

fn current(app: &App) -> String {
    let model = app.agent.model();
    format!("{}/{}", model.provider, model.id)
}

#[test]
fn a_scope_picks_the_first_model_and_its_level_and_cycles_through_the_scope() {
    let (agent_dir, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = app_with(
        agent_dir.path(),
        cwd.path(),
        Some(&["mock-*-think:low", "mock-gpt", "no-such-model"]),
        "{}",
    );
    let scoped: Vec<String> = app
        .scoped_models()
        .iter()
        .map(|s| format!("{}/{}:{:?}", s.model.provider, s.model.id, s.thinking_level))
        .collect();
    assert_eq!(
        scoped,
        [
            "mock-oai/mock-gpt-think:Some(\"low\")",
            "mock-ant/mock-claude-think:Some(\"low\")",
            "mock-resp/mock-resp-think:Some(\"low\")",
            "mock-goog/mock-gemini-think:Some(\"low\")",
            "mock-oai/mock-gpt:None",
        ]
    );
    assert_eq!(current(&app), "mock-oai/mock-gpt-think");
    assert_eq!(
        app.agent
            .with_state(|s| s.thinking_level.map(|l| l.as_str())),
        Some("low")
    );
    let mut seen = Vec::new();
    for _ in 0..5 {
        let cycled = app.cycle_model(false).unwrap();
        assert!(cycled.is_scoped);
        seen.push(current(&app));
    }
    assert_eq!(
        seen,
        [
            "mock-ant/mock-claude-think",
            "mock-resp/mock-resp-think",
            "mock-goog/mock-gemini-think",
            "mock-oai/mock-gpt",
            "mock-oai/mock-gpt-think"
        ]
    );
}

#[test]
fn enabled_models_in_settings_scope_when_there_is_no_flag() {
    let (agent_dir, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let settings = r#"{"enabledModels": ["mock-gemini", "mock-claude"],
        "defaultProvider": "mock-ant", "defaultModel": "mock-claude"}"#;
    let app = app_with(agent_dir.path(), cwd.path(), None, settings);
    assert_eq!(app.scoped_models().len(), 2);
    // The saved default is in scope, so it wins over the first pattern.
    assert_eq!(current(&app), "mock-ant/mock-claude");
}

#[test]
fn without_a_scope_there_is_none() {
    let (agent_dir, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = app_with(
        agent_dir.path(),
        cwd.path(),
        None,
        r#"{"defaultProvider": "mock-oai", "defaultModel": "mock-gpt"}"#,
    );
    assert!(app.scoped_models().is_empty());
    assert_eq!(current(&app), "mock-oai/mock-gpt");
}

#[test]
fn a_scope_set_while_running_drives_the_next_cycle() {
    let (agent_dir, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = app_with(
        agent_dir.path(),
        cwd.path(),
        None,
        r#"{"defaultProvider": "mock-oai", "defaultModel": "mock-gpt"}"#,
    );
    assert!(app.scoped_models().is_empty());
    // As `/scoped-models` does on save.
    app.set_scoped_models(&[
        "mock-oai/mock-gpt".to_owned(),
        "mock-goog/mock-gemini".to_owned(),
    ]);
    assert_eq!(app.scoped_models().len(), 2);
    let cycled = app.cycle_model(false).unwrap();
    assert!(cycled.is_scoped);
    assert_eq!(current(&app), "mock-goog/mock-gemini");
    app.cycle_model(false).unwrap();
    assert_eq!(current(&app), "mock-oai/mock-gpt");
}
