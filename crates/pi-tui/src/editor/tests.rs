use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;

use super::*;
use crate::text::visible_width;
use crate::theme::ColorMode;

fn editor() -> Editor {
    Editor::new(Arc::new(Theme::dark(ColorMode::NoColor)))
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn alt(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
}

fn m(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, mods)
}

fn typ(ed: &mut Editor, s: &str) {
    for c in s.chars() {
        ed.handle_key(key(KeyCode::Char(c)));
    }
}

/// Rendered lines with ESC shown as `␛` and line ends marked, for readable snapshots.
fn snap(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("{}|", l.replace('\x1b', "␛")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text with `|` at the cursor.
fn shown(ed: &Editor) -> String {
    let mut lines = ed.lines().to_vec();
    let (l, c) = ed.cursor();
    lines[l].insert(c, '|');
    lines.join("\n")
}

#[test]
fn enter_submits_trimmed_and_clears() {
    let mut ed = editor();
    typ(&mut ed, "  hello  ");
    assert_eq!(
        ed.handle_key(key(KeyCode::Enter)),
        EditorAction::Submit("hello".into())
    );
    assert!(ed.is_empty());
}

#[test]
fn newline_keys() {
    let mut ed = editor();
    typ(&mut ed, "a");
    ed.handle_key(m(KeyCode::Enter, KeyModifiers::SHIFT));
    typ(&mut ed, "b");
    ed.handle_key(ctrl('j'));
    typ(&mut ed, "c\\");
    assert_eq!(ed.handle_key(key(KeyCode::Enter)), EditorAction::Handled);
    typ(&mut ed, "d");
    assert_eq!(ed.raw_text(), "a\nb\nc\nd");
    assert_eq!(
        ed.handle_key(m(KeyCode::Enter, KeyModifiers::ALT)),
        EditorAction::FollowUp("a\nb\nc\nd".into())
    );
    assert!(ed.is_empty());
}

#[test]
fn app_keys_are_ignored() {
    let mut ed = editor();
    assert_eq!(ed.handle_key(ctrl('c')), EditorAction::Ignored);
    assert_eq!(ed.handle_key(ctrl('d')), EditorAction::Ignored);
    assert_eq!(ed.handle_key(key(KeyCode::Esc)), EditorAction::Ignored);
    assert_eq!(ed.handle_key(ctrl('o')), EditorAction::Ignored);
    typ(&mut ed, "ab");
    ed.handle_key(key(KeyCode::Left));
    assert_eq!(ed.handle_key(ctrl('d')), EditorAction::Handled);
    assert_eq!(shown(&ed), "a|");
}

#[test]
fn cursor_moves_by_grapheme() {
    let mut ed = editor();
    typ(&mut ed, "ae\u{301}👍x");
    ed.handle_key(key(KeyCode::Left));
    ed.handle_key(key(KeyCode::Left));
    assert_eq!(shown(&ed), "ae\u{301}|👍x");
    ed.handle_key(key(KeyCode::Left));
    assert_eq!(shown(&ed), "a|e\u{301}👍x");
    ed.handle_key(key(KeyCode::Backspace));
    assert_eq!(shown(&ed), "|e\u{301}👍x");
    ed.handle_key(key(KeyCode::Delete));
    assert_eq!(shown(&ed), "|👍x");
}

#[test]
fn vertical_moves_keep_a_sticky_column() {
    let mut ed = editor();
    ed.set_text("long line here\nab\nanother long line");
    ed.render(40, 10);
    ed.handle_key(key(KeyCode::Up));
    ed.handle_key(key(KeyCode::Up));
    ed.handle_key(ctrl('a'));
    for _ in 0..10 {
        ed.handle_key(key(KeyCode::Right));
    }
    assert_eq!(shown(&ed), "long line |here\nab\nanother long line");
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(shown(&ed), "long line here\nab|\nanother long line");
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(shown(&ed), "long line here\nab\nanother lo|ng line");
    // Up on the first row goes to the line start; Down on the last to the line end.
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(shown(&ed), "long line here\nab\nanother long line|");
}

#[test]
fn vertical_moves_follow_wrapped_rows() {
    let mut ed = editor();
    ed.set_text("aaaa bbbb cccc dddd");
    ed.render(11, 10); // layout width 10: "aaaa bbbb " / "cccc dddd"
    ed.handle_key(key(KeyCode::Up));
    assert_eq!(shown(&ed), "aaaa bbbb| cccc dddd");
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(shown(&ed), "aaaa bbbb cccc dddd|");
}

#[test]
fn history_browsing() {
    let mut ed = editor();
    ed.add_to_history("first");
    ed.add_to_history("second\nline");
    ed.add_to_history("second\nline");
    ed.render(40, 10);
    ed.handle_key(key(KeyCode::Up));
    assert_eq!(ed.raw_text(), "second\nline");
    // On the last row of a multi-line entry, Up moves within it first.
    ed.handle_key(key(KeyCode::Up));
    assert_eq!(ed.raw_text(), "second\nline");
    ed.handle_key(key(KeyCode::Up));
    assert_eq!(ed.raw_text(), "first");
    ed.handle_key(key(KeyCode::Up));
    assert_eq!(ed.raw_text(), "first");
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(ed.raw_text(), "second\nline");
    ed.handle_key(key(KeyCode::Down));
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(ed.raw_text(), "");
}

#[test]
fn kills_accumulate_and_yank_pop_cycles() {
    let mut ed = editor();
    typ(&mut ed, "one two three");
    ed.handle_key(ctrl('w'));
    ed.handle_key(ctrl('w'));
    assert_eq!(shown(&ed), "one |");
    ed.handle_key(ctrl('y'));
    assert_eq!(shown(&ed), "one two three|");
    ed.handle_key(ctrl('a'));
    ed.handle_key(ctrl('k'));
    assert_eq!(shown(&ed), "|");
    typ(&mut ed, "x ");
    ed.handle_key(ctrl('y'));
    assert_eq!(shown(&ed), "x one two three|");
    ed.handle_key(alt('y'));
    assert_eq!(shown(&ed), "x two three|");
    ed.handle_key(alt('y'));
    assert_eq!(shown(&ed), "x one two three|");
}

#[test]
fn word_moves_and_kills() {
    let mut ed = editor();
    typ(&mut ed, "foo.bar baz");
    ed.handle_key(alt('b'));
    assert_eq!(shown(&ed), "foo.bar |baz");
    ed.handle_key(alt('b'));
    assert_eq!(shown(&ed), "foo.|bar baz");
    ed.handle_key(alt('b'));
    assert_eq!(shown(&ed), "foo|.bar baz");
    ed.handle_key(alt('f'));
    assert_eq!(shown(&ed), "foo.|bar baz");
    ed.handle_key(alt('d'));
    assert_eq!(shown(&ed), "foo.| baz");
    ed.handle_key(m(KeyCode::Backspace, KeyModifiers::ALT));
    assert_eq!(shown(&ed), "foo| baz");
    ed.handle_key(ctrl('e'));
    ed.handle_key(ctrl('u'));
    assert_eq!(shown(&ed), "|");
    ed.handle_key(ctrl('y'));
    assert_eq!(shown(&ed), "foo baz|");
}

#[test]
fn undo_is_fish_style() {
    let mut ed = editor();
    typ(&mut ed, "hello world");
    ed.handle_key(ctrl('-'));
    assert_eq!(ed.raw_text(), "hello");
    ed.handle_key(ctrl('-'));
    assert_eq!(ed.raw_text(), "");
    ed.handle_paste("pasted");
    typ(&mut ed, "x");
    ed.handle_key(ctrl('7'));
    assert_eq!(ed.raw_text(), "pasted");
    ed.handle_key(ctrl('7'));
    assert_eq!(ed.raw_text(), "");
}

#[test]
fn paste_is_normalised() {
    let mut ed = editor();
    ed.handle_paste("a\r\nb\rc\td\x1b[31m\x07");
    assert_eq!(ed.raw_text(), "a\nb\nc    d");
    let mut ed = editor();
    typ(&mut ed, "see");
    ed.handle_paste("/tmp/x.png");
    assert_eq!(ed.raw_text(), "see /tmp/x.png");
    let mut ed = editor();
    ed.handle_paste("x\x1b[106;5uy");
    assert_eq!(ed.raw_text(), "x\ny");
}

#[test]
fn large_pastes_become_atomic_markers() {
    let mut ed = editor();
    let lines: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    typ(&mut ed, "a ");
    ed.handle_paste(&lines);
    typ(&mut ed, " b");
    assert_eq!(ed.raw_text(), "a [paste #1 +20 lines] b");
    ed.handle_paste(&"x".repeat(1500));
    assert_eq!(
        ed.raw_text(),
        "a [paste #1 +20 lines] b[paste #2 1500 chars]"
    );
    assert_eq!(ed.text(), format!("a {lines} b{}", "x".repeat(1500)));
    // The cursor steps over a marker and backspace removes it whole.
    ed.handle_key(key(KeyCode::Left));
    assert_eq!(ed.cursor().1, "a [paste #1 +20 lines] b".len());
    ed.handle_key(ctrl('a'));
    ed.handle_key(key(KeyCode::Right));
    ed.handle_key(key(KeyCode::Right));
    ed.handle_key(key(KeyCode::Right));
    assert_eq!(ed.cursor().1, "a [paste #1 +20 lines]".len());
    ed.handle_key(key(KeyCode::Backspace));
    assert_eq!(ed.raw_text(), "a  b[paste #2 1500 chars]");
    // A typed look-alike is plain text.
    let mut ed = editor();
    typ(&mut ed, "[paste #9]");
    assert_eq!(ed.text(), "[paste #9]");
    ed.handle_key(key(KeyCode::Backspace));
    assert_eq!(ed.raw_text(), "[paste #9");
}

#[test]
fn character_jump() {
    let mut ed = editor();
    ed.set_text("abc\ndef");
    ed.handle_key(m(
        KeyCode::Char(']'),
        KeyModifiers::CONTROL | KeyModifiers::ALT,
    ));
    ed.handle_key(key(KeyCode::Char('b')));
    assert_eq!(shown(&ed), "a|bc\ndef");
    ed.handle_key(ctrl(']'));
    ed.handle_key(key(KeyCode::Char('e')));
    assert_eq!(shown(&ed), "abc\nd|ef");
    // Legacy encoding (0x1d arrives as Ctrl+5); pressing it again cancels.
    ed.handle_key(ctrl('5'));
    ed.handle_key(key(KeyCode::Char('f')));
    assert_eq!(shown(&ed), "abc\nde|f");
    ed.handle_key(ctrl('5'));
    ed.handle_key(ctrl('5'));
    ed.handle_key(key(KeyCode::Char('a')));
    assert_eq!(shown(&ed), "abc\ndea|f");
}

struct Commands;

impl AutocompleteProvider for Commands {
    fn suggest(&mut self, r: &CompletionRequest<'_>) -> Option<Suggestions> {
        let before = r.before_cursor();
        if let Some(q) = before.strip_prefix('/').filter(|q| !q.contains(' ')) {
            let items: Vec<CompletionItem> = ["model", "compact", "copy", "session", "quit"]
                .iter()
                .filter(|c| c.starts_with(q))
                .map(|c| {
                    CompletionItem::new(format!("/{c} "))
                        .with_label(*c)
                        .with_description(format!("the {c} command"))
                })
                .collect();
            return Some(Suggestions {
                prefix: before.to_owned(),
                items,
            });
        }
        let token = before.rsplit(' ').next().unwrap_or("");
        if let Some(q) = token.strip_prefix('@') {
            let items = ["src/main.rs", "src/lib.rs", "README.md"]
                .iter()
                .filter(|f| f.contains(q))
                .map(|f| CompletionItem::new(format!("@{f} ")))
                .collect();
            return Some(Suggestions {
                prefix: token.to_owned(),
                items,
            });
        }
        if r.trigger == CompletionTrigger::Tab {
            let items = ["./Cargo.toml"]
                .iter()
                .filter(|f| f.starts_with(token))
                .map(|f| CompletionItem::new(*f))
                .collect();
            return Some(Suggestions {
                prefix: token.to_owned(),
                items,
            });
        }
        None
    }
}

fn with_provider() -> Editor {
    let mut ed = editor();
    ed.set_autocomplete(Box::new(Commands));
    ed
}

#[test]
fn slash_commands_complete_and_submit() {
    let mut ed = with_provider();
    typ(&mut ed, "/");
    assert!(ed.is_autocomplete_open());
    typ(&mut ed, "co");
    insta::assert_snapshot!("editor_slash_dropdown", snap(&ed.render(60, 5)));
    ed.handle_key(key(KeyCode::Down));
    assert_eq!(
        ed.handle_key(key(KeyCode::Enter)),
        EditorAction::Submit("/copy".into())
    );
    typ(&mut ed, "/mo");
    ed.handle_key(key(KeyCode::Tab));
    assert_eq!(shown(&ed), "/model |");
    assert!(!ed.is_autocomplete_open());
    ed.set_text("");
    typ(&mut ed, "/q");
    ed.handle_key(key(KeyCode::Esc));
    assert!(!ed.is_autocomplete_open());
    assert_eq!(ed.raw_text(), "/q");
    // Not on the first line: no command menu.
    ed.set_text("x\n");
    typ(&mut ed, "/");
    assert!(!ed.is_autocomplete_open());
}

#[test]
fn file_tokens_and_tab_paths() {
    let mut ed = with_provider();
    typ(&mut ed, "look at @src");
    assert!(ed.is_autocomplete_open());
    typ(&mut ed, "/ma");
    ed.handle_key(key(KeyCode::Enter));
    assert_eq!(shown(&ed), "look at @src/main.rs |");
    // `@` inside a word does not trigger.
    ed.set_text("mail@x");
    typ(&mut ed, "y");
    assert!(!ed.is_autocomplete_open());
    // Tab with one match applies it at once.
    ed.set_text("open ./Ca");
    ed.handle_key(key(KeyCode::Tab));
    assert_eq!(shown(&ed), "open ./Cargo.toml|");
    ed.handle_key(ctrl('-'));
    assert_eq!(ed.raw_text(), "open ./Ca");
}

#[test]
fn renders_rules_cursor_and_scroll() {
    let mut ed = editor();
    insta::assert_snapshot!("editor_empty_20", snap(&ed.render(20, 5)));
    ed.set_text(
        "The quick brown fox jumps over the lazy dog and keeps running\n日本語のテキスト\nend",
    );
    ed.handle_key(key(KeyCode::Up));
    insta::assert_snapshot!("editor_wrapped_24", snap(&ed.render(24, 10)));
    insta::assert_snapshot!("editor_scrolled_24", snap(&ed.render(24, 3)));
    let lines = ed.render(24, 3);
    assert!(lines[0].starts_with("─── ↑ 1 more "), "{}", lines[0]);
    assert!(lines[4].starts_with("─── ↓ 1 more "), "{}", lines[4]);
}

#[test]
fn render_colours_the_rules_and_inverts_the_cursor() {
    let theme = Arc::new(Theme::dark(ColorMode::TrueColor));
    let mut ed = Editor::new(theme.clone());
    ed.set_border_token(Token::BashMode);
    typ(&mut ed, "!ls");
    ed.handle_key(key(KeyCode::Left));
    let lines = ed.render(10, 5);
    assert_eq!(lines[0], theme.fg(Token::BashMode, &"─".repeat(10)));
    assert_eq!(lines[1], "!l\x1b[7ms\x1b[0m       ");
}

#[test]
fn narrow_widths_never_overflow() {
    let mut ed = with_provider();
    ed.set_padding_x(2);
    typ(&mut ed, "日本語 text 👍 ");
    ed.handle_paste(&"x\n".repeat(30));
    typ(&mut ed, " /");
    for w in 0..30 {
        for l in ed.render(w, 5) {
            assert!(visible_width(&l) <= w, "{l:?} at {w}");
        }
    }
    ed.set_text("");
    typ(&mut ed, "/");
    for w in 0..30 {
        for l in ed.render(w, 5) {
            assert!(visible_width(&l) <= w, "{l:?} at {w}");
        }
    }
}

/// A long pseudo-random session of keys, pastes and renders never panics and never draws a
/// line wider than the width.
#[test]
fn random_editing_never_panics() {
    let mut ed = with_provider();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let keys = [
        key(KeyCode::Left),
        key(KeyCode::Right),
        key(KeyCode::Up),
        key(KeyCode::Down),
        key(KeyCode::Backspace),
        key(KeyCode::Delete),
        key(KeyCode::Home),
        key(KeyCode::End),
        key(KeyCode::Tab),
        key(KeyCode::Esc),
        key(KeyCode::PageUp),
        key(KeyCode::PageDown),
        m(KeyCode::Enter, KeyModifiers::SHIFT),
        ctrl('w'),
        ctrl('k'),
        ctrl('u'),
        ctrl('y'),
        alt('y'),
        alt('b'),
        alt('f'),
        alt('d'),
        ctrl('-'),
        ctrl(']'),
        m(KeyCode::Backspace, KeyModifiers::ALT),
    ];
    let chars = [
        'a', ' ', '日', '👍', 'e', '\u{301}', '/', '@', '.', '\\', 'x',
    ];
    for step in 0..6000 {
        match next(10) {
            0..=3 => {
                let c = chars[next(chars.len() as u64) as usize];
                ed.handle_key(key(KeyCode::Char(c)));
            }
            4..=7 => {
                ed.handle_key(keys[next(keys.len() as u64) as usize]);
            }
            8 => {
                let n = next(30) as usize;
                ed.handle_paste(&"line 日本\n".repeat(n));
            }
            _ => {
                let w = next(40) as usize;
                for l in ed.render(w, 1 + next(6) as usize) {
                    assert!(visible_width(&l) <= w, "step {step}: {l:?} at {w}");
                }
            }
        }
        if next(200) == 0 {
            ed.handle_key(key(KeyCode::Enter));
        }
        let (line, col) = ed.cursor();
        assert!(ed.lines()[line].is_char_boundary(col));
    }
}
