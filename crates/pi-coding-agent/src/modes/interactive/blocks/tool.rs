//! A tool card: created on the first `toolCall` delta of the assistant's
//! stream (the header streams with the arguments), then updated by the
//! tool's partial results and its end. A box with padding 1 and the
//! background `toolPendingBg` while running, `toolSuccessBg` or
//! `toolErrorBg` once settled; bash shows `Elapsed 3.1s` while running and
//! `Took 3.1s` after.

use std::time::Instant;

use pi_agent_core::AgentToolResult;
use pi_ai::{SharedMessage, UserBlock};
use pi_tui::text::wrap;
use pi_tui::theme::Token;
use serde_json::Value;

use crate::extensions::{RegisteredTool, ToolRenderContext};

use super::RenderCtx;
use super::diff::render_diff;
use super::ext_render::{HookedCard, is_builtin};
use super::images::Images;
use super::tool_views::{ToolOutput, header, result_lines, write_preview};
use crate::modes::interactive::format::format_duration_ms;
use crate::modes::interactive::layout::{bg_box, box_inner};

/// A tool call and its result.
pub struct ToolCard {
    /// The call id.
    pub id: String,
    name: String,
    args: Value,
    /// While the call streams: the partial message and the call's content
    /// index; the arguments are read from it when the card is drawn.
    source: Option<(SharedMessage, usize)>,
    started: Option<Instant>,
    ended: Option<Instant>,
    output: Option<ToolOutput>,
    /// The result's images (drawn below the box, or named in the output).
    images: Images,
    partial: bool,
    /// Cached output lines: (inner width, expanded, images drawn, lines).
    output_cache: Option<(usize, bool, bool, Vec<String>)>,
    /// An extension tool's render hooks, and the last result for them.
    hooks: Option<(RegisteredTool, Option<AgentToolResult>)>,
    /// The edit's diff computed before it runs (pi's preview).
    preview: Option<String>,
}

