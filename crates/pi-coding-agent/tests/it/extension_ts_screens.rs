//! pi's own TypeScript UI examples, whole screens: the script that captured
//! pi 0.73.1's interactive screens in tmux (`fixtures/capture/ext_screens.py`)
//! drives pi-rs through the same scenarios (`PI_RS_BIN`), and every screen
//! must read as pi's (`screen-*.txt` of
//! `fixtures/pi-0.73.1/extensions/examples/<name>/`): the dialogs, selectors,
//! overlays and messages the extensions draw, the transcript around them,
//! the editor and the footer.
//!
//! What may differ, and why:
//! - pi's first lines report its own tool downloads (`fd not found ...`);
//! - the version in the header;
//! - session entry ids (random) where a dialog names one;
//! - what an extension prints with `console.log`: pi writes it through its
//!   drawing (model-status's line is drawn over and leaves a stray rule),
//!   pi-rs above its live region, where the line stays readable.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use pi_test_support::external;
use pretty_assertions::assert_eq;

/// The examples whose screens are compared (the scenarios of
/// `ext_screens.py` with dialogs, selectors, components and messages; the
/// others are in `extension_ts_tui.rs`), each with the number of screens pi
/// drew: one test each, so that the scenarios (about ten seconds of waiting
/// on tmux each) run side by side.
macro_rules! examples {
    ($($test:ident: $name:literal, $screens:literal;)*) => {
        $(
            #[test]
            fn $test() {
                draws_pis_screens($name, $screens);
            }
        )*
    };
}

examples! {
    question_draws_pis_screens: "question", 3;
    qna_draws_pis_screens: "qna", 1;
    preset_draws_pis_screens: "preset", 3;
    todo_draws_pis_screens: "todo", 3;
    tools_draws_pis_screens: "tools", 3;
    bookmark_draws_pis_screens: "bookmark", 2;
    plan_mode_draws_pis_screens: "plan-mode", 3;
    timed_confirm_draws_pis_screens: "timed-confirm", 4;
    confirm_destructive_draws_pis_screens: "confirm-destructive", 5;
    model_status_draws_pis_screens: "model-status", 3;
    message_renderer_draws_pis_screens: "message-renderer", 1;
    notify_draws_pis_screens: "notify", 1;
}

/// The screen's lines as compared: trailing blanks and rows dropped, pi's
/// download notes and the version taken out, entry ids neutral.
fn normalized(screen: &str) -> Vec<String> {
    let version = regex::Regex::new(r"pi v\d+\.\d+\.\d+").unwrap();
    let entry = regex::Regex::new(r"entry [0-9a-f]{8}\?").unwrap();
    let mut lines: Vec<String> = screen
        .lines()
        .filter(|l| !l.contains("not found. Offline mode enabled, skipping download."))
        .map(|l| {
            let l = version.replace_all(l.trim_end(), "pi vX");
            entry.replace_all(&l, "entry ID?").into_owned()
        })
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines
}

/// Takes out what the extension printed (`printed`: its lines) from
/// pi-rs's screen, and the rule pi's renderer left where that output went
/// through its drawing.
fn without_printed(ours: &mut Vec<String>, pi: &mut Vec<String>, printed: &str) {
    let before = ours.len();
    ours.retain(|l| !l.starts_with(printed));
    assert_eq!(before - ours.len(), 1, "the printed line, once: {ours:#?}");
    // pi: `[Extensions]`, its list, then a stray rule before the chat's
    // first line.
    let at = pi
        .iter()
        .position(|l| l.starts_with("[Extensions]"))
        .expect("pi's extension list");
    if let Some(rule) = (at + 2..pi.len()).find(|&i| !pi[i].is_empty())
        && pi[rule].starts_with('─')
    {
        pi.remove(rule);
    }
}

fn screens(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("screen-") && name.ends_with(".txt")
        })
        .collect();
    found.sort();
    found
}

/// Runs pi's scenario `name` against pi-rs and compares every screen with
/// pi's (`screens_drawn_by_pi`: how many pi drew).
fn draws_pis_screens(name: &str, screens_drawn_by_pi: usize) {
    let (Some(package), Some(()), Some(())) = (
        external::pi_package(),
        external::tmux(),
        external::python3(),
    ) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let host = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("host");
    let status = Command::new("python3")
        .arg(e2e_common::fixtures().join("../capture/ext_screens.py"))
        .arg(package.join("dist/cli.js"))
        .arg(out.path())
        .arg(name)
        .env("PI_RS_BIN", env!("CARGO_BIN_EXE_pi"))
        .env("PI_EXTENSION_HOST_DIR", &host)
        .status()
        .unwrap();
    assert!(status.success(), "{name}: the tmux driver failed: {status}");
    let pi_dir = e2e_common::fixtures()
        .join("extensions/examples")
        .join(name);
    let pi_screens = screens(&pi_dir);
    assert_eq!(
        pi_screens.len(),
        screens_drawn_by_pi,
        "{name}: the screens captured from pi"
    );
    for pi_path in pi_screens {
        let file = pi_path.file_name().unwrap();
        let ours_path = out.path().join("examples").join(name).join(file);
        let ours_text = std::fs::read_to_string(&ours_path)
            .unwrap_or_else(|e| panic!("{name}: {file:?} not drawn by pi-rs: {e}"));
        let mut ours = normalized(&ours_text);
        let mut pi = normalized(&std::fs::read_to_string(&pi_path).unwrap());
        let step = file.to_string_lossy();
        if name == "model-status" && step != "screen-start.txt" {
            without_printed(&mut ours, &mut pi, "[model_select] ");
        }
        assert_eq!(ours, pi, "{name}/{step}:\n{ours_text}");
    }
}
