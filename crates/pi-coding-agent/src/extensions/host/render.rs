//! Drawing in the host: tools' `renderCall` / `renderResult` and message
//! renderers run in the host's process, with pi-rs's theme sent as the
//! `theme` state (only when it changed). Render hooks are synchronous in the
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

/// How long a frame waits for a hook's first lines from a host process: the
/// first call runs code Node has not compiled yet (and what it imports
/// lazily), which on a loaded machine takes longer than a frame's wait; a
/// tool result drawn then in pi-rs's default form would stay so.
const FIRST_RENDER_TIMEOUT: Duration = Duration::from_secs(2);

/// Which hook a `render` request calls: its extension, kind (`call`,
/// `result`, `message`, ...) and name.
fn hook_key(params: &Value) -> String {
    let field = |name: &str| params.get(name).map(Value::to_string).unwrap_or_default();
    format!("{}/{}/{}", field("ext"), field("kind"), field("name"))
}

/// The colour an SGR sequence sets, as the host's theme takes it:
/// `"#rrggbb"` (truecolor), an xterm-256 index, or `""` (the default).
fn colour(styled: &str) -> Value {
    let Some(params) = styled
        .split('\u{1}')
        .next()
        .and_then(|before| before.strip_prefix("\u{1b}["))
        .and_then(|rest| rest.split('m').next())
    else {
        return json!("");
    };
    let numbers: Vec<u32> = params.split(';').filter_map(|n| n.parse().ok()).collect();
    match numbers.as_slice() {
        [38 | 48, 2, r, g, b, ..] => json!(format!("#{r:02x}{g:02x}{b:02x}")),
        [38 | 48, 5, n, ..] => json!(n),
        _ => json!(""),
    }
}

/// The theme as the host's `theme` state: `{name, mode, colors}` (pi's
/// token names; background tokens from their background colour).
fn theme_state(theme: &dyn RenderTheme, name: Option<String>) -> Value {
    let mut colors = Map::new();
    for token in theme.tokens() {
        let styled = if token.ends_with("Bg") {
            theme.bg(token, "\u{1}")
        } else {
            theme.fg(token, "\u{1}")
        };
        colors.insert(token.to_owned(), colour(&styled));
    }
    let truecolor = colors
        .values()
        .any(|c| c.as_str().is_some_and(|c| c.starts_with('#')));
    let indexed = colors.values().any(Value::is_number);
    let mode = if truecolor {
        "truecolor"
    } else if indexed {
        "256color"
    } else {
        "none"
    };
    json!({ "name": name.unwrap_or_else(|| "dark".to_owned()), "mode": mode, "colors": colors })
}

impl Host {
    /// The render hooks this host process has answered.
    fn rendered_hooks(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.rendered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The host's lines for `params` (a `render` request), or `None`: no
    /// answer in time, `null` (keep the default), or an error.
    pub(super) fn render(&self, params: Value, theme: &dyn RenderTheme) -> Option<Vec<String>> {
        let connection = self
            .connection
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()?;
        let name = self
            .calls
            .handle()
            .ok()
            .and_then(|pi| pi.context().ui().theme_name());
        let state = theme_state(theme, name);
        let mut hasher = DefaultHasher::new();
        state.to_string().hash(&mut hasher);
        let print = hasher.finish();
        if self.theme_sent.swap(print, Ordering::SeqCst) != print {
            connection.send_notify("state", json!({ "theme": state }));
        }
        let key = hook_key(&params);
        let timeout = if self.rendered_hooks().contains(&key) {
            RENDER_TIMEOUT
        } else {
            FIRST_RENDER_TIMEOUT
        };
        let answer = match connection.request_blocking("render", params, timeout)? {
            Ok(answer) => {
                self.rendered_hooks().insert(key);
                answer
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_come_back_from_their_sgr_sequences() {
        assert_eq!(
            colour("\u{1b}[38;2;138;190;183m\u{1}\u{1b}[39m"),
            json!("#8abeb7")
        );
        assert_eq!(colour("\u{1b}[48;5;236m\u{1}\u{1b}[49m"), json!(236));
        assert_eq!(colour("\u{1}"), json!(""));
        assert_eq!(colour("\u{1b}[39m\u{1}"), json!(""));
    }
}