/// The text of a result's content: text blocks joined by `\n`, sanitized
/// (the images are drawn, or named by [`with_placeholders`]).
pub fn output_text(content: &[UserBlock]) -> String {
    content
        .iter()
        .filter_map(UserBlock::as_text)
        .map(pi_tui::text::sanitize)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with pi's placeholder line of each image appended, as a card
/// shows a result's images the terminal does not draw.
pub fn with_placeholders(text: &str, images: &Images) -> String {
    let mut parts: Vec<String> = Some(text.to_owned())
        .filter(|t| !t.is_empty())
        .into_iter()
        .collect();
    parts.extend(images.placeholders());
    parts.join("\n")
}

impl ToolCard {
    /// A card for a call of `name`.
    pub fn new(id: &str, name: &str, args: Value) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            args,
            source: None,
            started: None,
            ended: None,
            output: None,
            images: Images::default(),
            partial: true,
            output_cache: None,
            hooks: None,
            preview: None,
        }
    }

    /// The diff the edit will make, shown until its result comes.
    pub fn set_preview(&mut self, diff: String) {
        self.preview = Some(diff);
        self.output_cache = None;
    }

    /// Draws the card with an extension tool's render hooks.
    pub fn with_hooks(mut self, hooks: RegisteredTool) -> Self {
        self.hooks = Some((hooks, None));
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads the arguments from the streaming message when drawn.
    pub fn follow(&mut self, message: SharedMessage, index: usize) {
        self.source = Some((message, index));
    }

    /// The arguments are final.
    pub fn set_args(&mut self, args: Value) {
        self.source = None;
        self.args = args;
    }

    /// The tool started running.
    pub fn start(&mut self, args: Value, now: Instant) {
        self.set_args(args);
        self.started.get_or_insert(now);
    }

    /// A partial (`partial`) or final result.
    pub fn set_result(
        &mut self,
        result: &AgentToolResult,
        is_error: bool,
        partial: bool,
        now: Instant,
    ) {
        self.output = Some(ToolOutput {
            text: output_text(&result.content),
            details: result.details.clone(),
            is_error,
        });
        let images = || {
            result.content.iter().filter_map(|b| match b {
                UserBlock::Image(image) => Some(image),
                _ => None,
            })
        };
        // The end of a call and its result message carry the same images.
        if !self.images.same_as(images()) {
            self.images = Images::new(images());
        }
        self.partial = partial;
        if let Some((_, last)) = &mut self.hooks {
            *last = Some(result.clone());
        }
        if !partial {
            self.source = None;
            self.ended.get_or_insert(now);
        }
        self.output_cache = None;
    }

    /// Settles a call that never ran (the message failed): an error result with `text`.
    pub fn fail(&mut self, text: &str, now: Instant) {
        self.set_result(&AgentToolResult::error(text), true, false, now);
    }

    /// True once the result is final.
    pub fn is_finished(&self) -> bool {
        !self.partial
    }

    /// True while a running bash shows its elapsed time.
    pub fn is_animating(&self) -> bool {
        self.partial && self.started.is_some() && self.name == "bash"
    }

    fn current_args(&mut self) -> &Value {
        if let Some((message, index)) = &self.source {
            let message = message.lock();
            if let Some(pi_ai::AssistantContent::ToolCall(call)) = message.content.get(*index)
                && call.arguments != self.args
            {
                self.args = call.arguments.clone();
                self.output_cache = None;
            }
        }
        &self.args
    }

    fn background(&self) -> Token {
        match &self.output {
            _ if self.partial => Token::ToolPendingBg,
            Some(o) if o.is_error => Token::ToolErrorBg,
            _ => Token::ToolSuccessBg,
        }
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let theme = ctx.theme;
        let inner = box_inner(width, 1);
        let home = ctx.home.clone();
        let args = self.current_args().clone();
        if self.hooks.is_some() {
            return self.render_hooked(ctx, &args, width);
        }
        let mut content = wrap(&header(theme, &self.name, &args, home.as_deref()), inner);
        let drawn = ctx.images.protocol.is_some();
        let cached = match &self.output_cache {
            Some((w, e, d, lines)) if *w == inner && *e == ctx.expanded && *d == drawn => {
                Some(lines.clone())
            }
            _ => None,
        };
        let body = match cached {
            Some(lines) => lines,
            None => {
                let lines = self.body(ctx, &args, inner);
                self.output_cache = Some((inner, ctx.expanded, drawn, lines.clone()));
                lines
            }
        };
        content.extend(body);
        if self.name == "bash"
            && let Some(started) = self.started
        {
            let (label, end) = match (self.partial, self.ended) {
                (false, Some(end)) => ("Took", end),
                _ => ("Elapsed", ctx.now),
            };
            let ms = end.saturating_duration_since(started).as_millis();
            content.push(String::new());
            content.push(theme.fg(Token::Muted, &format!("{label} {}", format_duration_ms(ms))));
        }
        let mut lines = vec![String::new()];
        lines.extend(bg_box(theme, self.background(), content, width, 1, 1));
        lines.extend(self.images.lines(&ctx.images, width));
        lines
    }

    /// The text a result shows: its text, with the images' placeholders
    /// when they are not drawn.
    fn shown_output(&self, ctx: &RenderCtx<'_>) -> Option<ToolOutput> {
        let mut output = self.output.clone()?;
        if ctx.images.protocol.is_none() && !self.images.is_empty() {
            output.text = with_placeholders(&output.text, &self.images);
        }
        Some(output)
    }

    /// The card through the tool's hooks, each slot falling back to pi's
    /// default (a built-in's own header and output, else the tool's name
    /// and the result's text).
    fn render_hooked(&mut self, ctx: &RenderCtx<'_>, args: &Value, width: usize) -> Vec<String> {
        let mut lines = self.hooked_card(ctx, args, width);
        lines.extend(self.images.lines(&ctx.images, width));
        lines
    }

    fn hooked_card(&self, ctx: &RenderCtx<'_>, args: &Value, width: usize) -> Vec<String> {
        let Some((hooks, result)) = &self.hooks else {
            return Vec::new();
        };
        let shown = self.shown_output(ctx);
        let theme = ctx.theme;
        let boxed = hooks.render_shell == crate::extensions::RenderShell::Default;
        let inner = if boxed { box_inner(width, 1) } else { width };
        let card = HookedCard {
            hooks,
            name: &self.name,
            ctx: ToolRenderContext {
                theme: theme.as_ref(),
                tool_call_id: &self.id,
                args,
                width: inner,
                expanded: ctx.expanded,
                is_partial: self.partial,
                is_error: self.output.as_ref().is_some_and(|o| o.is_error),
                execution_started: self.started.is_some(),
                args_complete: self.source.is_none(),
            },
            result: result.as_ref(),
            output_text: shown.as_ref().map(|o| o.text.as_str()),
        };
        let builtin = is_builtin(&self.name);
        let home = ctx.home.clone();
        let mut content = card.call_lines(|| {
            if builtin {
                wrap(&header(theme, &self.name, args, home.as_deref()), inner)
            } else {
                card.name_fallback(theme)
            }
        });
        content.extend(card.result_lines(|| {
            if builtin {
                self.body(ctx, args, inner)
            } else {
                card.text_fallback(theme)
            }
        }));
        let mut lines = vec![String::new()];
        if boxed {
            lines.extend(bg_box(theme, self.background(), content, width, 1, 1));
        } else {
            lines.extend(content);
        }
        lines
    }

    /// Everything below the header (cached per width and expansion).
    fn body(&self, ctx: &RenderCtx<'_>, args: &Value, inner: usize) -> Vec<String> {
        let theme = ctx.theme;
        let mut lines = Vec::new();
        match self.name.as_str() {
            "write" => lines.extend(write_preview(theme, args, ctx.expanded)),
            "edit" => {
                let diff = match &self.output {
                    Some(o) => o
                        .details
                        .get("diff")
                        .and_then(Value::as_str)
                        .filter(|_| !o.is_error),
                    None => self.preview.as_deref(),
                };
                if let Some(diff) = diff {
                    lines.push(String::new());
                    lines.extend(render_diff(theme, &pi_tui::text::sanitize(diff)));
                }
            }
            _ => {}
        }
        if let Some(output) = &self.shown_output(ctx) {
            lines.extend(result_lines(
                theme,
                &self.name,
                args,
                output,
                ctx.expanded,
                inner,
            ));
        }
        lines.into_iter().flat_map(|l| wrap(&l, inner)).collect()
    }
}
