#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The session file through the real binary when the disk fills up, the
//! file is deleted under a run, or two processes open one old (v1) file at
//! once. `PI_V1_RACE_TRIALS` sets the number of races (default 100).

use crate::e2e_common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use e2e_common::{RpcProcess, Scenario, capture_answer, text, use_server};
use pi_coding_agent::session::{SessionManager, load_session_file};
use pi_test_support::full_disk::FullDisk;
use pi_test_support::mock_server::MockServer;
use serde_json::{Value, json};

fn prompt_responses(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "response" && l["command"] == "prompt")
        .collect()
}

fn save_error(lines: &[Value]) -> Option<String> {
    lines
        .iter()
        .find(|l| l["type"] == "session_save_error")
        .map(|l| l["error"].as_str().unwrap_or_default().to_owned())
}

/// The texts of the messages of the session's context, and the number of
/// lines the loader skipped.
fn context_texts(path: &Path) -> (Vec<String>, usize) {
    let diagnostics = load_session_file(path).unwrap().diagnostics.len();
    let session = SessionManager::open(path, None).unwrap();
    let texts = session
        .build_session_context()
        .messages
        .iter()
        .map(|m| {
            let value = serde_json::to_value(m).unwrap();
            match &value["content"] {
                Value::String(s) => s.clone(),
                blocks => blocks[0]["text"].as_str().unwrap_or_default().to_owned(),
            }
        })
        .collect();
    (texts, diagnostics)
}

/// The new file a loss report names.
fn continued_in(report: &str) -> PathBuf {
    let (_, rest) = report
        .rsplit_once("the session continues in ")
        .unwrap_or_else(|| panic!("{report}"));
    PathBuf::from(rest.lines().next().unwrap_or_default().trim())
}

