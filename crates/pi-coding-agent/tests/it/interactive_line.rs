//! The line-based interactive mode (used when stdout is not a terminal), driven in process: a prompt streams its
//! answer, `!cmd` runs a shell command recorded for the model, `/session`
//! and `/quit` work.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use e2e_common::Scenario;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::modes::interactive;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn prompts_shell_commands_and_slash_commands() {
    let s = Scenario::fixture("b-bash-oai").await;
    let app = build_app(StartOptions {
        cwd: s.work.path().to_path_buf(),
        model: Some("mock-oai/mock-gpt".to_owned()),
        session: SessionChoice::New,
        session_dir: Some(s.sessions_dir()),
        agent_dir: Some(s.agent_dir.path().to_path_buf()),
        ..StartOptions::default()
    })
    .unwrap();
    let captured = Captured::default();
    let out: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(Box::new(captured.clone())));
    let input: &[u8] = b"List the files in the current directory.\n!echo shell-says-hi\n/session\n/quit\nnever read\n";
    let code = interactive::line::run(Arc::clone(&app), input, out).await;
    assert_eq!(code, 0);
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("[bash] {\"command\":\"ls\"}"), "{text}");
    assert!(
        text.contains("The directory contains `notes.txt` and `src/`.\n"),
        "{text}"
    );
    assert!(text.contains("shell-says-hi\n"), "{text}");
    assert!(text.contains("[session "), "{text}");
    let roles: Vec<&str> = app.agent.messages().iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "bashExecution"
        ]
    );
    assert_eq!(s.requests().len(), 2, "the line after /quit is never sent");
}
