//! The settings that change the terminal UI, end to end in a pseudo-terminal
//! against the loopback mock, each next to pi 0.73.1's own output under the same
//! setting (fixtures/pi-0.73.1/settings-screens, made by
//! fixtures/capture/settings_screens.py): `quietStartup`, `showHardwareCursor`,
//! `terminal.showTerminalProgress`, `terminal.clearOnShrink`,
//! `warnings.anthropicExtraUsage`, `enableSkillCommands`, `doubleEscapeAction`
//! and `treeFilterMode`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::time::Duration;

use e2e_common::{Scenario, fixtures};
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, text_answer};
use serde_json::{Value, json};

const PROGRESS_ON: &str = "\x1b]9;4;3\x07";
const PROGRESS_OFF: &str = "\x1b]9;4;0;\x07";
const SHOW_CURSOR: &str = "\x1b[?25h";
const CLEAR_ALL: &str = "\x1b[2J\x1b[H\x1b[3J";
const EXTRA_USAGE: &str = "Anthropic subscription auth is active.";

fn answer(text: &str) -> MockResponse {
    MockResponse::sse(text_answer(&[text], 10, 3))
}

/// What pi 0.73.1 wrote in the capture `name`.
fn pi_raw(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(format!("settings-screens/{name}.raw"))).unwrap()
}

/// A scenario with `settings` in the global settings.json, a skill `demo` and an
/// AGENTS.md (resources for the startup listing), as the captures had them.
async fn scenario(settings: Value, answers: usize) -> Scenario {
    let s = Scenario::start((0..answers).map(|_| answer("Hello there.")).collect()).await;
    let agent = s.agent_dir.path();
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
    let skill = agent.join("skills/demo");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: demo\ndescription: A demo skill.\n---\nDo the demo.\n",
    )
    .unwrap();
    std::fs::write(s.work.path().join("AGENTS.md"), "Be brief.\n").unwrap();
    s
}

fn raw(tui: &Tui) -> String {
    String::from_utf8_lossy(&tui.raw.lock().unwrap()).into_owned()
}

/// Sends `Hi` and waits for the mock's answer.
fn say_hi(tui: &mut Tui) {
    tui.submit("Hi");
    tui.wait_screen(|s| s.contains("Hello there."), "the answer");
}

