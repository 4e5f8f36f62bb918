//! The page of a small session with a branch, a label and hostile content.

use super::*;
use serde_json::{Value, json};

fn line(value: &Value) -> String {
    let mut s = serde_json::to_string(value).unwrap_or_default();
    s.push('\n');
    s
}

fn message(id: &str, parent: Option<&str>, message: Value) -> String {
    line(&json!({
        "type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-01-01T10:00:00.000Z", "message": message
    }))
}

fn assistant(content: Value) -> Value {
    json!({
        "role": "assistant", "content": content, "api": "openai-completions",
        "provider": "mock", "model": "mock-gpt",
        "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.5}},
        "stopReason": "toolUse", "timestamp": 1
    })
}

/// A session: a prompt, a bash call and its result, a second branch from the
/// prompt, a label, and a hostile prompt.
pub(crate) fn sample_session(dir: &Path) -> std::path::PathBuf {
    let mut text = line(&json!({
        "type": "session", "version": 3, "id": "sess-1",
        "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/work"
    }));
    text += &message(
        "u1",
        None,
        json!({"role": "user", "content": "first line\nsecond line", "timestamp": 1}),
    );
    text += &message(
        "a1",
        Some("u1"),
        assistant(json!([
            {"type": "thinking", "thinking": "let me think"},
            {"type": "text", "text": "Running **ls**"},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls </tmp>"}}
        ])),
    );
    text += &message(
        "t1",
        Some("a1"),
        json!({
            "role": "toolResult", "toolCallId": "c1", "toolName": "bash",
            "content": [{"type": "text", "text": "\u{1b}[31ma.txt\u{1b}[0m\n</script><script>window.__pwned=1</script>"}],
            "isError": false, "timestamp": 1
        }),
    );
    text += &message(
        "u2",
        Some("u1"),
        json!({"role": "user", "content": "[x](javascript:alert(1)) <img src=x onerror=\"window.__pwned=1\">", "timestamp": 1}),
    );
    text += &line(
        &json!({"type": "label", "id": "l1", "parentId": "u2", "timestamp": "2026-01-01T10:00:00.000Z", "targetId": "u1", "label": "start"}),
    );
    text += &line(
        &json!({"type": "session_info", "id": "i1", "parentId": "l1", "timestamp": "2026-01-01T10:00:00.000Z", "name": "My </script> session"}),
    );
    let path = dir.join("s.jsonl");
    std::fs::write(&path, text).unwrap_or_default();
    path
}

fn page() -> String {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = sample_session(dir.path());
    render_page(&path, &PageOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_transcript_is_rendered_in_rust_and_escaped() {
    let html = page();
    assert!(html.contains("first line<br />\nsecond line"), "{html}");
    assert!(html.contains("<details class=\"thinking\" open>"));
    assert!(html.contains("<strong>ls</strong>"));
    assert!(html.contains("<span class=\"prompt\">$</span> <code>ls &lt;/tmp&gt;</code>"));
    assert!(html.contains("a.txt\n&lt;/script&gt;&lt;script&gt;window.__pwned=1"));
    assert!(!html.contains("\u{1b}"));
    assert!(!html.contains("<img src=x"));
    assert!(!html.contains("href=\"javascript:"));
    // The only script elements are the page's data and its own script.
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(html.contains("data-id=\"t1\" data-parent=\"a1\" data-kind=\"tool\""));
    assert!(html.contains("data-kind=\"settings\""));
    assert!(html.contains("<dt>Tool calls</dt><dd>1 (0 failed)</dd>"));
}

#[test]
fn the_page_is_self_contained_and_only_its_script_may_run() {
    let html = page();
    for needle in [
        "src=\"http",
        "href=\"http",
        "<link",
        "@import",
        "<script src",
        "url(",
    ] {
        assert!(!html.contains(needle), "{needle}");
    }
    let csp = format!("script-src '{}'", script_hash());
    assert!(html.contains(&csp));
    assert!(html.contains(&format!("<script>{}</script>", script_text())));
}

#[test]
fn the_tree_data_has_every_entry_the_leaf_the_labels_and_the_name() {
    let html = page();
    let start = html.find("id=\"tree-data\">").map_or(0, |i| i + 15);
    let end = html[start..].find("</script>").map_or(start, |i| start + i);
    let data: Value = serde_json::from_str(&html[start..end]).unwrap_or_default();
    assert_eq!(data["leaf"], "i1");
    assert_eq!(data["name"], "My </script> session");
    assert_eq!(data["labels"]["u1"], "start");
    let kinds: Vec<&str> = data["nodes"]
        .as_array()
        .map(|n| n.iter().filter_map(|n| n["k"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        kinds,
        ["user", "assistant", "tool", "user", "settings", "info"]
    );
    assert_eq!(data["nodes"][1]["t"], "Running **ls**");
}

#[test]
fn a_long_sessions_later_entries_come_in_noscript_chunks() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = sample_session(dir.path());
    let options = PageOptions {
        live_entries: 2,
        chunk_entries: 3,
        ..PageOptions::default()
    };
    let html = render_page(&path, &options).unwrap_or_else(|e| panic!("{e}"));
    assert!(html.contains("</section>\n<noscript class=\"chunk\" data-first=\"2\"><section"));
    assert!(
        html.contains(
            "</section>\n</noscript>\n<noscript class=\"chunk\" data-first=\"5\"><section"
        )
    );
    assert_eq!(html.matches("<noscript class=\"chunk\"").count(), 2);
    assert_eq!(html.matches("</noscript>").count(), 2);
    // The same sections as the page without chunks.
    let plain = render_page(&path, &PageOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let strip = |h: &str| {
        h.replace("</noscript>\n", "")
            .replace("<noscript class=\"chunk\" data-first=\"2\">", "")
            .replace("<noscript class=\"chunk\" data-first=\"5\">", "")
    };
    assert_eq!(strip(&html), plain);
}
