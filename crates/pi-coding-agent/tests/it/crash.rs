#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Crash safety: a writer process killed with SIGKILL in the middle of
//! appending leaves a file whose every complete entry loads intact, and the
//! next append starts on a fresh line.
//!
//! The writer is this test binary itself, re-run with `CRASH_WRITER_DIR` set
//! so that `crash_writer_child` loops appending instead of returning.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, AssistantMessage, Message, StopReason, UserContent, UserMessage};
use pi_coding_agent::session::{DiagnosticKind, SessionManager, load_session_file};
use pi_coding_agent::{CodingAgentMessage, SessionEntry};

const CHILD_ENV: &str = "CRASH_WRITER_DIR";

fn user(text: String) -> CodingAgentMessage {
    AgentMessage::Standard(Message::User(UserMessage {
        content: UserContent::Text(text),
        timestamp: 1,
        ..UserMessage::default()
    }))
}

fn assistant() -> CodingAgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages".into(), "mock".into(), "m", 2);
    m.stop_reason = StopReason::Stop;
    m.content.push(AssistantContent::text("ready"));
    AgentMessage::Standard(Message::Assistant(m))
}

/// `entry <n> <padding>` with sizes from a few bytes to ~200 KB, so some
/// writes are large enough to be cut by the kill.
fn payload(n: usize) -> String {
    let pad = (n * 7919) % 200_000;
    format!("entry {n} {}", "p".repeat(pad))
}

/// Not a real test when run normally; the writer loop in the child process.
#[test]
fn crash_writer_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut session = SessionManager::create("/crash", Some(Path::new(&dir))).unwrap();
    session.append_message(user("start".into())).unwrap();
    session.append_message(assistant()).unwrap();
    for n in 0.. {
        session.append_message(user(payload(n))).unwrap();
    }
}

fn session_file(dir: &Path) -> Option<PathBuf> {
    fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
}

fn user_text(entry: &SessionEntry) -> String {
    match entry.as_message() {
        Some(AgentMessage::Standard(Message::User(UserMessage {
            content: UserContent::Text(t),
            ..
        }))) => t.clone(),
        other => panic!("unexpected entry {other:?}"),
    }
}

fn run_and_kill(dir: &Path, min_bytes: u64) -> PathBuf {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "crash::crash_writer_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let file = loop {
        if let Some(file) = session_file(dir)
            && fs::metadata(&file).map(|m| m.len()).unwrap_or(0) >= min_bytes
        {
            break file;
        }
        assert!(Instant::now() < deadline, "the writer made no progress");
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    file
}

fn check_killed_file(file: &Path) {
    let bytes = fs::read(file).unwrap();
    let complete_lines = bytes.iter().filter(|b| **b == b'\n').count();
    let loaded = load_session_file(file).unwrap();
    // Only the last line may be lost, and only as a torn line.
    assert!(loaded.diagnostics.len() <= 1, "{:?}", loaded.diagnostics);
    if let Some(d) = loaded.diagnostics.first() {
        assert_eq!(d.kind, DiagnosticKind::TornLastLine);
        assert_eq!(d.line, complete_lines + 1);
        assert!(!loaded.ends_with_newline);
    }
    let complete_entries = if loaded.ends_with_newline || !loaded.diagnostics.is_empty() {
        complete_lines - 1
    } else {
        // The kill fell after the JSON but before its newline: still a whole entry.
        complete_lines
    };
    assert_eq!(loaded.entries.len(), complete_entries);
    assert_eq!(user_text(&loaded.entries[0]), "start");
    for (n, entry) in loaded.entries[2..].iter().enumerate() {
        assert_eq!(user_text(entry), payload(n), "entry {n} is damaged");
    }
    for pair in loaded.entries.windows(2) {
        assert_eq!(pair[1].parent_id(), Some(pair[0].id()));
    }

    // Resume and append: the new entry is whole, on its own line, under the last entry.
    let mut session = SessionManager::open(file, None).unwrap();
    let last = loaded.entries.last().unwrap().id().to_owned();
    let id = session
        .append_message(user("after the crash".into()))
        .unwrap();
    let text = fs::read_to_string(file).unwrap();
    assert!(text.ends_with('\n'));
    let last_line: SessionEntry = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last_line.id(), id);
    assert_eq!(last_line.parent_id(), Some(last.as_str()));
    let reloaded = load_session_file(file).unwrap();
    assert_eq!(reloaded.entries.len(), complete_entries + 1);
    assert!(
        reloaded
            .diagnostics
            .iter()
            .all(|d| d.kind == DiagnosticKind::InvalidJson)
    );
    assert_eq!(reloaded.diagnostics.len(), loaded.diagnostics.len());
}

#[test]
fn a_writer_killed_mid_append_leaves_every_complete_entry_intact() {
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let file = run_and_kill(dir.path(), 2_000_000 + round * 1_500_000);
        check_killed_file(&file);
    }
}

#[test]
fn a_torn_write_is_recovered_the_same_way() {
    // Force the torn case deterministically: cut a complete file mid-line.
    let dir = tempfile::tempdir().unwrap();
    let file = run_and_kill(dir.path(), 500_000);
    let bytes = fs::read(&file).unwrap();
    let cut = bytes.len() - 40;
    let cut = if bytes[cut - 1] == b'\n' {
        cut - 1
    } else {
        cut
    };
    fs::write(&file, &bytes[..cut]).unwrap();
    let loaded = load_session_file(&file).unwrap();
    assert_eq!(loaded.diagnostics.len(), 1);
    assert_eq!(loaded.diagnostics[0].kind, DiagnosticKind::TornLastLine);
    check_killed_file(&file);
}
