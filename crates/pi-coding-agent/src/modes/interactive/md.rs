//! Markdown text of the screens (user messages, assistant text, thinking,
//! summaries), over `pi_tui::markdown`: streamed text is appended, so a
//! delta re-renders only the last top-level block.

use std::sync::Arc;

use pi_tui::Component;
use pi_tui::markdown::{Markdown, MarkdownTheme};
use pi_tui::theme::{Theme, Token};

/// How a markdown text is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MdStyle {
    /// Assistant text: the theme's markdown colours.
    Plain,
    /// Thinking: italic, `thinkingText`.
    Thinking,
    /// User messages: `userMessageText`.
    User,
    /// Summaries and custom messages: `customMessageText`.
    Custom,
}

/// A markdown text that renders incrementally.
pub struct Md {
    style: MdStyle,
    /// The document, made on first render (it needs the theme), with the
    /// padding and code indentation it was made for.
    doc: Option<(Arc<Theme>, (usize, String), Markdown)>,
    text: String,
    /// Leading lines of the last render that appending text cannot change.
    stable: usize,
}

impl Md {
    /// A text with `style`.
    pub fn new(text: impl Into<String>, style: MdStyle) -> Self {
        Self {
            style,
            doc: None,
            text: text.into(),
            stable: 0,
        }
    }

    /// Appends streamed text.
    pub fn push_str(&mut self, delta: &str) {
        match &mut self.doc {
            Some((_, _, doc)) => doc.push_str(delta),
            None => self.text.push_str(delta),
        }
    }

    /// Replaces the text.
    pub fn set_text(&mut self, text: &str) {
        if self.text() != text {
            match &mut self.doc {
                Some((_, _, doc)) => doc.set_text(text),
                None => text.clone_into(&mut self.text),
            }
        }
    }

    /// The text.
    pub fn text(&self) -> &str {
        match &self.doc {
            Some((_, _, doc)) => doc.text(),
            None => &self.text,
        }
    }

    /// True when the text is only whitespace.
    pub fn is_blank(&self) -> bool {
        self.text().trim().is_empty()
    }

    fn style_for(&self, theme: &Arc<Theme>, pad_x: usize, code_indent: &str) -> MarkdownTheme {
        let mut style = MarkdownTheme::new(Arc::clone(theme));
        style.padding_x = pad_x;
        code_indent.clone_into(&mut style.code_indent);
        match self.style {
            MdStyle::Plain => {}
            MdStyle::Thinking => {
                style.text_color = Some(Token::ThinkingText);
                style.italic = true;
            }
            MdStyle::User => style.text_color = Some(Token::UserMessageText),
            MdStyle::Custom => style.text_color = Some(Token::CustomMessageText),
        }
        style
    }

    /// How many leading lines of the last [`Md::render`] cannot change as text is appended.
    pub fn stable_lines(&self) -> usize {
        self.stable
    }

    /// The lines for `width`, indented by `pad_x`, code blocks by
    /// `code_indent` (pi's `markdown.codeBlockIndent`); leading and trailing
    /// whitespace of the text is not shown, as pi trims it.
    pub fn render(
        &mut self,
        theme: &Arc<Theme>,
        width: usize,
        pad_x: usize,
        code_indent: &str,
    ) -> Vec<String> {
        let stale = match &self.doc {
            Some((t, (p, c), _)) => !Arc::ptr_eq(t, theme) || *p != pad_x || c != code_indent,
            None => true,
        };
        if stale {
            let text = match self.doc.take() {
                Some((_, _, doc)) => doc.text().to_owned(),
                None => std::mem::take(&mut self.text),
            };
            let style = self.style_for(theme, pad_x, code_indent);
            let made_for = (pad_x, code_indent.to_owned());
            self.doc = Some((Arc::clone(theme), made_for, Markdown::new(text, style)));
        }
        match &mut self.doc {
            Some((_, _, doc)) => {
                let mut lines = doc.render(width);
                let lead = lines.iter().take_while(|l| blank(l)).count();
                lines.drain(..lead);
                while lines.last().is_some_and(|l| blank(l)) {
                    lines.pop();
                }
                self.stable = doc.stable_lines().saturating_sub(lead).min(lines.len());
                lines
            }
            None => Vec::new(),
        }
    }
}

fn blank(line: &str) -> bool {
    pi_tui::text::strip_ansi(line).trim().is_empty()
}
