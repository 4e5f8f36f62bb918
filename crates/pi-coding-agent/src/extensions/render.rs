//! What extensions draw in the interactive mode (pi's `renderCall`,
//! `renderResult`, `renderShell`, `registerMessageRenderer` and
//! `ctx.ui.custom()`), in Rust shape: closures and components return
//! lines (strings that may hold ANSI styles, one per terminal row) for a
//! width, styled through a [`RenderTheme`] (pi's `theme.fg("accent", ..)`).
//!
//! Hooks run on the UI's thread while it draws, so they must be quick. A
//! hook that fails (an `Err`, or a panic) is replaced by pi's fallback for
//! its slot; it is called again at the next redraw.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use pi_agent_core::AgentToolResult;
use serde_json::Value;

use super::handler::ExtensionError;
use crate::messages::CustomMessage;

/// The theme's colours and text styles, as pi's `Theme` offers them to
/// render functions. Colour names are pi's theme tokens (`"accent"`,
/// `"toolTitle"`, `"muted"`, `"customMessageBg"`, ...); an unknown name
/// leaves the text as it is.
pub trait RenderTheme: Send + Sync {
    /// `text` in the foreground colour `color`.
    fn fg(&self, color: &str, text: &str) -> String;
    /// `text` on the background colour `color`.
    fn bg(&self, color: &str, text: &str) -> String;
    /// Bold `text`.
    fn bold(&self, text: &str) -> String;
    /// Italic `text`.
    fn italic(&self, text: &str) -> String;
    /// Underlined `text`.
    fn underline(&self, text: &str) -> String;
    /// Struck-through `text`.
    fn strikethrough(&self, text: &str) -> String;

    /// The colour names it knows (an out-of-process host builds its own
    /// theme object from them); none by default.
    fn tokens(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

/// A theme without colours or styles (tests, and places without a terminal).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainTheme;

impl RenderTheme for PlainTheme {
    fn fg(&self, _: &str, text: &str) -> String {
        text.to_owned()
    }

    fn bg(&self, _: &str, text: &str) -> String {
        text.to_owned()
    }

    fn bold(&self, text: &str) -> String {
        text.to_owned()
    }

    fn italic(&self, text: &str) -> String {
        text.to_owned()
    }

    fn underline(&self, text: &str) -> String {
        text.to_owned()
    }

    fn strikethrough(&self, text: &str) -> String {
        text.to_owned()
    }
}

/// Who draws a tool card's frame (pi's `renderShell`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RenderShell {
    /// The card's box: padding 1 and the pending / success / error
    /// background, with the hooks' lines inside.
    #[default]
    Default,
    /// No box: the hooks' lines are the whole card (pi's `"self"`).
    SelfDrawn,
}

/// What a tool's render hooks know about the card they draw (pi's
/// `ToolRenderContext`, without `state`, `lastComponent` and
/// `invalidate`: a Rust hook keeps its own state in what it captures).
pub struct ToolRenderContext<'a> {
    /// The colours.
    pub theme: &'a dyn RenderTheme,
    /// The call's id.
    pub tool_call_id: &'a str,
    /// The call's arguments (partial while they stream).
    pub args: &'a Value,
    /// The width the lines must fit in (inside the box, or the whole
    /// width with [`RenderShell::SelfDrawn`]).
    pub width: usize,
    /// Ctrl+O: tool output expanded.
    pub expanded: bool,
    /// The result is partial (the tool is running), or there is none yet.
    pub is_partial: bool,
    /// The result is an error.
    pub is_error: bool,
    /// The tool started running.
    pub execution_started: bool,
    /// The arguments are complete (the call stopped streaming).
    pub args_complete: bool,
}

/// pi's `renderResult` options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultRenderOptions {
    /// Ctrl+O: tool output expanded.
    pub expanded: bool,
    /// A partial result (a streamed update).
    pub is_partial: bool,
}

/// Draws a tool call's header: the arguments, the context.
pub type RenderCallFn = Arc<
    dyn Fn(&Value, &ToolRenderContext<'_>) -> Result<Vec<String>, ExtensionError> + Send + Sync,
>;

/// Draws a tool's result: the result (content and details), pi's options,
/// the context.
pub type RenderResultFn = Arc<
    dyn Fn(
            &AgentToolResult,
            ResultRenderOptions,
            &ToolRenderContext<'_>,
        ) -> Result<Vec<String>, ExtensionError>
        + Send
        + Sync,
>;

/// What a message renderer knows (pi's renderer options and theme).
pub struct MessageRenderContext<'a> {
    /// The colours.
    pub theme: &'a dyn RenderTheme,
    /// Ctrl+O: messages expanded.
    pub expanded: bool,
    /// The width the lines must fit in.
    pub width: usize,
}

