//! A user message: markdown in `userMessageText` inside a box with padding
//! 1 and the `userMessageBg` background, wrapped in OSC 133 prompt marks.
//! Its attached images follow the box where the terminal draws images, and
//! are named in it (pi's placeholder) where it does not.

use pi_tui::theme::Token;

use super::RenderCtx;
use super::images::Images;
use crate::modes::interactive::layout::{bg_box, box_inner};
use crate::modes::interactive::md::{Md, MdStyle};

/// OSC 133 prompt start.
const ZONE_START: &str = "\x1b]133;A\x07";
/// OSC 133 prompt end and command start.
const ZONE_END: &str = "\x1b]133;B\x07\x1b]133;C\x07";

/// A user message.
pub struct UserBlock {
    text: Md,
    /// A blank line before it (pi: not for the first thing in the chat).
    spaced: bool,
    /// The attached images.
    images: Images,
}

impl UserBlock {
    /// A message with this text.
    pub fn new(text: &str, spaced: bool) -> Self {
        Self {
            text: Md::new(text, MdStyle::User),
            spaced,
            images: Images::default(),
        }
    }

    /// The message with its attached images.
    pub fn with_images(mut self, images: Images) -> Self {
        self.images = images;
        self
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let inner = box_inner(width, 1);
        let mut content = self.text.render(ctx.theme, inner, 0, &ctx.code_indent);
        if ctx.images.protocol.is_none() {
            for placeholder in self.images.placeholders() {
                let line = ctx.theme.fg(Token::Muted, &placeholder);
                content.extend(pi_tui::text::wrap(&line, inner));
            }
        }
        let mut lines = bg_box(ctx.theme, Token::UserMessageBg, content, width, 1, 1);
        if ctx.theme.has_color() {
            if let Some(first) = lines.first_mut() {
                first.insert_str(0, ZONE_START);
            }
            if let Some(last) = lines.last_mut() {
                last.insert_str(0, ZONE_END);
            }
        }
        lines.extend(self.images.lines(&ctx.images, width));
        if self.spaced {
            lines.insert(0, String::new());
        }
        lines
    }
}
