//! pi's own TypeScript UI examples in pi-rs's terminal UI, through the
//! extension host, in a pseudo-terminal: the region each one draws (the
//! footer statuses, the widgets around the editor, a footer of its own)
//! must read as on pi 0.73.1's screens (`screen-*.txt` of
//! `fixtures/pi-0.73.1/extensions/examples/<name>/`, captured in tmux at
//! 100 columns).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::path::PathBuf;

use e2e_common::{Scenario, capture_answer};
use pretty_assertions::assert_eq;
use pty_common::Tui;

/// pi's example `name`, when pi's package is installed.
fn example(name: &str) -> Option<String> {
    let package = pi_test_support::external::pi_package()?;
    Some(
        package
            .join("examples/extensions")
            .join(format!("{name}.ts"))
            .to_string_lossy()
            .into_owned(),
    )
}

/// The host, ready-made (HOME is the scenario's: no cache to install into).
fn host_dir() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("host")
        .to_string_lossy()
        .into_owned()
}

/// A scenario whose mock answers `text`, with the runtime that serves it.
fn scenario(text: &str) -> (tokio::runtime::Runtime, Scenario) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let s = runtime.block_on(Scenario::start(vec![capture_answer(text)]));
    (runtime, s)
}

fn start(s: &Scenario, file: &str) -> Tui {
    let host = host_dir();
    let tui = Tui::start_program(
        env!("CARGO_BIN_EXE_pi"),
        &[("PI_EXTENSION_HOST_DIR", &host)],
        s,
        &["-e", file],
        100,
        40,
    );
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui
}

/// Types `command` and runs it (the `/` menu takes the first Enter when
/// it completes the name).
fn run_command(tui: &mut Tui, command: &str) {
    tui.send(command);
    tui.wait_screen(|s| s.contains(command), "the command typed");
    tui.send("\r");
    std::thread::sleep(std::time::Duration::from_millis(200));
    if tui.screen().lines().any(|l| l.trim_end() == command) {
        tui.send("\r");
    }
}

/// pi's screen `step` of example `name`, without trailing blanks.
fn pi_screen(name: &str, step: &str) -> Vec<String> {
    let path = e2e_common::fixtures()
        .join("extensions/examples")
        .join(name)
        .join(format!("screen-{step}.txt"));
    lines(&std::fs::read_to_string(path).unwrap())
}

