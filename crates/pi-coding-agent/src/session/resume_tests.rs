//! Resuming: the context taken from a freshly opened file equals the one
//! built by copy, and the entries handed out read back unchanged.

use std::fs;
use std::path::{Path, PathBuf};

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, AssistantMessage, Message, UserContent, UserMessage};
use pretty_assertions::assert_eq;

use super::*;
use crate::messages::CodingAgentMessage;

fn user(text: &str) -> CodingAgentMessage {
    AgentMessage::Standard(Message::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 1,
        ..UserMessage::default()
    }))
}

fn assistant(text: &str, model: &str) -> CodingAgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages".into(), "anthropic".into(), model, 2);
    m.stop_reason = pi_ai::StopReason::Stop;
    m.content.push(AssistantContent::text(text));
    AgentMessage::Standard(Message::Assistant(m))
}

fn file_of(s: &SessionManager) -> PathBuf {
    s.session_file().unwrap().to_path_buf()
}

/// Opens `path` twice: the context built by copy and the entries, then the
/// context taken; both contexts must be equal, and the entries read back.
fn resume(path: &Path) -> (SessionManager, crate::context::SessionContext) {
    let reference = SessionManager::open(path, None).unwrap();
    let built = reference.build_session_context();
    let entries: Vec<SessionEntry> = reference.entries().into_iter().cloned().collect();
    let mut resumed = SessionManager::open(path, None).unwrap();
    let taken = resumed.take_session_context();
    assert_eq!(taken, built);
    assert_eq!(
        resumed.build_session_context(),
        built,
        "built again after the take"
    );
    assert_eq!(resumed.entries(), entries.iter().collect::<Vec<_>>());
    assert_eq!(resumed.leaf_id(), reference.leaf_id());
    (resumed, taken)
}

fn user_texts(context: &crate::context::SessionContext) -> Vec<String> {
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

#[test]
fn a_linear_session_resumes_by_move_and_appends_after() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/w", Some(dir.path())).unwrap();
    s.append_model_change("anthropic", "first").unwrap();
    s.append_thinking_level_change("high").unwrap();
    s.append_message(user("one")).unwrap();
    s.append_message(assistant("two", "second")).unwrap();
    s.append_custom_entry("ext", None).unwrap();
    s.append_message(user("three")).unwrap();
    let path = file_of(&s);
    // One writer per file: the writer lets go before the file is resumed.
    s.release_lock();

    let (mut resumed, context) = resume(&path);
    assert_eq!(user_texts(&context), ["one", "two", "three"]);
    assert_eq!(context.thinking_level, "high");
    assert_eq!(context.model.unwrap().model_id, "second");
    let id = resumed.append_message(assistant("four", "second")).unwrap();
    assert_eq!(resumed.entry(&id).unwrap().parent_id(), s.leaf_id());
    let (_, context) = resume(&path);
    assert_eq!(user_texts(&context), ["one", "two", "three", "four"]);
}

#[test]
fn a_resumed_transcript_has_room_for_a_runs_first_messages() {
    // The message list read from the file becomes the transcript as it is
    // (a linear session, or the kept part of a compacted one). Without
    // spare room the agent's first appends copy the whole transcript into
    // a larger list, at the peak of a run.
    let dir = tempfile::tempdir().unwrap();
    let mut linear = SessionManager::create("/w", Some(dir.path())).unwrap();
    for i in 0..200 {
        linear.append_message(user(&format!("w{i}"))).unwrap();
    }
    let linear_path = file_of(&linear);
    linear.release_lock();
    let mut compacted = SessionManager::create("/w", Some(dir.path())).unwrap();
    for i in 0..100 {
        compacted.append_message(user(&format!("u{i}"))).unwrap();
        compacted
            .append_message(assistant(&format!("a{i}"), "m"))
            .unwrap();
    }
    let kept = compacted.leaf_id().unwrap().to_owned();
    compacted
        .append_compaction("earlier", &kept, 10, None, None)
        .unwrap();
    for i in 0..50 {
        compacted.append_message(user(&format!("v{i}"))).unwrap();
    }
    let compacted_path = file_of(&compacted);
    compacted.release_lock();

    // The compacted transcript: its summary, the kept answer, 50 prompts.
    for (path, len) in [(linear_path, 200), (compacted_path, 52)] {
        let (_, context) = resume(&path);
        assert_eq!(context.messages.len(), len);
        let room = context.messages.capacity() - context.messages.len();
        assert!(room >= super::context::RUN_ROOM, "room for {room} messages");
    }
}

