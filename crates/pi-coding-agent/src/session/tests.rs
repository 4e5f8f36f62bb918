use std::fs;
use std::path::{Path, PathBuf};

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, AssistantMessage, Message, UserContent, UserMessage};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::messages::{CodingAgentMessage, CodingMessage};

pub(super) fn user(text: &str) -> CodingAgentMessage {
    AgentMessage::Standard(Message::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 1,
        ..UserMessage::default()
    }))
}

fn user_at(text: &str, timestamp: i64) -> CodingAgentMessage {
    AgentMessage::Standard(Message::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp,
        ..UserMessage::default()
    }))
}

pub(super) fn assistant(text: &str) -> CodingAgentMessage {
    let mut m =
        AssistantMessage::empty("anthropic-messages".into(), "anthropic".into(), "claude", 2);
    m.stop_reason = pi_ai::StopReason::Stop;
    m.content.push(AssistantContent::text(text));
    AgentMessage::Standard(Message::Assistant(m))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sessions")
        .join(name)
}

fn texts(context: &crate::context::SessionContext) -> Vec<String> {
    crate::messages::convert_to_llm(&context.messages)
        .iter()
        .map(|m| match m {
            Message::User(u) => match &u.content {
                UserContent::Text(t) => t.clone(),
                UserContent::Blocks(b) => b.iter().filter_map(|b| b.as_text()).collect(),
            },
            Message::Assistant(a) => a.text(),
            Message::ToolResult(_) => "<tool>".into(),
        })
        .collect()
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn nothing_is_written_before_the_first_user_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/work/p", Some(dir.path())).unwrap();
    let file = s.session_file().unwrap().to_path_buf();
    assert!(
        file.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .ends_with(&format!("_{}.jsonl", s.session_id()))
    );
    s.append_model_change("anthropic", "claude").unwrap();
    assert!(!file.exists(), "a session that sent nothing has no file");
    // Unlike pi, the prompt is durable before its answer exists.
    s.append_message(user("hi")).unwrap();
    assert_eq!(lines(&file).len(), 3);
    s.append_message(assistant("hello")).unwrap();
    let written = lines(&file);
    assert_eq!(written.len(), 4);
    let header: Value = serde_json::from_str(&written[0]).unwrap();
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    assert_eq!(header["cwd"], "/work/p");
    assert!(written[0].starts_with(r#"{"type":"session","version":3,"id":""#));

    // Each later append adds exactly one line and leaves the earlier bytes alone.
    let before = fs::read(&file).unwrap();
    s.append_thinking_level_change("high").unwrap();
    let after = fs::read(&file).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(lines(&file).len(), 5);

    let reopened = SessionManager::open(&file, None).unwrap();
    assert_eq!(reopened.entries(), s.entries());
    assert_eq!(reopened.header(), s.header());
    assert_eq!(reopened.leaf_id(), s.leaf_id());
}

#[test]
fn entry_lines_keep_pi_key_order() {
    let mut s = SessionManager::in_memory("/x");
    s.append_message(user("a")).unwrap();
    s.append_custom_entry("ext", Some(json!({"n": 1}))).unwrap();
    s.append_custom_message_entry("ext", UserContent::Text("shown".into()), true, None)
        .unwrap();
    let first = s.entries()[0].id().to_owned();
    s.append_compaction("sum", &first, 42, Some(json!({"readFiles": []})), None)
        .unwrap();
    s.branch_with_summary(Some(&first), "went elsewhere", None, Some(true))
        .unwrap();
    let keys = |entry: &SessionEntry| -> Vec<String> {
        let v: Value = serde_json::from_str(&entry.to_line().unwrap()).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    };
    let e = s.entries();
    assert_eq!(
        keys(e[0]),
        ["type", "id", "parentId", "timestamp", "message"]
    );
    assert_eq!(
        keys(e[1]),
        ["type", "customType", "data", "id", "parentId", "timestamp"]
    );
    assert_eq!(
        keys(e[2]),
        [
            "type",
            "customType",
            "content",
            "display",
            "id",
            "parentId",
            "timestamp"
        ]
    );
    assert_eq!(
        keys(e[3]),
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "details"
        ]
    );
    assert_eq!(
        keys(e[4]),
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "fromId",
            "summary",
            "fromHook"
        ]
    );
    assert!(e[0].to_line().unwrap().contains(r#""parentId":null"#));
    assert_eq!(e[4].parent_id(), Some(first.as_str()));
}

#[test]
fn unknown_fields_survive_a_round_trip() {
    let line = r#"{"type":"model_change","id":"abcd0123","parentId":null,"timestamp":"t","provider":"p","modelId":"m","addedLater":{"x":[1,2]},"z":1,"a":2}"#;
    let entry: SessionEntry = serde_json::from_str(line).unwrap();
    assert_eq!(entry.to_line().unwrap(), line);
    let line = r#"{"type":"message","id":"abcd0124","parentId":"abcd0123","timestamp":"t","message":{"role":"user","content":"x","timestamp":1},"z":1,"a":2}"#;
    let entry: SessionEntry = serde_json::from_str(line).unwrap();
    assert_eq!(entry.to_line().unwrap(), line);
}

#[test]
fn v1_files_are_migrated_to_a_chain_with_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    fs::copy(fixture("v1-linear.jsonl"), &path).unwrap();
    let loaded = load_session_file(&path).unwrap();
    assert_eq!(loaded.migrated_from, Some(1));
    assert_eq!(loaded.diagnostics, vec![]);
    assert_eq!(loaded.entries.len(), 7);
    assert_eq!(loaded.entries[0].parent_id(), None);
    for pair in loaded.entries.windows(2) {
        assert_eq!(pair[1].parent_id(), Some(pair[0].id()));
        assert_eq!(pair[1].id().len(), 8);
    }
    let SessionEntry::Compaction(compaction) = &loaded.entries[5] else {
        panic!("expected the compaction");
    };
    // firstKeptEntryIndex 4 (header = 0) is the second user message.
    assert_eq!(compaction.first_kept_entry_id, loaded.entries[3].id());
    assert!(!compaction.extra.contains_key("firstKeptEntryIndex"));

    let s = SessionManager::open(&path, None).unwrap();
    assert_eq!(
        texts(&s.build_session_context()),
        [
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\nThe user asked two questions.\n</summary>",
            "second question",
            "second answer",
            "third question"
        ]
    );
    // The file was rewritten as version 3 and now loads without migration.
    let again = load_session_file(&path).unwrap();
    assert_eq!(again.migrated_from, None);
    assert_eq!(again.header.version, Some(3));
    assert_eq!(again.entries.iter().collect::<Vec<_>>(), s.entries());
}

#[test]
fn v2_hook_messages_become_custom() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.jsonl");
    fs::copy(fixture("v2-hook-message.jsonl"), &path).unwrap();
    let s = SessionManager::open(&path, None).unwrap();
    assert_eq!(s.header().version, Some(3));
    let message = s.entries()[1].as_message().unwrap();
    let AgentMessage::Custom(CodingMessage::Custom(custom)) = message else {
        panic!("expected a custom message, got {message:?}");
    };
    assert_eq!(custom.custom_type, "reminder");
    assert_eq!(s.entries()[1].id(), "b2c3d4e5");
    assert_eq!(
        texts(&s.build_session_context()),
        ["hello", "remember the tests", "ok"]
    );
    assert!(
        fs::read_to_string(&path)
            .unwrap()
            .contains(r#""role":"custom""#)
    );
}

fn write_session(dir: &Path) -> PathBuf {
    let mut s = SessionManager::create("/w", Some(dir)).unwrap();
    s.append_message(user("one")).unwrap();
    s.append_message(assistant("two")).unwrap();
    s.append_message(user("three")).unwrap();
    s.session_file().unwrap().to_path_buf()
}

#[test]
fn a_corrupt_middle_line_is_reported_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_session(dir.path());
    let mut content = lines(&path);
    content.insert(2, "{not json".into());
    content.insert(
        3,
        r#"{"type":"mystery","id":"x","parentId":null,"timestamp":"t"}"#.into(),
    );
    fs::write(&path, content.join("\n") + "\n").unwrap();
    let loaded = load_session_file(&path).unwrap();
    assert_eq!(
        loaded.entries.len(),
        4,
        "both neighbours and the unknown entry are kept"
    );
    assert_eq!(
        loaded.entries[1].to_line().unwrap(),
        content[3],
        "the unknown entry is kept verbatim"
    );
    assert_eq!(
        loaded
            .diagnostics
            .iter()
            .map(|d| (d.line, d.kind))
            .collect::<Vec<_>>(),
        [
            (3, DiagnosticKind::InvalidJson),
            (4, DiagnosticKind::KeptVerbatim)
        ]
    );
    assert!(
        loaded.diagnostics[1]
            .reason
            .contains("unknown entry type \"mystery\"")
    );
    let s = SessionManager::open(&path, None).unwrap();
    assert_eq!(s.diagnostics().len(), 2);
    assert_eq!(texts(&s.build_session_context()), ["one", "two", "three"]);
}

