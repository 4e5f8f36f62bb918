//! A scrolling list with a `→ ` selection marker (autocomplete dropdown, selectors).

use std::sync::Arc;

use crate::component::Component;
use crate::text::{truncate_to_width, visible_width};
use crate::theme::{Theme, Token};

const PRIMARY_COLUMN_WIDTH: usize = 32;
const PRIMARY_COLUMN_GAP: usize = 2;
const MIN_DESCRIPTION_WIDTH: usize = 10;

/// One entry of a [`SelectList`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectItem {
    /// The value (what is inserted or chosen).
    pub value: String,
    /// What is shown (defaults to the value when empty).
    pub label: String,
    /// An optional description shown in a second, muted column.
    pub description: Option<String>,
}

impl SelectItem {
    /// An item shown as its value.
    pub fn new(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            label: String::new(),
            description: None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the label.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    fn display(&self) -> &str {
        if self.label.is_empty() {
            &self.value
        } else {
            &self.label
        }
    }
}

/// A list showing at most `max_visible` items around the selection, with `(i/N)` when it
/// scrolls. Up and Down wrap around.
#[derive(Debug, Clone)]
pub struct SelectList {
    theme: Arc<Theme>,
    items: Vec<SelectItem>,
    selected: usize,
    max_visible: usize,
    column: (usize, usize),
}

impl SelectList {
    /// A list of `items` showing up to `max_visible` rows.
    pub fn new(theme: Arc<Theme>, items: Vec<SelectItem>, max_visible: usize) -> Self {
        Self {
            theme,
            items,
            selected: 0,
            max_visible: max_visible.max(1),
            column: (PRIMARY_COLUMN_WIDTH, PRIMARY_COLUMN_WIDTH),
        }
    }

    /// Replaces the items (selection goes back to the first).
    pub fn set_items(&mut self, items: Vec<SelectItem>) {
        self.items = items;
        self.selected = 0;
    }

    /// The items.
    pub fn items(&self) -> &[SelectItem] {
        &self.items
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True with no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The selected index.
    pub fn selected_index(&self) -> usize {
        self.selected
    }

    /// Selects an index (clamped).
    pub fn set_selected(&mut self, index: usize) {
        self.selected = index.min(self.items.len().saturating_sub(1));
    }

    /// The selected item.
    pub fn selected(&self) -> Option<&SelectItem> {
        self.items.get(self.selected)
    }

    /// Moves the selection up, wrapping to the bottom.
    pub fn up(&mut self) {
        if !self.items.is_empty() {
            self.selected = self.selected.checked_sub(1).unwrap_or(self.items.len() - 1);
        }
    }

    /// Moves the selection down, wrapping to the top.
    pub fn down(&mut self) {
        if !self.items.is_empty() {
            self.selected = (self.selected + 1) % self.items.len();
        }
    }

    /// Bounds of the label column: the widest label plus a gap, clamped to `[min, max]`
    /// (32 by default; pi's slash-command list uses 12..=32).
    pub fn set_column_bounds(&mut self, min: usize, max: usize) {
        let (min, max) = (min.min(max).max(1), max.max(min).max(1));
        self.column = (min, max);
    }

    fn primary_width(&self) -> usize {
        let widest = self
            .items
            .iter()
            .map(|i| visible_width(i.display()) + PRIMARY_COLUMN_GAP)
            .max()
            .unwrap_or(0);
        widest.clamp(self.column.0, self.column.1)
    }

    fn render_item(&self, item: &SelectItem, selected: bool, width: usize, col: usize) -> String {
        let prefix = if selected { "→ " } else { "  " };
        let description = item
            .description
            .as_deref()
            .map(|d| {
                d.split(['\r', '\n'])
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty());
        if let Some(desc) = description.filter(|_| width > 40) {
            let col = col.min(width.saturating_sub(6)).max(1);
            let value = truncate_to_width(
                item.display(),
                col.saturating_sub(PRIMARY_COLUMN_GAP).max(1),
                "",
            );
            let spacing = " ".repeat(col.saturating_sub(visible_width(&value)).max(1));
            let start = 2 + visible_width(&value) + spacing.len();
            let remaining = width.saturating_sub(start + 2);
            if remaining > MIN_DESCRIPTION_WIDTH {
                let desc = truncate_to_width(&desc, remaining, "");
                return if selected {
                    self.theme
                        .fg(Token::Accent, &format!("{prefix}{value}{spacing}{desc}"))
                } else {
                    format!(
                        "{prefix}{value}{}",
                        self.theme.fg(Token::Muted, &format!("{spacing}{desc}"))
                    )
                };
            }
        }
        let value = truncate_to_width(item.display(), width.saturating_sub(4), "");
        let line = if selected {
            self.theme.fg(Token::Accent, &format!("{prefix}{value}"))
        } else {
            format!("{prefix}{value}")
        };
        truncate_to_width(&line, width, "")
    }
}

impl Component for SelectList {
    fn render(&mut self, width: usize) -> Vec<String> {
        if self.items.is_empty() {
            return vec![truncate_to_width(
                &self.theme.fg(Token::Muted, "  No matching commands"),
                width,
                "",
            )];
        }
        let n = self.items.len();
        let start = self
            .selected
            .saturating_sub(self.max_visible / 2)
            .min(n.saturating_sub(self.max_visible));
        let end = (start + self.max_visible).min(n);
        let col = self.primary_width();
        let mut lines: Vec<String> = (start..end)
            .map(|i| self.render_item(&self.items[i], i == self.selected, width, col))
            .collect();
        if start > 0 || end < n {
            let info = format!("  ({}/{n})", self.selected + 1);
            let info = truncate_to_width(&info, width.saturating_sub(2), "");
            lines.push(self.theme.fg(Token::Muted, &info));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorMode;

    fn list(n: usize) -> SelectList {
        let items = (0..n)
            .map(|i| SelectItem::new(format!("item{i}")).with_description(format!("desc {i}")))
            .collect();
        SelectList::new(Arc::new(Theme::dark(ColorMode::NoColor)), items, 5)
    }

    #[test]
    fn wraps_and_scrolls() {
        let mut l = list(8);
        l.up();
        assert_eq!(l.selected_index(), 7);
        l.down();
        assert_eq!(l.selected_index(), 0);
        insta::assert_snapshot!("select_top_60", l.render(60).join("\n"));
        for _ in 0..5 {
            l.down();
        }
        insta::assert_snapshot!("select_scrolled_30", l.render(30).join("\n"));
        for w in 0..50 {
            for line in l.render(w) {
                assert!(visible_width(&line) <= w, "{line:?} {w}");
            }
        }
    }
}
