//! The inline renderer against a real terminal emulator (`vt100`): what ends up on screen and
//! in scrollback after sequences of commit / draw / resize.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_tui::renderer::InlineRenderer;
use pretty_assertions::assert_eq;

#[path = "../../src/testing.rs"]
mod testing;

use testing::TestTerminal;

struct Term {
    term: TestTerminal,
    r: InlineRenderer<Vec<u8>>,
    /// Bytes of the last frame(s) written since the last `feed`.
    last: Vec<u8>,
}

impl Term {
    fn new(cols: u16, rows: u16) -> Self {
        Self {
            term: TestTerminal::new(rows, cols, 10_000),
            r: InlineRenderer::new(Vec::new(), cols, rows),
            last: Vec::new(),
        }
    }

    fn feed(&mut self) {
        self.last = std::mem::take(self.r.writer_mut());
        self.term.process(&self.last);
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

    /// A resize: the terminal changes, the app commits `history` again and draws `live`.
    fn resize(&mut self, cols: u16, rows: u16, history: &[&str], live: &[&str]) {
        self.term.set_size(rows, cols);
        self.r.resize(cols, rows);
        self.commit(history);
        self.draw(live);
    }

    /// Scrollback followed by the screen, trailing blank rows dropped.
    fn all(&mut self) -> Vec<String> {
        self.term.history()
    }

    fn screen(&self) -> Vec<String> {
        self.term.screen_rows()
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
    assert_eq!(t.all(), vec!["a commit", "日本語の", "red red"]);
}

#[test]
fn resize_clears_everything_and_prints_the_history_again() {
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
        &["history 1", "history 2"],
        &[
            "streaming answer",
            "text",
            "────────────────────",
            "> prompt",
            "footer",
        ],
    );
    let out = t.last_text();
    assert!(
        out.starts_with("\x1b[?2026h\x1b[2J\x1b[H\x1b[3J"),
        "{out:?}"
    );
    assert_eq!(out.matches("\x1b[?2026h").count(), 1, "one frame: {out:?}");
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
        &["history 1", "history 2"],
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
fn narrow_terminals_never_fail() {
    for cols in 1..20u16 {
        let mut t = Term::new(cols, 3);
        t.commit(&["wide 日本語 text 👍 here"]);
        t.draw(&["日本語", "abc", "👍👍", "x"]);
        t.resize(cols.saturating_sub(1).max(1), 2, &[], &["a", "b", "c"]);
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
    assert_eq!(t.term.parser().screen().cursor_position(), (2, 0));
}

/// Random sequences of commits (new lines, or the top of the live region as it scrolls off),
/// draws and resizes: the history is always every committed line once, in order, followed by
/// the visible part of the live region, and nothing else (no stale copy of a frame).
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
    for step in 0..600 {
        match next(7) {
            0 => {
                let n = next(4) as usize;
                let lines: Vec<String> = (0..n).map(|k| format!("c{step}.{k}")).collect();
                let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
                t.commit(&refs);
                committed.extend(lines);
            }
            1 => {
                // The top of the live region is final: committed as it is shown.
                let n = (next(4) as usize).min(live.len());
                let top: Vec<String> = live.drain(..n).collect();
                let refs: Vec<&str> = top.iter().map(String::as_str).collect();
                t.commit(&refs);
                committed.extend(top);
                live.push(format!("grown{step}"));
                let refs: Vec<&str> = live.iter().map(String::as_str).collect();
                t.draw(&refs);
                let visible = &live[live.len().saturating_sub(usize::from(rows))..];
                let mut expected = committed.clone();
                expected.extend(visible.iter().cloned());
                assert_eq!(t.all(), expected, "step {step}");
                continue;
            }
            2 => {
                cols = (cols + 7 - next(13) as u16).clamp(8, 40);
                rows = (rows + 2 - next(5) as u16).clamp(3, 12);
                let history: Vec<&str> = committed.iter().map(String::as_str).collect();
                let refs: Vec<&str> = live.iter().map(String::as_str).collect();
                t.resize(cols, rows, &history, &refs);
                let visible = &live[live.len().saturating_sub(usize::from(rows))..];
                let mut expected = committed.clone();
                expected.extend(visible.iter().cloned());
                assert_eq!(t.all(), expected, "step {step} (resize)");
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

/// A streamed answer taller than the screen, its top committed as it scrolls off: written
/// once, and most frames only append (no rewrite of the whole screen).
#[test]
fn an_answer_committed_as_it_scrolls_off_is_never_rewritten() {
    let mut t = Term::new(30, 8);
    let footer = ["", "⠋ Working...", "───", "> ", "───", "footer"];
    let mut answer: Vec<String> = Vec::new();
    let mut on_screen = 0; // answer lines in the live region
    for i in 0..100 {
        answer.push(format!("answer line {i}"));
        on_screen += 1;
        let room = 8 - footer.len();
        let mut commit = Vec::new();
        while on_screen > room {
            commit.push(answer[answer.len() - on_screen].clone());
            on_screen -= 1;
        }
        let refs: Vec<&str> = commit.iter().map(String::as_str).collect();
        t.commit(&refs);
        let mut live: Vec<&str> = answer[answer.len() - on_screen..]
            .iter()
            .map(String::as_str)
            .collect();
        live.extend(footer);
        t.draw(&live);
        if i > 10 {
            // The old lines are not written again: the new one, and the rows that moved.
            let out = t.last_text();
            assert!(!out.contains(&format!("answer line {}", i - 3)), "{out:?}");
        }
    }
    let all = t.all();
    let lines: Vec<&String> = all.iter().filter(|l| l.starts_with("answer")).collect();
    let expected: Vec<String> = (0..100).map(|i| format!("answer line {i}")).collect();
    assert_eq!(lines, expected.iter().collect::<Vec<_>>(), "{all:?}");
    assert_eq!(all.iter().filter(|l| l.contains("Working")).count(), 1);
}

#[test]
fn the_cursor_marker_places_the_terminal_cursor_and_is_not_printed() {
    let marker = pi_tui::renderer::CURSOR_MARKER;
    let mut t = Term::new(20, 6);
    t.draw(&["answer", &format!("> ab{marker}\x1b[7mc\x1b[0m"), "footer"]);
    assert_eq!(t.screen(), vec!["answer", "> abc", "footer"]);
    assert_eq!(t.term.parser().screen().cursor_position(), (1, 4));
    // An unchanged frame writes nothing: the cursor is already there.
    t.draw(&["answer", &format!("> ab{marker}\x1b[7mc\x1b[0m"), "footer"]);
    assert_eq!(t.last_text(), "");
    // A change elsewhere puts it back.
    t.draw(&[
        "answer 2",
        &format!("> a{marker}\x1b[7mb\x1b[0mc"),
        "footer",
    ]);
    assert_eq!(t.term.parser().screen().cursor_position(), (1, 3));
}

#[test]
fn the_hardware_cursor_is_shown_at_the_marker_only_when_asked() {
    let marker = pi_tui::renderer::CURSOR_MARKER;
    let editor = format!("> ab{marker}c");
    let mut t = Term::new(20, 6);
    // The terminal starts with the cursor hidden, as the session leaves it.
    t.term.process(b"\x1b[?25l");
    t.draw(&["answer", &editor, "footer"]);
    assert!(t.term.parser().screen().hide_cursor());
    assert!(!t.last_text().contains("\x1b[?25h"));
    // `showHardwareCursor`: shown at the marker, once.
    t.r.set_show_cursor(true);
    t.draw(&["answer", &editor, "footer"]);
    assert!(!t.term.parser().screen().hide_cursor());
    assert_eq!(t.term.parser().screen().cursor_position(), (1, 4));
    t.draw(&["answer", &editor, "footer"]);
    assert_eq!(t.last_text(), "");
    // No marker (a selector took the editor's place): hidden again.
    t.draw(&["answer", "selector", "footer"]);
    assert!(t.term.parser().screen().hide_cursor());
    t.draw(&["answer", &editor, "footer"]);
    assert!(!t.term.parser().screen().hide_cursor());
    // Turned off: hidden on the next frame.
    t.r.set_show_cursor(false);
    t.draw(&["answer", &editor, "footer"]);
    assert!(t.term.parser().screen().hide_cursor());
}

#[test]
fn interjected_output_lands_above_the_live_region_which_is_drawn_again_below() {
    let mut t = Term::new(30, 8);
    t.commit(&["old answer"]);
    t.draw(&["streaming", "editor", "footer"]);
    // An extension's console.log (bare newlines) and a notification escape.
    t.commit(&["finished block"]);
    t.r.interject("[log] one\nlog two").unwrap();
    t.feed();
    t.r.interject("\x1b]777;notify;pi;done\x07").unwrap();
    t.feed();
    t.draw(&["streaming", "editor", "footer"]);
    assert_eq!(
        t.screen(),
        vec![
            "old answer",
            "finished block",
            "[log] one",
            "log two",
            "streaming",
            "editor",
            "footer"
        ]
    );
}

/// A kitty image `rows` high with id `id`, as `pi_tui::image::Display` lays it out.
fn kitty_image(id: u32, rows: usize) -> Vec<String> {
    let display = pi_tui::image::Display {
        protocol: Some(pi_tui::image::Protocol::Kitty),
        cell: pi_tui::image::CellSize {
            width_px: 10,
            height_px: 10,
        },
        max_width_cells: 4,
        max_rows: usize::MAX,
    };
    let dims = pi_tui::image::Dimensions {
        width_px: 4,
        height_px: u32::try_from(rows).unwrap(),
    };
    display.lines("QUJD", dims, 20, id).unwrap()
}

#[test]
fn kitty_images_keep_their_rows_and_are_deleted_when_they_leave() {
    let mut t = Term::new(20, 8);
    let mut live = vec!["top".to_owned()];
    live.extend(kitty_image(7, 3));
    live.push("bottom".to_owned());
    let refs: Vec<&str> = live.iter().map(String::as_str).collect();
    t.draw(&refs);
    let out = t.last_text();
    assert!(out.contains("\x1b[2A\x1b_Ga=T,f=100,q=2,C=1,c=4,r=3,i=7;QUJD\x1b\\\x1b[2B"));
    // The image's rows are empty text rows; the text after it is below them.
    assert_eq!(t.screen()[..5], ["top", "", "", "", "bottom"]);
    // Redrawn unchanged: not sent again.
    t.draw(&refs);
    assert!(!t.last_text().contains("\x1b_G"));
    // Gone from the live region: deleted (text written over it would not erase it).
    t.draw(&["top", "bottom"]);
    assert!(t.last_text().contains("\x1b_Ga=d,d=I,i=7,q=2\x1b\\"));
    // Committed to the scrollback: kept.
    t.draw(&refs);
    t.commit(&refs[..4]);
    t.draw(&["bottom"]);
    assert!(!t.last_text().contains("a=d"));
    // A full clear deletes every image first.
    t.r.clear_all();
    t.draw(&["bottom"]);
    assert!(t.last_text().contains("\x1b_Ga=d,d=A,q=2\x1b\\"));
}
