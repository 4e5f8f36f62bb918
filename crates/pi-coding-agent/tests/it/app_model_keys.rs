//! The app's own model calls (a compaction's summary) get their key as the
//! agent's calls do: through the agent's key resolver, which refreshes an
//! expired subscription login first (pi's `modelRegistry.getApiKey`), not
//! the stored key as it is.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use pi_ai::Provider;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};

use crate::e2e_common::{Scenario, capture_answer};

fn authorization(request: &pi_test_support::mock_server::RecordedRequest) -> String {
    request
        .headers
        .iter()
        .find(|(name, _)| name == "authorization")
        .map(|(_, value)| value.clone())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_compaction_summary_uses_the_agents_key_resolver() {
    let s = Scenario::start(vec![capture_answer("## Goal\\nTalk.")]).await;
    let app = build_app(StartOptions {
        cwd: s.work.path().to_path_buf(),
        session: SessionChoice::InMemory,
        agent_dir: Some(s.agent_dir.path().to_path_buf()),
        provider: Some("mock-oai".to_owned()),
        model: Some("mock-gpt".to_owned()),
        ..StartOptions::default()
    })
    .unwrap();
    // What the login refresh would hand out: a key the stored config does not have.
    let resolver = |provider: &Provider| {
        (provider.as_str() == "mock-oai").then(|| "sk-refreshed-login".to_owned())
    };
    app.agent
        .update_settings(|settings| settings.get_api_key = Some(Arc::new(resolver)));
    app.compact(None).await.unwrap();
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(authorization(&requests[0]), "Bearer sk-refreshed-login");
}