#[test]
fn a_compacted_session_resumes_from_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/w", Some(dir.path())).unwrap();
    s.append_message(user("u1")).unwrap();
    s.append_message(assistant("a1", "m")).unwrap();
    let kept = s.append_message(user("u2")).unwrap();
    s.append_message(assistant("a2", "m")).unwrap();
    s.append_compaction("earlier", &kept, 10, None, None)
        .unwrap();
    s.append_message(user("u3")).unwrap();

    let (_, context) = resume(&file_of(&s));
    let texts = user_texts(&context);
    assert!(texts[0].contains("earlier"), "{texts:?}");
    assert_eq!(texts[1..], ["u2", "a2", "u3"]);
}

#[test]
fn a_branched_session_with_extension_messages_resumes_its_leafs_branch() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/w", Some(dir.path())).unwrap();
    s.append_message(user("u1")).unwrap();
    let a1 = s.append_message(assistant("a1", "m")).unwrap();
    s.append_message(user("left behind")).unwrap();
    s.append_message(assistant("also left", "m")).unwrap();
    s.branch(&a1).unwrap();
    s.append_custom_message_entry("ext", UserContent::Text("note".into()), true, None)
        .unwrap();
    s.append_message(user("u2")).unwrap();

    let (resumed, context) = resume(&file_of(&s));
    assert_eq!(user_texts(&context), ["u1", "a1", "note", "u2"]);
    assert_eq!(resumed.children(&a1).len(), 2);
    assert_eq!(resumed.tree().roots.len(), 1);
}

#[test]
fn an_entry_changed_behind_our_back_reads_as_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/w", Some(dir.path())).unwrap();
    let u1 = s.append_message(user("u1")).unwrap();
    s.append_message(assistant("a1", "m")).unwrap();
    let path = file_of(&s);
    let mut resumed = SessionManager::open(&path, None).unwrap();
    assert_eq!(user_texts(&resumed.take_session_context()), ["u1", "a1"]);
    fs::write(&path, "").unwrap();
    let SessionEntry::Custom(custom) = resumed.entry(&u1).unwrap() else {
        panic!("expected the stand-in entry");
    };
    assert_eq!(custom.custom_type, "pi-rs:unreadable-entry");
    assert_eq!(custom.id, u1);
    assert_eq!(resumed.branch_path(None).len(), 2);
}

#[test]
fn entry_lines_in_any_key_order_load_and_bad_ones_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"sid","timestamp":"t","cwd":"/w"}"#,
        r#"{"message":{"timestamp":1,"content":"late tags","role":"user"},"parentId":null,"timestamp":"t","id":"00000001","type":"message"}"#,
        r#"{"type":"message","id":"00000002","id":"00000003","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","timestamp":1}}"#,
        r#"{"type":"message","id":"00000004","parentId":null,"timestamp":"t"}"#,
        r#"{"type":"mystery","id":"00000005", oops"#,
        r#"{"type":"message","id":"00000006","parentId":"00000001","timestamp":"t","message":{"role":"user","content":"x","timestamp":1},"later":[1]}"#,
        r#"{"type":"message","id":"00000007","parentId":"00000006","timestamp":"t","message":{"role":"user","content":"half \ud83d","timestamp":1}}"#,
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let loaded = load_session_file(&path).unwrap();
    let ids: Vec<&str> = loaded.entries.iter().map(SessionEntry::id).collect();
    // A duplicate key counts once, the last value winning (as JSON.parse);
    // an entry that cannot be typed is kept verbatim, not dropped.
    assert_eq!(
        ids,
        ["00000001", "00000003", "00000004", "00000006", "00000007"]
    );
    let reported: Vec<(usize, DiagnosticKind)> = loaded
        .diagnostics
        .iter()
        .map(|d| (d.line, d.kind))
        .collect();
    assert_eq!(
        reported,
        [
            (4, DiagnosticKind::KeptVerbatim),
            (5, DiagnosticKind::InvalidJson)
        ]
    );
    assert!(
        loaded.diagnostics[0]
            .reason
            .contains("missing field `message`")
    );
    assert_eq!(loaded.entries[2].to_line().unwrap(), lines[3]);
    assert_eq!(
        loaded.entries[3].to_line().unwrap(),
        lines[5],
        "unknown fields are written back"
    );
    // Read again after a resume, the repaired line gives the same entry.
    let (_, context) = resume(&path);
    assert_eq!(user_texts(&context), ["late tags", "x", "half \u{fffd}"]);
}

