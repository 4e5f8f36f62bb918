//! The whole coding-agent loop with no API key and no network: a loopback
//! server replays the answers pi 0.73.1 received in a recorded session
//! (`fixtures/pi-0.73.1/c-read-edit-oai`), and pi-rs runs for real around
//! it — system prompt, request encoding, SSE decoding, the `read` and `edit`
//! tools on a scratch workspace, the session file.
//!
//! `cargo run -p pi-coding-agent --example offline_demo`

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

use std::path::Path;

use pi_agent_core::AgentEvent;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::messages::CodingMessage;
use pi_coding_agent::modes::{print, prompt_inputs};
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::Value;

const SCENARIO: &str = "c-read-edit-oai";
const PROMPT: &str = "In notes.txt, replace beta with BETA.";

fn recorded_answers(fixtures: &Path) -> Vec<MockResponse> {
    let text = std::fs::read_to_string(fixtures.join(SCENARIO).join("responses.jsonl"))
        .expect("recorded answers");
    text.lines()
        .map(|line| {
            let answer: Value = serde_json::from_str(line).expect("JSON line");
            let frames = answer["sse"].as_array().expect("an SSE answer");
            MockResponse::sse(
                frames
                    .iter()
                    .map(|f| f.as_str().unwrap_or_default().to_owned()),
            )
        })
        .collect()
}

#[tokio::main]
async fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1");
    let server = MockServer::start(recorded_answers(&fixtures))
        .await
        .expect("loopback server");

    let agent_dir = tempfile::tempdir().expect("temp dir");
    let models = std::fs::read_to_string(fixtures.join("models.json")).expect("models.json");
    std::fs::write(
        agent_dir.path().join("models.json"),
        models.replace("http://127.0.0.1:18777", &server.url()),
    )
    .expect("write models.json");
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::write(work.path().join("notes.txt"), "alpha\nbeta\ngamma\n").expect("write notes.txt");

    println!(
        "workspace {}: notes.txt = {:?}",
        work.path().display(),
        "alpha\nbeta\ngamma\n"
    );
    println!("> {PROMPT}\n");
    let app = build_app(StartOptions {
        cwd: work.path().to_path_buf(),
        model: Some("mock-oai/mock-gpt".to_owned()),
        session: SessionChoice::New,
        agent_dir: Some(agent_dir.path().to_path_buf()),
        ..StartOptions::default()
    })
    .expect("app");
    app.agent
        .subscribe(|event: &AgentEvent<CodingMessage>| match event {
            AgentEvent::ToolExecutionStart {
                tool_name, args, ..
            } => println!("[tool] {tool_name} {args}"),
            AgentEvent::ToolExecutionEnd {
                result, is_error, ..
            } => {
                let text: Vec<&str> = result
                    .content
                    .iter()
                    .filter_map(pi_ai::UserBlock::as_text)
                    .collect();
                println!(
                    "[result{}] {}\n",
                    if *is_error { ", error" } else { "" },
                    text.join("\n").trim_end()
                );
            }
            _ => {}
        });
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    let code = print::run(
        &app,
        prompt_inputs(None, Default::default(), vec![PROMPT.to_owned()]),
        &mut out,
        &mut err,
    )
    .await;

    let after = std::fs::read_to_string(work.path().join("notes.txt")).expect("notes.txt");
    println!("\nnotes.txt is now {after:?}");
    if let Some(file) = app.session().session_file() {
        let lines = std::fs::read_to_string(file)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        println!("session file: {} ({lines} lines)", file.display());
    }
    println!(
        "{} requests went to the loopback provider",
        server.requests().len()
    );
    std::process::exit(code);
}
