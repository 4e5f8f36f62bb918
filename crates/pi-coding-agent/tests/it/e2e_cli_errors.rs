//! End-to-end: inputs that used to give confusing messages get one naming
//! the problem: an empty `--model` and a models.json `baseUrl` that is not
//! an http(s) URL. Nothing is sent in either case.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, capture_answer, text};

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_model_is_refused_with_a_clear_error() {
    for value in ["", "  "] {
        let s = Scenario::start(vec![capture_answer("Answer.")]).await;
        let out = s.run(&["-p", "--model", value, "hi"]).await;
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!(
                "error: invalid value '{value}' for '--model <MODEL>': the model is empty; give a model id, provider/id or part of a model name (see --list-models)\n"
            )),
            "{stderr}"
        );
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(text(&out.stdout), "");
        assert!(s.requests().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_base_url_that_is_not_a_url_names_the_provider_and_the_value() {
    let s = Scenario::start(vec![capture_answer("Answer.")]).await;
    let models = s.agent_dir.path().join("models.json");
    let original = std::fs::read_to_string(&models).unwrap();
    let broken = original.replacen(
        &format!("\"{}/v1\"", s.server.url()),
        "\"localhost:8080/v1\"",
        1,
    );
    assert_ne!(broken, original);
    std::fs::write(&models, &broken).unwrap();
    let out = s.run(&["-p", "--model", "mock-oai/mock-gpt", "hi"]).await;
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            ": \"baseUrl\" \"localhost:8080/v1\" is not a valid URL (it must start with http:// or https://); use a full address such as \"http://localhost:11434/v1\"."
        ),
        "{stderr}"
    );
    assert!(
        stderr.starts_with("Failed to load models.json: Provider "),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("File: {}", models.display())),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(s.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_fails_before_writing_leaves_no_session_directory() {
    let s = Scenario::start(Vec::new()).await;
    let mut command = s.command(&["-p", "--model", "no-such-provider/none", "hi"]);
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // It made `<agent dir>/sessions/--<cwd>--/` and left it empty.
    assert!(
        !s.agent_dir.path().join("sessions").exists(),
        "{:?}",
        std::fs::read_dir(s.agent_dir.path())
            .unwrap()
            .collect::<Vec<_>>()
    );
}
