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
    /// `component`, `footer`, `header` or `widget`.
    pub(super) kind: &'static str,
}

impl HostComponent {
    /// Its lines for `width`.
    pub(super) fn lines(&self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        let params = json!({ "kind": self.kind, "component": self.id, "width": width });
        self.host.render(params, theme).unwrap_or_default()
    }

    fn input(&self, data: &str) {
        let Some(connection) = self.host.live_connection() else {
            return;
        };
        let params = json!({ "component": self.id, "data": data });
        if let Some(Err(error)) = connection.request_blocking("input", params, INPUT_TIMEOUT) {
            tracing::debug!("extension component input failed: {error}");
        }
    }
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
