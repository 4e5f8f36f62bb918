//! Components the host draws (pi's `ctx.ui.custom()`, `setFooter`,
//! `setHeader`): pi-rs shows them where its own would be, asks the host
//! for their lines (`render {kind: "component"}`) and passes keys on as
//! the raw terminal bytes pi's components read (`input`). A component
//! closes with the value its code passed to `done` (`component_done`),
//! whether that happened during a key or later.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::Host;
use crate::extensions::{ExtensionComponent, ExtensionKey, RenderTheme};

/// How long a key waits for the host to handle it.
const INPUT_TIMEOUT: Duration = Duration::from_millis(500);

/// A component shown by pi-rs, drawn by the host.
pub(super) struct HostComponent {
    pub(super) host: Arc<Host>,
    pub(super) id: u64,
    /// `component`, `footer`, `header`, `widget` or `editor`.
    pub(super) kind: &'static str,
}

impl HostComponent {
    /// Its lines for `width`.
    pub(super) fn lines(&self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        let params = json!({ "kind": self.kind, "component": self.id, "width": width });
        self.host.render(params, theme).unwrap_or_default()
    }

    /// Hands `data` to the component; the host's answer (`null` but for
    /// an editor's `{pass}` / `{submit}`).
    fn input(&self, data: &str) -> Value {
        let Some(connection) = self.host.live_connection() else {
            return Value::Null;
        };
        let params = json!({ "component": self.id, "data": data });
        match connection.request_blocking("input", params, INPUT_TIMEOUT) {
            Some(Ok(answer)) => answer,
            Some(Err(error)) => {
                tracing::debug!("extension component input failed: {error}");
                Value::Null
            }
            None => Value::Null,
        }
    }
}

/// An extension's editor drawn by the host (pi's `setEditorComponent`):
/// keys go to it; an app key it hands back (`{pass}`) is run by pi-rs's
/// bindings, a submission (`{submit}`) is sent as a prompt.
pub(super) struct HostEditor(pub(super) HostComponent);

impl ExtensionComponent for HostEditor {
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        self.0.lines(width, theme)
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        // A key no terminal sequence spells: pi-rs's bindings take it.
        let Some(data) = key_bytes(key) else {
            return Some(Value::Null);
        };
        editor_outcome(&self.0.input(&data))
    }

    fn paste(&mut self, text: &str) {
        self.0.input(&format!("\u{1b}[200~{text}\u{1b}[201~"));
    }
}

/// An editor's answer to a key as [`ExtensionComponent::handle_key`] gives
/// it: `Some(Null)` passes the key on, `Some(text)` submits, `None` keeps it.
fn editor_outcome(answer: &Value) -> Option<Value> {
    if answer.get("pass").and_then(Value::as_bool) == Some(true) {
        return Some(Value::Null);
    }
    answer
        .get("submit")
        .and_then(Value::as_str)
        .map(|text| Value::String(text.to_owned()))
}

impl ExtensionComponent for HostComponent {
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        self.lines(width, theme)
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        if let Some(data) = key_bytes(key) {
            self.input(&data);
        }
        self.host.take_done(self.id)
    }

    fn paste(&mut self, text: &str) {
        self.input(&format!("\u{1b}[200~{text}\u{1b}[201~"));
    }

    fn poll_close(&mut self) -> Option<Value> {
        self.host.take_done(self.id)
    }
}

/// The bytes a terminal sends for `key` (what pi's components match).
pub(super) fn key_bytes(key: &ExtensionKey) -> Option<String> {
    if let Some(text) = &key.text {
        return Some(text.clone());
    }
    let id = key.id.to_ascii_lowercase();
    let (mods, name) = match id.rsplit_once('+') {
        Some((mods, "")) => (mods.trim_end_matches('+'), "+"),
        Some((mods, name)) => (mods, name),
        None => ("", id.as_str()),
    };
    let ctrl = mods.contains("ctrl");
    let alt = mods.contains("alt");
    let shift = mods.contains("shift");
    let base = match name {
        "enter" | "return" => "\r".to_owned(),
        "escape" | "esc" => "\u{1b}".to_owned(),
        "tab" if shift => "\u{1b}[Z".to_owned(),
        "tab" => "\t".to_owned(),
        "backspace" => "\u{7f}".to_owned(),
        "delete" => "\u{1b}[3~".to_owned(),
        "insert" => "\u{1b}[2~".to_owned(),
        "home" => "\u{1b}[H".to_owned(),
        "end" => "\u{1b}[F".to_owned(),
        "pageup" => "\u{1b}[5~".to_owned(),
        "pagedown" => "\u{1b}[6~".to_owned(),
        "up" => "\u{1b}[A".to_owned(),
        "down" => "\u{1b}[B".to_owned(),
        "right" => "\u{1b}[C".to_owned(),
        "left" => "\u{1b}[D".to_owned(),
        "space" => " ".to_owned(),
        single if single.chars().count() == 1 => {
            let c = single.chars().next()?;
            if ctrl && c.is_ascii_alphabetic() {
                char::from((c as u8) & 0x1f).to_string()
            } else if shift {
                c.to_ascii_uppercase().to_string()
            } else {
                c.to_string()
            }
        }
        _ => return None,
    };
    Some(if alt { format!("\u{1b}{base}") } else { base })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_editor_passes_submits_or_keeps_a_key() {
        assert_eq!(editor_outcome(&json!({ "pass": true })), Some(Value::Null));
        assert_eq!(
            editor_outcome(&json!({ "submit": "hi" })),
            Some(json!("hi"))
        );
        assert_eq!(editor_outcome(&Value::Null), None);
    }

    #[test]
    fn keys_become_the_bytes_a_terminal_sends() {
        let named = |id: &str| key_bytes(&ExtensionKey::named(id)).unwrap();
        assert_eq!(named("enter"), "\r");
        assert_eq!(named("escape"), "\u{1b}");
        assert_eq!(named("up"), "\u{1b}[A");
        assert_eq!(named("shift+tab"), "\u{1b}[Z");
        assert_eq!(named("ctrl+c"), "\u{3}");
        assert_eq!(named("alt+x"), "\u{1b}x");
        assert_eq!(key_bytes(&ExtensionKey::char('q')).unwrap(), "q");
        assert!(key_bytes(&ExtensionKey::named("f13")).is_none());
    }
}