#[test]
fn a_torn_last_line_is_ignored_and_the_next_append_starts_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_session(dir.path());
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"type":"message","id":"deadbeef","parentId":"#);
    fs::write(&path, &bytes).unwrap();
    let loaded = load_session_file(&path).unwrap();
    assert_eq!(loaded.entries.len(), 3);
    assert!(!loaded.ends_with_newline);
    assert_eq!(loaded.diagnostics.len(), 1);
    assert_eq!(loaded.diagnostics[0].kind, DiagnosticKind::TornLastLine);
    assert_eq!(loaded.diagnostics[0].line, 5);

    let mut s = SessionManager::open(&path, None).unwrap();
    let id = s.append_message(assistant("four")).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.ends_with("}\n"));
    let last = text.lines().last().unwrap();
    let entry: SessionEntry = serde_json::from_str(last).unwrap();
    assert_eq!(entry.id(), id);
    // The torn fragment is now a reported middle line; all entries are intact.
    let reloaded = load_session_file(&path).unwrap();
    assert_eq!(reloaded.entries.len(), 4);
    assert_eq!(
        reloaded
            .diagnostics
            .iter()
            .map(|d| (d.line, d.kind))
            .collect::<Vec<_>>(),
        [(5, DiagnosticKind::InvalidJson)]
    );
}

