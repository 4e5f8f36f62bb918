//! End-to-end: the real `pi` binary against a loopback mock provider
//! replaying pi 0.73.1's recorded answers. Our requests must equal pi's
//! captured ones except what docs/payload-differences.md lists.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, comparable_body, jsonl, pi_bodies, text};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// The session file we wrote equals pi's, entry for entry, but for ids and times.
fn assert_same_session(scenario: &Scenario, folder: &str) {
    let ours: Vec<Value> = jsonl(&scenario.session_files()[0])
        .iter()
        .map(e2e_common::comparable_entry)
        .collect();
    let pis: Vec<Value> = jsonl(&e2e_common::fixtures().join(folder).join("session.jsonl"))
        .iter()
        .map(e2e_common::comparable_entry)
        .collect();
    assert_eq!(ours, pis, "session file of {folder}");
}

fn assert_same_requests(scenario: &Scenario, folder: &str) {
    let ours: Vec<Value> = scenario
        .requests()
        .iter()
        .map(|r| comparable_body(&r.json()))
        .collect();
    let pis: Vec<Value> = pi_bodies(folder).iter().map(comparable_body).collect();
    assert_eq!(ours, pis, "request bodies of {folder}");
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_prints_the_answer_and_sends_pis_request() {
    let s = Scenario::fixture("a-text-oai").await;
    let out = s
        .run(&[
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "What is 2 + 2? Also say hello.",
        ])
        .await;
    assert_eq!(text(&out.stderr), "");
    assert_eq!(text(&out.stdout), "Hello! I am a mock model. 2 + 2 = 4.\n");
    assert_eq!(out.status.code(), Some(0));
    assert_same_requests(&s, "a-text-oai");
    let request = &s.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-mock-openai-completions")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bash_tool_round_trip() {
    let s = Scenario::fixture("b-bash-oai").await;
    let out = s
        .run(&[
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "List the files in the current directory.",
        ])
        .await;
    assert_eq!(
        text(&out.stdout),
        "The directory contains `notes.txt` and `src/`.\n"
    );
    assert_same_requests(&s, "b-bash-oai");
}

#[tokio::test(flavor = "multi_thread")]
async fn read_and_edit_change_the_file() {
    for folder in [
        "c-read-edit-oai",
        "c-read-edit-ant",
        "c-read-edit-resp",
        "c-read-edit-goog",
    ] {
        let s = Scenario::fixture(folder).await;
        let model = match folder {
            "c-read-edit-ant" => "mock-ant/mock-claude",
            "c-read-edit-resp" => "mock-resp/mock-resp",
            "c-read-edit-goog" => "mock-goog/mock-gemini",
            _ => "mock-oai/mock-gpt",
        };
        let out = s
            .run(&[
                "-p",
                "--model",
                model,
                "In notes.txt, replace beta with BETA.",
            ])
            .await;
        assert_eq!(
            text(&out.stdout),
            "Replaced `beta` with `BETA` in notes.txt.\n",
            "{folder}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(s.work.path().join("notes.txt")).unwrap(),
            "alpha\nBETA\ngamma\n"
        );
        assert_same_requests(&s, folder);
        assert_same_session(&s, folder);
    }
}

/// Run 1, then `-c` in the same directory: the continued request replays
/// the whole history (thinking blocks with their signatures on Anthropic).
#[tokio::test(flavor = "multi_thread")]
async fn continue_replays_the_history() {
    for (folder, model, first_prompt, second_prompt) in [
        (
            "f-continue-oai",
            "mock-oai/mock-gpt",
            "Remember the code word: pineapple.",
            "What is the code word?",
        ),
        (
            "f-continue-ant",
            "mock-ant/mock-claude-think",
            "List the files in the current directory.",
            "What did you find earlier?",
        ),
    ] {
        let s = Scenario::fixture(folder).await;
        let first = s.run(&["-p", "--model", model, first_prompt]).await;
        assert_eq!(
            first.status.code(),
            Some(0),
            "{folder}: {}",
            text(&first.stderr)
        );
        let second = s.run(&["-c", "-p", "--model", model, second_prompt]).await;
        assert_eq!(
            second.status.code(),
            Some(0),
            "{folder}: {}",
            text(&second.stderr)
        );
        let expected =
            std::fs::read_to_string(e2e_common::fixtures().join(folder).join("stdout.run2.txt"))
                .unwrap();
        assert_eq!(text(&second.stdout), expected, "{folder}");
        // pi ran `ls` in a workspace we reproduce exactly, so even tool output matches.
        assert_same_requests(&s, folder);
        let files = s.session_files();
        assert_eq!(
            files.len(),
            1,
            "{folder}: -c appends to the same session file"
        );
        let kinds: Vec<String> = jsonl(&files[0])
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect();
        let pi_kinds: Vec<String> =
            jsonl(&e2e_common::fixtures().join(folder).join("session.jsonl"))
                .iter()
                .map(|e| e["type"].as_str().unwrap().to_owned())
                .collect();
        assert_eq!(kinds, pi_kinds, "{folder}");
        assert_same_session(&s, folder);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn json_mode_streams_pi_event_lines() {
    for (folder, model, prompt) in [
        (
            "h-json-bash-oai",
            "mock-oai/mock-gpt",
            "List the files in the current directory.",
        ),
        (
            "h-json-thinking-ant",
            "mock-ant/mock-claude-think",
            "List the files in the current directory.",
        ),
        (
            "h-json-parallel-resp",
            "mock-resp/mock-resp",
            "Show notes.txt and run a quick shell check at the same time.",
        ),
    ] {
        let s = Scenario::fixture(folder).await;
        let out = s.run(&["--mode", "json", "--model", model, prompt]).await;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{folder}: {}",
            text(&out.stderr)
        );
        let ours: Vec<Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let pis = jsonl(&e2e_common::fixtures().join(folder).join("events.jsonl"));
        // The number of message_update events depends on how the stream was
        // chunked on the way; everything else is compared one to one.
        let shape = |events: &[Value]| -> Vec<(String, Vec<String>)> {
            events
                .iter()
                .filter(|e| e["type"] != "message_update")
                .map(|e| {
                    let keys: std::collections::BTreeSet<String> =
                        e.as_object().unwrap().keys().cloned().collect();
                    (
                        e["type"].as_str().unwrap().to_owned(),
                        keys.into_iter().collect(),
                    )
                })
                .collect()
        };
        let (mut ours_shape, mut pis_shape) = (shape(&ours), shape(&pis));
        if folder == "h-json-parallel-resp" {
            // Parallel tools interleave their updates and ends by timing.
            ours_shape.sort();
            pis_shape.sort();
        }
        assert_eq!(ours_shape, pis_shape, "{folder}");
        let updates = |events: &[Value]| -> Vec<String> {
            events
                .iter()
                .filter(|e| e["type"] == "message_update")
                .map(|e| {
                    e["assistantMessageEvent"]["type"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect()
        };
        assert_eq!(
            updates(&ours),
            updates(&pis),
            "{folder}: assistant event types"
        );
        assert_same_requests(&s, folder);
        assert_same_session(&s, folder);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_500_gives_a_clear_error() {
    let s = Scenario::fixture("g-http500-oai").await;
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"retry":{"baseDelayMs":10}}"#,
    )
    .unwrap();
    let out = s
        .run(&["-p", "--model", "mock-oai/mock-gpt", "Say something."])
        .await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "500 The server had an error while processing your request. Sorry about that!\n"
    );
    assert_eq!(text(&out.stdout), "");
    // As pi: 3 HTTP attempts per call, 1 call plus 3 automatic retries.
    assert_eq!(s.requests().len(), 12);
    let entries = jsonl(&s.session_files()[0]);
    let errors = entries
        .iter()
        .filter(|e| e["message"]["stopReason"] == "error")
        .count();
    assert_eq!(
        errors, 4,
        "every failed attempt is kept in the session file"
    );
}

/// pi's own session file from run 1, continued by us with `--session FILE`:
/// the request we send equals the one pi sent for the same continuation.
#[tokio::test(flavor = "multi_thread")]
async fn a_pi_session_file_continues_with_pis_request() {
    for (folder, model, prompt) in [
        (
            "f-continue-oai",
            "mock-oai/mock-gpt",
            "What is the code word?",
        ),
        (
            "f-continue-ant",
            "mock-ant/mock-claude-think",
            "What did you find earlier?",
        ),
    ] {
        let responses = e2e_common::recorded_responses(folder);
        let run1_requests =
            jsonl(&e2e_common::fixtures().join(folder).join("requests.jsonl")).len() - 1;
        let s = Scenario::start(responses[run1_requests..].to_vec()).await;
        let file = s.work.path().join("pi-session.jsonl");
        // pi refuses a session whose stored cwd is gone: it names ours.
        let before = std::fs::read_to_string(
            e2e_common::fixtures()
                .join(folder)
                .join("session.run1.jsonl"),
        )
        .unwrap()
        .replacen(
            &format!("\"cwd\":\"/home/user/work/{folder}\""),
            &format!("\"cwd\":{}", Value::from(s.work.path().to_str().unwrap())),
            1,
        );
        std::fs::write(&file, &before).unwrap();
        let out = s
            .run(&[
                "--session",
                file.to_str().unwrap(),
                "-p",
                "--model",
                model,
                prompt,
            ])
            .await;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{folder}: {}",
            text(&out.stderr)
        );
        let ours: Vec<Value> = s
            .requests()
            .iter()
            .map(|r| comparable_body(&r.json()))
            .collect();
        let pis: Vec<Value> = pi_bodies(folder).iter().map(comparable_body).collect();
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0], pis[pis.len() - 1], "{folder}");
        // The file is appended to, never rewritten.
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(
            after.starts_with(&before),
            "{folder}: earlier lines unchanged"
        );
        assert_eq!(
            jsonl(&file).len(),
            jsonl(&e2e_common::fixtures().join(folder).join("session.jsonl")).len()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thinking_suffix_on_the_model_sets_the_level() {
    let s = Scenario::fixture("a-text-ant").await;
    let out = s
        .run(&[
            "-p",
            "--model",
            "mock-ant/mock-claude-think:high",
            "What is 2 + 2? Also say hello.",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let entries = jsonl(&s.session_files()[0]);
    let level = entries
        .iter()
        .find(|e| e["type"] == "thinking_level_change")
        .unwrap();
    assert_eq!(level["thinkingLevel"], "high");
    let body = s.requests()[0].json();
    assert_eq!(body["model"], "mock-claude-think");
    assert_eq!(body["thinking"]["type"], "enabled", "{}", body["thinking"]);
}

/// pi's initial message: piped stdin (trimmed), then `@file` texts, then the
/// first message, joined without separator.
/// Runs `command` with `input` piped to its stdin; its output.
async fn with_stdin(
    mut command: std::process::Command,
    input: &'static [u8],
) -> std::process::Output {
    use std::io::Write as _;
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_stdin_that_is_not_utf8_is_read_with_replacement_characters() {
    let s = Scenario::fixture("a-text-oai").await;
    let command = s.command(&["--no-session", "--model", "mock-oai/mock-gpt"]);
    let out = with_stdin(command, b"hi \xff\xfe").await;
    // It was dropped, and pi-rs exited 0 without sending anything.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body = s.requests()[0].json();
    assert_eq!(
        body["messages"][1]["content"][0]["text"],
        "hi \u{FFFD}\u{FFFD}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_stdin_and_file_arguments_build_the_first_prompt() {
    let s = Scenario::fixture("a-text-oai").await;
    let dir = s.sessions_dir();
    let command = s.command(&[
        "--session-dir",
        dir.to_str().unwrap(),
        "--model",
        "mock-oai/mock-gpt",
        "@notes.txt",
        "Summarize.",
    ]);
    let out = with_stdin(command, b"  Context first.\n\n").await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "piped stdin means print mode: {}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "Hello! I am a mock model. 2 + 2 = 4.\n");
    let body = s.requests()[0].json();
    let user = &body["messages"][1]["content"][0]["text"];
    let notes = s.work.path().join("notes.txt");
    assert_eq!(
        user.as_str().unwrap(),
        format!(
            "Context first.<file name=\"{}\">\nalpha\nbeta\ngamma\n\n</file>\nSummarize.",
            notes.display()
        )
    );
}

/// Every recorded print-mode scenario on every wire: same answer on stdout,
/// same requests as pi (within docs/payload-differences.md).
#[tokio::test(flavor = "multi_thread")]
async fn every_wire_sends_pis_requests() {
    for (suffix, model) in [
        ("oai", "mock-oai/mock-gpt"),
        ("ant", "mock-ant/mock-claude"),
        ("resp", "mock-resp/mock-resp"),
        ("goog", "mock-goog/mock-gemini"),
    ] {
        for (scenario, prompt) in [
            ("a-text", "What is 2 + 2? Also say hello."),
            ("b-bash", "List the files in the current directory."),
        ] {
            let folder = format!("{scenario}-{suffix}");
            let s = Scenario::fixture(&folder).await;
            let out = s.run(&["-p", "--model", model, prompt]).await;
            let expected =
                std::fs::read_to_string(e2e_common::fixtures().join(&folder).join("stdout.txt"))
                    .unwrap();
            assert_eq!(
                text(&out.stdout),
                expected,
                "{folder}: {}",
                text(&out.stderr)
            );
            assert_same_requests(&s, &folder);
        }
    }
}
