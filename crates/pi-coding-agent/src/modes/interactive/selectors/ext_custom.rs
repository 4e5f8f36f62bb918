//! An extension's own component (pi's `ctx.ui.custom()`) in the editor
//! slot or on the overlay stack: keys go to it as pi's key ids, its lines
//! are cut to the width, and the value it closes with goes back to its
//! extension through a oneshot channel. Closed any other way (replaced by
//! another component, the mode ending), it drops its sender, which answers
//! `None`.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::text::truncate_to_width;
use pi_tui::theme::Theme;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::extensions::{ExtensionComponent, ExtensionKey};
use pi_tui::slot::{Outcome, SlotComponent};

/// Where the component's value goes.
pub type CustomReply = oneshot::Sender<Option<Value>>;

/// pi's key id of a terminal key (`None`: a key pi has no name for).
pub fn extension_key(key: &KeyEvent) -> Option<ExtensionKey> {
    let mods = key.modifiers;
    let mut prefix = String::new();
    for (flag, name) in [
        (KeyModifiers::CONTROL, "ctrl+"),
        (KeyModifiers::ALT, "alt+"),
        (KeyModifiers::SUPER, "super+"),
    ] {
        if mods.contains(flag) {
            prefix.push_str(name);
        }
    }
    let shift = mods.contains(KeyModifiers::SHIFT);
    let name = match key.code {
        KeyCode::Char(c) => {
            if prefix.is_empty() {
                return Some(ExtensionKey::char(c));
            }
            let c = c.to_ascii_lowercase();
            let shifted = if shift && c.is_ascii_alphabetic() {
                "shift+"
            } else {
                ""
            };
            return Some(ExtensionKey::named(&format!("{prefix}{shifted}{c}")));
        }
        KeyCode::BackTab => return Some(ExtensionKey::named(&format!("{prefix}shift+tab"))),
        KeyCode::Enter => "enter".to_owned(),
        KeyCode::Esc => "escape".to_owned(),
        KeyCode::Tab => "tab".to_owned(),
        KeyCode::Backspace => "backspace".to_owned(),
        KeyCode::Delete => "delete".to_owned(),
        KeyCode::Insert => "insert".to_owned(),
        KeyCode::Home => "home".to_owned(),
        KeyCode::End => "end".to_owned(),
        KeyCode::PageUp => "pageup".to_owned(),
        KeyCode::PageDown => "pagedown".to_owned(),
        KeyCode::Up => "up".to_owned(),
        KeyCode::Down => "down".to_owned(),
        KeyCode::Left => "left".to_owned(),
        KeyCode::Right => "right".to_owned(),
        KeyCode::F(n) => format!("f{n}"),
        _ => return None,
    };
    let shifted = if shift { "shift+" } else { "" };
    Some(ExtensionKey::named(&format!("{prefix}{shifted}{name}")))
}

/// An extension's component shown by the UI.
pub struct ExtCustom {
    component: Box<dyn ExtensionComponent>,
    theme: Arc<Theme>,
    reply: Option<CustomReply>,
}

impl ExtCustom {
    /// Shows `component`, answering on `reply`.
    pub fn new(
        component: Box<dyn ExtensionComponent>,
        theme: Arc<Theme>,
        reply: CustomReply,
    ) -> Self {
        Self {
            component,
            theme,
            reply: Some(reply),
        }
    }
}

impl<A> SlotComponent<A> for ExtCustom {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<A> {
        let Some(key) = extension_key(key) else {
            return Outcome::Stay;
        };
        match self.component.handle_key(&key) {
            Some(value) => {
                if let Some(reply) = self.reply.take() {
                    let _ = reply.send(Some(value));
                }
                Outcome::Cancel
            }
            None => Outcome::Stay,
        }
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        self.component
            .render(width, self.theme.as_ref())
            .iter()
            .flat_map(|l| l.split('\n'))
            .map(|l| truncate_to_width(l, width, ""))
            .collect()
    }

    fn paste(&mut self, text: &str) {
        self.component.paste(text);
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.theme = Arc::clone(theme);
    }

    fn poll(&mut self) -> Outcome<A> {
        match self.component.poll_close() {
            Some(value) => {
                if let Some(reply) = self.reply.take() {
                    let _ = reply.send(Some(value));
                }
                Outcome::Cancel
            }
            None => Outcome::Stay,
        }
    }
}
