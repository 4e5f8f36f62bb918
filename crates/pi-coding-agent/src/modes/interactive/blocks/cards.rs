//! Summary and custom cards: a box with padding 1 and the
//! `customMessageBg` background, a bold `customMessageLabel` label
//! (`[compaction]`, `[branch]`, `[<customType>]`), then the collapsed line
//! (`Compacted from 12,345 tokens (ctrl+o to expand)`, `Branch summary
//! (ctrl+o to expand)`) or, expanded, the summary as markdown.

use pi_tui::theme::Token;

use super::RenderCtx;
use super::ext_render::render_message;
use crate::extensions::MessageRendererFn;
use crate::messages::CustomMessage;
use crate::modes::interactive::format::format_thousands;
use crate::modes::interactive::layout::{bg_box, box_inner};
use crate::modes::interactive::md::{Md, MdStyle};

/// Which summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryKind {
    /// A compaction, with the tokens it replaced.
    Compaction(u64),
    /// A branch summary.
    Branch,
}

/// A compaction or branch summary.
pub struct SummaryCard {
    kind: SummaryKind,
    body: Md,
}

fn label(ctx: &RenderCtx<'_>, text: &str) -> String {
    ctx.theme
        .fg(Token::CustomMessageLabel, &ctx.theme.bold(text))
}

impl SummaryCard {
    /// A card for `summary`.
    pub fn new(kind: SummaryKind, summary: &str) -> Self {
        let heading = match kind {
            SummaryKind::Compaction(tokens) => {
                format!("**Compacted from {} tokens**\n\n", format_thousands(tokens))
            }
            SummaryKind::Branch => "**Branch Summary**\n\n".to_owned(),
        };
        Self {
            kind,
            body: Md::new(format!("{heading}{summary}"), MdStyle::Custom),
        }
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let theme = ctx.theme;
        let inner = box_inner(width, 1);
        let (name, collapsed) = match self.kind {
            SummaryKind::Compaction(tokens) => (
                "[compaction]",
                format!("Compacted from {} tokens (", format_thousands(tokens)),
            ),
            SummaryKind::Branch => ("[branch]", "Branch summary (".to_owned()),
        };
        let mut content = vec![label(ctx, name), String::new()];
        if ctx.expanded {
            content.extend(self.body.render(theme, inner, 0, &ctx.code_indent));
        } else {
            let text = format!(
                "{}{}{}",
                theme.fg(Token::CustomMessageText, &collapsed),
                theme.fg(Token::Dim, "ctrl+o"),
                theme.fg(Token::CustomMessageText, " to expand)")
            );
            content.extend(pi_tui::text::wrap(&text, inner));
        }
        let mut lines = vec![String::new()];
        lines.extend(bg_box(theme, Token::CustomMessageBg, content, width, 1, 1));
        lines
    }
}

/// A custom message shown in the chat (`display: true`).
pub struct CustomCard {
    custom_type: String,
    body: Md,
    /// An extension's renderer of this type, with the message it draws.
    renderer: Option<(MessageRendererFn, CustomMessage)>,
}

impl CustomCard {
    /// A card of `custom_type` with markdown `text`.
    pub fn new(custom_type: &str, text: &str) -> Self {
        Self {
            custom_type: custom_type.to_owned(),
            body: Md::new(text, MdStyle::Custom),
            renderer: None,
        }
    }

    /// Draws `message` with an extension's renderer (the default card when
    /// it answers nothing or fails).
    pub fn with_renderer(mut self, renderer: MessageRendererFn, message: CustomMessage) -> Self {
        self.renderer = Some((renderer, message));
        self
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        if let Some((renderer, message)) = &self.renderer
            && let Some(custom) = render_message(renderer, message, ctx.theme, ctx.expanded, width)
        {
            let mut lines = vec![String::new()];
            lines.extend(custom);
            return lines;
        }
        let inner = box_inner(width, 1);
        let mut content = vec![
            label(ctx, &format!("[{}]", self.custom_type)),
            String::new(),
        ];
        content.extend(self.body.render(ctx.theme, inner, 0, &ctx.code_indent));
        let mut lines = vec![String::new()];
        lines.extend(bg_box(
            ctx.theme,
            Token::CustomMessageBg,
            content,
            width,
            1,
            1,
        ));
        lines
    }
}
