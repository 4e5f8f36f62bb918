//! A user message: markdown in `userMessageText` inside a box with padding
//! 1 and the `userMessageBg` background, wrapped in OSC 133 prompt marks.

use pi_tui::theme::Token;

use super::RenderCtx;
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
}

impl UserBlock {
    /// A message with this text.
    pub fn new(text: &str, spaced: bool) -> Self {
        Self {
            text: Md::new(text, MdStyle::User),
            spaced,
        }
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let content = self.text.render(ctx.theme, box_inner(width, 1), 0);
        let mut lines = bg_box(ctx.theme, Token::UserMessageBg, content, width, 1, 1);
        if ctx.theme.has_color() {
            if let Some(first) = lines.first_mut() {
                first.insert_str(0, ZONE_START);
            }
            if let Some(last) = lines.last_mut() {
                last.insert_str(0, ZONE_END);
            }
        }
        if self.spaced {
            lines.insert(0, String::new());
        }
        lines
    }
}
