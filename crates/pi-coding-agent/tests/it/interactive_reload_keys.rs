//! Commands and keys of the interactive mode end to end, in a
//! pseudo-terminal against the loopback mock: `/changelog` and the
//! start-up "What's New" after an update, skills and prompt templates in the
//! `/` menu, `/reload` after a skill and a context file changed (the next
//! request's system prompt has them), remapped selector keys from
//! `keybindings.json`, and a custom theme file reloaded when it changes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::path::Path;

use e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, text_answer};
use serde_json::Value;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn answer(text: &str) -> MockResponse {
    MockResponse::sse(text_answer(&[text], 10, 3))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn settings(s: &Scenario) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(s.agent_dir.path().join("settings.json")).unwrap(),
    )
    .unwrap()
}

fn wait_raw_for(tui: &Tui, needle: &str, what: &str) {
    let deadline = std::time::Instant::now() + pty_common::TIMEOUT;
    while !tui.raw_contains(needle) {
        assert!(
            std::time::Instant::now() < deadline,
            "{what} never appeared; screen:\n{}",
            tui.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn changelog_after_an_update_and_on_request() {
    let s = Scenario::start(Vec::new()).await;
    // A first run records the version and shows nothing.
    let mut tui = Tui::start(&s, &[], 100, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    assert!(!tui.everything().contains("What's New"));
    assert!(tui.quit().success());
    assert_eq!(settings(&s)["lastChangelogVersion"], VERSION);

    // After an update: the new entries under "What's New", the version recorded.
    write(
        &s.agent_dir.path().join("settings.json"),
        r#"{"lastChangelogVersion": "0.0.1"}"#,
    );
    let mut tui = Tui::start(&s, &[], 100, 40);
    // Waited for whole: the entry is drawn over more than one read.
    tui.wait_all(
        |s| {
            s.contains("What's New")
                && s.contains(&format!("[{VERSION}]"))
                && s.contains("Foundation (November 30)")
        },
        "the new changelog entries",
    );
    assert!(tui.quit().success());
    assert_eq!(settings(&s)["lastChangelogVersion"], VERSION);

    // Collapsed: one line.
    write(
        &s.agent_dir.path().join("settings.json"),
        r#"{"lastChangelogVersion": "0.0.1", "collapseChangelog": true}"#,
    );
    let mut tui = Tui::start(&s, &[], 100, 40);
    let screen = tui.wait_all(
        |s| {
            s.contains(&format!(
                "Updated to v{VERSION}. Use /changelog to view full changelog."
            ))
        },
        "the collapsed notice",
    );
    assert!(!screen.contains("What's New"), "{screen}");
    // Up to date now: /changelog still shows every entry.
    tui.submit("/changelog");
    tui.wait_all(
        |s| s.contains("What's New") && s.contains("Foundation (November 30)"),
        "the full changelog",
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn reload_reads_skills_templates_and_context_files_again() {
    let s = Scenario::start(vec![answer("Noted.")]).await;
    let agent = s.agent_dir.path();
    write(
        &agent.join("skills/pdf-tools/SKILL.md"),
        "---\nname: pdf-tools\ndescription: Reads PDF files\n---\nUse pdftotext.\n",
    );
    write(
        &agent.join("prompts/review.md"),
        "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n",
    );
    let mut tui = Tui::start(&s, &[], 100, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    // Templates and skills in the `/` menu, with pi's source tag.
    tui.send("/rev");
    tui.wait_screen(
        |s| s.contains("review") && s.contains("[u] Review the diff"),
        "the template in the / menu",
    );
    tui.send("\x15");
    tui.send("/skill:");
    tui.wait_screen(
        |s| s.contains("skill:pdf-tools") && s.contains("[u] Reads PDF files"),
        "the skill in the / menu",
    );
    tui.send("\x15");

    // Edit the skill, add one and a context file, then reload.
    write(
        &agent.join("skills/pdf-tools/SKILL.md"),
        "---\nname: pdf-tools\ndescription: Reads and splits PDF files\n---\nUse qpdf.\n",
    );
    write(
        &agent.join("skills/csv-tools/SKILL.md"),
        "---\nname: csv-tools\ndescription: Summarizes CSV tables\n---\nUse csvkit.\n",
    );
    write(
        &s.work.path().join("AGENTS.md"),
        "Always answer in haiku form.\n",
    );
    // Automatic compaction turned off in the project's settings.
    assert!(tui.screen().contains("(auto)"), "{}", tui.screen());
    write(
        &s.work.path().join(".pi/settings.json"),
        r#"{"compaction": {"enabled": false}}"#,
    );
    tui.submit("/reload");
    let screen = tui.wait_all(
        |s| s.contains("Reloaded keybindings, extensions, skills, prompts, themes"),
        "the reload status",
    );
    assert!(screen.contains("[Context]"), "{screen}");
    tui.wait_screen(
        |s| !s.contains("(auto)"),
        "the footer without auto compaction",
    );
    tui.send("/skill:");
    tui.wait_screen(
        |s| s.contains("skill:csv-tools") && s.contains("[u] Reads and splits PDF files"),
        "the reloaded skills in the / menu",
    );
    tui.send("\x15");
    tui.submit("What can you do?");
    tui.wait_all(|s| s.contains("Noted."), "the answer");
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    let system = requests[0].json()["messages"][0]["content"].to_string();
    assert!(system.contains("Summarizes CSV tables"), "{system}");
    assert!(system.contains("Reads and splits PDF files"), "{system}");
    assert!(!system.contains("Reads PDF files"), "{system}");
    assert!(system.contains("Always answer in haiku form."), "{system}");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn reload_waits_for_the_running_response() {
    let parts: Vec<String> = (0..12).map(|i| format!("part{i} ")).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![pty_common::slow(
        text_answer(&parts, 10, 12),
        std::time::Duration::from_millis(200),
    )])
    .await;
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Tell me slowly");
    tui.wait_screen(|s| s.contains("part1"), "the answer streaming");
    tui.submit("/reload");
    tui.wait_all(
        |s| s.contains("Wait for the current response to finish before reloading."),
        "pi's warning",
    );
    tui.wait_all(|s| s.contains("part11"), "the whole answer");
    assert!(!tui.everything().contains("Reloaded keybindings"));
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn remapped_selector_keys_move_and_act() {
    let s = Scenario::start(vec![
        answer("Answer about alpha."),
        answer("Answer about beta."),
        answer("Answer about gamma."),
    ])
    .await;
    for topic in ["alpha", "beta", "gamma"] {
        let out = s
            .run(&[
                "--model",
                "mock-oai/mock-gpt",
                "-p",
                &format!("Tell me about {topic}"),
            ])
            .await;
        assert!(out.status.success(), "{}", e2e_common::text(&out.stderr));
    }
    write(
        &s.agent_dir.path().join("keybindings.json"),
        r#"{"tui.select.down": "ctrl+j", "app.session.rename": "alt+r", "app.tools.expand": "ctrl+x"}"#,
    );
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    // The header's hints name the bound keys, as pi's keyHint does.
    let screen = tui.wait_all(
        |s| s.contains("Press ctrl+x to show full startup help"),
        "the header's hint with the remapped key",
    );
    assert!(screen.contains("ctrl+x more"), "{screen}");
    tui.submit("/resume");
    tui.wait_screen(
        |s| s.contains("Tell me about alpha") && s.contains("Tell me about gamma"),
        "the session picker",
    );
    // Down is no longer bound (the entry replaces the default): twice
    // nothing; then Ctrl+J (kitty encoding) moves from the newest session
    // (gamma) to the next one. Down still bound would end on alpha, a
    // Ctrl+J not read would stay on alpha after two Downs.
    tui.send("\x1b[B");
    tui.send("\x1b[B");
    tui.send("\x1b[106;5u");
    tui.send("\r");
    tui.wait_all(
        |s| s.contains("Resumed session") && s.contains("Answer about beta."),
        "the second session resumed",
    );
    // Alt+R renames in the picker; Ctrl+R no longer does.
    tui.submit("/resume");
    tui.wait_screen(|s| s.contains("Tell me about beta"), "the picker again");
    tui.send("\x12");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!tui.screen().contains("Rename Session"), "{}", tui.screen());
    tui.send("\x1b[114;3u");
    tui.wait_screen(|s| s.contains("Rename Session"), "the rename prompt");
    tui.send("\x15Renamed one\r");
    tui.wait_screen(|s| s.contains("Renamed one"), "the new name in the list");
    tui.send("\x1b");
    tui.wait_screen(|s| !s.contains("Resume Session"), "the picker closed");
    assert!(tui.quit().success());
}

/// A theme file whose editor rule (`thinkingOff`) has `colour`.
fn theme_file(colour: &str) -> String {
    let mut colors = serde_json::Map::new();
    for token in pi_tui::theme::Token::ALL {
        colors.insert(token.name().to_owned(), "".into());
    }
    colors.insert("thinkingOff".to_owned(), colour.into());
    serde_json::json!({"name": "mine", "colors": colors}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_custom_theme_reloads_when_its_file_changes() {
    let s = Scenario::start(Vec::new()).await;
    let file = s.agent_dir.path().join("themes/mine.json");
    write(&file, &theme_file("#123456"));
    write(
        &s.agent_dir.path().join("settings.json"),
        r#"{"theme": "mine"}"#,
    );
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    wait_raw_for(&tui, "\x1b[38;2;18;52;86m", "the theme's first colour");
    // A file being written (not JSON yet) keeps the theme; the finished one shows.
    std::fs::write(&file, "{\"name\": \"mi").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    write(&file, &theme_file("#654321"));
    wait_raw_for(&tui, "\x1b[38;2;101;67;33m", "the edited colour");
    assert!(tui.quit().success());
}
