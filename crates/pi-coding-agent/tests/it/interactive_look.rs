//! The interactive mode's configuration end to end, in a pseudo-terminal against the
//! loopback mock: `/export` (HTML and JSONL), a `keybindings.json` that rebinds submit,
//! `/settings` saving a change, `/login` with a masked key and `/logout`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, text_answer};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn export_writes_the_transcript_as_html_and_jsonl() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(
        &["The **answer** is ", "forty-two."],
        20,
        5,
    ))])
    .await;
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("What is <the> answer?");
    tui.wait_all(|s| s.contains("forty-two."), "the answer");
    tui.submit("/export out/session.html");
    tui.wait_all(
        |s| s.contains("Session exported to: out/session.html"),
        "the export status",
    );
    let html = std::fs::read_to_string(s.work.path().join("out/session.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("What is &lt;the&gt; answer?"), "{html}");
    assert!(
        html.contains("<strong>answer</strong> is forty-two."),
        "{html}"
    );
    assert!(!html.contains("src=\"http"), "self-contained");
    tui.submit("/export \"branch copy.jsonl\"");
    tui.wait_all(
        |s| {
            s.lines()
                .any(|l| l.contains("Session exported to:") && l.contains("branch copy.jsonl"))
        },
        "the JSONL export status",
    );
    let text = std::fs::read_to_string(s.work.path().join("branch copy.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "session");
    let messages = lines.iter().filter(|l| l["type"] == "message").count();
    assert_eq!(messages, 2, "{text}");
    for pair in lines[1..].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"], "one line of descent");
    }
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn keybindings_json_rebinds_submit() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(
        &["Got both lines."],
        10,
        3,
    ))])
    .await;
    std::fs::write(
        s.agent_dir.path().join("keybindings.json"),
        r#"{"submit": "ctrl+s", "tui.input.newLine": ["shift+enter", "enter"], "newSession": "f5"}"#,
    )
    .unwrap();
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("first line");
    tui.wait_screen(|s| s.contains("first line"), "the typed text");
    // Enter is a newline now: nothing is sent.
    tui.send("\r");
    tui.send("second line");
    tui.wait_screen(|s| s.contains("second line"), "the second line");
    assert!(s.requests().is_empty(), "Enter must not submit");
    tui.send("\x13");
    tui.wait_all(|s| s.contains("Got both lines."), "the answer");
    let body = s.requests()[0].json().to_string();
    assert!(body.contains("first line\\nsecond line"), "{body}");
    tui.submit("/hotkeys");
    // `submit` above pressed Enter (a newline): send with Ctrl+S.
    tui.send("\x13");
    tui.wait_all(
        |s| {
            s.lines()
                .any(|l| l.contains("Ctrl+S") && l.contains("Send message"))
        },
        "the hotkeys table with the new submit key",
    );
    // An unbound-by-default action bound by its legacy id.
    tui.send("draft");
    tui.send("\x1b[15~");
    tui.wait_all(|s| s.contains("New session started"), "the new session");
    tui.wait_screen(|s| s.contains("draft"), "the draft kept in the editor");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("draft"), "the editor cleared");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_change_is_applied_and_saved() {
    let s = Scenario::start(Vec::new()).await;
    let mut tui = Tui::start(&s, &[], 80, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("/settings");
    tui.wait_screen(
        // pi's 21 rows (no image support), 10 visible.
        |s| s.contains("Auto-compact") && s.contains("(1/21)") && s.contains("Type to search"),
        "the settings list",
    );
    tui.send("hide");
    tui.wait_screen(
        |s| s.contains("> hide") && s.contains("Hide thinking"),
        "the filtered list",
    );
    tui.send("\r");
    tui.wait_screen(
        |s| {
            s.lines()
                .any(|l| l.contains("→ Hide thinking") && l.trim_end().ends_with("true"))
        },
        "the new value",
    );
    tui.send("\x1b");
    tui.wait_screen(|s| !s.contains("Type to search"), "the editor back");
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(s.agent_dir.path().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["hideThinkingBlock"], true, "{settings}");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn login_stores_a_masked_key_and_logout_removes_it() {
    let s = Scenario::start(Vec::new()).await;
    let mut tui = Tui::start(&s, &[], 80, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.login_with_api_key("groq");
    tui.send("gsk-secret-1");
    let screen = tui.wait_screen(|s| s.contains("************"), "the masked key");
    assert!(!screen.contains("gsk-secret-1"), "{screen}");
    tui.send("\r");
    tui.wait_all(|s| s.contains("Saved API key for groq"), "the saved status");
    let auth_path = s.agent_dir.path().join("auth.json");
    let auth: Value = serde_json::from_str(&std::fs::read_to_string(&auth_path).unwrap()).unwrap();
    assert_eq!(
        auth["groq"],
        serde_json::json!({"type": "api_key", "key": "gsk-secret-1"})
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&auth_path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    tui.submit("/logout");
    tui.wait_screen(
        |s| s.contains("Select provider to logout:"),
        "the logout list",
    );
    tui.send("\r");
    tui.wait_all(
        |s| s.contains("Removed stored API key for groq"),
        "the logout status",
    );
    let auth: Value = serde_json::from_str(&std::fs::read_to_string(&auth_path).unwrap()).unwrap();
    assert!(auth.get("groq").is_none(), "{auth}");
    assert!(tui.quit().success());
}

/// A theme file with every token set to `""` except `accent` (a var) and `border`.
fn theme_file(name: &str) -> String {
    let mut colors = serde_json::Map::new();
    for token in pi_tui::theme::Token::ALL {
        colors.insert(token.name().to_owned(), "".into());
    }
    colors.insert("accent".to_owned(), "brand".into());
    colors.insert("borderMuted".to_owned(), "#123456".into());
    colors.insert("thinkingOff".to_owned(), "#123456".into());
    serde_json::json!({"name": name, "vars": {"brand": "#d75f00"}, "colors": colors}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_custom_theme_is_used_and_a_broken_one_warns() {
    let s = Scenario::start(Vec::new()).await;
    let themes = s.agent_dir.path().join("themes");
    std::fs::create_dir_all(&themes).unwrap();
    std::fs::write(themes.join("brand.json"), theme_file("brand")).unwrap();
    std::fs::write(
        themes.join("broken.json"),
        "{\"name\": \"broken\", \"colors\": {}}",
    )
    .unwrap();
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"theme": "brand"}"#,
    )
    .unwrap();
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    // The editor's rule is drawn in the theme's thinkingOff colour (#123456).
    let deadline = std::time::Instant::now() + pty_common::TIMEOUT;
    while !tui.raw_contains("\x1b[38;2;18;52;86m") {
        assert!(
            std::time::Instant::now() < deadline,
            "the theme's colour never appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(tui.quit().success());

    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"theme": "broken"}"#,
    )
    .unwrap();
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_all(
        |s| s.contains("Failed to load theme \"broken\""),
        "the theme warning",
    );
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer after the warning");
    assert!(tui.quit().success());
}
