use std::path::Path;

use serde_json::json;

use super::super::session_search::{match_text_whole, parse_query};
use super::*;

fn line(value: &serde_json::Value) -> String {
    format!("{value}\n")
}

fn header(id: &str) -> String {
    line(&json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/work/proj"}))
}

fn message(role: &str, content: serde_json::Value) -> String {
    line(&json!({"type": "message", "id": "e1", "parentId": null,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": role, "content": content, "timestamp": 1}}))
}

/// A session whose searched messages are, in order: "hello there",
/// "first answer" + "second block", "a \"quoted\" line\nnext line café 😀"
/// and a long user message ending in "needle at the end"; its tool
/// results, thinking and tool calls hold other words.
fn sample(dir: &Path) -> SearchTarget {
    let mut text = header("sess-1");
    text += &message("user", json!("hello there"));
    text += &message(
        "assistant",
        json!([
            {"type": "thinking", "thinking": "thinkonly words"},
            {"type": "text", "text": "first answer"},
            {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "toolcallonly.rs"}},
            {"type": "text", "text": "second block"}
        ]),
    );
    text += &message(
        "toolResult",
        json!([{"type": "text", "text": "resultonly output ".repeat(500)}]),
    );
    text += &line(
        &json!({"type": "custom", "customType": "x", "data": {"role": "user", "t": "customonly"}}),
    );
    text += &message("assistant", json!([]));
    text += &message("user", json!(""));
    // Escapes: serde_json writes \" and \n; é and 😀 are written escaped
    // by hand below.
    text += &message(
        "assistant",
        json!([{"type": "text", "text": "a \"quoted\" line\nnext line café 😀"}]),
    )
    .replace('é', "\\u00e9")
    .replace('😀', "\\ud83d\\ude00");
    text += &message(
        "user",
        json!(format!("{} needle at the end", "filler ".repeat(2000))),
    );
    text += &line(&json!({"type": "session_info", "id": "e9", "name": "My Name"}));
    let path = dir.join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    SearchTarget {
        path,
        id: "sess-1".to_owned(),
        name: Some("My Name".to_owned()),
        cwd: "/work/proj".to_owned(),
        first_message: "hello there".to_owned(),
    }
}

/// pi's search text of [`sample`].
fn sample_text() -> String {
    format!(
        "sess-1 My Name hello there first answer second block a \"quoted\" line\nnext line café 😀 {} needle at the end /work/proj",
        "filler ".repeat(2000)
    )
}

fn scan(target: &SearchTarget, q: &str) -> ScanResult {
    let query = parse_query(q);
    let prefilter = Prefilter::new(&query);
    scan_session(target, &query, prefilter.as_ref(), &AtomicBool::new(false))
}

#[test]
fn matches_user_and_assistant_text_only() {
    let dir = tempfile::tempdir().unwrap();
    let target = sample(dir.path());
    let whole = sample_text();
    for q in [
        "hello",
        "\"second block\"",
        "\"needle at the end\"",
        "\"end /work\"",
        "\"answer second\"",
        "\"quoted\" \"line next line\"",
        "\"café 😀\"",
        "CAFÉ",
        "re:caf.\\s+😀",
        "re:line\\nnext",
        "re:my name hello",
        "\"my name\"",
        "sess",
        "\"thinkonly\"",
        "\"toolcallonly\"",
        "\"resultonly\"",
        "\"customonly\"",
        "re:resultonly",
        "qqqzzz",
        "\"hello there first\"",
    ] {
        let query = parse_query(q);
        let expected =
            match_text_whole(&whole, &query).map_or(ScanResult::NoMatch, ScanResult::Match);
        assert_eq!(scan(&target, q), expected, "{q}");
    }
    assert!(matches!(
        scan(&target, "\"needle at the end\""),
        ScanResult::Match(_)
    ));
    assert_eq!(scan(&target, "\"resultonly\""), ScanResult::NoMatch);
    assert_eq!(scan(&target, "\"thinkonly\""), ScanResult::NoMatch);
    assert_eq!(scan(&target, "re:\\bcustomonly"), ScanResult::NoMatch);
}

#[test]
fn prefilter_rejects_without_reading_messages_and_admits_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let target = sample(dir.path());
    let cancel = AtomicBool::new(false);
    let admits = |q: &str, target: &SearchTarget| {
        let query = parse_query(q);
        let prefilter = Prefilter::new(&query).unwrap();
        let mut file = File::open(&target.path).unwrap();
        prefilter.admits(target, &mut file, &cancel).unwrap()
    };
    assert!(!admits("\"zebra crossing\"", &target));
    assert!(!admits("qqqzzz", &target));
    assert!(admits("\"needle at\"", &target));
    // From the id, name and cwd, not in the messages.
    assert!(admits("\"my name\"", &target));
    // A letter written as `\u005a` is in the text but not in the bytes.
    let mut text = header("sess-2");
    text += &message("user", json!("ZEBRA crossing")).replace('Z', "\\u005a");
    let path = dir.path().join("escaped.jsonl");
    std::fs::write(&path, text).unwrap();
    let escaped = SearchTarget {
        path,
        ..target.clone()
    };
    assert!(admits("\"zebra crossing\"", &escaped));
    assert!(matches!(
        scan(&escaped, "\"zebra crossing\""),
        ScanResult::Match(_)
    ));
    // The Kelvin sign lower-cases to `k`.
    let mut text = header("sess-3");
    text += &message("user", json!("\u{212a}ilo"));
    let path = dir.path().join("kelvin.jsonl");
    std::fs::write(&path, text).unwrap();
    let kelvin = SearchTarget { path, ..target };
    assert!(matches!(scan(&kelvin, "\"kilo\""), ScanResult::Match(_)));
}

#[test]
fn long_lines_are_skipped_or_read_whole() {
    let mut data = String::new();
    data += &message("toolResult", json!("x".repeat(3 * ROLE_PREFIX)));
    data += &message(
        "user",
        json!(format!("{}tail", "y".repeat(3 * ROLE_PREFIX))),
    );
    data += "{\"no\":\"x\"}";
    let mut reader = io::BufReader::with_capacity(100, data.as_bytes());
    let mut line = Vec::new();
    assert!(next_line(&mut reader, &mut line).unwrap());
    assert!(line.is_empty(), "the tool result is skipped");
    assert!(next_line(&mut reader, &mut line).unwrap());
    assert!(line.ends_with(b"}}"), "the user message is kept whole");
    assert!(next_line(&mut reader, &mut line).unwrap());
    assert!(line.is_empty());
    assert!(!next_line(&mut reader, &mut line).unwrap());
}

#[test]
fn unreadable_files_match_on_the_listing_and_cancel_stops() {
    let dir = tempfile::tempdir().unwrap();
    let target = SearchTarget {
        path: dir.path().join("missing.jsonl"),
        id: "m".to_owned(),
        name: None,
        cwd: "/c".to_owned(),
        first_message: "listed first message".to_owned(),
    };
    assert!(matches!(
        scan(&target, "\"first message\""),
        ScanResult::Match(_)
    ));
    assert!(
        matches!(scan(&target, "re:message\\s+/c"), ScanResult::Match(_)),
        "{:?}",
        scan(&target, "re:message\\s+/c")
    );
    let target = sample(dir.path());
    let query = parse_query("\"needle at the end\"");
    assert_eq!(
        scan_session(&target, &query, None, &AtomicBool::new(true)),
        ScanResult::Cancelled
    );
}
