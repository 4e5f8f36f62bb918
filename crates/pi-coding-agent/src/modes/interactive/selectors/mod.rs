//! pi's selectors and dialogs: components that take the editor's place in
//! the live region until they are done (model selector, scoped models,
//! session picker, session tree, fork selector, confirmations). Each one is
//! a [`SlotComponent`] of the editor slot: it handles the keys while it is
//! open and answers an [`Outcome`] with the [`Action`] the UI carries out.

pub mod app_store;
pub mod choice;
pub mod ext_custom;
pub mod ext_dialogs;
pub mod fork;
pub mod model;
pub mod resource_config;
pub mod scoped;
pub mod session;
mod session_rows;
pub mod session_scan;
pub mod session_search;
pub mod session_searcher;
pub mod tree;
pub mod tree_items;
pub mod tree_rows;

use std::sync::Arc;

use pi_tui::keybindings::Keybindings;
use pi_tui::text::truncate_to_width;
use pi_tui::theme::{Theme, Token};

pub use super::action::Action;
pub use pi_tui::slot::SlotComponent;

/// What a key did to a selector.
pub type Outcome = pi_tui::slot::Outcome<Action>;

/// The key bindings a selector uses until the UI gives it the effective
/// ones (`keybindings.json`): pi's defaults.
pub fn default_keys() -> Arc<Keybindings> {
    Arc::new(crate::keybindings::defaults())
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

/// pi's `keyText`: the keys bound to `id`, joined with `/`
/// (`escape/ctrl+c`), as `keybindings.json` spells them.
pub fn key_text(keys: &Keybindings, id: &str) -> String {
    keys.keys(id).join("/")
}

/// pi's `keyHint(id, description)`: [`key_hint`] with the keys bound to `id`.
pub fn id_hint(theme: &Theme, keys: &Keybindings, id: &str, description: &str) -> String {
    key_hint(theme, &key_text(keys, id), description)
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

    #[test]
    fn a_dialog_takes_and_shows_its_remapped_keys() {
        use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let user = std::collections::BTreeMap::from([
            ("tui.select.cancel".to_owned(), vec!["ctrl+g".to_owned()]),
            ("tui.select.down".to_owned(), vec!["ctrl+j".to_owned()]),
        ]);
        let keys = Arc::new(crate::keybindings::build(&user));
        assert_eq!(key_text(&keys, "tui.select.cancel"), "ctrl+g");
        assert_eq!(
            key_text(&default_keys(), "tui.select.cancel"),
            "escape/ctrl+c"
        );
        let theme = Arc::new(Theme::dark(pi_tui::theme::ColorMode::NoColor));
        let kind = super::super::action::ChoiceKind::Summarize("x".to_owned());
        let mut choice = choice::Choice::new(theme, "Pick", &["a", "b", "c"], kind.clone())
            .with_keys(Arc::clone(&keys));
        let text = choice.render(80, 20).join("\n");
        assert!(text.contains("ctrl+g cancel"), "{text}");
        let press = |code, modifiers| KeyEvent::new(code, modifiers);
        // Esc is no longer cancel; Down no longer moves; Ctrl+J does.
        assert_eq!(
            choice.handle_key(&press(KeyCode::Esc, KeyModifiers::NONE)),
            Outcome::Stay
        );
        choice.handle_key(&press(KeyCode::Down, KeyModifiers::NONE));
        choice.handle_key(&press(KeyCode::Char('j'), KeyModifiers::CONTROL));
        assert_eq!(
            choice.handle_key(&press(KeyCode::Enter, KeyModifiers::NONE)),
            Outcome::Done(Action::Choice(kind.clone(), Some(1)))
        );
        assert_eq!(
            choice.handle_key(&press(KeyCode::Char('g'), KeyModifiers::CONTROL)),
            Outcome::Done(Action::Choice(kind, None))
        );
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod snapshot_tests;