#[test]
fn a_headerless_file_is_an_error_and_an_empty_one_a_new_session() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    fs::write(&bad, "{\"type\":\"message\"}\n").unwrap();
    assert!(matches!(
        load_session_file(&bad),
        Err(SessionError::InvalidHeader { line: 1, .. })
    ));
    assert!(matches!(
        SessionManager::open(&bad, None),
        Err(SessionError::InvalidHeader { .. })
    ));
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    let mut s = SessionManager::open(&empty, None).unwrap();
    assert!(s.entries().is_empty());
    s.append_message(user("q")).unwrap();
    s.append_message(assistant("a")).unwrap();
    assert_eq!(lines(&empty).len(), 3);
}

#[test]
fn lone_surrogate_escapes_are_repaired_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_session(dir.path());
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(
        r#"{"type":"message","id":"0000beef","parentId":null,"timestamp":"t","message":{"role":"user","content":"half \ud83d emoji \ud83d\ude00","timestamp":3}}"#,
    );
    text.push('\n');
    fs::write(&path, text).unwrap();
    let loaded = load_session_file(&path).unwrap();
    assert_eq!(loaded.diagnostics, vec![]);
    let Some(AgentMessage::Standard(Message::User(u))) = loaded.entries[3].as_message() else {
        panic!()
    };
    assert_eq!(
        u.content,
        UserContent::Text("half \u{fffd} emoji \u{1F600}".into())
    );
}

