//! The terminal's scrollback, resizes, keys and live `!cmd` output, read
//! through a terminal emulator that keeps its scrollback (`vt100`, with
//! `CSI 3 J` honoured by the harness): not only the visible screen.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::time::Duration;

use e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, expected_items, item_rows, items, slow, text_answer};

#[tokio::test(flavor = "multi_thread")]
async fn a_long_answer_reaches_the_scrollback_while_it_streams_and_only_once() {
    let parts = items(200);
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![slow(
        text_answer(&refs, 10, 200),
        Duration::from_millis(15),
    )])
    .await;
    let mut tui = Tui::start(&s, &[], 80, 20);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Give me a long list");
    // While it streams, its first lines are already above the screen.
    let during = tui.wait_all(
        |a| {
            let rows = item_rows(a);
            rows.len() > 60 && a.contains("Working...")
        },
        "the first half of the answer",
    );
    let screen = tui.screen();
    assert!(
        !screen.contains("item 001 "),
        "item 1 scrolled off the screen: {screen}"
    );
    let rows = item_rows(&during);
    assert_eq!(rows, expected_items(rows.len()), "{during}");
    assert!(
        !screen.contains("item 200 "),
        "still streaming when checked: {screen}"
    );
    let all = tui.wait_all(
        |a| a.contains("item 200 ") && !a.contains("Working..."),
        "the whole answer",
    );
    // Exactly once, in order, with no copy of the live region in between.
    assert_eq!(item_rows(&all), expected_items(200), "{all}");
    assert_eq!(all.matches("Give me a long list").count(), 1, "{all}");
    assert_eq!(all.matches("mock-gpt").count(), 1, "one footer: {all}");
    assert_eq!(
        all.matches("escape interrupt").count(),
        1,
        "one header: {all}"
    );
    let rules = all.lines().filter(|l| l.starts_with("────")).count();
    assert_eq!(rules, 2, "one editor (two rules): {all}");
    assert!(tui.quit().success());
}

/// The answer of the resize test: a table, a rule, a long paragraph and a
/// list item long enough to wrap at every width.
const LAYOUT: &str = "| Feature | State | Notes |\n|---|---|---|\n| Streaming | done | works with long lines that should wrap inside the cell at narrow widths |\n| Resize | done | reprints |\n\n---\n\nA paragraph that is long enough to wrap at sixty columns and at one hundred columns too, and then some more words.\n\n- a list item that is also long enough to wrap at the narrow width of sixty columns";

/// `LAYOUT` as pi-rs lays it out at `width` (the assistant's padding of 1).
fn layout(width: usize) -> Vec<String> {
    use pi_tui::markdown::{Markdown, MarkdownTheme};
    use pi_tui::theme::{ColorMode, Theme};
    let mut style = MarkdownTheme::new(std::sync::Arc::new(Theme::dark(ColorMode::NoColor)));
    style.padding_x = 1;
    let mut md = Markdown::new(LAYOUT, style);
    md.render_ref(width)
        .iter()
        .map(|l| l.trim_end().to_owned())
        .collect()
}

/// Whether `lines` appear in `text` one after the other.
fn contains_block(text: &str, lines: &[String]) -> bool {
    let rows: Vec<&str> = text.lines().map(str::trim_end).collect();
    rows.windows(lines.len())
        .any(|w| w.iter().zip(lines).all(|(a, b)| a == b))
}

