//! pi's selectors and dialogs: components that take the editor's place in
//! the live region until they are done (model selector, scoped models,
//! session picker, session tree, fork selector, confirmations). Each one
//! handles the keys while it is open and reports an [`Outcome`]; the
//! [`Ui`](super::ui::Ui) carries out the chosen [`Action`] (in `nav`).

pub mod choice;
pub mod fork;
pub mod model;
pub(crate) mod nav;
pub mod scoped;
pub mod session;
pub mod session_search;
pub mod tree;
pub mod tree_items;
pub mod tree_rows;

use std::path::PathBuf;

use pi_tui::crossterm::event::KeyEvent;
use pi_tui::text::truncate_to_width;
use pi_tui::theme::{Theme, Token};

/// What a key did to a selector.
#[derive(Debug)]
pub enum Outcome {
    /// It stays open (redraw).
    Stay,
    /// It closes with nothing to do.
    Cancel,
    /// It closes; the UI carries out the action.
    Done(Action),
}

/// Something a selector asks the UI to do once it has closed.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Switch to this model (and save it as the default).
    Model(Box<pi_ai::Model>),
    /// Resume the session file.
    Resume(PathBuf),
    /// The startup picker (`pi -r`) was cancelled: leave.
    Quit,
    /// Move the leaf to this entry (asks about a summary first).
    TreeTarget(String),
    /// Fork into a new session at this user message.
    Fork(String),
    /// An answer to a [`choice::Choice`] (`None`: cancelled).
    Choice(choice::ChoiceKind, Option<usize>),
    /// Text entered in a [`choice::TextPrompt`] (`None`: cancelled).
    Text(choice::TextKind, Option<String>),
    /// A message for the chat (status line).
    Status(String),
}

/// A component shown instead of the editor.
pub trait Selector {
    /// Handles a key press.
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome;
    /// The lines for a terminal `width` x `rows`.
    fn render(&mut self, width: usize, rows: usize) -> Vec<String>;
    /// Pasted text (into the search field, when there is one).
    fn paste(&mut self, _text: &str) {}
}

/// pi's `DynamicBorder`: a full-width rule in the border colour.
pub fn border(theme: &Theme, width: usize) -> String {
    theme.fg(Token::Border, &"─".repeat(width.max(1)))
}

/// pi's `keyHint`: the key dim, its description muted.
pub fn key_hint(theme: &Theme, key: &str, description: &str) -> String {
    format!(
        "{}{}",
        theme.fg(Token::Dim, key),
        theme.fg(Token::Muted, &format!(" {description}"))
    )
}

/// `text` indented by one column (pi's `Text` with padding 1), cut to `width`.
pub fn padded(text: &str, width: usize) -> String {
    truncate_to_width(&format!(" {text}"), width, "")
}

/// Cuts every line to `width`.
pub fn fit(lines: Vec<String>, width: usize) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| truncate_to_width(&l, width, ""))
        .collect()
}

/// The first index of a window of `visible` rows out of `len`, keeping
/// `selected` centred (pi's lists).
pub fn window_start(selected: usize, visible: usize, len: usize) -> usize {
    selected
        .saturating_sub(visible / 2)
        .min(len.saturating_sub(visible))
}

/// A message on one line: control characters and runs of whitespace become
/// single spaces.
pub fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_keep_the_selection_centred() {
        assert_eq!(window_start(0, 10, 3), 0);
        assert_eq!(window_start(7, 10, 30), 2);
        assert_eq!(window_start(29, 10, 30), 20);
    }

    #[test]
    fn one_line_joins_whitespace() {
        assert_eq!(one_line(" a\n\tb  c\u{7}d "), "a b c d");
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod snapshot_tests;
