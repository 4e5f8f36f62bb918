//! The session corpus (`fixtures/session-corpus`): session files in every
//! shape pi writes (v1, v2, v3; pi-generated and hand-made), each with the
//! request pi 0.73.1 sent when the file was continued with
//! `pi --session FILE -p --model M next` (see fixtures/corpus-tools).
//!
//! For every file and model: our binary continues the same file and must
//! send pi's request (but for what docs/payload-differences.md lists: the
//! system prompt text and tool descriptions); and loading is lossless:
//! load -> open (migrating and rewriting old files) -> append -> load gives
//! the same entries, every line of the file kept.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use e2e_common::{Scenario, comparable_body, jsonl, text};
use pi_coding_agent::session::{SessionEntry, SessionManager, load_session_file};
use pi_test_support::mock_server::MockResponse;
use serde_json::{Value, json};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/session-corpus")
}

fn corpus_files() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("session.jsonl").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The corpus is what the report says it is: every version, every wire.
#[test]
fn the_corpus_spans_every_version_and_wire() {
    let dirs = corpus_files();
    assert!(dirs.len() >= 15, "{} corpus files", dirs.len());
    let mut versions = std::collections::BTreeSet::new();
    let mut wires = std::collections::BTreeSet::new();
    for dir in &dirs {
        let text = std::fs::read_to_string(dir.join("session.jsonl")).unwrap();
        let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        versions.insert(header["version"].as_u64().unwrap_or(1));
        for record in jsonl(&dir.join("pi-requests.jsonl")) {
            wires.insert(record["wire"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(versions.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(wires.len(), 4, "{wires:?}");
}

/// Each corpus file, continued by our binary, sends pi's request.
#[tokio::test(flavor = "multi_thread")]
async fn every_corpus_file_continues_with_pis_request() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in corpus_files() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        for record in jsonl(&dir.join("pi-requests.jsonl")) {
            let model = record["model"].as_str().unwrap();
            let frames: Vec<String> = record["sse"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_owned())
                .collect();
            let s = Scenario::start(vec![MockResponse::sse(frames)]).await;
            let models = std::fs::read_to_string(corpus().join("models.json")).unwrap();
            std::fs::write(
                s.agent_dir.path().join("models.json"),
                models.replace("http://127.0.0.1:18777", &s.server.url()),
            )
            .unwrap();
            let file = s.work.path().join("session.jsonl");
            copy_with_cwd(&dir.join("session.jsonl"), &file, s.work.path());
            let out = s
                .run(&[
                    "--session",
                    file.to_str().unwrap(),
                    "-p",
                    "--model",
                    model,
                    record["prompt"].as_str().unwrap(),
                ])
                .await;
            checked += 1;
            let requests = s.requests();
            if out.status.code() != Some(0) || requests.is_empty() {
                failures.push(format!(
                    "{name} / {model}: exit {:?}, {} requests: {}",
                    out.status.code(),
                    requests.len(),
                    text(&out.stderr)
                ));
                continue;
            }
            assert_eq!(requests[0].path, record["path"].as_str().unwrap());
            let ours = comparable_body(&requests[0].json());
            let pis = comparable_body(&record["body"]);
            if ours != pis {
                failures.push(format!(
                    "{name} / {model}: request differs\n{}",
                    first_difference(&ours, &pis, "")
                ));
            }
            assert_eq!(
                text(&out.stdout),
                record["stdout"].as_str().unwrap(),
                "{name} / {model}: printed answer"
            );
        }
    }
    assert!(checked >= 30, "{checked} captures checked");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Where two JSON values first differ (a short report instead of a huge diff).
fn first_difference(ours: &Value, pis: &Value, at: &str) -> String {
    match (ours, pis) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys()) {
                if a.get(key) != b.get(key) {
                    return match (a.get(key), b.get(key)) {
                        (Some(x), Some(y)) => first_difference(x, y, &format!("{at}/{key}")),
                        (x, y) => format!("{at}/{key}: ours {x:?}, pi's {y:?}"),
                    };
                }
            }
            format!("{at}: key order")
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if x != y {
                    return first_difference(x, y, &format!("{at}/{i}"));
                }
            }
            format!("{at}: equal")
        }
        (Value::Array(a), Value::Array(b)) => {
            let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            format!(
                "{at}: ours {} items, pi's {}; first differing item {same}:\n ours {}\n pi's {}",
                a.len(),
                b.len(),
                a.get(same).map_or_else(String::new, Value::to_string),
                b.get(same).map_or_else(String::new, Value::to_string)
            )
        }
        (x, y) => format!("{at}: ours {x}, pi's {y}"),
    }
}

