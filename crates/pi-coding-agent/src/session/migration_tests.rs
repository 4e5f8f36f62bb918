//! Old files are migrated without losing a line: unknown entries, torn
//! lines and fields older pi versions did not write all survive.

use std::fs;
use std::path::Path;

use pi_agent_core::AgentMessage;
use pi_ai::{Message, StopReason, UserMessage};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

const V1_HEADER: &str = r#"{"type":"session","id":"0b6f1c1e-3c2d-4d7a-9a53-5d0f3c1b2a10","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/w"}"#;
const V1_USER: &str = r#"{"type":"message","timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"first","timestamp":1748772001000}}"#;
/// An assistant message as pi wrote it in 2025: no `api`, no `usage.totalTokens`.
const V1_ASSISTANT: &str = r#"{"type":"message","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer"}],"provider":"anthropic","model":"claude-sonnet-4-20250514","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"cost":{"input":0.00003,"output":0.000075,"cacheRead":0,"cacheWrite":0,"total":0.000105}},"stopReason":"stop","timestamp":1748772002000}}"#;
const V1_UNKNOWN: &str = r#"{"type":"future_feature","timestamp":"2025-06-01T10:00:03.000Z","payload":{"kept":[1,2,3]}}"#;
const V1_USER_2: &str = r#"{"type":"message","timestamp":"2025-06-01T10:00:04.000Z","message":{"role":"user","content":"second","timestamp":1748772004000}}"#;
const TORN: &str =
    r#"{"type":"message","timestamp":"2025-06-01T10:00:05.000Z","message":{"role":"us"#;

fn without_ids(line: &str) -> Value {
    let mut value: Value = serde_json::from_str(line).unwrap();
    let map = value.as_object_mut().unwrap();
    map.remove("id");
    map.remove("parentId");
    value
}

fn files_in(dir: &Path) -> usize {
    fs::read_dir(dir).unwrap().count()
}

#[test]
fn a_v1_file_with_an_unknown_entry_and_a_torn_last_line_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    let lines = [V1_HEADER, V1_USER, V1_ASSISTANT, V1_UNKNOWN, V1_USER_2];
    fs::write(&path, lines.join("\n") + "\n" + TORN).unwrap();

    let mut session = SessionManager::open(&path, None).unwrap();
    assert_eq!(session.session_file(), Some(path.as_path()));
    assert_eq!(files_in(dir.path()), 1, "no backup, no temporary file");

    // The file is version 3 now; every line is there, in its place.
    let text = fs::read_to_string(&path).unwrap();
    let rewritten: Vec<&str> = text.lines().collect();
    assert_eq!(rewritten.len(), 6);
    let header: Value = serde_json::from_str(rewritten[0]).unwrap();
    let mut expected_header: Value = serde_json::from_str(V1_HEADER).unwrap();
    expected_header["version"] = json!(3);
    assert_eq!(header, expected_header);
    assert!(
        rewritten[0].ends_with(r#","version":3}"#),
        "a new key goes last"
    );
    for (old, new) in lines[1..].iter().zip(&rewritten[1..5]) {
        assert_eq!(
            without_ids(new),
            without_ids(old),
            "absent fields stay absent"
        );
    }
    assert_eq!(rewritten[5], TORN, "the torn line is kept verbatim");

    // The ids form a chain through the unknown entry, as pi's migration makes it.
    let ids: Vec<Value> = rewritten[1..5]
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    assert_eq!(ids[0]["parentId"], Value::Null);
    for pair in ids.windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"]);
    }

    // The assistant message reached the context, with pi's defaults.
    let context = session.build_session_context();
    assert_eq!(context.messages.len(), 3);
    let AgentMessage::Standard(Message::Assistant(a)) = &context.messages[1] else {
        panic!("expected the assistant message");
    };
    assert!(a.api.is_empty());
    assert_eq!(a.usage.total_tokens, 0);
    assert_eq!(a.usage.input, 10);
    assert_eq!(a.stop_reason, StopReason::Stop);

    // Appending continues the file after the torn line, on a new line.
    session
        .append_message(UserMessage {
            content: "third".into(),
            timestamp: 3,
            extra: Default::default(),
        })
        .unwrap();
    let reloaded = load_session_file(&path).unwrap();
    assert_eq!(reloaded.migrated_from, None);
    assert_eq!(reloaded.entries.len(), 5);
    assert!(matches!(reloaded.entries[2], SessionEntry::Raw(_)));
    assert_eq!(reloaded.entries[2].to_line().unwrap(), rewritten[3]);
    let kinds: Vec<(usize, DiagnosticKind)> = reloaded
        .diagnostics
        .iter()
        .map(|d| (d.line, d.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (4, DiagnosticKind::KeptVerbatim),
            (6, DiagnosticKind::InvalidJson)
        ]
    );
}

