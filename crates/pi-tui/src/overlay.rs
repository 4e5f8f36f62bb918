//! The overlay stack (pi's `showOverlay` / `hideOverlay`): components drawn
//! on top of the screen's lines at an anchor, the last shown on top.
//!
//! Overlays hold the same [`SlotComponent`]s as the editor slot. The topmost
//! visible overlay that captures input gets every key and paste. Each frame,
//! [`OverlayStack::composite`] splices the overlays into the lines below
//! them with ANSI-aware cuts; the lines they cover are grown (blank lines on
//! top) when they are fewer than an overlay needs, up to the terminal's rows.

use std::sync::Arc;

use crossterm::event::KeyEvent;
use unicode_segmentation::UnicodeSegmentation;

use crate::ansi::{Piece, pieces};
use crate::slot::{Outcome, SlotComponent};
use crate::text::{grapheme_width, pad_to_width, truncate_to_width};
use crate::theme::Theme;

/// Where an overlay sits in the area it is drawn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Anchor {
    /// Top left corner.
    TopLeft,
    /// Top edge, centred.
    TopCenter,
    /// Top right corner.
    TopRight,
    /// Left edge, centred.
    LeftCenter,
    /// The middle (pi's default).
    #[default]
    Center,
    /// Right edge, centred.
    RightCenter,
    /// Bottom left corner.
    BottomLeft,
    /// Bottom edge, centred.
    BottomCenter,
    /// Bottom right corner.
    BottomRight,
}

/// A size in cells or in percent of the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// This many cells.
    Cells(usize),
    /// This percentage of the terminal's width (or height).
    Percent(u16),
}

impl Size {
    /// The size out of `total` cells.
    pub fn resolve(self, total: usize) -> usize {
        match self {
            Self::Cells(n) => n,
            Self::Percent(p) => total * usize::from(p) / 100,
        }
    }
}

/// How an overlay is placed (pi's `OverlayOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlayOptions {
    /// The anchor in the area inside the margin.
    pub anchor: Anchor,
    /// The width; `None` is pi's default of `min(80, columns)`.
    pub width: Option<Size>,
    /// The least width.
    pub min_width: usize,
    /// The most rows shown.
    pub max_height: Option<Size>,
    /// Columns to move right (negative: left) from the anchored position.
    pub offset_x: isize,
    /// Rows to move down (negative: up) from the anchored position.
    pub offset_y: isize,
    /// Cells kept free on every side.
    pub margin: usize,
    /// Shown without taking keys (keys go to what is below).
    pub non_capturing: bool,
}

impl Default for OverlayOptions {
    fn default() -> Self {
        Self {
            anchor: Anchor::Center,
            width: None,
            min_width: 0,
            max_height: None,
            offset_x: 0,
            offset_y: 0,
            margin: 0,
            non_capturing: false,
        }
    }
}

/// Names one shown overlay (pi's overlay handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OverlayId(u64);

struct Entry<A> {
    id: OverlayId,
    component: Box<dyn SlotComponent<A>>,
    options: OverlayOptions,
    hidden: bool,
}

/// The overlays shown, bottom first.
pub struct OverlayStack<A> {
    entries: Vec<Entry<A>>,
    next: u64,
}

impl<A> Default for OverlayStack<A> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            next: 0,
        }
    }
}

impl<A> OverlayStack<A> {
    /// An empty stack.
    pub fn new() -> Self {
        Self::default()
    }

    /// Shows `component` on top (pi's `showOverlay`); returns its id.
    pub fn show(
        &mut self,
        component: Box<dyn SlotComponent<A>>,
        options: OverlayOptions,
    ) -> OverlayId {
        let id = OverlayId(self.next);
        self.next += 1;
        self.entries.push(Entry {
            id,
            component,
            options,
            hidden: false,
        });
        id
    }