#[tokio::test(flavor = "multi_thread")]
async fn quiet_startup_hides_the_header_and_the_resource_listing() {
    // pi: the header (`pi v0.73.1`, key hints) and `[Context]` / `[Skills]` only without it.
    let (loud, quiet) = (pi_raw("default"), pi_raw("quiet"));
    assert!(loud.contains(" v0.73.1") && loud.contains("[Skills]") && loud.contains("[Context]"));
    assert!(!quiet.contains(" v0.73.1") && !quiet.contains("[Skills]"));
    assert!(!quiet.contains("[Context]") && quiet.contains("Hello there."));
    // pi prints the model scope before its UI, in these colours, unless quiet.
    const SCOPE: &str = "\x1b[2mModel scope: mock-gpt \x1b[90m(Ctrl+P to cycle)\x1b[39m\x1b[22m";
    assert!(pi_raw("scope").contains(SCOPE));
    assert!(!pi_raw("scope-quiet").contains("Model scope"));

    let s = scenario(json!({}), 1).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    let screen = tui.wait_screen(|s| s.contains("[Skills]"), "the listing");
    assert!(
        screen.contains("pi v") && screen.contains("[Context]"),
        "{screen}"
    );
    assert!(tui.quit().success());

    let s = scenario(json!({"quietStartup": true}), 1).await;
    let mut tui = Tui::start(&s, &["--models", "mock-gpt"], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    say_hi(&mut tui);
    let all = tui.everything();
    for hidden in [
        "pi v",
        "[Skills]",
        "[Context]",
        "escape interrupt",
        "Model scope",
    ] {
        assert!(!all.contains(hidden), "{hidden} shown:\n{all}");
    }
    assert!(tui.quit().success());

    // `--verbose` shows them anyway, and the scope line pi prints first.
    let s = scenario(json!({"quietStartup": true}), 0).await;
    let mut tui = Tui::start(&s, &["--verbose", "--models", "mock-gpt"], 80, 30);
    let screen = tui.wait_screen(|s| s.contains("[Skills]"), "the listing with --verbose");
    assert!(screen.contains("pi v"), "{screen}");
    assert!(
        screen.contains("Model scope: mock-gpt (Ctrl+P to cycle)"),
        "{screen}"
    );
    assert!(raw(&tui).contains(SCOPE));
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn show_hardware_cursor_shows_the_cursor_at_the_editor() {
    // pi: the cursor is shown only when asked (the one `CSI ?25h` otherwise is at exit).
    assert!(pi_raw("hardware-cursor").matches(SHOW_CURSOR).count() > 1);
    assert_eq!(pi_raw("default").matches(SHOW_CURSOR).count(), 1);

    let s = scenario(json!({"showHardwareCursor": true}), 0).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("ab");
    tui.wait_screen(|s| s.contains("ab"), "the typed text");
    tui.wait_raw(SHOW_CURSOR, "the cursor shown");
    assert!(!tui.parser.lock().unwrap().parser().screen().hide_cursor());
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("ab"), "the empty editor");
    assert!(tui.quit().success());

    for (settings, env) in [
        (json!({}), &[][..]),
        // The setting wins over pi-tui's environment default.
        (
            json!({"showHardwareCursor": false}),
            &[("PI_HARDWARE_CURSOR", "1")][..],
        ),
    ] {
        let s = scenario(settings, 0).await;
        let mut tui = Tui::start_program(env!("CARGO_BIN_EXE_pi"), env, &s, &[], 80, 30);
        tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
        tui.send("ab");
        tui.wait_screen(|s| s.contains("ab"), "the typed text");
        std::thread::sleep(Duration::from_millis(300));
        assert!(!tui.raw_contains(SHOW_CURSOR), "{env:?}");
        assert!(tui.parser.lock().unwrap().parser().screen().hide_cursor());
        tui.send("\x03");
        tui.wait_screen(|s| !s.contains("ab"), "the empty editor");
        assert!(tui.quit().success());
    }

    // Without the setting, pi-tui's `PI_HARDWARE_CURSOR=1` turns it on.
    let s = scenario(json!({}), 0).await;
    let env = [("PI_HARDWARE_CURSOR", "1")];
    let mut tui = Tui::start_program(env!("CARGO_BIN_EXE_pi"), &env, &s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.wait_raw(SHOW_CURSOR, "the cursor shown by the environment");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn terminal_progress_is_on_while_the_agent_works() {
    // pi: on at the start of the run, off at its end (and once more at exit).
    let pi = pi_raw("progress");
    let (on, off) = (
        pi.find(PROGRESS_ON).unwrap(),
        pi.rfind(PROGRESS_OFF).unwrap(),
    );
    assert!(on < pi.find("Hello there.").unwrap() && on < off);
    assert!(!pi_raw("default").contains(PROGRESS_ON));

    let s = scenario(json!({"terminal": {"showTerminalProgress": true}}), 1).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    assert!(!tui.raw_contains(PROGRESS_ON), "on before any run");
    say_hi(&mut tui);
    tui.wait_raw(PROGRESS_OFF, "the progress cleared");
    let ours = raw(&tui);
    let on = ours.find(PROGRESS_ON).expect("progress on");
    assert!(on < ours.rfind(PROGRESS_OFF).unwrap());
    assert!(ours.rfind(PROGRESS_ON).unwrap() < ours.rfind(PROGRESS_OFF).unwrap());
    assert!(tui.quit().success());

    let s = scenario(json!({}), 1).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    say_hi(&mut tui);
    assert!(tui.quit().success());
    let ours = raw(&tui);
    assert!(!ours.contains(PROGRESS_ON) && !ours.contains(PROGRESS_OFF));
}

#[tokio::test(flavor = "multi_thread")]
async fn clear_on_shrink_redraws_everything_when_the_menu_closes() {
    // pi: the command menu closing is a full redraw only with the setting.
    assert!(pi_raw("clear-on-shrink").contains(CLEAR_ALL));
    assert!(!pi_raw("no-clear-on-shrink").contains(CLEAR_ALL));

    for (settings, redraws) in [
        (json!({"terminal": {"clearOnShrink": true}}), true),
        (json!({}), false),
    ] {
        let s = scenario(settings, 1).await;
        let mut tui = Tui::start(&s, &[], 80, 30);
        tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
        tui.send("/");
        tui.wait_screen(|s| s.contains("Open settings menu"), "the command menu");
        assert!(
            !tui.raw_contains(CLEAR_ALL),
            "a redraw before the menu closed"
        );
        tui.send("\x7f");
        tui.wait_screen(|s| !s.contains("Open settings menu"), "the menu closed");
        say_hi(&mut tui);
        assert_eq!(tui.raw_contains(CLEAR_ALL), redraws);
        // The chat is all there after the redraw, once.
        let all = tui.everything();
        assert_eq!(all.matches("[Skills]").count(), 1, "{all}");
        assert_eq!(all.matches("Hello there.").count(), 1, "{all}");
        assert!(tui.quit().success());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_anthropic_extra_usage_warning_follows_its_setting() {
    // pi: warned at start for a subscription key, unless the warning is off.
    assert!(pi_raw("anthropic-oat").contains(EXTRA_USAGE));
    assert!(!pi_raw("anthropic-oat-quiet-warning").contains(EXTRA_USAGE));

    let env = [("ANTHROPIC_API_KEY", "sk-ant-oat01-test")];
    let model = "anthropic/claude-opus-4-7";
    let s = scenario(json!({}), 0).await;
    let mut tui = Tui::start_model(&s, model, &env, 100, 30);
    tui.wait_all(|a| a.contains(EXTRA_USAGE), "the warning");
    assert!(tui.quit().success());

    let s = scenario(json!({"warnings": {"anthropicExtraUsage": false}}), 0).await;
    let mut tui = Tui::start_model(&s, model, &env, 100, 30);
    tui.wait_screen(|s| s.contains("claude-opus-4-7"), "the footer");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!tui.everything().contains(EXTRA_USAGE));
    assert!(tui.quit().success());

    // A subscription login in auth.json (an OAuth entry), whatever its token.
    let s = scenario(json!({}), 0).await;
    let login = json!({"anthropic": {"type": "oauth", "access": "token", "refresh": "refresh",
        "expires": 4_102_444_800_000_u64}});
    std::fs::write(s.agent_dir.path().join("auth.json"), login.to_string()).unwrap();
    let mut tui = Tui::start_model(&s, model, &[], 100, 30);
    tui.wait_all(
        |a| a.contains(EXTRA_USAGE),
        "the warning for an OAuth login",
    );
    assert!(tui.quit().success());

    // A plain API key is no subscription.
    let s = scenario(json!({}), 0).await;
    let plain = [("ANTHROPIC_API_KEY", "sk-ant-api03-test")];
    let mut tui = Tui::start_model(&s, model, &plain, 100, 30);
    tui.wait_screen(|s| s.contains("claude-opus-4-7"), "the footer");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!tui.everything().contains(EXTRA_USAGE));
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn skill_commands_are_offered_only_when_enabled() {
    let s = scenario(json!({}), 0).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("/skill");
    tui.wait_screen(
        |s| s.contains("skill:demo") && s.contains("A demo skill."),
        "the skill in the menu",
    );
    clear_editor(&mut tui);
    assert!(tui.quit().success());

    let s = scenario(json!({"enableSkillCommands": false}), 0).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("/skill");
    tui.wait_screen(|s| s.contains("/skill"), "the typed text");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tui.screen().contains("skill:demo"), "{}", tui.screen());
    clear_editor(&mut tui);
    assert!(tui.quit().success());
}

/// Closes the menu and empties the editor.
fn clear_editor(tui: &mut Tui) {
    tui.send("\x1b");
    std::thread::sleep(Duration::from_millis(100));
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("/skill"), "the empty editor");
}

/// Presses Esc twice on the empty editor.
fn double_escape(tui: &mut Tui) {
    tui.send("\x1b");
    std::thread::sleep(Duration::from_millis(120));
    tui.send("\x1b");
}

#[tokio::test(flavor = "multi_thread")]
async fn double_escape_action_and_tree_filter_mode() {
    // `fork`: the fork selector; the tree opens with `treeFilterMode`.
    let s = scenario(
        json!({"doubleEscapeAction": "fork", "treeFilterMode": "user-only"}),
        1,
    )
    .await;
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    say_hi(&mut tui);
    double_escape(&mut tui);
    tui.wait_screen(|s| s.contains("Fork from Message"), "the fork selector");
    tui.send("\x1b");
    tui.wait_screen(|s| !s.contains("Fork from Message"), "the editor back");
    tui.submit("/tree");
    tui.wait_screen(
        |s| s.contains("Session Tree") && s.contains("[user]"),
        "the tree with the user-only filter",
    );
    tui.send("\x1b");
    tui.wait_screen(|s| !s.contains("Session Tree"), "the editor back");
    assert!(tui.quit().success());

    // `none`: nothing opens.
    let s = scenario(json!({"doubleEscapeAction": "none"}), 1).await;
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    say_hi(&mut tui);
    double_escape(&mut tui);
    std::thread::sleep(Duration::from_millis(500));
    let screen = tui.screen();
    assert!(
        !screen.contains("Session Tree") && !screen.contains("Fork from Message"),
        "{screen}"
    );
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn code_blocks_take_the_markdown_code_block_indent() {
    for (settings, indent) in [
        (json!({}), "  "),
        (json!({"markdown": {"codeBlockIndent": "    "}}), "    "),
    ] {
        let s = Scenario::start(vec![answer("Here:\n\n```\nlet x = 1;\n```")]).await;
        std::fs::write(
            s.agent_dir.path().join("settings.json"),
            settings.to_string(),
        )
        .unwrap();
        let mut tui = Tui::start(&s, &[], 80, 30);
        tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
        tui.submit("Code?");
        let screen = tui.wait_screen(|s| s.contains("let x = 1;"), "the code block");
        let line = screen.lines().find(|l| l.contains("let x = 1;")).unwrap();
        // The answer's one column of padding, then the indent.
        assert_eq!(line.trim_end(), format!(" {indent}let x = 1;"), "{screen}");
        assert!(tui.quit().success());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn editor_padding_and_autocomplete_rows_follow_the_settings() {
    for (settings, pad, rows) in [
        (json!({}), "", 5),
        (
            json!({"editorPaddingX": 2, "autocompleteMaxVisible": 3}),
            "  ",
            3,
        ),
    ] {
        let s = Scenario::start(Vec::new()).await;
        std::fs::write(
            s.agent_dir.path().join("settings.json"),
            settings.to_string(),
        )
        .unwrap();
        let mut tui = Tui::start(&s, &[], 80, 30);
        tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
        tui.send("hello");
        let screen = tui.wait_screen(|s| s.contains("hello"), "the typed text");
        let line = screen.lines().find(|l| l.contains("hello")).unwrap();
        assert!(line.starts_with(&format!("{pad}hello")), "{screen}");
        tui.send("\x03");
        tui.wait_screen(|s| !s.contains("hello"), "the empty editor");
        // The `/` menu, in the list's order: as many rows as the setting says.
        tui.send("/");
        let screen = tui.wait_screen(|s| s.contains("Open settings menu"), "the menu");
        // pi's order: settings, model, scoped-models, export, import, share, ...
        let shown = [
            "settings",
            "model",
            "scoped-models",
            "export",
            "import",
            "share",
        ]
        .iter()
        .filter(|c| {
            screen
                .lines()
                .any(|l| l.trim_start_matches(['→', ' ']).starts_with(*c))
        })
        .count();
        assert_eq!(shown, rows, "{screen}");
        tui.send("\x1b");
        std::thread::sleep(Duration::from_millis(100));
        tui.send("\x03");
        tui.wait_screen(|s| !s.contains("Open settings menu"), "the menu closed");
        assert!(tui.quit().success());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn branch_summary_skip_prompt_moves_without_asking() {
    let s = Scenario::start(vec![answer("First answer."), answer("Second answer.")]).await;
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        json!({"branchSummary": {"skipPrompt": true}}).to_string(),
    )
    .unwrap();
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("first question");
    tui.wait_screen(|s| s.contains("First answer."), "the first answer");
    tui.submit("second question");
    tui.wait_screen(|s| s.contains("Second answer."), "the second answer");
    tui.submit("/tree");
    tui.wait_screen(
        |s| s.contains("› • assistant: Second answer."),
        "the tree on the leaf",
    );
    tui.send("\x1b[A");
    tui.wait_screen(
        |s| s.contains("› • user: second question"),
        "the earlier message",
    );
    tui.send("\r");
    tui.wait_all(|a| a.contains("Navigated to selected point"), "the move");
    assert!(!tui.everything().contains("Summarize branch?"));
    // No summary was asked of the model.
    assert_eq!(s.requests().len(), 2);
    tui.wait_screen(|s| s.contains("second question"), "the editor text");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("second question"), "the empty editor");
    assert!(tui.quit().success());
}