#[tokio::test(flavor = "multi_thread")]
async fn resizes_lay_the_transcript_out_again_at_the_new_width() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&[LAYOUT], 10, 20))]).await;
    let mut tui = Tui::start(&s, &[], 120, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Show a table");
    let at_120 = layout(120);
    tui.wait_screen(|s| contains_block(s, &at_120), "the answer at 120 columns");
    for (cols, rows) in [(60u16, 40u16), (100, 30)] {
        tui.resize(cols, rows);
        let expected = layout(usize::from(cols));
        let screen = tui.wait_screen(
            |s| contains_block(s, &expected),
            &format!("the answer laid out at {cols} columns"),
        );
        for line in screen.lines() {
            assert!(
                line.trim_end().chars().count() <= usize::from(cols),
                "{line:?}"
            );
        }
        // The chat was printed again once: no copy at the old width (the
        // whole chat once the size settled).
        let all = tui.wait_all(
            |a| a.contains("escape interrupt") && contains_block(a, &expected),
            "the whole chat printed again",
        );
        assert_eq!(all.matches("Show a table").count(), 1, "{all}");
        assert_eq!(all.matches("Feature").count(), 1, "{all}");
        assert_eq!(all.matches("escape interrupt").count(), 1, "{all}");
    }
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn shift_enter_inserts_a_newline_in_both_reports() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(
        &["Got three lines."],
        1,
        1,
    ))])
    .await;
    let mut tui = Tui::start(&s, &[], 80, 24);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    // No kitty reply, so pi asked for modifyOtherKeys (as pi does).
    tui.wait_raw("\x1b[>4;2m", "modifyOtherKeys enabled");
    tui.send("first");
    tui.wait_screen(|s| s.contains("first"), "the typed text");
    // xterm's modifyOtherKeys report (tmux with extended-keys on).
    tui.send("\x1b[27;2;13~");
    tui.send("second");
    // The kitty / fixterms report.
    tui.send("\x1b[13;2u");
    tui.send("third");
    let screen = tui.wait_screen(|s| s.contains("third"), "the third line");
    let rows: Vec<&str> = screen.lines().map(str::trim).collect();
    let at = rows.iter().position(|l| *l == "first").expect("first line");
    assert_eq!(&rows[at..at + 3], ["first", "second", "third"], "{screen}");
    // The terminal's (hidden) cursor is at the editor's cursor, after
    // `third` (pi's cursor marker, for IME candidate windows).
    let cursor = tui
        .parser
        .lock()
        .unwrap()
        .parser()
        .screen()
        .cursor_position();
    assert_eq!(cursor, (u16::try_from(at + 2).unwrap(), 5), "{screen}");
    assert!(s.requests().is_empty(), "nothing submitted");
    tui.send("\r");
    tui.wait_all(
        |a| a.contains("Got three lines.") && !a.contains("Working..."),
        "the answer",
    );
    let body = s.requests()[0].json().to_string();
    assert!(body.contains("first\\nsecond\\nthird"), "{body}");
    assert!(tui.quit().success());
    assert!(
        tui.raw_contains("\x1b[>4;0m"),
        "modifyOtherKeys reset at exit"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn shell_output_streams_while_the_command_runs() {
    let s = Scenario::start(vec![]).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("!for i in $(seq 1 30); do echo tick-$i; sleep 0.1; done");
    let screen = tui.wait_screen(
        |s| s.contains("tick-3") && s.contains("Running..."),
        "output of the running command",
    );
    assert!(!screen.contains("tick-30"), "{screen}");
    tui.wait_screen(
        |s| s.contains("tick-30") && !s.contains("Running..."),
        "the finished command",
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_external_editor_leaves_one_copy_of_the_screen() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&["Answer one."], 1, 1))]).await;
    let script = s.work.path().join("editor.sh");
    std::fs::write(&script, "#!/bin/sh\nprintf 'from the editor' > \"$1\"\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut tui = Tui::start_program(
        env!("CARGO_BIN_EXE_pi"),
        &[("VISUAL", script.to_str().unwrap())],
        &s,
        &[],
        80,
        24,
    );
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("First question");
    tui.wait_screen(|s| s.contains("Answer one."), "the answer");
    tui.send("\x07");
    tui.wait_screen(|s| s.contains("from the editor"), "the edited text");
    // As pi's forced full redraw: the chat once, one editor, one footer.
    let all = tui.everything();
    assert_eq!(all.matches("First question").count(), 1, "{all}");
    assert_eq!(all.matches("Answer one.").count(), 1, "{all}");
    assert_eq!(all.matches("mock-gpt").count(), 1, "{all}");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("from the editor"), "the cleared editor");
    assert!(tui.quit().success());
}
