//! The inline renderer against a real terminal emulator (`vt100`): what ends up on screen and
//! in scrollback after sequences of commit / draw / resize.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_tui::renderer::InlineRenderer;
use pretty_assertions::assert_eq;

struct Term {
    parser: vt100::Parser,
    r: InlineRenderer<Vec<u8>>,
    /// Bytes of the last frame(s) written since the last `feed`.
    last: Vec<u8>,
}

impl Term {
    fn new(cols: u16, rows: u16) -> Self {
        let mut r = InlineRenderer::new(Vec::new(), cols, rows);
        r.set_reflow(false); // vt100 does not re-wrap on resize
        Self {
            parser: vt100::Parser::new(rows, cols, 10_000),
            r,
            last: Vec::new(),
        }
    }

    fn feed(&mut self) {
        self.last = std::mem::take(self.r.writer_mut());
        self.parser.process(&self.last);
    }

    fn draw(&mut self, live: &[&str]) {
        let live: Vec<String> = live.iter().map(|s| (*s).to_owned()).collect();
        self.r.draw(&live).unwrap();
        self.feed();
    }

    fn commit(&mut self, lines: &[&str]) {
        let lines: Vec<String> = lines.iter().map(|s| (*s).to_owned()).collect();
        self.r.commit(&lines);
    }

    fn resize(&mut self, cols: u16, rows: u16, live: &[&str]) {
        self.parser.screen_mut().set_size(rows, cols);
        let live: Vec<String> = live.iter().map(|s| (*s).to_owned()).collect();
        self.r.resize(cols, rows, &live).unwrap();
        self.feed();
    }

    /// Scrollback followed by the screen, trailing blank rows dropped.
    fn all(&mut self) -> Vec<String> {
        let (_, cols) = self.parser.screen().size();
        self.parser.screen_mut().set_scrollback(usize::MAX);
        let depth = self.parser.screen().scrollback();
        let mut out = Vec::new();
        for k in (1..=depth).rev() {
            self.parser.screen_mut().set_scrollback(k);
            out.push(
                self.parser
                    .screen()
                    .rows(0, cols)
                    .next()
                    .unwrap_or_default(),
            );
        }
        self.parser.screen_mut().set_scrollback(0);
        out.extend(self.parser.screen().rows(0, cols));
        while out.last().is_some_and(String::is_empty) {
            out.pop();
        }
        out
    }

    fn screen(&self) -> Vec<String> {
        let (_, cols) = self.parser.screen().size();
        let mut v: Vec<String> = self.parser.screen().rows(0, cols).collect();
        while v.last().is_some_and(String::is_empty) {
            v.pop();
        }
        v
    }

    fn last_text(&self) -> String {
        String::from_utf8_lossy(&self.last).into_owned()
    }
}

#[test]
fn first_frame_draws_everything_in_one_synchronized_write() {
    let mut t = Term::new(20, 6);
    t.draw(&["one", "two", "three"]);
    assert_eq!(t.screen(), vec!["one", "two", "three"]);
    let out = t.last_text();
    assert!(
        out.starts_with("\x1b[?2026h") && out.ends_with("\x1b[?2026l"),
        "{out:?}"
    );
}

#[test]
fn only_changed_lines_are_rewritten() {
    let mut t = Term::new(20, 6);
    t.draw(&["header", "streaming", "editor", "footer"]);
    t.draw(&["header", "streaming more", "editor", "footer"]);
    assert_eq!(
        t.screen(),
        vec!["header", "streaming more", "editor", "footer"]
    );
    let out = t.last_text();
    assert!(out.contains("streaming more"));
    for unchanged in ["header", "editor", "footer"] {
        assert!(!out.contains(unchanged), "{unchanged} rewritten: {out:?}");
    }
    // A spinner tick between unchanged rows rewrites that row only.
    t.draw(&["header", "streaming more", "editor 2", "footer"]);
    t.draw(&["header 2", "streaming more", "editor 2", "footer 2"]);
    assert_eq!(
        t.screen(),
        vec!["header 2", "streaming more", "editor 2", "footer 2"]
    );
    let out = t.last_text();
    assert!(
        !out.contains("streaming") && !out.contains("editor"),
        "{out:?}"
    );
    t.draw(&["header 2", "streaming more", "editor 2", "footer 2"]);
    assert_eq!(t.last_text(), "", "an unchanged frame writes nothing");
}