#[test]
fn branching_forks_the_tree_and_labels_and_names_resolve() {
    let mut s = SessionManager::in_memory("/t");
    let u1 = s.append_message(user("u1")).unwrap();
    let a1 = s.append_message(assistant("a1")).unwrap();
    let u2 = s.append_message(user("u2")).unwrap();
    s.branch(&a1).unwrap();
    let u3 = s.append_message(user("u3")).unwrap();
    assert_eq!(s.entry(&u3).unwrap().parent_id(), Some(a1.as_str()));
    assert_eq!(
        s.children(&a1).iter().map(|e| e.id()).collect::<Vec<_>>(),
        [u2.as_str(), u3.as_str()]
    );
    assert_eq!(
        s.branch_path(None)
            .iter()
            .map(|e| e.id())
            .collect::<Vec<_>>(),
        [u1.as_str(), a1.as_str(), u3.as_str()]
    );
    assert_eq!(texts(&s.build_session_context()), ["u1", "a1", "u3"]);

    s.append_label_change(&a1, Some("checkpoint")).unwrap();
    assert_eq!(s.label(&a1), Some("checkpoint"));
    s.append_session_info("  my session ").unwrap();
    assert_eq!(s.session_name(), Some("my session"));
    assert!(matches!(
        s.append_label_change("nope", Some("x")),
        Err(SessionError::EntryNotFound(_))
    ));
    assert!(matches!(
        s.branch("nope"),
        Err(SessionError::EntryNotFound(_))
    ));

    let tree = s.tree();
    assert_eq!(tree.roots, [0]);
    let a1_node = &tree.nodes[1];
    assert_eq!(a1_node.label, Some("checkpoint"));
    assert_eq!(a1_node.children, [2, 3]);

    // Summarized return to u1: the summary hangs under u1.
    let summary = s
        .branch_with_summary(Some(&u1), "explored a1 and u3", None, None)
        .unwrap();
    assert_eq!(s.leaf_id(), Some(summary.as_str()));
    let ctx = s.build_session_context();
    assert_eq!(
        texts(&ctx),
        [
            "u1",
            "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nexplored a1 and u3</summary>"
        ]
    );
    // The label cleared with None.
    s.append_label_change(&a1, None).unwrap();
    assert_eq!(s.label(&a1), None);
    s.reset_leaf();
    let root = s.append_message(user("new root")).unwrap();
    assert_eq!(s.entry(&root).unwrap().parent_id(), None);
    assert!(s.tree().roots.len() == 2);
}

#[test]
fn summaries_cannot_be_appended_as_messages() {
    let mut s = SessionManager::in_memory("/t");
    let summary =
        crate::messages::create_compaction_summary_message("s", 1, "2026-01-01T00:00:00.000Z");
    assert!(matches!(
        s.append_message(summary),
        Err(SessionError::SummaryAsMessage("compactionSummary"))
    ));
}

#[test]
fn branched_session_and_fork_point_to_their_parent() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/w", Some(dir.path())).unwrap();
    let u1 = s.append_message(user("u1")).unwrap();
    let a1 = s.append_message(assistant("a1")).unwrap();
    s.append_message(user("u2")).unwrap();
    s.append_label_change(&u1, Some("start")).unwrap();
    let original = s.session_file().unwrap().to_path_buf();

    let branched = s.create_branched_session(&a1).unwrap().unwrap();
    assert_ne!(branched, original);
    let loaded = load_session_file(&branched).unwrap();
    assert_eq!(
        loaded.header.parent_session.as_deref(),
        Some(original.to_str().unwrap())
    );
    assert_eq!(loaded.entries.len(), 3, "u1, a1 and the re-created label");
    assert_eq!(s.label(&u1), Some("start"));
    assert_eq!(texts(&s.build_session_context()), ["u1", "a1"]);

    let other = tempfile::tempdir().unwrap();
    let forked = SessionManager::fork_from(&original, "/elsewhere", Some(other.path())).unwrap();
    assert_eq!(forked.cwd(), "/elsewhere");
    assert_eq!(forked.entries().len(), 4);
    assert_eq!(
        forked.header().parent_session.as_deref(),
        Some(original.to_str().unwrap())
    );
    assert_ne!(forked.session_id(), s.session_id());
}

