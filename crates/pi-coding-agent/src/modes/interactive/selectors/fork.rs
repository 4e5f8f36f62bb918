//! The fork selector (`/fork`): the user messages of the active path, two
//! lines each; Enter forks a new session at the chosen one.

use std::sync::Arc;

use pi_tui::crossterm::event::KeyEvent;
use pi_tui::keybindings::Keybindings;
use pi_tui::text::truncate_to_width;
use pi_tui::theme::{Theme, Token};

use super::{
    Action, Outcome, SlotComponent, border, default_keys, fit, one_line, padded, window_start,
};

/// Entries shown at once.
const VISIBLE: usize = 10;

/// pi's `UserMessageSelectorComponent`.
#[derive(Debug)]
pub struct ForkSelector {
    theme: Arc<Theme>,
    /// (entry id, text) of each user message, oldest first.
    messages: Vec<(String, String)>,
    selected: usize,
    keys: Arc<Keybindings>,
}

impl ForkSelector {
    /// A selector over `messages`, the last one selected.
    pub fn new(theme: Arc<Theme>, messages: Vec<(String, String)>) -> Self {
        let selected = messages.len().saturating_sub(1);
        Self {
            theme,
            messages,
            selected,
            keys: default_keys(),
        }
    }

    /// Reads keys with `keys` (`tui.select.*`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for ForkSelector {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        let len = self.messages.len();
        let is = |id: &str| self.keys.matches(key, id);
        if is("tui.select.up") && len > 0 {
            self.selected = self.selected.checked_sub(1).unwrap_or(len - 1);
        } else if is("tui.select.down") && len > 0 {
            self.selected = (self.selected + 1) % len;
        } else if is("tui.select.confirm") {
            if let Some((id, _)) = self.messages.get(self.selected) {
                return Outcome::Done(Action::Fork(id.clone()));
            }
        } else if is("tui.select.cancel") {
            return Outcome::Cancel;
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = &self.theme;
        let mut lines = vec![
            String::new(),
            padded(&t.bold("Fork from Message"), width),
            padded(
                &t.fg(
                    Token::Muted,
                    "Select a user message to copy the active path up to that point into a new session",
                ),
                width,
            ),
            String::new(),
            border(t, width),
            String::new(),
        ];
        let len = self.messages.len();
        if len == 0 {
            lines.push(t.fg(Token::Muted, "  No user messages found"));
        }
        let start = window_start(self.selected, VISIBLE, len);
        let end = (start + VISIBLE).min(len);
        for at in start..end {
            let text = truncate_to_width(
                &one_line(&self.messages[at].1),
                width.saturating_sub(2),
                "…",
            );
            let line = if at == self.selected {
                format!("{}{}", t.fg(Token::Accent, "› "), t.bold(&text))
            } else {
                format!("  {text}")
            };
            lines.push(line);
            lines.push(t.fg(Token::Muted, &format!("  Message {} of {len}", at + 1)));
            lines.push(String::new());
        }
        if start > 0 || end < len {
            lines.push(t.fg(Token::Muted, &format!("  ({}/{len})", self.selected + 1)));
        }
        lines.push(String::new());
        lines.push(border(t, width));
        fit(lines, width)
    }
}
