//! `pi config`: pi's resource configuration list. Groups (packages, then
//! the user's and the project's folders and settings lists), a heading
//! per resource kind, one `[x]` / `[ ]` row per resource; typing filters,
//! Space or Enter toggles (the change is written at once), Esc closes,
//! Ctrl+C ends the program.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::text::{truncate_to_width, visible_width};
use pi_tui::theme::{Theme, Token};

use super::{border, default_keys, key_hint, window_start};
use crate::packages::config_items::{ConfigGroup, ConfigItem, kind_label};

/// Rows of the list shown at once.
const VISIBLE: usize = 15;

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigOutcome {
    /// Still open.
    Stay,
    /// Toggle this item (index into the items) to this state.
    Toggle(usize, bool),
    /// Esc.
    Close,
    /// Ctrl+C.
    Exit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Group(usize),
    Kind(usize, usize),
    Item(usize),
}

/// The list.
pub struct ResourceConfig {
    theme: Arc<Theme>,
    labels: Vec<String>,
    kinds: Vec<Vec<&'static str>>,
    /// Every item, with its group and kind position.
    items: Vec<(usize, usize, ConfigItem)>,
    rows: Vec<Row>,
    shown: Vec<Row>,
    selected: usize,
    input: Input,
    keys: Arc<Keybindings>,
}

