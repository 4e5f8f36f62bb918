//! pi's generic dialogs: a list of options (`select`, `confirm`) and a
//! one-line text prompt (`input`), framed by borders.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent};
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::theme::{Theme, Token};

use super::{Action, Outcome, SlotComponent, border, default_keys, fit, id_hint, key_hint, padded};
use crate::modes::interactive::action::{ChoiceKind, TextKind};

/// A title and options; Enter picks, Esc cancels.
#[derive(Debug)]
pub struct Choice {
    theme: Arc<Theme>,
    title: String,
    message: Option<String>,
    options: Vec<String>,
    selected: usize,
    kind: ChoiceKind,
    keys: Arc<Keybindings>,
}

impl Choice {
    /// A selector of `options` under `title`.
    pub fn new(theme: Arc<Theme>, title: &str, options: &[&str], kind: ChoiceKind) -> Self {
        Self {
            theme,
            title: title.to_owned(),
            message: None,
            options: options.iter().map(|o| (*o).to_owned()).collect(),
            selected: 0,
            kind,
            keys: default_keys(),
        }
    }

    /// Reads keys with `keys` (`tui.select.*`; `j` / `k` stay pi's fixed
    /// alternatives).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.keys = keys;
        self
    }

    /// pi's `confirm(title, message)`: `Yes` / `No` under the title and message.
    pub fn confirm(theme: Arc<Theme>, title: &str, message: &str, kind: ChoiceKind) -> Self {
        let mut choice = Self::new(theme, title, &["Yes", "No"], kind);
        choice.message = Some(message.to_owned());
        choice
    }
}

impl SlotComponent<Action> for Choice {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        let plain = key.modifiers.is_empty();
        let is = |id: &str| self.keys.matches(key, id);
        if is("tui.select.up") || (plain && key.code == KeyCode::Char('k')) {
            self.selected = self.selected.saturating_sub(1);
        } else if is("tui.select.down") || (plain && key.code == KeyCode::Char('j')) {
            self.selected = (self.selected + 1).min(self.options.len().saturating_sub(1));
        } else if is("tui.select.confirm") {
            return Outcome::Done(Action::Choice(self.kind.clone(), Some(self.selected)));
        } else if is("tui.select.cancel") {
            return Outcome::Done(Action::Choice(self.kind.clone(), None));
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = &self.theme;
        let mut lines = vec![border(t, width), String::new()];
        lines.push(padded(&t.fg(Token::Accent, &t.bold(&self.title)), width));
        if let Some(message) = &self.message {
            lines.push(padded(message, width));
        }
        lines.push(String::new());
        for (i, option) in self.options.iter().enumerate() {
            let line = if i == self.selected {
                t.fg(Token::Accent, &format!("→ {option}"))
            } else {
                format!("  {}", t.fg(Token::Text, option))
            };
            lines.push(padded(&line, width));
        }
        lines.push(String::new());
        let hint = format!(
            "{}  {}  {}",
            key_hint(t, "↑↓", "navigate"),
            id_hint(t, &self.keys, "tui.select.confirm", "select"),
            id_hint(t, &self.keys, "tui.select.cancel", "cancel")
        );
        lines.push(padded(&hint, width));
        lines.push(String::new());
        lines.push(border(t, width));
        fit(lines, width)
    }
}

/// A title and a one-line input; Enter submits, Esc cancels.
#[derive(Debug)]
pub struct TextPrompt {
    theme: Arc<Theme>,
    title: String,
    input: Input,
    kind: TextKind,
    keys: Arc<Keybindings>,
}

impl TextPrompt {
    /// A prompt for `kind` under `title`.
    pub fn new(theme: Arc<Theme>, title: &str, kind: TextKind) -> Self {
        Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            title: title.to_owned(),
            kind,
            keys: default_keys(),
        }
    }

    /// Reads keys with `keys` (`tui.select.confirm` / `cancel`, the
    /// input's `tui.editor.*`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.input.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for TextPrompt {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        if self.keys.matches(key, "tui.select.confirm") {
            return Outcome::Done(Action::Text(
                self.kind.clone(),
                Some(self.input.value().to_owned()),
            ));
        }
        if self.keys.matches(key, "tui.select.cancel") {
            return Outcome::Done(Action::Text(self.kind.clone(), None));
        }
        self.input.handle_key(key);
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = &self.theme;
        let hint = format!(
            "{}  {}",
            id_hint(t, &self.keys, "tui.select.confirm", "submit"),
            id_hint(t, &self.keys, "tui.select.cancel", "cancel")
        );
        let lines = vec![
            border(t, width),
            String::new(),
            padded(&t.fg(Token::Accent, &self.title), width),
            String::new(),
            self.input.render(width),
            String::new(),
            padded(&hint, width),
            String::new(),
            border(t, width),
        ];
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        self.input.paste(text);
    }
}