fn lines(screen: &str) -> Vec<String> {
    let mut lines: Vec<String> = screen.lines().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// The rows from the editor's top rule (the second-last pair of `─` rows'
/// first) to the end of the screen: the editor, the footer and what
/// extensions put around them.
fn bottom(screen: &[String], above: usize) -> Vec<String> {
    let first_rule = screen
        .iter()
        .position(|l| l.starts_with('─'))
        .expect("the editor's top rule");
    screen[first_rule.saturating_sub(above)..].to_vec()
}

#[test]
fn widget_placement_draws_its_widgets_around_the_editor_as_in_pi() {
    let Some(file) = example("widget-placement") else {
        return;
    };
    let (_runtime, s) = scenario("Answer 1.");
    let mut tui = start(&s, &file);
    let screen = tui.wait_screen(|s| s.contains("Below editor widget"), "the widgets");
    let ours = bottom(&lines(&screen), 1);
    let pi = bottom(&pi_screen("widget-placement", "start"), 1);
    // The widget above the editor, the editor, the one below; the footer's
    // path and model line are pi-rs's own (its scratch cwd).
    assert_eq!(ours[..4], pi[..4], "{screen}");
    tui.quit();
}

#[test]
fn status_line_shows_its_turn_status_in_the_footer_as_in_pi() {
    let Some(file) = example("status-line") else {
        return;
    };
    let (_runtime, s) = scenario("Done.");
    let mut tui = start(&s, &file);
    let screen = tui.wait_screen(|s| s.contains("Ready"), "the status");
    let pi = pi_screen("status-line", "start");
    assert_eq!(lines(&screen).last(), pi.last(), "{screen}");
    tui.submit("Hello.");
    let screen = tui.wait_screen(|s| s.contains("complete"), "the turn status");
    assert_eq!(
        lines(&screen).last().map(String::as_str),
        Some("✓ Turn 1 complete"),
        "{screen}"
    );
    tui.quit();
}

#[test]
fn custom_footer_draws_its_own_footer_in_the_host_as_in_pi() {
    let Some(file) = example("custom-footer") else {
        return;
    };
    let (_runtime, s) = scenario("Answer 1.");
    // As pi's capture: the work dir is a git repository on `main`.
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(s.work.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    let mut tui = start(&s, &file);
    tui.submit("Hello.");
    tui.wait_screen(|s| s.contains("Answer 1."), "the answer");
    run_command(&mut tui, "/footer");
    let screen = tui.wait_screen(|s| s.contains("$0.000"), "the extension's footer");
    let pi = pi_screen("custom-footer", "custom-footer");
    // The footer the extension draws (in the host, with pi-tui) is pi's line.
    assert_eq!(lines(&screen).last(), pi.last(), "{screen}");
    run_command(&mut tui, "/footer");
    let screen = tui.wait_screen(|s| !s.contains("$0.000"), "the built-in footer again");
    assert!(
        lines(&screen).last().unwrap().contains("mock-gpt"),
        "{screen}"
    );
    tui.quit();
}

#[test]
fn custom_header_draws_its_logo_in_the_host_as_in_pi() {
    let Some(file) = example("custom-header") else {
        return;
    };
    let (_runtime, s) = scenario("Answer 1.");
    let mut tui = start(&s, &file);
    let screen = tui.wait_screen(|s| s.contains("coding agent v"), "the extension's header");
    // The logo and its line, as pi drew them (pi-rs's version number aside).
    let logo = |screen: &[String]| -> Vec<String> {
        screen
            .iter()
            .skip_while(|l| !l.contains('█'))
            .take_while(|l| l.contains('█') || l.contains("coding agent v"))
            .map(|l| l.split(" v").next().unwrap_or_default().to_owned())
            .collect()
    };
    let ours = logo(&lines(&screen));
    assert_eq!(ours, logo(&pi_screen("custom-header", "start")), "{screen}");
    assert_eq!(ours.len(), 6, "{screen}");
    tui.quit();
}

/// An extension (written for the test) whose widget is a component: drawn
/// in the host for the terminal's width, below the editor, then removed.
const DRAWN_WIDGET: &str = r#"
export default function (pi) {
  pi.registerCommand("drawn", {
    description: "toggle a drawn widget",
    handler: async (args, ctx) => {
      if (args === "off") {
        ctx.ui.setWidget("drawn", undefined);
        return;
      }
      ctx.ui.setWidget(
        "drawn",
        (_tui, theme) => ({
          render: (width) => [theme.fg("accent", `drawn for ${width} columns`), "second line"],
          invalidate() {},
        }),
        { placement: "belowEditor" },
      );
    },
  });
}
"#;

#[test]
fn a_widget_the_extension_draws_shows_below_the_editor_and_goes() {
    if pi_test_support::external::node().is_none() {
        return;
    }
    let (_runtime, s) = scenario("Answer 1.");
    let file = s.work.path().join("drawn-widget.ts");
    std::fs::write(&file, DRAWN_WIDGET).unwrap();
    let mut tui = start(&s, &file.to_string_lossy());
    run_command(&mut tui, "/drawn");
    let screen = tui.wait_screen(|s| s.contains("drawn for 100 columns"), "the widget");
    let lines = lines(&screen);
    let at = lines
        .iter()
        .position(|l| l == "drawn for 100 columns")
        .unwrap();
    // The editor's bottom rule above it, its second line, then the footer.
    assert!(lines[at - 1].starts_with('─'), "{screen}");
    assert_eq!(lines[at + 1], "second line", "{screen}");
    assert!(lines[at + 3].contains("mock-gpt"), "the footer: {screen}");
    run_command(&mut tui, "/drawn off");
    tui.wait_screen(|s| !s.contains("drawn for"), "the widget gone");
    tui.quit();
}

/// An extension (written for the test) listening to the keys before the
/// editor: it swallows `x`, turns `y` into `Y!`, and on `q` unsubscribes.
const KEY_LISTENER: &str = r#"
export default function (pi) {
  pi.on("session_start", (_event, ctx) => {
    const off = ctx.ui.onTerminalInput((data) => {
      if (data === "x") return { consume: true };
      if (data === "y") return { data: "Y!" };
      if (data === "q") {
        off();
        return { consume: true };
      }
      return undefined;
    });
    ctx.ui.setStatus("keys", "listening");
  });
}
"#;

#[test]
fn a_terminal_input_listener_consumes_replaces_and_unsubscribes() {
    if pi_test_support::external::node().is_none() {
        return;
    }
    let (_runtime, s) = scenario("Answer 1.");
    let file = s.work.path().join("key-listener.ts");
    std::fs::write(&file, KEY_LISTENER).unwrap();
    let mut tui = start(&s, &file.to_string_lossy());
    tui.wait_screen(|s| s.contains("listening"), "the listener");
    for key in ["a", "x", "y", "b"] {
        tui.send(key);
    }
    tui.wait_screen(|s| s.contains("aY!b"), "x swallowed, y replaced");
    tui.send("q");
    tui.send("x");
    tui.wait_screen(|s| s.contains("aY!bx"), "x typed once unsubscribed");
    // Ctrl+C clears the editor (passed on by no listener), Ctrl+D quits.
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("aY!bx"), "the editor cleared");
    tui.quit();
}

#[test]
fn rainbow_editor_replaces_the_editor_submits_and_hands_back_app_keys() {
    let Some(file) = example("rainbow-editor") else {
        return;
    };
    let (_runtime, s) = scenario("Answer 1.");
    let mut tui = start(&s, &file);
    tui.send("Say hi ultrathink");
    // The extension's editor draws the word in its colours (coral first).
    tui.wait_raw("\x1b[38;2;233;137;115mu", "the rainbow");
    tui.send("\r");
    tui.wait_screen(|s| s.contains("Answer 1."), "the answer");
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].json().to_string().contains("Say hi ultrathink"));
    // Ctrl+C (an app key it hands back) clears it; Ctrl+D on the empty
    // editor quits.
    tui.send("again");
    tui.wait_screen(|s| s.contains("again"), "typed");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("again"), "cleared");
    let status = tui.quit();
    assert!(status.success(), "{status:?}");
}
