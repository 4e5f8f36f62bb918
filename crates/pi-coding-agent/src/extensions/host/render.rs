//! Drawing in the host: tools' `renderCall` / `renderResult` and message
//! renderers run in the host's process, with pi-rs's theme sent as ANSI
//! style pairs (only when it changed). Render hooks are synchronous in the
//! terminal UI, so the call blocks briefly; a host that does not answer in
//! time leaves pi-rs's default drawing.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::Host;
use crate::extensions::RenderTheme;

/// How long a frame waits for the host's lines.
const RENDER_TIMEOUT: Duration = Duration::from_millis(250);

/// A style as the text before and after what it styles.
fn pair(styled: &str) -> Value {
    match styled.split_once('\u{1}') {
        Some((before, after)) => json!([before, after]),
        None => json!(["", ""]),
    }
}

/// The theme as the host gets it: `{fg: {token: [before, after]}, bg:
/// {...}, bold, italic, underline, strikethrough}`.
fn styles(theme: &dyn RenderTheme) -> Value {
    let mut fg = Map::new();
    let mut bg = Map::new();
    for token in theme.tokens() {
        fg.insert(token.to_owned(), pair(&theme.fg(token, "\u{1}")));
        bg.insert(token.to_owned(), pair(&theme.bg(token, "\u{1}")));
    }
    json!({
        "fg": fg,
        "bg": bg,
        "bold": pair(&theme.bold("\u{1}")),
        "italic": pair(&theme.italic("\u{1}")),
        "underline": pair(&theme.underline("\u{1}")),
        "strikethrough": pair(&theme.strikethrough("\u{1}")),
    })
}

impl Host {
    /// The host's lines for `params` (a `render` request), or `None`: no
    /// answer in time, `null` (keep the default), or an error.
    pub(super) fn render(&self, mut params: Value, theme: &dyn RenderTheme) -> Option<Vec<String>> {
        let connection = self
            .connection
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()?;
        let styles = styles(theme);
        let mut hasher = DefaultHasher::new();
        styles.to_string().hash(&mut hasher);
        let print = hasher.finish();
        if self.theme_sent.swap(print, Ordering::SeqCst) != print {
            params["theme"] = styles;
        }
        let answer = match connection.request_blocking("render", params, RENDER_TIMEOUT)? {
            Ok(answer) => answer,
            Err(error) => {
                tracing::debug!("extension render failed: {error}");
                return None;
            }
        };
        let lines = answer.get("lines")?.as_array()?;
        Some(
            lines
                .iter()
                .map(|l| l.as_str().unwrap_or_default().to_owned())
                .collect(),
        )
    }
}
