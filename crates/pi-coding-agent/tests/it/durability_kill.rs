#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]
//! Random SIGKILLs of the real binary while it streams answers and runs a
//! tool, all on one session continued run after run. After every kill the
//! file loads, every message whose `message_end` the json stream had
//! reported is in it, and the next run continues the same tree.
//!
//! `PI_KILL_TRIALS` sets the number of kills (default 40).

use crate::e2e_common;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use e2e_common::{Rng, Scenario, fixtures, recorded_responses};
use pi_coding_agent::session::load_session_file;
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::Value;

/// The recorded bash round trip (tool call, then text), streamed slowly.
fn slow_round_trip() -> Vec<MockResponse> {
    recorded_responses("b-bash-oai")
        .into_iter()
        .map(|r| match r {
            MockResponse::Sse { frames, .. } => MockResponse::Sse {
                frames,
                delay: Duration::from_millis(15),
            },
            other => other,
        })
        .collect()
}

/// Points the scenario's models at a fresh mock server.
async fn fresh_server(s: &Scenario) -> MockServer {
    let server = MockServer::start(slow_round_trip()).await.unwrap();
    let models = std::fs::read_to_string(fixtures().join("models.json")).unwrap();
    std::fs::write(
        s.agent_dir.path().join("models.json"),
        models.replace("http://127.0.0.1:18777", &server.url()),
    )
    .unwrap();
    server
}

/// Runs `pi --mode json --continue`, kills it after `kill_after` (or lets
/// it finish when `None`); returns the messages whose `message_end` it
/// reported, and whether it exited by itself.
fn run(s: &Scenario, prompt: &str, kill_after: Option<Duration>) -> (Vec<Value>, bool) {
    let dir = s.sessions_dir();
    let mut child = s
        .command(&[
            "--mode",
            "json",
            "--continue",
            "--session-dir",
            dir.to_str().unwrap(),
            "--model",
            "mock-oai/mock-gpt",
            prompt,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let ended = Arc::new(Mutex::new(Vec::new()));
    let reader = std::thread::spawn({
        let ended = Arc::clone(&ended);
        move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(event) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if event["type"] == "message_end" {
                    ended.lock().unwrap().push(event["message"].clone());
                }
            }
        }
    });
    let finished = match kill_after {
        Some(after) => {
            let start = Instant::now();
            while start.elapsed() < after {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            // Snapshot what was acknowledged, then kill.
            let seen = ended.lock().unwrap().len();
            let exited = child.try_wait().unwrap().is_some();
            if !exited {
                child.kill().unwrap();
            }
            child.wait().unwrap();
            reader.join().unwrap();
            let mut all = ended.lock().unwrap().clone();
            if !exited {
                all.truncate(seen);
            }
            return (all, exited);
        }
        None => child.wait().unwrap().success(),
    };
    reader.join().unwrap();
    let all = ended.lock().unwrap().clone();
    (all, finished)
}

/// Loads the one session file and checks it; returns its message entries.
fn check_file(s: &Scenario) -> Vec<Value> {
    let files = s.session_files();
    assert!(files.len() <= 1, "one session only: {files:?}");
    let Some(file) = files.first() else {
        return Vec::new();
    };
    let loaded = load_session_file(file).unwrap();
    // A line torn by a kill is skipped (and reported); the next run starts
    // on a fresh line, so no other line is harmed.
    for diagnostic in &loaded.diagnostics {
        eprintln!("skipped: {diagnostic:?}");
    }
    let mut ids = HashSet::new();
    let mut messages = Vec::new();
    for entry in &loaded.entries {
        let value = serde_json::to_value(entry).unwrap();
        if let Some(parent) = value["parentId"].as_str() {
            assert!(ids.contains(parent), "dangling parent in {value}");
        }
        ids.insert(value["id"].as_str().unwrap().to_owned());
        if value["type"] == "message" {
            messages.push(value["message"].clone());
        }
    }
    messages
}

#[tokio::test(flavor = "multi_thread")]
async fn random_sigkills_lose_nothing_acknowledged() {
    let trials: u64 = std::env::var("PI_KILL_TRIALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    let s = Scenario::start(Vec::new()).await;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut acknowledged: Vec<Value> = Vec::new();
    let started = Instant::now();
    let mut killed = 0;
    for trial in 0..trials {
        let _server = fresh_server(&s).await;
        let after = Duration::from_millis(rng.below(400));
        let prompt = format!("trial {trial}");
        let (ended, exited) = tokio::task::block_in_place(|| run(&s, &prompt, Some(after)));
        killed += u64::from(!exited);
        acknowledged.extend(ended);
        let saved = check_file(&s);
        for message in &acknowledged {
            assert!(
                saved.contains(message),
                "trial {trial}: lost an acknowledged message {message}"
            );
        }
    }
    // The next run continues the same session and finishes.
    let _server = fresh_server(&s).await;
    let (ended, finished) = tokio::task::block_in_place(|| run(&s, "final", None));
    assert!(finished);
    let saved = check_file(&s);
    assert_eq!(saved.last(), ended.last());
    assert_eq!(
        saved.last().unwrap()["content"][0]["text"],
        "The directory contains `notes.txt` and `src/`."
    );
    eprintln!(
        "{trials} runs, {killed} killed mid-run, {} messages acknowledged, {} saved, {:?}",
        acknowledged.len(),
        saved.len(),
        started.elapsed()
    );
}