#[test]
fn listing_and_continuing_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(encode_cwd("/home/u/proj"));
    let first = {
        let mut s = SessionManager::create("/home/u/proj", Some(&project)).unwrap();
        s.append_message(user_at("first prompt", 1_000)).unwrap();
        s.append_message(assistant("answer")).unwrap();
        s.session_file().unwrap().to_path_buf()
    };
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = {
        let mut s = SessionManager::create("/home/u/proj", Some(&project)).unwrap();
        s.append_message(user_at("second prompt", 5_000)).unwrap();
        s.append_message(assistant("answer")).unwrap();
        s.append_session_info("named").unwrap();
        s.session_file().unwrap().to_path_buf()
    };
    fs::write(project.join("junk.jsonl"), "not a session\n").unwrap();
    let list = list_sessions("/home/u/proj", Some(&project)).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].path, second);
    assert_eq!(list[0].first_message, "second prompt");
    assert_eq!(list[0].message_count, 2);
    assert_eq!(list[0].name.as_deref(), Some("named"));
    assert_eq!(list[0].cwd, "/home/u/proj");
    assert_eq!(list[1].path, first);
    // Modified = the latest user/assistant message time (assistant at 2 ms here).
    assert_eq!(list[0].modified.timestamp_millis(), 5_000);
    assert_eq!(list[1].modified.timestamp_millis(), 1_000);
    let all = list_all_sessions(Some(dir.path())).unwrap();
    assert_eq!(all.len(), 2);

    let resumed = SessionManager::continue_recent("/home/u/proj", Some(&project)).unwrap();
    assert_eq!(resumed.session_file(), Some(second.as_path()));
    let fresh_dir = dir.path().join("none");
    let fresh = SessionManager::continue_recent("/x", Some(&fresh_dir)).unwrap();
    assert!(fresh.entries().is_empty());
}

#[test]
fn paths_follow_pi() {
    assert_eq!(encode_cwd("/home/user/work"), "--home-user-work--");
    assert_eq!(encode_cwd("C:\\Users\\me"), "--C--Users-me--");
    assert_eq!(
        session_file_name("2026-03-15T22:40:18.123Z", "abc"),
        "2026-03-15T22-40-18-123Z_abc.jsonl"
    );
    let home = Some(PathBuf::from("/home/me"));
    assert_eq!(
        agent_dir_from(None, home.clone()),
        PathBuf::from("/home/me/.pi/agent")
    );
    assert_eq!(
        agent_dir_from(Some("~/pi"), home.clone()),
        PathBuf::from("/home/me/pi")
    );
    assert_eq!(
        agent_dir_from(Some("~"), home.clone()),
        PathBuf::from("/home/me")
    );
    assert_eq!(
        agent_dir_from(Some("/opt/pi"), home),
        PathBuf::from("/opt/pi")
    );
    assert_eq!(
        default_session_dir(Path::new("/a"), "/w/x"),
        PathBuf::from("/a/sessions/--w-x--")
    );
}

#[test]
fn ids_and_timestamps_have_pi_formats() {
    let id = generate_entry_id(|_| false);
    assert_eq!(id.len(), 8);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    let full = generate_entry_id(|_| true);
    assert_eq!(full.len(), 36, "after 100 collisions a full UUID");
    let session = new_session_id();
    assert_eq!(&session[14..15], "7");
    let now = now_iso();
    assert_eq!(now.len(), 24);
    assert!(now.ends_with('Z'));
    assert!(chrono::DateTime::parse_from_rfc3339(&now).is_ok());
}

#[test]
fn missing_content_in_old_messages_is_an_empty_array() {
    let line = r#"{"type":"message","id":"abcd0123","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","timestamp":1}}"#;
    let entry: SessionEntry = serde_json::from_str(line).unwrap();
    let ctx = crate::context::build_session_context(std::slice::from_ref(&entry), Some("abcd0123"));
    let Some(AgentMessage::Standard(Message::User(u))) = ctx.messages.first() else {
        panic!()
    };
    assert_eq!(u.content, UserContent::Blocks(vec![]));
}

#[test]
fn a_second_writer_of_a_session_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = SessionManager::create("/work/p", Some(dir.path())).unwrap();
    first.append_message(user("hi")).unwrap();
    let file = first.session_file().unwrap().to_path_buf();
    let mut second = SessionManager::open(&file, None).unwrap();
    let err = second.lock().unwrap_err();
    assert!(matches!(err, SessionError::Locked { .. }), "{err}");
    assert!(err.to_string().contains("in use by another pi process"));
    // Reading is never refused; writing is, so the tree cannot fork silently.
    assert_eq!(second.entries().len(), 1);
    assert!(matches!(
        second.append_message(user("other")),
        Err(SessionError::Locked { .. })
    ));
    drop(first);
    second.lock().unwrap();
    // The refused entry stayed in memory and is written with the next one.
    second.append_message(user("now")).unwrap();
    assert_eq!(lines(&file).len(), 4);
}
