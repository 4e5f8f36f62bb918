//! Small layout helpers shared by the screens: padded wrapped text,
//! full-width background boxes and horizontal rules. Every line returned
//! fits `width` (clamped, never an error).

use pi_tui::boxed::apply_background;
use pi_tui::text::{truncate_to_width, visible_width, wrap};
use pi_tui::theme::{Theme, Token};

/// `text` wrapped to `width - 2 * pad_x` and indented by `pad_x` spaces.
pub fn padded(text: &str, width: usize, pad_x: usize) -> Vec<String> {
    let inner = width.saturating_sub(2 * pad_x).max(1);
    let pad = " ".repeat(pad_x.min(width.saturating_sub(1)));
    wrap(text, inner)
        .into_iter()
        .map(|line| clamp(&format!("{pad}{line}"), width))
        .collect()
}

/// A line cut to `width` cells.
pub fn clamp(line: &str, width: usize) -> String {
    if visible_width(line) <= width {
        line.to_owned()
    } else {
        truncate_to_width(line, width, "")
    }
}

/// The width of a box's content for a box `width` wide with `pad_x` padding.
pub fn box_inner(width: usize, pad_x: usize) -> usize {
    width.saturating_sub(2 * pad_x).max(1)
}

/// A box: `content` (lines at most [`box_inner`] wide) with `pad_x` columns
/// and `pad_y` rows of padding, every line filled to `width` with the
/// background `bg` (no background in no-colour mode).
pub fn bg_box(
    theme: &Theme,
    bg: Token,
    content: Vec<String>,
    width: usize,
    pad_x: usize,
    pad_y: usize,
) -> Vec<String> {
    let pad = " ".repeat(pad_x.min(width.saturating_sub(1)));
    let mut out = Vec::with_capacity(content.len() + 2 * pad_y);
    let fill = |line: &str| apply_background(theme, bg, &clamp(line, width), width);
    for _ in 0..pad_y {
        out.push(fill(""));
    }
    for line in content {
        out.push(fill(&format!("{pad}{line}")));
    }
    for _ in 0..pad_y {
        out.push(fill(""));
    }
    out
}

/// A full-width rule of `─` in `color`.
pub fn rule(theme: &Theme, color: Token, width: usize) -> String {
    theme.fg(color, &"─".repeat(width.max(1)))
}
