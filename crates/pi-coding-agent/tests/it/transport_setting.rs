//! The `transport` setting reaches every provider call as pi passes it
//! (`settingsManager.getTransport()` into the agent's stream options):
//! `auto` by default, the setting's value otherwise, and a name pi does not
//! know still picks the socket (pi only tests for `sse`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::Transport;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};

fn transport_with(settings: &str) -> Option<Transport> {
    let (agent_dir, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(agent_dir.path().join("settings.json"), settings).unwrap();
    let app = build_app(StartOptions {
        cwd: cwd.path().to_path_buf(),
        session: SessionChoice::InMemory,
        agent_dir: Some(agent_dir.path().to_path_buf()),
        provider: Some("openai-codex".to_owned()),
        model: Some("gpt-5.4-mini".to_owned()),
        ..StartOptions::default()
    })
    .unwrap();
    app.agent
        .update_settings(|settings| settings.stream_options.transport)
}

#[test]
fn the_transport_setting_reaches_the_stream_options() {
    assert_eq!(transport_with("{}"), Some(Transport::Auto));
    assert_eq!(
        transport_with(r#"{"transport": "sse"}"#),
        Some(Transport::Sse)
    );
    assert_eq!(
        transport_with(r#"{"transport": "websocket-cached"}"#),
        Some(Transport::WebsocketCached)
    );
    // pi's migration of the old boolean.
    assert_eq!(
        transport_with(r#"{"websockets": false}"#),
        Some(Transport::Sse)
    );
    assert_eq!(
        transport_with(r#"{"transport": "ws"}"#),
        Some(Transport::Websocket)
    );
}
