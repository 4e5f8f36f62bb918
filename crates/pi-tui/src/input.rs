//! A single-line text input with a `> ` prompt (pi-tui `Input`), used by the
//! selectors for search queries, names and labels. It scrolls horizontally
//! to keep the cursor visible; Enter and Esc are left to its owner.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
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
}

impl Input {
    /// An empty input.
    pub fn new(theme: Arc<Theme>) -> Self {
        Self {
            theme,
            value: String::new(),
            cursor: 0,
        }
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
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.value.len(),
            KeyCode::Char('u') if ctrl => {
                self.value.drain(..self.cursor);
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.value.truncate(self.cursor),
            KeyCode::Char('w') if ctrl => self.delete_to(self.word_start()),
            KeyCode::Backspace if alt || ctrl => self.delete_to(self.word_start()),
            KeyCode::Char('d') if alt => {
                let end = self.word_end();
                self.value.drain(self.cursor..end);
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                self.value.insert(self.cursor, c);
                self.cursor += c.len_utf8();
            }
            KeyCode::Backspace => self.delete_to(self.prev_boundary()),
            KeyCode::Delete => {
                let end = self.next_boundary();
                self.value.drain(self.cursor..end);
            }
            KeyCode::Left if alt || ctrl => self.cursor = self.word_start(),
            KeyCode::Right if alt || ctrl => self.cursor = self.word_end(),
            KeyCode::Left => self.cursor = self.prev_boundary(),
            KeyCode::Right => self.cursor = self.next_boundary(),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.value.len(),
            _ => return false,
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