impl ResourceConfig {
    /// The list of `groups`.
    pub fn new(theme: Arc<Theme>, groups: Vec<ConfigGroup>) -> Self {
        let mut labels = Vec::new();
        let mut kinds = Vec::new();
        let mut items = Vec::new();
        let mut rows = Vec::new();
        for (g, group) in groups.into_iter().enumerate() {
            labels.push(group.label);
            rows.push(Row::Group(g));
            let mut names = Vec::new();
            for (k, (kind, list)) in group.kinds.into_iter().enumerate() {
                names.push(kind);
                rows.push(Row::Kind(g, k));
                for item in list {
                    rows.push(Row::Item(items.len()));
                    items.push((g, k, item));
                }
            }
            kinds.push(names);
        }
        let mut list = Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            labels,
            kinds,
            items,
            shown: rows.clone(),
            rows,
            selected: 0,
            keys: default_keys(),
        };
        list.select_first();
        list
    }

    /// Reads keys with `keys` (`tui.select.*`, the search's `tui.editor.*`;
    /// Space and Ctrl+C stay pi's fixed keys).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.input.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }

    /// The item at `index`.
    pub fn item(&self, index: usize) -> Option<&ConfigItem> {
        self.items.get(index).map(|(_, _, item)| item)
    }

    /// Marks an item as (not) enabled after its toggle was written.
    pub fn set_enabled(&mut self, index: usize, enabled: bool) {
        if let Some((_, _, item)) = self.items.get_mut(index) {
            item.enabled = enabled;
        }
    }

    fn select_first(&mut self) {
        self.selected = self
            .shown
            .iter()
            .position(|r| matches!(r, Row::Item(_)))
            .unwrap_or(0);
    }

    fn step(&self, from: usize, down: bool) -> usize {
        let mut at = from;
        loop {
            at = if down {
                at + 1
            } else {
                match at.checked_sub(1) {
                    Some(at) => at,
                    None => return from,
                }
            };
            match self.shown.get(at) {
                None => return from,
                Some(Row::Item(_)) => return at,
                Some(_) => {}
            }
        }
    }

    fn filter(&mut self) {
        let query = self.input.value().trim().to_lowercase();
        if query.is_empty() {
            self.shown = self.rows.clone();
            self.select_first();
            return;
        }
        let matches = |item: &ConfigItem| {
            item.name.to_lowercase().contains(&query)
                || item.kind.contains(&query)
                || item.path.to_string_lossy().to_lowercase().contains(&query)
        };
        let hits: Vec<usize> = (0..self.items.len())
            .filter(|&i| matches(&self.items[i].2))
            .collect();
        self.shown = self
            .rows
            .iter()
            .copied()
            .filter(|row| match *row {
                Row::Group(g) => hits.iter().any(|&i| self.items[i].0 == g),
                Row::Kind(g, k) => hits
                    .iter()
                    .any(|&i| self.items[i].0 == g && self.items[i].1 == k),
                Row::Item(i) => hits.contains(&i),
            })
            .collect();
        self.select_first();
    }

    /// Handles a key.
    pub fn handle_key(&mut self, key: &KeyEvent) -> ConfigOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        // pi's order: Ctrl+C (fixed) only when `tui.select.cancel` does not
        // take it (its default does).
        match key.code {
            _ if is("tui.select.up") => self.selected = self.step(self.selected, false),
            _ if is("tui.select.down") => self.selected = self.step(self.selected, true),
            _ if is("tui.select.pageUp") => {
                let mut target = self.selected.saturating_sub(VISIBLE);
                while target < self.shown.len() && !matches!(self.shown[target], Row::Item(_)) {
                    target += 1;
                }
                if target < self.shown.len() {
                    self.selected = target;
                }
            }
            _ if is("tui.select.pageDown") => {
                let last = self.shown.len().saturating_sub(1);
                let mut target = (self.selected + VISIBLE).min(last);
                while target > 0 && !matches!(self.shown.get(target), Some(Row::Item(_))) {
                    target -= 1;
                }
                if matches!(self.shown.get(target), Some(Row::Item(_))) {
                    self.selected = target;
                }
            }
            _ if is("tui.select.cancel") => return ConfigOutcome::Close,
            KeyCode::Char('c') if ctrl => return ConfigOutcome::Exit,
            _ if is("tui.select.confirm") || (key.code == KeyCode::Char(' ') && !ctrl) => {
                if let Some(Row::Item(i)) = self.shown.get(self.selected) {
                    return ConfigOutcome::Toggle(*i, !self.items[*i].2.enabled);
                }
            }
            _ => {
                if self.input.handle_key(key) {
                    self.filter();
                }
            }
        }
        ConfigOutcome::Stay
    }

    /// The screen for a terminal `width` columns wide.
    pub fn render(&self, width: usize) -> Vec<String> {
        let t = &self.theme;
        let title = t.bold("Resource Configuration");
        let hint = format!(
            "{}{}{}",
            key_hint(t, "space", "toggle"),
            t.fg(Token::Muted, " · "),
            key_hint(t, "esc", "close")
        );
        let spacing = width
            .saturating_sub(visible_width(&title) + visible_width(&hint))
            .max(1);
        let mut lines = vec![
            String::new(),
            border(t, width),
            String::new(),
            truncate_to_width(&format!("{title}{}{hint}", " ".repeat(spacing)), width, ""),
            t.fg(Token::Muted, "Type to filter resources"),
            String::new(),
            self.input.render(width),
            String::new(),
        ];
        if self.shown.is_empty() {
            lines.push(t.fg(Token::Muted, "  No resources found"));
        } else {
            let start = window_start(self.selected, VISIBLE, self.shown.len());
            let end = (start + VISIBLE).min(self.shown.len());
            for (i, row) in self.shown.iter().enumerate().take(end).skip(start) {
                let line = match *row {
                    Row::Group(g) => format!("  {}", t.fg(Token::Accent, &t.bold(&self.labels[g]))),
                    Row::Kind(g, k) => {
                        format!("    {}", t.fg(Token::Muted, kind_label(self.kinds[g][k])))
                    }
                    Row::Item(index) => {
                        let item = &self.items[index].2;
                        let cursor = if i == self.selected { "> " } else { "  " };
                        let mark = if item.enabled {
                            t.fg(Token::Success, "[x]")
                        } else {
                            t.fg(Token::Dim, "[ ]")
                        };
                        let name = if i == self.selected {
                            t.bold(&item.name)
                        } else {
                            item.name.clone()
                        };
                        truncate_to_width(&format!("{cursor}    {mark} {name}"), width, "...")
                    }
                };
                lines.push(truncate_to_width(&line, width, ""));
            }
            if start > 0 || end < self.shown.len() {
                let count = self
                    .shown
                    .iter()
                    .filter(|r| matches!(r, Row::Item(_)))
                    .count();
                let current = self.shown[..self.selected]
                    .iter()
                    .filter(|r| matches!(r, Row::Item(_)))
                    .count()
                    + 1;
                lines.push(t.fg(Token::Dim, &format!("  ({current}/{count})")));
            }
        }
        lines.push(String::new());
        lines.push(border(t, width));
        lines
    }
}
