//! A container with padding and a background that fills the full width (pi's `Box`).

use std::sync::Arc;

use crate::component::Component;
use crate::text::{pad_to_width, visible_width};
use crate::theme::{Theme, Token};

/// Paints `line` (already `width` cells or shorter) on the token's background across the full
/// width; inner resets are followed by the background again so it never has holes.
pub fn apply_background(theme: &Theme, token: Token, line: &str, width: usize) -> String {
    let padded = pad_to_width(line, width.max(visible_width(line).min(width)));
    let code = theme.bg_code(token);
    if code.is_empty() {
        return padded;
    }
    let reset_all = format!("\x1b[0m{code}");
    let reset_bg = format!("\x1b[49m{code}");
    let body = padded
        .replace("\x1b[0m", &reset_all)
        .replace("\x1b[49m", &reset_bg);
    format!("{code}{body}\x1b[49m")
}

/// Children stacked vertically inside padding, on an optional full-width background.
pub struct BoxComponent {
    theme: Arc<Theme>,
    children: Vec<Box<dyn Component + Send>>,
    padding_x: usize,
    padding_y: usize,
    bg: Option<Token>,
}

impl BoxComponent {
    /// An empty box with the given padding and background.
    pub fn new(theme: Arc<Theme>, padding_x: usize, padding_y: usize, bg: Option<Token>) -> Self {
        Self {
            theme,
            children: Vec::new(),
            padding_x,
            padding_y,
            bg,
        }
    }

    /// Appends a child.
    pub fn add_child(&mut self, child: Box<dyn Component + Send>) {
        self.children.push(child);
    }

    /// Removes every child.
    pub fn clear(&mut self) {
        self.children.clear();
    }

    /// Changes the background (for example pending -> success).
    pub fn set_background(&mut self, bg: Option<Token>) {
        self.bg = bg;
    }

    /// Wraps already-rendered content lines (each at most `width - 2 * padding_x` wide).
    pub fn frame_lines(&self, content: &[String], width: usize) -> Vec<String> {
        if content.is_empty() {
            return Vec::new();
        }
        let pad_x = if width > self.padding_x * 2 {
            self.padding_x
        } else {
            0
        };
        let left = " ".repeat(pad_x);
        let mut out = Vec::with_capacity(content.len() + self.padding_y * 2);
        let paint = |l: &str| match self.bg {
            Some(t) => apply_background(&self.theme, t, l, width),
            None => pad_to_width(l, width),
        };
        for _ in 0..self.padding_y {
            out.push(paint(""));
        }
        for l in content {
            out.push(paint(&format!("{left}{l}")));
        }
        for _ in 0..self.padding_y {
            out.push(paint(""));
        }
        out
    }

    /// The width children are rendered at for a box `width` wide.
    pub fn content_width(&self, width: usize) -> usize {
        if width > self.padding_x * 2 {
            width - self.padding_x * 2
        } else {
            width.max(1)
        }
    }
}

impl Component for BoxComponent {
    fn render(&mut self, width: usize) -> Vec<String> {
        let inner = self.content_width(width);
        let mut content = Vec::new();
        for c in &mut self.children {
            content.extend(c.render(inner));
        }
        self.frame_lines(&content, width)
    }

    fn invalidate(&mut self) {
        for c in &mut self.children {
            c.invalidate();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::Text;
    use crate::theme::ColorMode;

    #[test]
    fn pads_and_fills_background() {
        let theme = Arc::new(Theme::dark(ColorMode::TrueColor));
        let mut b = BoxComponent::new(theme.clone(), 1, 1, Some(Token::ToolSuccessBg));
        b.add_child(Box::new(Text::new("hi \x1b[1mthere\x1b[0m", 0)));
        let lines = b.render(12);
        assert_eq!(lines.len(), 3);
        for l in &lines {
            assert_eq!(visible_width(l), 12);
        }
        let bg = theme.bg_code(Token::ToolSuccessBg);
        assert_eq!(
            lines[1],
            format!("{bg} hi \x1b[1mthere\x1b[0m{bg}   \x1b[49m")
        );
        let mut plain = BoxComponent::new(Arc::new(Theme::dark(ColorMode::NoColor)), 1, 0, None);
        plain.add_child(Box::new(Text::new("x", 0)));
        assert_eq!(plain.render(4), vec![" x  "]);
        assert_eq!(plain.render(1), vec!["x"]);
    }

    #[test]
    fn box_snapshots_at_two_widths() {
        let theme = Arc::new(Theme::dark(ColorMode::TrueColor));
        let mut b = BoxComponent::new(theme.clone(), 1, 1, Some(Token::UserMessageBg));
        b.add_child(Box::new(Text::new(
            format!("a user message with {} inside", theme.bold("bold")),
            0,
        )));
        for width in [30, 12] {
            let shown: Vec<String> = b
                .render(width)
                .iter()
                .map(|s| s.replace('\x1b', "␛"))
                .collect();
            for l in b.render(width) {
                assert_eq!(visible_width(&l), width);
            }
            insta::assert_snapshot!(format!("box_{width}"), shown.join("\n"));
        }
    }
}
