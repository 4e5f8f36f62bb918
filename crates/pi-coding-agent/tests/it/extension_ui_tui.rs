//! The extension UI of the interactive mode end to end: `pi` with the
//! `ui_demo` example's extensions (the example's binary, `examples/ui_demo/`)
//! in a pseudo-terminal, driven by keys through its dialogs, statuses,
//! widgets, notifications, shortcut and session guard, reading the screen
//! (`vt100`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::{Scenario, capture_answer, tool_call_answer};
use pi_test_support::mock_server::MockResponse;
use pty_common::Tui;
use serde_json::json;

const DOWN: &str = "\x1b[B";
const UP: &str = "\x1b[A";
const ESC: &str = "\x1b";
const F5: &str = "\x1b[15~";

fn start(s: &Scenario, rows: u16) -> Tui {
    let program = crate::examples_common::example("ui_demo", true);
    let tui = Tui::start_program(program.to_str().unwrap(), &[], s, &[], 80, rows);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui
}

/// The dialog in the editor's place: from its first border to its last.
fn dialog(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let first = lines.iter().position(|l| l.starts_with('─')).unwrap();
    let last = lines.iter().rposition(|l| l.starts_with('─')).unwrap();
    lines[first..=last]
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn select_picks_and_cancels() {
    let s = &Scenario::start(Vec::new()).await;
    let mut tui = start(s, 30);
    tui.send("/demo-sel");
    tui.wait_screen(
        |s| s.contains("demo-select") && s.contains("Pick one of three options"),
        "the extension command with its description in the / menu",
    );
    tui.send("ect");
    tui.send("\r");
    let screen = tui.wait_screen(
        |s| s.contains("Pick a letter") && s.contains("→ alpha"),
        "the select dialog",
    );
    insta::assert_snapshot!("extension_select_dialog", dialog(&screen));
    tui.send(DOWN);
    tui.wait_screen(|s| s.contains("→ beta"), "the selection moved down");
    tui.send("\r");
    tui.wait_screen(|s| s.contains("Picked beta"), "the picked option");
    assert!(!tui.screen().contains("Pick a letter"));

    tui.submit("/demo-select");
    tui.wait_screen(|s| s.contains("Pick a letter"), "the select dialog again");
    tui.send(ESC);
    tui.wait_screen(
        |s| s.contains("Warning: Selection cancelled") && !s.contains("Pick a letter"),
        "Esc cancelling the dialog",
    );

    tui.submit("/demo-confirm");
    let screen = tui.wait_screen(
        |s| s.contains("This only says yes or no") && s.contains("→ Yes"),
        "the confirm dialog",
    );
    assert!(screen.contains("Proceed?"), "{screen}");
    tui.send(DOWN);
    tui.send("\r");
    tui.wait_screen(|s| s.contains("Confirmed: false"), "No chosen");

    tui.send("/demo-select g");
    tui.wait_screen(|s| s.contains("gamma"), "the argument completions");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("/demo-select g"), "the editor cleared");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn timed_input_statuses_widgets_and_notifications() {
    let s = &Scenario::start(Vec::new()).await;
    let mut tui = start(s, 40);
    tui.submit("/demo-input");
    let screen = tui.wait_screen(|s| s.contains("Your name ("), "the timed input");
    assert!(
        screen.contains("Your name (3s)") || screen.contains("Your name (2s)"),
        "the countdown: {screen}"
    );
    tui.wait_screen(|s| s.contains("Your name (1s)"), "the countdown going down");
    tui.wait_screen(
        |s| s.contains("Warning: No name given") && !s.contains("Your name"),
        "the input closing by itself",
    );

    tui.submit("/demo-ui");
    let screen = tui.wait_screen(
        |s| s.contains("● demo status") && s.contains("Error: An error line"),
        "the status and the notifications",
    );
    assert!(screen.contains(" An info line"), "{screen}");
    assert!(screen.contains("Warning: A warning line"), "{screen}");
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let at = |text: &str| lines.iter().position(|l| l.contains(text)).unwrap();
    let above = at("▲ widget above the editor");
    let below = at("▼ widget below the editor");
    let status = at("● demo status");
    let rule = lines.iter().position(|l| l.starts_with('─')).unwrap();
    assert!(above < rule && rule < below && below < status, "{screen}");
    assert_eq!(
        lines.iter().rposition(|l| !l.is_empty()),
        Some(status),
        "the status line is the footer's last line: {screen}"
    );
    assert!(tui.raw_contains("\x1b]0;pi ui demo\x07"), "the title");

    tui.submit("/demo-clear");
    tui.wait_screen(
        |s| !s.contains("● demo status") && !s.contains("widget above"),
        "the status and widgets removed",
    );

    tui.submit("/demo-fail");
    tui.wait_screen(
        |s| s.contains("Extension \"ui-demo\" error: the demo failed on purpose"),
        "the extension's error",
    );

    tui.send(F5);
    tui.wait_screen(|s| s.contains("Hello from F5"), "the shortcut");
    tui.submit("/hotkeys");
    tui.wait_all(
        |s| s.contains("Extensions") && s.contains("F5") && s.contains("Say hello from the demo"),
        "the shortcut in /hotkeys",
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guard_may_cancel_new() {
    let s = &Scenario::start(Vec::new()).await;
    let mut tui = start(s, 30);
    tui.submit("/demo-guard");
    tui.wait_screen(|s| s.contains("/new now asks first"), "the guard on");
    tui.submit("/new");
    tui.wait_screen(
        |s| s.contains("New session?") && s.contains("The demo guards /new"),
        "the guard's confirmation",
    );
    tui.send(DOWN);
    tui.send("\r");
    let screen = tui.wait_screen(
        |s| s.contains("New session cancelled by the demo"),
        "the cancelled /new",
    );
    assert!(!screen.contains("New session started"), "{screen}");
    tui.submit("/new");
    tui.wait_screen(|s| s.contains("→ Yes"), "the guard asking again");
    tui.send("\r");
    tui.wait_screen(|s| s.contains("✓ New session started"), "the new session");
    assert!(tui.quit().success());
}

/// The lines from the first containing `from` to the last containing
/// `to`, trimmed at the end.
fn between(screen: &str, from: &str, to: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let first = lines.iter().position(|l| l.contains(from)).unwrap();
    let last = lines.iter().rposition(|l| l.contains(to)).unwrap();
    lines[first..=last]
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Three tool calls, one per answer, then a closing text.
fn tool_answers() -> Vec<MockResponse> {
    vec![
        tool_call_answer("call_1", "demo_render", &json!({"item": "apple"})),
        tool_call_answer("call_2", "demo_broken", &json!({"item": "pear"})),
        tool_call_answer("call_3", "demo_frame", &json!({"item": "plum"})),
        capture_answer("All three drawn."),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_and_messages_drawn_by_the_extension() {
    let s = &Scenario::start(tool_answers()).await;
    let mut tui = start(s, 50);
    tui.submit("Use the demo tools");
    let screen = tui.wait_screen(
        |s| s.contains("All three drawn.") && s.contains("┗━ demo_frame ran with plum"),
        "the three tool cards",
    );
    insta::assert_snapshot!(
        "extension_tool_render_hooks",
        between(&screen, "◆ demo_render", "┗━ demo_frame")
    );
    tui.send("\x0f");
    let screen = tui.wait_screen(|s| s.contains("• second detail"), "Ctrl+O expanding");
    assert!(screen.contains("• first detail"), "{screen}");
    tui.send("\x0f");
    tui.wait_screen(|s| s.contains("(ctrl+o for details)"), "Ctrl+O collapsing");

    tui.submit("/demo-note");
    let screen = tui.wait_screen(
        |s| s.contains("✎ [demo-note] A note from the demo"),
        "the custom message drawn by its renderer",
    );
    insta::assert_snapshot!(
        "extension_message_renderer",
        between(&screen, "✎ [demo-note]", "✎ [demo-note]")
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn custom_components_take_keys_and_resolve() {
    let s = &Scenario::start(Vec::new()).await;
    let mut tui = start(s, 30);
    tui.submit("/demo-counter");
    tui.wait_screen(
        |s| s.contains("Counter: 0"),
        "the counter in the editor's place",
    );
    tui.send(UP);
    tui.send(UP);
    tui.send(UP);
    tui.send(DOWN);
    let screen = tui.wait_screen(|s| s.contains("Counter: 2"), "the counter counting");
    insta::assert_snapshot!(
        "extension_custom_component",
        between(&screen, "Counter:", "enter done")
    );
    tui.send("typed");
    tui.send("\r");
    let screen = tui.wait_screen(
        |s| s.contains("Counter result: Some(Number(2))") && !s.contains("Counter: 2"),
        "Enter resolving the count",
    );
    assert!(
        !screen.contains("typed"),
        "keys went to the component: {screen}"
    );
    tui.submit("/demo-counter");
    tui.wait_screen(|s| s.contains("Counter: 0"), "the counter again");
    tui.send(ESC);
    tui.wait_screen(
        |s| s.contains("Counter result: Some(Null)"),
        "Esc resolving null",
    );

    tui.submit("/demo-overlay");
    let screen = tui.wait_screen(
        |s| s.contains("Overlay question") && s.contains("Keep going? (y/n)"),
        "the overlay",
    );
    insta::assert_snapshot!("extension_overlay_component", between(&screen, "╭", "╰"));
    tui.send("x");
    tui.send("y");
    tui.wait_screen(
        |s| s.contains("Overlay result: Some(String(\"yes\"))") && !s.contains("Overlay question"),
        "y resolving the overlay",
    );
    tui.send("hello");
    tui.wait_screen(|s| s.contains("hello"), "the editor taking keys again");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("hello"), "the editor cleared");

    tui.submit("/demo-footer");
    tui.wait_screen(
        |s| s.contains("▶ demo footer, 80 columns") && !s.contains("mock-gpt"),
        "the extension's footer instead of the built-in one",
    );
    tui.submit("/demo-footer");
    tui.wait_screen(
        |s| !s.contains("▶ demo footer") && s.contains("mock-gpt"),
        "the built-in footer restored",
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn header_theme_completions_keys_and_editor() {
    let s = &Scenario::start(Vec::new()).await;
    let mut tui = start(s, 30);
    tui.submit("/demo-header");
    tui.wait_screen(
        |s| s.contains("★ demo header ★") && !s.contains("pi v"),
        "the extension's header",
    );
    tui.submit("/demo-header off");
    tui.wait_screen(
        |s| s.contains("pi v") && !s.contains("★ demo header"),
        "the built-in header restored",
    );

    tui.submit("/demo-theme light");
    tui.wait_screen(|s| s.contains("Theme now light"), "the theme switched");
    tui.submit("/demo-theme nope");
    tui.wait_screen(
        |s| s.contains("No theme:") && s.contains("dark, light"),
        "an unknown theme refused, the known ones listed",
    );

    tui.submit("/demo-keys");
    tui.wait_screen(|s| s.contains("Keys on"), "the listener added");
    tui.send("\x1b[17~");
    tui.send("\x1b[18~");
    tui.wait_screen(|s| s.contains("seven"), "F7 replaced by text");
    tui.send("\x03");
    tui.submit("/demo-keys");
    tui.wait_screen(|s| s.contains("Keys off"), "the listener removed");

    tui.submit("/demo-complete");
    tui.wait_screen(|s| s.contains("Tags ready"), "the provider added");
    // Typing asks the providers: the menu opens, Tab takes the first.
    tui.send("#");
    tui.wait_screen(
        |s| s.contains("#alpha") && s.contains("#beta"),
        "the extension's completions",
    );
    tui.send("\t");
    tui.wait_screen(|s| !s.contains("#beta"), "the first completion taken");
    tui.send("done");
    tui.wait_screen(
        |s| s.contains("#alpha done"),
        "the completion in the editor",
    );
    // Not Ctrl+C: a second one soon after the first quits.
    tui.send(&"\x7f".repeat("#alpha done".len()));
    tui.wait_screen(|s| !s.contains("#alpha"), "the editor cleared");

    tui.submit("/demo-vim");
    tui.wait_screen(|s| s.contains("vim>"), "the extension's editor");
    tui.send("ok");
    tui.wait_screen(
        |s| s.contains("vim> ok"),
        "the extension's editor taking keys",
    );
    tui.send("\x7f\x7f");
    tui.submit("/demo-vim off");
    tui.wait_screen(
        |s| !s.contains("vim>") && s.contains("mock-gpt"),
        "the built-in editor restored by a prompt the extension's editor submitted",
    );
    assert!(tui.quit().success());
}
