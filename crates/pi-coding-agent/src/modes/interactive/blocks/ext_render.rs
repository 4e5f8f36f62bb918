//! What extensions draw in the chat: tool cards through a tool's render
//! hooks (pi's `renderCall` / `renderResult` / `renderShell`, with pi's
//! fallback per slot when a hook is absent or fails) and custom messages
//! through message renderers. The terminal's [`Theme`] is the hooks'
//! [`RenderTheme`](crate::extensions::RenderTheme).

use std::collections::HashMap;
use std::sync::Arc;

use pi_agent_core::AgentToolResult;
use pi_tui::text::wrap;
use pi_tui::theme::{Theme, Token};

use crate::extensions::{
    ExtensionRunner, MessageRendererFn, RegisteredTool, ResultRenderOptions, ToolRenderContext,
    run_hook,
};

impl crate::extensions::RenderTheme for Theme {
    fn fg(&self, color: &str, text: &str) -> String {
        match Token::from_name(color) {
            Some(token) => Theme::fg(self, token, text),
            None => text.to_owned(),
        }
    }

    fn bg(&self, color: &str, text: &str) -> String {
        match Token::from_name(color) {
            Some(token) => Theme::bg(self, token, text),
            None => text.to_owned(),
        }
    }

    fn bold(&self, text: &str) -> String {
        Theme::bold(self, text)
    }

    fn italic(&self, text: &str) -> String {
        Theme::italic(self, text)
    }

    fn underline(&self, text: &str) -> String {
        Theme::underline(self, text)
    }

    fn strikethrough(&self, text: &str) -> String {
        Theme::strikethrough(self, text)
    }

    fn tokens(&self) -> Vec<&'static str> {
        Token::ALL.iter().map(|t| t.name()).collect()
    }
}

/// The tools with render hooks (looked up when a card is made: extensions
/// add tools while pi runs) and the message renderers, by name.
#[derive(Default, Clone)]
pub struct ExtRenderers {
    runner: Option<Arc<ExtensionRunner>>,
    messages: HashMap<String, MessageRendererFn>,
}

impl ExtRenderers {
    /// What the loaded extensions registered (the last registration of a
    /// name wins).
    pub fn from_runner(runner: &Arc<ExtensionRunner>) -> Self {
        let messages = runner
            .message_renderers()
            .iter()
            .map(|r| (r.custom_type.clone(), Arc::clone(&r.render)))
            .collect();
        Self {
            runner: Some(Arc::clone(runner)),
            messages,
        }
    }

    /// The hooks of the tool `name`, if it has any.
    pub fn tool(&self, name: &str) -> Option<RegisteredTool> {
        self.runner
            .as_ref()?
            .tool(name)
            .filter(RegisteredTool::has_render_hooks)
    }

    /// The renderer of custom messages of `custom_type`.
    pub fn message(&self, custom_type: &str) -> Option<&MessageRendererFn> {
        self.messages.get(custom_type)
    }
}

/// True for the tools whose default card pi-rs draws itself (their
/// header and output are the fallback of a hook that overrides them).
pub fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "read" | "bash" | "edit" | "write" | "grep" | "find" | "ls"
    )
}

/// Hook lines for `width`: each `\n` starts a line, long lines wrap.
pub fn fit(lines: Vec<String>, width: usize) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l.split('\n'))
        .flat_map(|l| wrap(l, width.max(1)))
        .collect()
}

/// What a hooked card draws with: the card's state for the hooks.
pub struct HookedCard<'a> {
    /// The tool's hooks.
    pub hooks: &'a RegisteredTool,
    /// The tool's name.
    pub name: &'a str,
    /// The context handed to the hooks.
    pub ctx: ToolRenderContext<'a>,
    /// The result, once there is one.
    pub result: Option<&'a AgentToolResult>,
    /// The result's text (pi's result fallback).
    pub output_text: Option<&'a str>,
}

impl HookedCard<'_> {
    /// The header's lines: the hook's, or `fallback()` when it is absent
    /// or fails.
    pub fn call_lines(&self, fallback: impl FnOnce() -> Vec<String>) -> Vec<String> {
        let lines = self
            .hooks
            .render_call
            .as_ref()
            .and_then(|hook| run_hook(|| hook(self.ctx.args, &self.ctx)));
        match lines {
            Some(lines) => fit(lines, self.ctx.width),
            None => fallback(),
        }
    }

    /// The result's lines (none before a result): the hook's, or
    /// `fallback()` when it is absent or fails.
    pub fn result_lines(&self, fallback: impl FnOnce() -> Vec<String>) -> Vec<String> {
        let Some(result) = self.result else {
            return Vec::new();
        };
        let options = ResultRenderOptions {
            expanded: self.ctx.expanded,
            is_partial: self.ctx.is_partial,
        };
        let lines = self
            .hooks
            .render_result
            .as_ref()
            .and_then(|hook| run_hook(|| hook(result, options, &self.ctx)));
        match lines {
            Some(lines) => fit(lines, self.ctx.width),
            None => fallback(),
        }
    }

    /// pi's header fallback of a tool it does not know: its name.
    pub fn name_fallback(&self, theme: &Theme) -> Vec<String> {
        vec![theme.fg(Token::ToolTitle, &theme.bold(self.name))]
    }

    /// pi's result fallback of a tool it does not know: the text.
    pub fn text_fallback(&self, theme: &Theme) -> Vec<String> {
        match self.output_text.filter(|t| !t.is_empty()) {
            Some(text) => fit(
                text.split('\n')
                    .map(|l| theme.fg(Token::ToolOutput, l))
                    .collect(),
                self.ctx.width,
            ),
            None => Vec::new(),
        }
    }
}

/// A custom message drawn by its renderer: its lines, or `None` (the
/// default card) when the renderer answers nothing or fails.
pub fn render_message(
    renderer: &MessageRendererFn,
    message: &crate::messages::CustomMessage,
    theme: &Theme,
    expanded: bool,
    width: usize,
) -> Option<Vec<String>> {
    let ctx = crate::extensions::MessageRenderContext {
        theme,
        expanded,
        width,
    };
    run_hook(|| renderer(message, &ctx))
        .flatten()
        .map(|lines| fit(lines, width))
}

#[cfg(test)]
#[path = "ext_render_tests.rs"]
mod tests;