#[test]
fn a_duplicated_id_resolves_to_its_last_entry_even_right_before_its_child() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dup.jsonl");
    let line = |id: &str, parent: Option<&str>, text: &str| {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
        )
    };
    let lines = [
        r#"{"type":"session","version":3,"id":"sid","timestamp":"t","cwd":"/w"}"#.to_owned(),
        line("r", None, "root"),
        line("a", Some("r"), "first a"),
        line("b", Some("a"), "b"),
        line("a", Some("r"), "second a"),
        line("c", Some("b"), "c"),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    // `b`'s parent `a` is the entry right before it, but the id means the
    // last entry that has it (as pi's map of ids does).
    let (_, context) = resume(&path);
    assert_eq!(user_texts(&context), ["root", "second a", "b", "c"]);
}

/// A long compacted session: 120 turns, a compaction keeping the last
/// turn, then 10 more; its file's path and the first kept entry.
fn compacted_session(dir: &Path) -> (SessionManager, PathBuf, String) {
    let mut s = SessionManager::create("/w", Some(dir)).unwrap();
    for i in 0..120 {
        s.append_message(user(&format!("u{i}"))).unwrap();
        s.append_message(assistant(&format!("a{i}"), "m")).unwrap();
    }
    let kept = s.entries()[s.entries().len() - 2].id().to_owned();
    s.append_compaction("the first 119 turns", &kept, 10, None, None)
        .unwrap();
    for i in 0..10 {
        s.append_message(user(&format!("v{i}"))).unwrap();
    }
    let path = file_of(&s);
    (s, path, kept)
}

/// The context and the entries of a file read whole, without outlines.
fn read_whole(
    path: &Path,
    leaf: Option<&str>,
) -> (crate::context::SessionContext, Vec<SessionEntry>) {
    let loaded = load_session_file(path).unwrap();
    let context = crate::context::build_session_context(&loaded.entries, leaf);
    (context, loaded.entries)
}

#[test]
fn the_messages_a_compaction_summarized_are_read_as_outlines() {
    let dir = tempfile::tempdir().unwrap();
    let (s, path, _) = compacted_session(dir.path());
    let leaf = s.leaf_id().map(str::to_owned);
    drop(s);
    let (whole_context, whole_entries) = read_whole(&path, leaf.as_deref());

    let opened = SessionManager::open(&path, None).unwrap();
    // The 238 messages before the first kept one are outlines.
    assert_eq!(opened.line_only_entries(), 238);
    // Counted and visited without keeping what is read again.
    assert_eq!(opened.message_and_compaction_counts(), (250, 1));
    let mut visited = Vec::new();
    opened.for_each_entry(|entry| visited.push(entry.clone()));
    assert_eq!(visited, whole_entries);
    assert_eq!(opened.line_only_entries(), 238);
    drop(opened);
    let (mut resumed, context) = resume(&path);
    assert_eq!(context, whole_context);
    assert_eq!(user_texts(&context).len(), 13);
    // Every entry reads back whole, as a load without outlines gives it.
    assert_eq!(resumed.entries(), whole_entries.iter().collect::<Vec<_>>());
    // A branch behind the compaction: the leaf's context is made of
    // outlined messages, read again from their lines.
    let a5 = whole_entries[11].id().to_owned();
    resumed.branch(&a5).unwrap();
    resumed.append_message(user("back again")).unwrap();
    let leaf = resumed.leaf_id().map(str::to_owned);
    drop(resumed);
    let (whole_context, _) = read_whole(&path, leaf.as_deref());
    let (_, context) = resume(&path);
    assert_eq!(context, whole_context);
    assert_eq!(
        user_texts(&context)[10..],
        ["u5".to_owned(), "a5".to_owned(), "back again".to_owned()]
    );
}

#[test]
fn an_outlined_entry_that_cannot_be_typed_reads_back_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let (s, path, _) = compacted_session(dir.path());
    drop(s);
    // An early answer with a content block this version does not know.
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let odd = lines[2].replace(r#""type":"text""#, r#""type":"hologram""#);
    assert_ne!(odd, lines[2]);
    lines[2] = odd.clone();
    fs::write(&path, lines.join("\n") + "\n").unwrap();

    let (resumed, _) = resume(&path);
    let id = load_session_file(&path).unwrap().entries[1].id().to_owned();
    match resumed.entry(&id).unwrap() {
        SessionEntry::Raw(raw) => assert_eq!(raw.line(), odd),
        other => panic!("expected the line kept verbatim, got {other:?}"),
    }
}
