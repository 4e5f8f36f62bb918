//! The session picker's full-text search end to end, in a pseudo-terminal:
//! three sessions in the session directory, `/resume`, a phrase that only
//! an assistant message deep in one file holds (written with JSON escapes),
//! and that session alone listed, then resumed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::path::Path;

use e2e_common::Scenario;
use pty_common::Tui;
use serde_json::{Value, json};

/// Writes a session of `turns` question/answer pairs to `name` in the
/// session directory; `deep` (when given) is the answer of the last turn.
fn write_session(s: &Scenario, name: &str, first: &str, turns: usize, deep: Option<&str>) {
    let dir = s.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let cwd = s.work.path().to_string_lossy().into_owned();
    let mut lines = vec![
        json!({"type": "session", "version": 3, "id": format!("{name}-id"),
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}),
    ];
    let mut parent = Value::Null;
    for turn in 0..turns {
        let question = if turn == 0 {
            first.to_owned()
        } else {
            format!("Question {turn} about the usual things")
        };
        let answer = match deep {
            Some(deep) if turn + 1 == turns => deep.to_owned(),
            _ => format!("Answer {turn}: nothing special here."),
        };
        for (role, content) in [
            ("user", json!(question)),
            ("assistant", json!([{"type": "text", "text": answer}])),
        ] {
            let id = format!("{name}-{turn}-{role}");
            lines.push(json!({"type": "message", "id": id, "parentId": parent,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": role, "content": content, "timestamp": 1_767_225_601_000_i64 + turn as i64,
                    "api": "openai-completions", "provider": "mock-oai", "model": "mock-gpt",
                    "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                    "stopReason": "stop"}}));
            parent = Value::String(id);
        }
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // The deep answer's é is written as a JSON escape, as other writers do.
    let text = text.replace('é', "\\u00e9");
    std::fs::write(dir.join(Path::new(name).with_extension("jsonl")), text).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_search_finds_a_phrase_deep_in_an_assistant_message() {
    let s = Scenario::start(Vec::new()).await;
    write_session(&s, "a", "Plan the garden", 3, None);
    write_session(
        &s,
        "b",
        "Review the build",
        400,
        Some("Deep answer: the zebra\ncrossing protocol, résumé \"quoted\"."),
    );
    write_session(&s, "c", "Fix the parser", 3, None);
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("/resume");
    tui.wait_screen(
        |s| {
            s.contains("Plan the garden")
                && s.contains("Review the build")
                && s.contains("Fix the parser")
        },
        "the session picker",
    );
    // A phrase across the escaped newline, a word with an escaped letter.
    tui.send("\"zebra crossing\" résumé");
    let screen = tui.wait_screen(
        |s| {
            s.contains("> \"zebra crossing\" résumé")
                && s.contains("› Review the build")
                && !s.contains("Searching")
        },
        "the match",
    );
    assert!(!screen.contains("Plan the garden"), "{screen}");
    assert!(!screen.contains("Fix the parser"), "{screen}");
    // Text no message holds lists nothing.
    tui.send(" \"zebra protocol\"");
    tui.wait_screen(
        |s| {
            s.contains("\"zebra protocol\"")
                && !s.contains("Review the build")
                && !s.contains("Searching")
        },
        "no match",
    );
    for _ in 0.." \"zebra protocol\"".len() {
        tui.send("\x7f");
    }
    tui.wait_screen(
        |s| !s.contains("protocol") && s.contains("› Review the build"),
        "the match again",
    );
    tui.send("\r");
    tui.wait_all(
        |a| a.contains("zebra") && a.contains("Resumed session"),
        "the resumed history",
    );
    assert!(tui.quit().success());
}
