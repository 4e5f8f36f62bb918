//! The session file under a hostile environment: deleted or replaced while
//! written, an old file migrated under the lock, the migration streamed.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::load::read_session_file;
use super::tests::{assistant, user};
use super::writer::SessionWriter;
use super::*;

fn texts(path: &Path) -> Vec<String> {
    load_session_file(path)
        .unwrap()
        .entries
        .iter()
        .filter_map(|e| match e {
            SessionEntry::Message(m) => Some(serde_json::to_value(&m.message).unwrap()),
            _ => None,
        })
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            blocks => blocks[0]["text"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

/// A session of two turns, resumed from its file (its messages read back
/// from their lines when needed) and locked.
fn resumed(dir: &Path) -> (SessionManager, std::path::PathBuf) {
    let mut first = SessionManager::create("/w", Some(dir)).unwrap();
    first.append_message(user("one")).unwrap();
    first.append_message(assistant("two")).unwrap();
    let path = first.session_file().unwrap().to_path_buf();
    drop(first);
    let mut session = SessionManager::open(&path, Some(dir)).unwrap();
    session.lock().unwrap();
    (session, path)
}

#[test]
fn a_deleted_session_file_is_reported_and_the_session_continues_in_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) = resumed(dir.path());
    fs::remove_file(&path).unwrap();
    let err = session.append_message(user("three")).unwrap_err();
    let SessionError::FileLost {
        path: lost,
        what,
        continued_in,
    } = &err
    else {
        panic!("{err}");
    };
    assert_eq!(lost, &path);
    assert_eq!(*what, "deleted");
    assert!(
        err.to_string().contains("was deleted while in use"),
        "{err}"
    );
    assert_eq!(session.session_file(), Some(continued_in.as_path()));
    assert_eq!(texts(continued_in), ["one", "two", "three"]);
    let header = load_session_file(continued_in).unwrap().header;
    assert_eq!(
        header.parent_session.as_deref(),
        Some(path.to_str().unwrap())
    );
    // Later appends go to the new file, without another error.
    session.append_message(assistant("four")).unwrap();
    assert_eq!(texts(continued_in), ["one", "two", "three", "four"]);
}

#[test]
fn a_replaced_session_file_is_left_to_its_new_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) = resumed(dir.path());
    let other = dir.path().join("other");
    fs::write(&other, "someone else's file\n").unwrap();
    fs::rename(&other, &path).unwrap();
    let err = session.append_message(user("three")).unwrap_err();
    assert!(
        matches!(&err, SessionError::FileLost { what, .. } if what.starts_with("replaced")),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "someone else's file\n");
    let new = session.session_file().unwrap().to_path_buf();
    assert_ne!(new, path);
    assert_eq!(texts(&new), ["one", "two", "three"]);
}

const V1: &str = concat!(
    r#"{"type":"session","id":"0b6f1c1e-3c2d-4d7a-9a53-5d0f3c1b2a10","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/w"}"#,
    "\n",
    r#"{"type":"message","timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}"#,
    "\nnot json\n\n",
    r#"{"type":"message","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":2}}"#,
    "\n",
    r#"{"type":"compaction","timestamp":"2025-06-01T10:00:03.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":5}"#,
    "\n",
    r#"{"type":"message","timestamp":"2025-06-01T10:00:04.000Z","message":{"role":"user","content":"second","timestamp":3}}"#,
);

/// `text` with the ids a v1 migration gives (random) replaced by their rank.
fn ranked_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut rank = |id: &str| {
        let at = ids.iter().position(|i| i == id).unwrap_or_else(|| {
            ids.push(id.to_owned());
            ids.len() - 1
        });
        Value::String(format!("#{at}"))
    };
    text.lines()
        .map(|line| match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(mut map)) => {
                for key in ["id", "parentId", "firstKeptEntryId"] {
                    if let Some(Value::String(id)) = map.get(key).cloned() {
                        map.insert(key.into(), rank(&id));
                    }
                }
                serde_json::to_string(&map).unwrap()
            }
            _ => line.to_owned(),
        })
        .collect()
}

#[test]
fn the_streamed_migration_writes_what_the_whole_file_migration_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    fs::write(&path, V1).unwrap();
    let read = read_session_file(&path, false, 0, None, &mut |_, _| ()).unwrap();
    let whole = String::from_utf8(read.migrated_text.unwrap().unwrap()).unwrap();
    let session = SessionManager::open(&path, None).unwrap();
    let streamed = fs::read_to_string(&path).unwrap();
    assert_eq!(ranked_ids(&streamed), ranked_ids(&whole));
    assert!(streamed.contains(r#""role":"custom""#));
    // The compaction keeps the entry the old index named (parsed lines,
    // header included: the hook message; the header's own id ranks #0);
    // the line that is not JSON stays.
    let lines = ranked_ids(&streamed);
    assert_eq!(lines[2], "not json");
    assert!(lines[3].contains(r##""id":"#2""##), "{}", lines[3]);
    assert!(
        lines[4].contains(r##""firstKeptEntryId":"#2""##),
        "{}",
        lines[4]
    );
    drop(session);
}

#[test]
fn an_old_file_another_process_holds_is_neither_read_nor_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    fs::write(&path, V1).unwrap();
    let holder = SessionWriter::open_locked(&path).unwrap();
    let err = SessionManager::open(&path, None).unwrap_err();
    assert!(matches!(err, SessionError::Locked { .. }), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), V1);
    drop(holder);
}

#[test]
fn the_migrated_file_is_locked_by_the_process_that_migrated_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    fs::write(&path, V1).unwrap();
    // A second process that opened the old file before the migration.
    let early = fs::File::open(&path).unwrap();
    let mut first = SessionManager::open(&path, None).unwrap();
    let mut second = SessionManager::open(&path, None).unwrap();
    assert!(matches!(second.lock(), Err(SessionError::Locked { .. })));
    // The old file, renamed away, can be locked; but it is not at the path.
    assert!(early.try_lock().is_ok());
    assert!(matches!(
        SessionWriter::open_locked(&path),
        Err(SessionError::Locked { .. })
    ));
    first.append_message(user("third")).unwrap();
    drop(first);
    second.lock().unwrap();
    assert_eq!(texts(&path), ["first", "hook", "second", "third"]);
}