#[test]
fn shrinking_and_growing_the_live_region() {
    let mut t = Term::new(20, 8);
    t.draw(&["a", "b", "c", "d", "e"]);
    t.draw(&["a", "b"]);
    assert_eq!(t.screen(), vec!["a", "b"]);
    t.draw(&["a", "x", "y", "z", "w", "v"]);
    assert_eq!(t.screen(), vec!["a", "x", "y", "z", "w", "v"]);
    t.draw(&["a", "x", "Q"]);
    assert_eq!(t.screen(), vec!["a", "x", "Q"]);
    t.draw(&[]);
    assert_eq!(t.screen(), Vec::<String>::new());
    t.draw(&["again"]);
    assert_eq!(t.screen(), vec!["again"]);
}

#[test]
fn full_width_lines_keep_their_last_cell() {
    let mut t = Term::new(10, 6);
    t.draw(&["0123456789", "abcdefghij", "tail"]);
    t.draw(&["0123456789", "abcdefghij"]);
    assert_eq!(t.screen(), vec!["0123456789", "abcdefghij"]);
    t.draw(&["0123456789", "ABCDEFGHIJ", "more"]);
    assert_eq!(t.screen(), vec!["0123456789", "ABCDEFGHIJ", "more"]);
}

#[test]
fn commits_go_above_the_live_region_and_into_scrollback_once() {
    let mut t = Term::new(20, 5);
    t.draw(&["> editor", "footer"]);
    for i in 0..12 {
        t.commit(&[&format!("msg {i}")]);
        t.draw(&[&format!("> typing {i}"), "footer"]);
    }
    let mut expected: Vec<String> = (0..12).map(|i| format!("msg {i}")).collect();
    expected.push("> typing 11".to_owned());
    expected.push("footer".to_owned());
    assert_eq!(t.all(), expected);
    assert_eq!(
        t.screen(),
        vec!["msg 9", "msg 10", "msg 11", "> typing 11", "footer"]
    );
}

#[test]
fn commit_and_live_update_share_one_write() {
    let mut t = Term::new(20, 6);
    t.draw(&["live"]);
    t.commit(&["done 1", "done 2"]);
    t.draw(&["live 2"]);
    let out = t.last_text();
    assert_eq!(out.matches("\x1b[?2026h").count(), 1, "{out:?}");
    assert_eq!(t.all(), vec!["done 1", "done 2", "live 2"]);
}

#[test]
fn a_live_region_taller_than_the_screen_shows_its_bottom() {
    let mut t = Term::new(20, 4);
    t.commit(&["old"]);
    let live: Vec<String> = (0..10).map(|i| format!("line {i}")).collect();
    let refs: Vec<&str> = live.iter().map(String::as_str).collect();
    t.draw(&refs);
    assert_eq!(t.screen(), vec!["line 6", "line 7", "line 8", "line 9"]);
    // The clipped top never reaches the scrollback as a stale copy.
    t.draw(&["short", "region"]);
    let all = t.all();
    assert_eq!(all.first().map(String::as_str), Some("old"));
    assert_eq!(&all[all.len() - 2..], ["short", "region"]);
    assert!(!all.iter().any(|l| l.starts_with("line 9")), "{all:?}");
}

#[test]
fn too_wide_lines_are_cut_not_wrapped() {
    let mut t = Term::new(8, 4);
    t.commit(&["a committed line that is long"]);
    t.draw(&["日本語のテキスト", "\x1b[31mred red red red\x1b[0m"]);
    assert_eq!(t.all(), vec!["a commit", "日本語の", "red red "]);
}