#[test]
fn a_v1_file_that_cannot_be_written_back_unchanged_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    // A lone UTF-16 surrogate escape: JavaScript writes it, serde_json cannot keep it.
    let lone = r#"{"type":"message","timestamp":"2025-06-01T10:00:03.000Z","message":{"role":"user","content":"half \ud83d","timestamp":1748772003000}}"#;
    let original = [V1_HEADER, V1_USER, V1_ASSISTANT, lone].join("\n") + "\n";
    fs::write(&path, &original).unwrap();

    let mut session = SessionManager::open(&path, Some(dir.path())).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), original, "untouched");
    let new_file = session.session_file().unwrap().to_path_buf();
    assert_ne!(new_file, path, "the session continues in a new file");
    assert_eq!(session.build_session_context().messages.len(), 3);

    session
        .append_message(UserMessage {
            content: "more".into(),
            timestamp: 4,
            extra: Default::default(),
        })
        .unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        original,
        "still untouched"
    );
    let continued = load_session_file(&new_file).unwrap();
    assert_eq!(
        continued.header.parent_session.as_deref(),
        Some(path.to_str().unwrap())
    );
    assert_eq!(continued.entries.len(), 4, "every entry and the new one");
}

#[test]
fn fields_later_versions_added_read_as_pi_reads_them_and_stay_absent() {
    let line = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}}]}}"#;
    let entry: SessionEntry = serde_json::from_str(line).unwrap();
    let SessionEntry::Message(message) = &entry else {
        panic!("a message entry");
    };
    let AgentMessage::Standard(Message::Assistant(a)) = &message.message else {
        panic!("an assistant message");
    };
    assert!(a.api.is_empty() && a.provider.is_empty() && a.model.is_empty());
    assert_eq!(a.stop_reason, StopReason::Stop);
    assert_eq!(a.usage, pi_ai::Usage::default());
    let written: Value = serde_json::from_str(&entry.to_line().unwrap()).unwrap();
    let message = &written["message"];
    for absent in ["api", "provider", "model"] {
        assert!(message.get(absent).is_none(), "{absent} stays absent");
    }
}

#[test]
fn a_fork_copies_the_lines_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    let lines = [V1_HEADER, V1_USER, V1_ASSISTANT, V1_UNKNOWN, V1_USER_2];
    let original = lines.join("\n") + "\n" + TORN;
    fs::write(&path, &original).unwrap();
    let other = tempfile::tempdir().unwrap();
    let forked = SessionManager::fork_from(&path, "/elsewhere", Some(other.path())).unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        original,
        "source untouched"
    );
    let text = fs::read_to_string(forked.session_file().unwrap()).unwrap();
    let copied: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(copied.len(), 4, "every entry; the torn line is no entry");
    for (old, new) in lines[1..].iter().zip(&copied) {
        assert_eq!(
            without_ids(new),
            without_ids(old),
            "absent fields stay absent"
        );
    }
}

#[test]
fn a_branched_session_copies_the_lines_read_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    fs::write(
        &path,
        [V1_HEADER, V1_USER, V1_ASSISTANT, V1_USER_2].join("\n") + "\n",
    )
    .unwrap();
    let mut session = SessionManager::open(&path, None).unwrap();
    let migrated = fs::read_to_string(&path).unwrap();
    let leaf = session.leaf_id().unwrap().to_owned();
    let branched = session.create_branched_session(&leaf).unwrap().unwrap();
    let text = fs::read_to_string(&branched).unwrap();
    let copied: Vec<&str> = text.lines().skip(1).collect();
    let originals: Vec<&str> = migrated.lines().skip(1).collect();
    assert_eq!(copied, originals, "the message lines, byte for byte");
}
