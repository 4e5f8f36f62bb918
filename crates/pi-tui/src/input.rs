//! A single-line text input with a `> ` prompt (pi-tui `Input`), used by the
//! selectors for search queries, names and labels. It scrolls horizontally
//! to keep the cursor visible; Enter and Esc are left to its owner. Its
//! editing keys are pi's `tui.editor.*` bindings (remappable, as pi's `Input`
//! reads them from the key bindings).

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::keybindings::Keybindings;
use unicode_segmentation::UnicodeSegmentation;

use crate::text::{truncate_to_width, visible_width};
use crate::theme::Theme;

/// A one-line editable value.
#[derive(Debug, Clone)]
pub struct Input {
    theme: Arc<Theme>,
    value: String,
    /// Byte offset of the cursor, on a grapheme boundary.
    cursor: usize,
    /// The editing keys.
    keys: Arc<Keybindings>,
}

impl Input {
    /// An empty input.
    pub fn new(theme: Arc<Theme>) -> Self {
        Self {
            theme,
            value: String::new(),
            cursor: 0,
            keys: Arc::new(Keybindings::default()),
        }
    }

    /// Reads the editing keys from `keys` (`tui.editor.*`).
    pub fn set_keybindings(&mut self, keys: Arc<Keybindings>) {
        self.keys = keys;
    }

    /// The text.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Replaces the text; the cursor goes to its end.
    pub fn set_value(&mut self, value: &str) {
        self.value = value.replace(['\n', '\r'], " ");
        self.cursor = self.value.len();
    }

    fn prev_boundary(&self) -> usize {
        self.value[..self.cursor]
            .grapheme_indices(true)
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        self.value[self.cursor..]
            .graphemes(true)
            .next()
            .map_or(self.cursor, |g| self.cursor + g.len())
    }

    fn word_start(&self) -> usize {
        let before = &self.value[..self.cursor];
        let trimmed = before.trim_end();
        trimmed.rfind(char::is_whitespace).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        })
    }

    fn word_end(&self) -> usize {
        let after = &self.value[self.cursor..];
        let skipped = after.len() - after.trim_start().len();
        let rest = &after[skipped..];
        self.cursor + skipped + rest.find(char::is_whitespace).unwrap_or(rest.len())
    }

    /// Applies an editing key; false when the key means nothing here.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if is("tui.editor.cursorLineStart") {
            self.cursor = 0;
        } else if is("tui.editor.cursorLineEnd") {
            self.cursor = self.value.len();
        } else if is("tui.editor.deleteToLineStart") {
            self.value.drain(..self.cursor);
            self.cursor = 0;
        } else if is("tui.editor.deleteToLineEnd") {
            self.value.truncate(self.cursor);
        } else if is("tui.editor.deleteWordBackward") {
            self.delete_to(self.word_start());
        } else if is("tui.editor.deleteWordForward") {
            let end = self.word_end();
            self.value.drain(self.cursor..end);
        } else if is("tui.editor.deleteCharBackward") {
            self.delete_to(self.prev_boundary());
        } else if is("tui.editor.deleteCharForward") {
            let end = self.next_boundary();
            self.value.drain(self.cursor..end);
        } else if is("tui.editor.cursorWordLeft") {
            self.cursor = self.word_start();
        } else if is("tui.editor.cursorWordRight") {
            self.cursor = self.word_end();
        } else if is("tui.editor.cursorLeft") {
            self.cursor = self.prev_boundary();
        } else if is("tui.editor.cursorRight") {
            self.cursor = self.next_boundary();
        } else if let KeyCode::Char(c) = key.code
            && !ctrl
            && !alt
            && !c.is_control()
        {
            self.value.insert(self.cursor, c);
            self.cursor += c.len_utf8();
        } else {
            return false;
        }
        true
    }

    /// Inserts pasted text (newlines become spaces).
    pub fn paste(&mut self, text: &str) {
        let clean: String = text
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        self.value.insert_str(self.cursor, &clean);
        self.cursor += clean.len();
    }

    fn delete_to(&mut self, start: usize) {
        self.value.drain(start..self.cursor);
        self.cursor = start;
    }

    /// One line: `> ` and the text, the cursor in reverse video, scrolled so
    /// that the cursor stays within `width`.
    pub fn render(&self, width: usize) -> String {
        let prompt = "> ";
        let room = width.saturating_sub(visible_width(prompt) + 1).max(1);
        let before = &self.value[..self.cursor];
        let at = self.value[self.cursor..]
            .graphemes(true)
            .next()
            .unwrap_or(" ");
        let after = self.value[self.cursor..].get(at.len()..).unwrap_or("");
        // Drop graphemes from the start until the cursor fits.
        let mut start = 0;
        let graphemes: Vec<(usize, &str)> = before.grapheme_indices(true).collect();
        let mut shown = visible_width(before);
        for (i, g) in &graphemes {
            if shown < room {
                break;
            }
            start = i + g.len();
            shown -= visible_width(g);
        }
        let cursor = if self.theme.has_color() {
            format!("\x1b[7m{at}\x1b[27m")
        } else {
            at.to_owned()
        };
        let line = format!("{prompt}{}{cursor}{after}", &before[start..]);
        truncate_to_width(&line, width, "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorMode;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    fn typed(text: &str) -> Input {
        let mut input = Input::new(Arc::new(Theme::dark(ColorMode::NoColor)));
        for c in text.chars() {
            input.handle_key(&key(KeyCode::Char(c), KeyModifiers::NONE));
        }
        input
    }

    #[test]
    fn edits_and_moves() {
        let mut input = typed("hello world");
        assert_eq!(input.value(), "hello world");
        input.handle_key(&key(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(input.value(), "hello ");
        input.handle_key(&key(KeyCode::Backspace, KeyModifiers::NONE));
        input.handle_key(&key(KeyCode::Home, KeyModifiers::NONE));
        input.handle_key(&key(KeyCode::Char('>'), KeyModifiers::NONE));
        assert_eq!(input.value(), ">hello");
        input.handle_key(&key(KeyCode::Char('k'), KeyModifiers::CONTROL));
        assert_eq!(input.value(), ">");
        assert!(!input.handle_key(&key(KeyCode::Enter, KeyModifiers::NONE)));
    }

    #[test]
    fn editing_keys_follow_the_bindings() {
        let mut user = std::collections::BTreeMap::new();
        user.insert(
            "tui.editor.cursorLineStart".to_owned(),
            vec!["ctrl+b".to_owned()],
        );
        let keys =
            crate::keybindings::Keybindings::new(crate::keybindings::TUI_BINDINGS.to_vec(), &user);
        let mut input = typed("abc");
        input.set_keybindings(Arc::new(keys));
        // Home is no longer bound to the line start.
        assert!(!input.handle_key(&key(KeyCode::Home, KeyModifiers::NONE)));
        input.handle_key(&key(KeyCode::Char('b'), KeyModifiers::CONTROL));
        input.handle_key(&key(KeyCode::Char('>'), KeyModifiers::NONE));
        assert_eq!(input.value(), ">abc");
        // Alt+D deletes the next word (pi's default), it is not typed.
        input.handle_key(&key(KeyCode::Char('d'), KeyModifiers::ALT));
        assert_eq!(input.value(), ">");
    }

    #[test]
    fn renders_within_width_keeping_the_cursor() {
        let input = typed("a long query that does not fit");
        for width in 1..40 {
            let line = input.render(width);
            assert!(visible_width(&line) <= width, "{line:?} {width}");
        }
        assert!(input.render(12).ends_with("fit "), "{:?}", input.render(12));
        assert_eq!(typed("").render(10), ">  ");
    }
}
