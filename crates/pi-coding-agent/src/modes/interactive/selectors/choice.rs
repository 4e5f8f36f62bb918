//! pi's generic dialogs: a list of options (`select`, `confirm`) and a
//! one-line text prompt (`input`), framed by borders.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::input::Input;
use pi_tui::theme::{Theme, Token};

use super::{Action, Outcome, SlotComponent, border, fit, key_hint, padded};
use crate::modes::interactive::action::{ChoiceKind, TextKind};

fn is_cancel(key: &KeyEvent) -> bool {
    key.code == KeyCode::Esc
        || (key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c'))
}

/// A title and options; Enter picks, Esc cancels.
#[derive(Debug)]
pub struct Choice {
    theme: Arc<Theme>,
    title: String,
    message: Option<String>,
    options: Vec<String>,
    selected: usize,
    kind: ChoiceKind,
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
        }
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
        match key.code {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Char('k') if plain => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') if plain || key.code == KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.options.len().saturating_sub(1));
            }
            KeyCode::Enter => {
                return Outcome::Done(Action::Choice(self.kind.clone(), Some(self.selected)));
            }
            _ if is_cancel(key) => return Outcome::Done(Action::Choice(self.kind.clone(), None)),
            _ => {}
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
            key_hint(t, "enter", "select"),
            key_hint(t, "escape/ctrl+c", "cancel")
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
}

impl TextPrompt {
    /// A prompt for `kind` under `title`.
    pub fn new(theme: Arc<Theme>, title: &str, kind: TextKind) -> Self {
        Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            title: title.to_owned(),
            kind,
        }
    }
}

impl SlotComponent<Action> for TextPrompt {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        if key.code == KeyCode::Enter {
            return Outcome::Done(Action::Text(
                self.kind.clone(),
                Some(self.input.value().to_owned()),
            ));
        }
        if is_cancel(key) {
            return Outcome::Done(Action::Text(self.kind.clone(), None));
        }
        self.input.handle_key(key);
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = &self.theme;
        let hint = format!(
            "{}  {}",
            key_hint(t, "enter", "submit"),
            key_hint(t, "escape/ctrl+c", "cancel")
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