#[test]
fn resize_redraws_the_live_region_and_keeps_scrollback() {
    let mut t = Term::new(30, 6);
    t.commit(&["history 1", "history 2"]);
    t.draw(&[
        "streaming answer text",
        "────────────────────",
        "> prompt",
        "footer",
    ]);
    t.resize(
        20,
        6,
        &[
            "streaming answer",
            "text",
            "────────────────────",
            "> prompt",
            "footer",
        ],
    );
    assert_eq!(
        t.all(),
        vec![
            "history 1",
            "history 2",
            "streaming answer",
            "text",
            "────────────────────",
            "> prompt",
            "footer"
        ]
    );
    t.resize(
        40,
        8,
        &[
            "streaming answer text",
            "────────────────────",
            "> prompt",
            "footer",
        ],
    );
    assert_eq!(
        t.all(),
        vec![
            "history 1",
            "history 2",
            "streaming answer text",
            "────────────────────",
            "> prompt",
            "footer"
        ]
    );
}

#[test]
fn reflow_model_moves_up_over_rewrapped_rows() {
    // A reflowing terminal splits a 30-cell line into 3 rows at 10 columns; the renderer must
    // move up over all of them (observable in the byte stream).
    let mut r = InlineRenderer::new(Vec::new(), 30, 10);
    r.draw(&["x".repeat(30), "y".to_owned()]).unwrap();
    r.writer_mut().clear();
    r.resize(10, 10, &["z".to_owned()]).unwrap();
    let out = String::from_utf8_lossy(r.writer()).into_owned();
    assert!(out.contains("\x1b[3A"), "{out:?}");
}

#[test]
fn narrow_terminals_never_fail() {
    for cols in 1..20u16 {
        let mut t = Term::new(cols, 3);
        t.commit(&["wide 日本語 text 👍 here"]);
        t.draw(&["日本語", "abc", "👍👍", "x"]);
        t.resize(cols.saturating_sub(1).max(1), 2, &["a", "b", "c"]);
        t.draw(&["z"]);
        for row in t.screen() {
            assert!(row.chars().count() <= usize::from(cols));
        }
    }
}

#[test]
fn finish_leaves_the_cursor_below_the_last_frame() {
    let mut t = Term::new(20, 6);
    t.draw(&["a", "b"]);
    t.commit(&["final"]);
    let live = vec!["bye".to_owned()];
    t.r.finish(&live).unwrap();
    t.feed();
    assert_eq!(t.all(), vec!["final", "bye"]);
    assert_eq!(t.parser.screen().cursor_position(), (2, 0));
}

/// Random sequences of commits, draws and growing resizes: the history is always every
/// committed line once, in order, followed by the visible part of the live region.
#[test]
fn random_frames_keep_history_and_screen_consistent() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut cols, mut rows) = (24u16, 6u16);
    let mut t = Term::new(cols, rows);
    let mut committed: Vec<String> = Vec::new();
    let mut live: Vec<String> = Vec::new();
    for step in 0..400 {
        match next(6) {
            0 => {
                let n = next(4) as usize;
                let lines: Vec<String> = (0..n).map(|k| format!("c{step}.{k}")).collect();
                let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
                t.commit(&refs);
                committed.extend(lines);
            }
            1 if cols < 40 => {
                cols += 1;
                rows += u16::from(next(2) == 0);
                let refs: Vec<&str> = live.iter().map(String::as_str).collect();
                t.resize(cols, rows, &refs);
                continue;
            }
            _ => {}
        }
        let n = next(u64::from(rows) + 4) as usize;
        live = (0..n)
            .map(|k| {
                if next(3) == 0 {
                    format!("l{step}.{k}")
                } else {
                    format!("l{k}")
                }
            })
            .collect();
        let refs: Vec<&str> = live.iter().map(String::as_str).collect();
        t.draw(&refs);
        let visible = &live[live.len().saturating_sub(usize::from(rows))..];
        let mut expected = committed.clone();
        expected.extend(visible.iter().cloned());
        assert_eq!(t.all(), expected, "step {step}");
    }
}