/// Draws a custom message of one `customType`: `Ok(None)` (pi's
/// `undefined`) or an error falls back to the default custom message card.
/// The lines are the whole block (no box, as pi's custom component).
pub type MessageRendererFn = Arc<
    dyn Fn(&CustomMessage, &MessageRenderContext<'_>) -> Result<Option<Vec<String>>, ExtensionError>
        + Send
        + Sync,
>;

/// Draws a footer for a width (pi's `setFooter` component): the lines
/// replace the built-in footer and the statuses under it.
pub type FooterFn = Arc<dyn Fn(usize, &dyn RenderTheme) -> Vec<String> + Send + Sync>;

/// A message renderer an extension registered.
#[derive(Clone)]
pub struct RegisteredMessageRenderer {
    /// The `customType` it draws.
    pub custom_type: String,
    /// Draws it.
    pub render: MessageRendererFn,
    /// The extension that registered it.
    pub extension_path: String,
}

/// Runs a render hook: its lines, or `None` when it failed or panicked
/// (the caller draws pi's fallback).
pub fn run_hook<T>(hook: impl FnOnce() -> Result<T, ExtensionError>) -> Option<T> {
    match super::panic_guard::guarded(|| catch_unwind(AssertUnwindSafe(hook))) {
        Ok(Ok(value)) => Some(value),
        Ok(Err(error)) => {
            tracing::debug!("render hook failed: {}", error.message());
            None
        }
        Err(_) => {
            tracing::debug!("render hook panicked");
            None
        }
    }
}

/// A key as an extension component sees it: pi's key id (`"enter"`,
/// `"escape"`, `"up"`, `"ctrl+c"`, `"shift+tab"`, `"a"`) and the text it
/// types, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionKey {
    /// pi's key id: modifiers (`ctrl`, `alt`, `shift`, `super`) then the key.
    pub id: String,
    /// The character typed (printable keys without Ctrl or Alt).
    pub text: Option<String>,
}

impl ExtensionKey {
    /// A key with pi's id `id` and no text.
    pub fn named(id: &str) -> Self {
        Self {
            id: normalize_key(id),
            text: None,
        }
    }

    /// A printable character (its id is the character itself).
    pub fn char(c: char) -> Self {
        Self {
            id: normalize_key(&c.to_string()),
            text: Some(c.to_string()),
        }
    }

    /// True when this is the key `id` (pi's `matchesKey`): modifiers in any
    /// order, `return` for `enter`, `esc` for `escape`, letters in any case.
    pub fn is(&self, id: &str) -> bool {
        self.id == normalize_key(id)
    }
}

/// pi's key id in one spelling: lowercase, aliases resolved, modifiers sorted.
fn normalize_key(id: &str) -> String {
    let id = id.trim();
    let (mods, key) = if let Some(head) = id.strip_suffix("++") {
        (head, "+")
    } else if id == "+" {
        ("", "+")
    } else {
        id.rsplit_once('+').unwrap_or(("", id))
    };
    let mut mods: Vec<String> = mods
        .split('+')
        .filter(|m| !m.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    mods.sort();
    mods.dedup();
    let key = match key.to_ascii_lowercase().as_str() {
        "return" => "enter".to_owned(),
        "esc" => "escape".to_owned(),
        " " => "space".to_owned(),
        other => other.to_owned(),
    };
    mods.push(key);
    mods.join("+")
}

/// A component an extension shows in the editor's place or as an overlay
/// (pi's `ctx.ui.custom(factory)`): it gets every key while shown and
/// closes by returning the value `custom` resolves to.
pub trait ExtensionComponent: Send {
    /// The lines for `width` (each at most `width` cells; longer ones are
    /// cut).
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String>;

    /// A key: `Some(value)` closes the component and resolves `custom`
    /// with `value` (pi's `done(value)`); `None` keeps it open.
    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value>;

    /// Pasted text.
    fn paste(&mut self, text: &str) {
        let _ = text;
    }

    /// A value the component closed with on its own, without a key (pi's
    /// `done(value)` called later, e.g. after a model call); asked when
    /// the UI is told to draw again ([`super::ExtensionUi::request_render`]).
    fn poll_close(&mut self) -> Option<Value> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_in_any_spelling() {
        let key = ExtensionKey::named("shift+ctrl+P");
        assert!(key.is("ctrl+shift+p"));
        assert!(ExtensionKey::named("enter").is("return"));
        assert!(ExtensionKey::named("escape").is("esc"));
        assert!(ExtensionKey::named("ctrl++").is("ctrl++"));
        assert!(ExtensionKey::char('x').is("x"));
        assert!(!ExtensionKey::char('x').is("ctrl+x"));
        assert_eq!(ExtensionKey::char('x').text.as_deref(), Some("x"));
    }

    #[test]
    fn failing_and_panicking_hooks_give_none() {
        assert_eq!(run_hook(|| Ok::<_, ExtensionError>(1)), Some(1));
        assert_eq!(run_hook(|| Err::<u8, _>(ExtensionError::new("no"))), None);
        let panicking = || -> Result<u8, ExtensionError> { panic!("boom") };
        assert_eq!(run_hook(panicking), None);
    }
}
