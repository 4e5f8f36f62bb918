//! The interactive mode end to end: the real `pi` binary in a pseudo-terminal
//! (`portable-pty`), its output parsed by a terminal emulator (`vt100`), against
//! the loopback mock provider. Every check polls the screen with a generous
//! timeout (no fixed sleeps), so a loaded machine only makes the tests slower.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::time::Duration;

use e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, slow, text_answer};

/// The footer's stats line: the last non-empty line of the screen.
fn footer_stats(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn prompt_streams_markdown_and_the_footer_counts_tokens() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(
        &[
            "# Result\n\n",
            "The answer is **four**",
            ".\n\n- one\n- two\n",
        ],
        1200,
        14,
    ))])
    .await;
    let mut tui = Tui::start(&s, &[], 80, 24);
    let screen = tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    assert!(
        footer_stats(&screen).contains("0.0%/128k (auto)"),
        "{screen}"
    );
    assert!(!footer_stats(&screen).contains('↑'), "{screen}");
    tui.submit("What is 2 + 2?");
    let screen = tui.wait_screen(
        |s| s.contains("The answer is four.") && s.contains("↑1.2k ↓14"),
        "the rendered answer and the token counts",
    );
    // Markdown is rendered (no `**`, no `#`), the bullets are there.
    assert!(!screen.contains("**four**"), "{screen}");
    assert!(
        screen.contains("Result") && !screen.contains("# Result"),
        "{screen}"
    );
    assert!(screen.contains("one") && screen.contains("two"), "{screen}");
    assert!(screen.contains("What is 2 + 2?"), "{screen}");
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].json().to_string().contains("What is 2 + 2?"));
    let status = tui.quit();
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bash_tool_card_shows_its_output() {
    let s = Scenario::fixture("b-bash-oai").await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("List the files in the current directory.");
    let all = tui.wait_all(
        |s| s.contains("The directory contains notes.txt and src/."),
        "the final answer",
    );
    assert!(all.contains("$ ls"), "{all}");
    assert!(all.contains("notes.txt") && all.contains("src"), "{all}");
    assert!(all.contains("Took "), "{all}");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn steering_while_streaming_is_sent_with_the_next_request() {
    let slow_parts: Vec<String> = (0..12).map(|i| format!("word{i} ")).collect();
    let parts: Vec<&str> = slow_parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![
        slow(text_answer(&parts, 100, 12), Duration::from_millis(250)),
        MockResponse::sse(text_answer(&["Steered answer."], 200, 3)),
    ])
    .await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Tell me a long story");
    tui.wait_screen(|s| s.contains("word1"), "the slow answer streaming");
    tui.submit("Make it shorter");
    tui.wait_screen(
        |s| s.contains("Steering: Make it shorter"),
        "the queued steering message",
    );
    tui.wait_all(|s| s.contains("Steered answer."), "the steered answer");
    let requests = s.requests();
    assert_eq!(requests.len(), 2, "one request per turn");
    let second = requests[1].json().to_string();
    assert!(second.contains("Make it shorter"), "{second}");
    assert!(
        second.contains("word11"),
        "the first answer precedes it: {second}"
    );
    let screen = tui.screen();
    assert!(
        !screen.contains("Steering:"),
        "the queue is empty again: {screen}"
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn escape_aborts_a_slow_answer() {
    let slow_parts: Vec<String> = (0..40).map(|i| format!("part{i} ")).collect();
    let parts: Vec<&str> = slow_parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![slow(
        text_answer(&parts, 10, 40),
        Duration::from_millis(300),
    )])
    .await;
    let mut tui = Tui::start(&s, &[], 80, 24);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Go slowly");
    tui.wait_screen(
        |s| s.contains("part1") && s.contains("Working..."),
        "streaming",
    );
    tui.send("\x1b");
    let screen = tui.wait_screen(|s| s.contains("Operation aborted"), "the abort line");
    assert!(!screen.contains("part39"), "{screen}");
    tui.wait_screen(|s| !s.contains("Working..."), "the spinner to stop");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn shell_command_block() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&["ok"], 1, 1))]).await;
    let mut tui = Tui::start(&s, &[], 80, 24);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("!echo hi-from-shell");
    let screen = tui.wait_screen(
        |s| s.contains("$ echo hi-from-shell") && s.lines().any(|l| l.trim() == "hi-from-shell"),
        "the shell block with its output",
    );
    assert!(!screen.contains("Running..."), "{screen}");
    assert!(s.requests().is_empty(), "a shell command is not a prompt");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_d_exits_with_the_terminal_restored() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&["ok"], 1, 1))]).await;
    let mut tui = Tui::start(&s, &[], 60, 20);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    // Ctrl+D with text in the editor does not exit.
    tui.send("abc");
    tui.wait_screen(|s| s.contains("abc"), "the typed text");
    tui.send("\x04");
    std::thread::sleep(Duration::from_millis(200));
    assert!(tui.child.try_wait().unwrap().is_none(), "still running");
    // Ctrl+C clears, then Ctrl+D exits.
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("abc"), "the cleared editor");
    let status = tui.quit();
    assert!(status.success(), "{status:?}");
    let raw = tui.raw.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&raw);
    let tail = &text[text
        .rfind("\x1b[?2004h")
        .expect("bracketed paste was enabled")..];
    assert!(tail.contains("\x1b[?2004l"), "bracketed paste off at exit");
    assert!(tail.contains("\x1b[?25h"), "cursor shown at exit");
    assert!(text.contains("\x1b[?25l"), "cursor hidden while running");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_continued_session_shows_its_history() {
    let s = Scenario::fixture("b-bash-oai").await;
    let first = s
        .run(&[
            "--model",
            "mock-oai/mock-gpt",
            "-p",
            "List the files in the current directory.",
        ])
        .await;
    assert!(
        first.status.success(),
        "{}",
        e2e_common::text(&first.stderr)
    );
    s.server
        .push(MockResponse::sse(text_answer(&["Again."], 1, 1)));
    let mut tui = Tui::start(&s, &["-c"], 80, 40);
    let all = tui.wait_all(
        |a| a.contains("The directory contains notes.txt and src/.") && a.contains("mock-gpt"),
        "the resumed history",
    );
    assert!(
        all.contains("List the files in the current directory."),
        "{all}"
    );
    assert!(all.contains("$ ls"), "{all}");
    // The footer sums the session's usage (1300+1400 input, 20+12 output).
    assert!(
        footer_stats(&tui.screen()).contains("↑2.7k ↓32"),
        "{}",
        tui.screen()
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn escape_cancels_a_running_compaction() {
    let slow_parts: Vec<String> = (0..40).map(|i| format!("summary{i} ")).collect();
    let parts: Vec<&str> = slow_parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![
        MockResponse::sse(text_answer(&["First answer."], 10, 3)),
        MockResponse::sse(text_answer(&["Second answer."], 20, 3)),
        slow(text_answer(&parts, 30, 40), Duration::from_millis(300)),
    ])
    .await;
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("First question");
    tui.wait_screen(|s| s.contains("First answer."), "the first answer");
    tui.submit("Second question");
    tui.wait_screen(
        |s| s.contains("Second answer.") && !s.contains("Working..."),
        "the second answer",
    );
    tui.submit("/compact");
    tui.wait_screen(
        |s| s.contains("Compacting context... (escape to cancel)"),
        "the compaction spinner",
    );
    tui.send("\x1b");
    let screen = tui.wait_screen(
        |s| s.contains("Compaction cancelled") && !s.contains("Compacting context"),
        "the cancelled compaction",
    );
    assert!(!screen.contains("[compaction]"), "{screen}");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_header_lists_the_loaded_context_files_and_pi_s_docs_hint() {
    let s = Scenario::start(vec![]).await;
    std::fs::write(s.work.path().join("AGENTS.md"), "Be brief.\n").unwrap();
    let mut tui = Tui::start(&s, &[], 100, 30);
    let screen = tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    let rows: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let at = rows
        .iter()
        .position(|l| *l == "[Context]")
        .unwrap_or_else(|| panic!("{screen}"));
    assert_eq!(rows[at + 1], "  AGENTS.md", "{screen}");
    assert!(
        screen.contains("Pi can explain its own features and look up its docs."),
        "{screen}"
    );
    assert!(tui.quit().success());
}