/// Entries as JSON with every id replaced by the position of its entry, so
/// files migrated twice (fresh ids each time) compare.
fn positional(entries: &[SessionEntry]) -> Vec<Value> {
    let positions: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id(), i))
        .collect();
    let at = |v: &Value| match v.as_str().and_then(|id| positions.get(id)) {
        Some(&i) => json!(i),
        None => v.clone(),
    };
    entries
        .iter()
        .map(|e| {
            let mut value = serde_json::to_value(e).unwrap();
            if let Some(map) = value.as_object_mut() {
                for key in ["id", "parentId", "firstKeptEntryId", "targetId", "fromId"] {
                    if let Some(v) = map.get(key).map(at) {
                        map.insert(key.to_owned(), v);
                    }
                }
            }
            value
        })
        .collect()
}

/// load -> open (old files migrated and rewritten) -> append -> load: the
/// same entries plus the new one; v3 files are only appended to; nothing
/// is dropped, unknown entries included.
#[test]
fn load_save_load_keeps_every_entry() {
    for dir in corpus_files() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("session.jsonl");
        let original = std::fs::read(dir.join("session.jsonl")).unwrap();
        std::fs::write(&file, &original).unwrap();
        let first = load_session_file(&file).unwrap();
        let json_lines = original
            .split(|&b| b == b'\n')
            .filter(|l| serde_json::from_slice::<Value>(l).is_ok())
            .count();
        assert_eq!(
            first.entries.len() + 1,
            json_lines,
            "{name}: every JSON line but the header is an entry"
        );

        if first.migrated_from.is_none() {
            // Typed and written again, every entry is its line, value for value.
            let lines: Vec<Value> = original
                .split(|&b| b == b'\n')
                .filter_map(|l| serde_json::from_slice(l).ok())
                .skip(1)
                .collect();
            for (entry, line) in first.entries.iter().zip(&lines) {
                let written: Value = serde_json::from_str(&entry.to_line().unwrap()).unwrap();
                assert_eq!(&written, line, "{name}");
            }
        }

        let mut session = SessionManager::open(&file, Some(tmp.path())).unwrap();
        assert_eq!(session.session_file(), Some(file.as_path()), "{name}");
        session
            .append_message(pi_ai::UserMessage {
                content: "appended".into(),
                timestamp: 1,
                extra: Default::default(),
            })
            .unwrap();
        drop(session);

        let again = load_session_file(&file).unwrap();
        assert_eq!(again.header.version, Some(3), "{name}");
        assert_eq!(again.migrated_from, None, "{name}: migrated once, in place");
        assert_eq!(
            again.entries.len(),
            first.entries.len() + 1,
            "{name}: nothing lost"
        );
        assert_eq!(
            positional(&again.entries[..first.entries.len()]),
            positional(&first.entries),
            "{name}: the same entries"
        );
        let names: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{name}: no backup or temporary file left");
        if first.migrated_from.is_none() {
            let after = std::fs::read(&file).unwrap();
            assert!(
                after.starts_with(&original),
                "{name}: a current file is only appended to"
            );
        }
        // Every line of the file, typed or not, comes back value for value.
        for (entry, reloaded) in first.entries.iter().zip(&again.entries) {
            if first.migrated_from.is_none() {
                assert_eq!(
                    entry.to_line().unwrap(),
                    reloaded.to_line().unwrap(),
                    "{name}"
                );
            }
        }
    }
}