fn rpc_on(s: &Scenario, session: &Path) -> std::process::Command {
    s.on_session(session, &["--mode", "rpc"])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_save_on_a_full_disk_fails_visibly_and_the_retry_starts_on_a_fresh_line() {
    let long = format!("second answer {}", "y".repeat(12 * 1024));
    let s = Scenario::start(vec![
        capture_answer("first answer"),
        capture_answer(&long),
        capture_answer("third answer"),
    ])
    .await;
    let mut disk = FullDisk::new();
    let path = disk.path().join("s.jsonl");
    tokio::task::block_in_place(|| {
        let mut rpc = RpcProcess::start(disk.wrap(&rpc_on(&s, &path)));
        let first = rpc.prompt("one");
        assert_eq!(save_error(&first), None);

        // A few hundred bytes left: the long answer's line is cut.
        let len = std::fs::metadata(&path).unwrap().len();
        disk.fill_leaving(if disk.is_tmpfs() { 300 } else { len + 300 });
        disk.apply_to(rpc.id());
        let second = rpc.prompt("two");
        let error = save_error(&second).expect("the failed save is reported");
        assert!(error.contains("s.jsonl"), "{error}");
        let responses = prompt_responses(&second);
        assert_eq!(responses.last().unwrap()["success"], false, "{responses:?}");
        assert!(
            responses.last().unwrap()["error"]
                .as_str()
                .unwrap()
                .contains("Cannot save the session"),
            "{responses:?}"
        );

        disk.free();
        disk.apply_to(rpc.id());
        let third = rpc.prompt("three");
        assert_eq!(save_error(&third), None, "{third:?}");
        assert!(
            prompt_responses(&third)
                .iter()
                .all(|r| r["success"] == true)
        );
        rpc.finish();
    });
    let (texts, skipped) = context_texts(&path);
    assert_eq!(skipped, 0, "no torn line is left in the file");
    assert_eq!(
        texts,
        [
            "one",
            "first answer",
            "two",
            long.as_str(),
            "three",
            "third answer"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_file_deleted_under_a_run_is_reported_and_nothing_is_lost() {
    let s = Scenario::start(vec![
        capture_answer("first answer"),
        capture_answer("second answer"),
        capture_answer("third answer"),
    ])
    .await;
    let path = s.work.path().join("s.jsonl");
    let (second, third) = tokio::task::block_in_place(|| {
        let mut rpc = RpcProcess::start(rpc_on(&s, &path));
        rpc.prompt("one");
        std::fs::remove_file(&path).unwrap();
        let second = rpc.prompt("two");
        let third = rpc.prompt("three");
        rpc.finish();
        (second, third)
    });
    let error = save_error(&second).expect("the loss is reported");
    assert!(error.contains("was deleted while in use"), "{error}");
    let new = continued_in(&error);
    assert_eq!(save_error(&third), None, "reported once");
    assert!(!path.exists(), "a deleted file stays deleted");
    let (texts, skipped) = context_texts(&new);
    assert_eq!(skipped, 0);
    assert_eq!(
        texts,
        [
            "one",
            "first answer",
            "two",
            "second answer",
            "three",
            "third answer"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_fails_when_its_session_file_is_deleted_under_it() {
    let slow = match capture_answer("the answer") {
        pi_test_support::mock_server::MockResponse::Sse { frames, .. } => {
            pi_test_support::mock_server::MockResponse::Sse {
                frames,
                delay: Duration::from_millis(150),
            }
        }
        other => other,
    };
    let s = Scenario::start(vec![slow]).await;
    let path = s.work.path().join("s.jsonl");
    let mut command = s.on_session(&path, &["-p", "one"]);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let out = tokio::task::block_in_place(|| {
        let child = command.spawn().unwrap();
        // The prompt (header and user message) is written before its
        // request; the answer comes slowly.
        let start = std::time::Instant::now();
        let written = || std::fs::read_to_string(&path).is_ok_and(|t| t.lines().count() >= 2);
        while !written() {
            assert!(start.elapsed() < Duration::from_secs(10), "no session file");
            std::thread::sleep(Duration::from_millis(5));
        }
        std::fs::remove_file(&path).unwrap();
        child.wait_with_output().unwrap()
    });
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("was deleted while in use"), "{stderr}");
    let (texts, _) = context_texts(&continued_in(&stderr));
    assert_eq!(texts, ["one", "the answer"]);
}

const V1_USER: &str = r#"{"type":"message","timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"old question","timestamp":1}}"#;
const V1_ASSISTANT: &str = r#"{"type":"message","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old answer"}],"provider":"anthropic","model":"claude-sonnet-4-20250514","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}"#;

#[tokio::test(flavor = "multi_thread")]
async fn two_processes_opening_one_v1_file_never_lose_a_turn() {
    let trials: usize = std::env::var("PI_V1_RACE_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let s = Scenario::start(Vec::new()).await;
    let path = s.work.path().join("old.jsonl");
    let header = json!({"type": "session", "id": "0b6f1c1e-3c2d-4d7a-9a53-5d0f3c1b2a10",
                        "timestamp": "2025-06-01T10:00:00.000Z", "cwd": s.work.path()});
    let (mut both, mut refused) = (0, 0);
    for trial in 0..trials {
        std::fs::write(&path, format!("{header}\n{V1_USER}\n{V1_ASSISTANT}\n")).unwrap();
        let server = MockServer::start(vec![capture_answer("answer"), capture_answer("answer")])
            .await
            .unwrap();
        use_server(&s, &server);
        let run = |prompt: &str| {
            let mut command = s.on_session(&path, &["-p", prompt]);
            command.stdout(Stdio::null()).stderr(Stdio::piped());
            command.spawn().unwrap()
        };
        let outputs = tokio::task::block_in_place(|| {
            let a = run("prompt A");
            let b = run("prompt B");
            [("prompt A", a), ("prompt B", b)].map(|(p, c)| (p, c.wait_with_output().unwrap()))
        });
        let (texts, skipped) = context_texts(&path);
        assert_eq!(skipped, 0, "trial {trial}");
        assert_eq!(texts[..2], ["old question", "old answer"], "trial {trial}");
        let first_line = std::fs::read_to_string(&path).unwrap();
        assert!(
            first_line
                .lines()
                .next()
                .unwrap()
                .contains(r#""version":3"#)
        );
        let mut succeeded = 0;
        for (prompt, out) in &outputs {
            let stderr = text(&out.stderr);
            if out.status.success() {
                succeeded += 1;
                assert!(
                    texts.iter().any(|t| t == prompt),
                    "trial {trial}: {prompt} exited 0 but is not in the file: {texts:?}"
                );
            } else {
                assert!(
                    stderr.contains("is in use by another pi process"),
                    "{stderr}"
                );
            }
        }
        match succeeded {
            2 => both += 1,
            1 => refused += 1,
            _ => panic!("trial {trial}: neither ran"),
        }
    }
    eprintln!(
        "{trials} races: {refused} refused the second process, {both} ran one after the other"
    );
}