    /// Removes the overlay `id` (pi's `handle.hide()`); false when it is gone.
    pub fn hide(&mut self, id: OverlayId) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.id != id);
        self.entries.len() != before
    }

    /// Removes the topmost overlay (pi's `hideOverlay()`); false when there is none.
    pub fn hide_top(&mut self) -> bool {
        self.entries.pop().is_some()
    }

    /// Hides or shows the overlay `id` again without removing it (pi's `setHidden`).
    pub fn set_hidden(&mut self, id: OverlayId, hidden: bool) {
        if let Some(entry) = self.entries.iter_mut().find(|e| e.id == id) {
            entry.hidden = hidden;
        }
    }

    /// True when no overlay is shown or hidden.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// True when a visible overlay takes the keys.
    pub fn captures_input(&self) -> bool {
        self.focused().is_some()
    }

    fn focused(&self) -> Option<usize> {
        self.entries
            .iter()
            .rposition(|e| !e.hidden && !e.options.non_capturing)
    }

    /// Gives `key` to the topmost capturing overlay; `None` when none takes
    /// keys. An overlay whose outcome closes it is removed first.
    pub fn handle_key(&mut self, key: &KeyEvent) -> Option<Outcome<A>> {
        let at = self.focused()?;
        let outcome = self.entries[at].component.handle_key(key);
        if outcome.closes() {
            self.entries.remove(at);
        }
        Some(outcome)
    }

    /// Polls every overlay ([`SlotComponent::poll`]), removing those that
    /// close; their outcomes, topmost first.
    pub fn poll(&mut self) -> Vec<Outcome<A>> {
        let mut outcomes = Vec::new();
        for at in (0..self.entries.len()).rev() {
            let outcome = self.entries[at].component.poll();
            if outcome.closes() {
                self.entries.remove(at);
                outcomes.push(outcome);
            }
        }
        outcomes
    }

    /// Gives pasted text to the topmost capturing overlay; false when none takes it.
    pub fn paste(&mut self, text: &str) -> bool {
        match self.focused() {
            Some(at) => {
                self.entries[at].component.paste(text);
                true
            }
            None => false,
        }
    }

    /// Passes a theme switch to every overlay.
    pub fn set_theme(&mut self, theme: &Arc<Theme>) {
        for entry in &mut self.entries {
            entry.component.set_theme(theme);
        }
    }

    /// Draws the visible overlays over `lines` (a screen region at most
    /// `rows` tall at the bottom of a terminal `width` wide), bottom first.
    pub fn composite(&mut self, lines: &mut Vec<String>, width: usize, rows: usize) {
        let mut drawn = Vec::new();
        for entry in self.entries.iter_mut().filter(|e| !e.hidden) {
            let o = entry.options;
            let inner = width.saturating_sub(2 * o.margin).max(1);
            let w = o
                .width
                .map_or(width.min(80), |s| s.resolve(width))
                .max(o.min_width)
                .clamp(1, inner);
            let room = rows.saturating_sub(2 * o.margin).max(1);
            let max_h = o.max_height.map_or(room, |s| s.resolve(rows)).min(room);
            let mut body = entry.component.render(w, max_h);
            body.truncate(max_h);
            drawn.push((o, w, body));
        }
        if drawn.is_empty() || width == 0 {
            return;
        }
        let needed = drawn
            .iter()
            .map(|(o, _, body)| body.len() + 2 * o.margin)
            .max()
            .unwrap_or(0);
        let height = lines.len().max(needed).min(rows.max(1));
        if lines.len() < height {
            let blank = height - lines.len();
            lines.splice(0..0, std::iter::repeat_n(String::new(), blank));
        }
        let top = lines.len() - height;
        for (o, w, body) in drawn {
            let (row, col) = place(&o, w, body.len(), width, height);
            for (i, line) in body.iter().enumerate() {
                if let Some(base) = lines.get_mut(top + row + i) {
                    *base = splice(base, col, w, line);
                }
            }
        }
    }
}

/// The top row and left column of an overlay `w` x `h` in an area `width` x `height`.
fn place(o: &OverlayOptions, w: usize, h: usize, width: usize, height: usize) -> (usize, usize) {
    let free_x = width.saturating_sub(2 * o.margin + w);
    let free_y = height.saturating_sub(2 * o.margin + h);
    let (fx, fy) = match o.anchor {
        Anchor::TopLeft => (0, 0),
        Anchor::TopCenter => (free_x / 2, 0),
        Anchor::TopRight => (free_x, 0),
        Anchor::LeftCenter => (0, free_y / 2),
        Anchor::Center => (free_x / 2, free_y / 2),
        Anchor::RightCenter => (free_x, free_y / 2),
        Anchor::BottomLeft => (0, free_y),
        Anchor::BottomCenter => (free_x / 2, free_y),
        Anchor::BottomRight => (free_x, free_y),
    };
    let shift = |at: usize, by: isize, max: usize| at.saturating_add_signed(by).min(max);
    let col = shift(o.margin + fx, o.offset_x, width.saturating_sub(w));
    let row = shift(o.margin + fy, o.offset_y, height.saturating_sub(h));
    (row, col)
}

/// `base` with the cells `col..col + w` replaced by `over` (padded to `w`).
pub fn splice(base: &str, col: usize, w: usize, over: &str) -> String {
    let left = pad_to_width(&truncate_to_width(base, col, ""), col);
    let middle = pad_to_width(over, w);
    let right = skip_columns(base, col + w);
    if base.contains('\x1b') || over.contains('\x1b') {
        format!("{left}\x1b[0m{middle}\x1b[0m{right}")
    } else {
        format!("{left}{middle}{right}")
    }
}

/// `s` without its first `n` cells; escape sequences are kept, so the style
/// in effect at the cut carries on. A wide character cut in half becomes spaces.
pub fn skip_columns(s: &str, n: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for piece in pieces(s) {
        match piece {
            Piece::Escape(e) => out.push_str(e),
            Piece::Text(t) => {
                for g in t.graphemes(true) {
                    if used >= n {
                        out.push_str(g);
                        continue;
                    }
                    used += grapheme_width(g);
                    if used > n {
                        out.extend(std::iter::repeat_n(' ', used - n));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "overlay_tests.rs"]
mod tests;
