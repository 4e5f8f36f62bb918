//! The [`Component`] trait and the two simplest components, [`Text`] and [`Spacer`].

use crate::text::{pad_to_width, wrap};

/// Something that renders itself as terminal lines.
///
/// Every returned line is one terminal row, at most `width` cells wide, with no style left
/// open at its end. `width` may be tiny (even 0): implementations clamp, never fail.
pub trait Component {
    /// Renders for a terminal `width` cells wide.
    fn render(&mut self, width: usize) -> Vec<String>;

    /// Drops cached renders (for example after a theme change).
    fn invalidate(&mut self) {}
}

/// Word-wrapped text with horizontal padding (pi's `Text`).
#[derive(Debug, Clone, Default)]
pub struct Text {
    text: String,
    padding_x: usize,
    cache: Option<(usize, Vec<String>)>,
}

impl Text {
    /// Text indented by `padding_x` spaces on both sides.
    pub fn new(text: impl Into<String>, padding_x: usize) -> Self {
        Self {
            text: text.into(),
            padding_x,
            cache: None,
        }
    }

    /// Replaces the text.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.cache = None;
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl Component for Text {
    fn render(&mut self, width: usize) -> Vec<String> {
        if let Some((w, lines)) = &self.cache
            && *w == width
        {
            return lines.clone();
        }
        let lines = if self.text.is_empty() {
            Vec::new()
        } else {
            let pad = if width > self.padding_x * 2 {
                self.padding_x
            } else {
                0
            };
            let inner = width.saturating_sub(pad * 2).max(1);
            let left = " ".repeat(pad);
            wrap(&self.text, inner)
                .into_iter()
                .map(|l| {
                    let line = format!("{left}{l}");
                    if width == 0 {
                        String::new()
                    } else {
                        crate::text::truncate_to_width(&line, width, "")
                    }
                })
                .collect()
        };
        self.cache = Some((width, lines.clone()));
        lines
    }

    fn invalidate(&mut self) {
        self.cache = None;
    }
}

/// `n` empty lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spacer(pub usize);

impl Component for Spacer {
    fn render(&mut self, width: usize) -> Vec<String> {
        let _ = width;
        vec![String::new(); self.0]
    }
}

/// Pads every line to the full width (helper for components that fill a background).
pub fn pad_lines(lines: &mut [String], width: usize) {
    for l in lines {
        *l = pad_to_width(l, width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_with_padding() {
        let mut t = Text::new("hello brave new world", 1);
        assert_eq!(t.render(13), vec![" hello brave", " new world"]);
        assert_eq!(
            t.render(1),
            vec![
                "h", "e", "l", "l", "o", "b", "r", "a", "v", "e", "n", "e", "w", "w", "o", "r",
                "l", "d"
            ]
        );
        assert!(Text::new("", 1).render(10).is_empty());
        assert_eq!(Spacer(2).render(5), vec!["", ""]);
    }
}