/// The file of the issue: a v1 session with hundreds of assistant messages
/// lacking `usage.totalTokens`; every one of them loads and reaches the model.
#[test]
fn a_v1_file_with_hundreds_of_assistant_messages_keeps_them_all() {
    let path = corpus().join("v1-pi-2025-hundreds/session.jsonl");
    let loaded = load_session_file(&path).unwrap();
    let assistants = loaded
        .entries
        .iter()
        .filter_map(SessionEntry::as_message)
        .filter(|m| {
            matches!(
                m,
                pi_agent_core::AgentMessage::Standard(pi_ai::Message::Assistant(_))
            )
        })
        .count();
    assert_eq!(assistants, 460);
    assert!(
        loaded.diagnostics.is_empty(),
        "{:?}",
        &loaded.diagnostics[..loaded.diagnostics.len().min(3)]
    );
    let record = &jsonl(&corpus().join("v1-pi-2025-hundreds/pi-requests.jsonl"))[0];
    assert_eq!(record["body"]["messages"].as_array().unwrap().len(), 898);
}

/// Every id of a file's lines replaced by the position of its line.
fn positional_lines(lines: &[Value]) -> Vec<Value> {
    let positions: HashMap<String, usize> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| Some((l.get("id")?.as_str()?.to_owned(), i)))
        .collect();
    lines
        .iter()
        .map(|line| {
            let mut line = line.clone();
            if line["type"] != "session"
                && let Some(map) = line.as_object_mut()
            {
                for key in ["id", "parentId", "firstKeptEntryId", "targetId", "fromId"] {
                    let position = map
                        .get(key)
                        .and_then(Value::as_str)
                        .and_then(|id| positions.get(id));
                    if let Some(&i) = position {
                        map.insert(key.to_owned(), json!(i));
                    }
                }
            }
            line
        })
        .collect()
}

/// The keys of every object, depth first, in order.
fn key_order(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                out.push(key.clone());
                key_order(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| key_order(v, out)),
        _ => {}
    }
}

/// Our rewrite of a v1/v2 file equals pi's (ids aside), key order included;
/// lines that are not JSON, which pi drops, stay in ours.
#[test]
fn old_files_are_rewritten_as_pi_rewrites_them() {
    let mut checked = 0;
    for dir in corpus_files() {
        let pis_path = dir.join("pi-migrated.jsonl");
        if !pis_path.is_file() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("session.jsonl");
        std::fs::copy(dir.join("session.jsonl"), &file).unwrap();
        drop(SessionManager::open(&file, Some(tmp.path())).unwrap());
        let text = std::fs::read_to_string(&file).unwrap();
        let (ours, verbatim): (Vec<&str>, Vec<&str>) = text
            .lines()
            .partition(|l| serde_json::from_str::<Value>(l).is_ok());
        let original = std::fs::read_to_string(dir.join("session.jsonl")).unwrap();
        let not_json: Vec<&str> = original
            .lines()
            .filter(|l| serde_json::from_str::<Value>(l).is_err())
            .collect();
        assert_eq!(verbatim, not_json, "{name}: other lines kept verbatim");
        let ours: Vec<Value> = ours
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let pis = jsonl(&pis_path);
        let (ours, pis) = (positional_lines(&ours), positional_lines(&pis));
        assert_eq!(ours, pis, "{name}");
        for (a, b) in ours.iter().zip(&pis) {
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            key_order(a, &mut ka);
            key_order(b, &mut kb);
            assert_eq!(ka, kb, "{name}: key order");
        }
        checked += 1;
    }
    assert_eq!(checked, 5);
}

/// Copies a session file, its header's `cwd` set to `cwd` (pi, like us,
/// refuses a session whose stored working directory is gone); every other
/// line is copied byte for byte.
fn copy_with_cwd(from: &std::path::Path, to: &std::path::Path, cwd: &std::path::Path) {
    let text = std::fs::read_to_string(from).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(header).unwrap();
    header["cwd"] = serde_json::Value::String(cwd.to_string_lossy().into_owned());
    std::fs::write(to, format!("{header}\n{rest}")).unwrap();
}
