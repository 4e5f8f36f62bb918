//! Issue 42's items 1-5 in a real tmux (3.3a in CI, installed by
//! `.ci/setup`; under `CI=true` a missing tmux fails the test): the
//! scrollback after and during a long answer, resizes, Shift+Enter with
//! `extended-keys on` (tmux then reports it as `CSI 27;2;13~`) and the
//! warning when it is off, live `!cmd` output. tmux keeps a scrollback,
//! re-wraps on resize and scrolls the screen into the scrollback when it is
//! erased whole: what the `vt100` tests emulate, here for real.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;
use crate::tmux_common;

use std::time::Duration;

use e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pty_common::{expected_items, item_rows, items, slow, text_answer};
use tmux_common::TmuxPi;

const TABLE: &str = "| Feature | State | Notes |\n|---|---|---|\n| Streaming | done | works with long lines that should wrap inside the cell at narrow widths |\n| Resize | done | reprints |\n\nThe end of the answer.";

#[tokio::test(flavor = "multi_thread")]
async fn scrollback_resize_and_keys_in_tmux() {
    let parts = items(200);
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let s = Scenario::start(vec![
        slow(text_answer(&refs, 10, 200), Duration::from_millis(15)),
        MockResponse::sse(text_answer(&[TABLE], 10, 20)),
        MockResponse::sse(text_answer(&["Two lines received."], 10, 3)),
    ])
    .await;
    let Some(tmux) = TmuxPi::start(&s, &[], &[("extended-keys", "on")], 120, 20) else {
        return;
    };
    tmux.wait_screen(|s| s.contains("mock-gpt"), "the footer");

    // 1, 2: the long answer reaches the scrollback while it streams, once.
    tmux.type_text("Give me a long list");
    tmux.keys(&["Enter"]);
    let during = tmux.wait_all(
        |a| item_rows(a).len() > 60 && a.contains("Working..."),
        "the first half of the answer",
    );
    let rows = item_rows(&during);
    assert_eq!(rows, expected_items(rows.len()), "{during}");
    assert!(
        !tmux.screen().contains("item 001 "),
        "scrolled off the screen"
    );
    let all = tmux.wait_all(
        |a| a.contains("item 200 ") && !a.contains("Working..."),
        "the whole answer",
    );
    assert_eq!(item_rows(&all), expected_items(200), "{all}");
    assert_eq!(all.matches("mock-gpt").count(), 1, "one footer: {all}");
    assert_eq!(all.matches("escape interrupt").count(), 1, "{all}");

    // 3: resizes lay the chat out again; nothing is left hard-wrapped.
    tmux.type_text("Show a table");
    tmux.keys(&["Enter"]);
    tmux.wait_screen(|s| s.contains("The end of the answer."), "the table");
    for cols in [60u16, 100] {
        tmux.resize(cols, 20);
        let all = tmux.wait_all(
            |a| {
                a.lines()
                    .any(|l| l.contains("Streaming") && l.trim_end().ends_with('│'))
                    && a.lines()
                        .all(|l| l.trim_end().chars().count() <= usize::from(cols))
                    // The whole chat again, once the size settled.
                    && item_rows(a).len() == 200
            },
            &format!("the table laid out at {cols} columns"),
        );
        assert_eq!(all.matches("Show a table").count(), 1, "{all}");
        assert_eq!(all.matches("Streaming").count(), 1, "{all}");
        assert_eq!(item_rows(&all), expected_items(200), "{all}");
    }

    // 4: Shift+Enter (tmux: CSI 27;2;13~) inserts a newline.
    tmux.type_text("line one");
    tmux.keys(&["S-Enter"]);
    tmux.type_text("line two");
    let screen = tmux.wait_screen(|s| s.contains("line two"), "the second line");
    assert!(
        screen.lines().any(|l| l.trim() == "line one"),
        "not submitted: {screen}"
    );
    assert_eq!(s.requests().len(), 2, "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_screen(|s| s.contains("Two lines received."), "the answer");
    let body = s.requests()[2].json().to_string();
    assert!(body.contains("line one\\nline two"), "{body}");

    // 5: `!cmd` output shows while the command runs.
    tmux.type_text("!for i in $(seq 1 30); do echo tick-$i; sleep 0.1; done");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_screen(
        |s| s.contains("tick-3") && s.contains("Running..."),
        "output of the running command",
    );
    assert!(!screen.contains("tick-30"), "{screen}");
    tmux.wait_screen(
        |s| s.contains("tick-30") && !s.contains("Running..."),
        "its end",
    );
    assert!(
        !tmux.everything().contains("extended-keys is off"),
        "no warning with extended-keys on"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tmux_without_extended_keys_gets_pi_s_warning() {
    let s = Scenario::start(vec![]).await;
    let Some(tmux) = TmuxPi::start(&s, &[], &[("extended-keys", "off")], 100, 24) else {
        return;
    };
    tmux.wait_all(
        |a| {
            a.contains(
                "Warning: tmux extended-keys is off. Modified Enter keys may not work. Add `set -g",
            )
        },
        "the tmux warning",
    );
}
