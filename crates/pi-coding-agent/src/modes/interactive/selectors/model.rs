//! The model selector (Ctrl+L, `/model`): fuzzy search over the available
//! models, rows `id [provider]` with `✓` on the current one, Tab between
//! all models and the `--models` / `enabledModels` scope.

use std::sync::Arc;

use pi_ai::Model;
use pi_tui::crossterm::event::KeyEvent;
use pi_tui::fuzzy::fuzzy_filter;
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::theme::{Theme, Token};

use super::{Action, Outcome, SlotComponent, border, default_keys, fit, id_hint, window_start};

/// Rows shown at once.
const VISIBLE: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    All,
    Scoped,
}

/// pi's `ModelSelectorComponent`.
#[derive(Debug)]
pub struct ModelSelector {
    theme: Arc<Theme>,
    current: (String, String),
    all: Vec<Model>,
    scoped: Vec<Model>,
    scope: Scope,
    input: Input,
    /// Indices into the active list, best match first.
    filtered: Vec<usize>,
    selected: usize,
    keys: Arc<Keybindings>,
}

fn same(model: &Model, current: &(String, String)) -> bool {
    model.provider.as_str() == current.0 && model.id == current.1
}

impl ModelSelector {
    /// A selector over `available` (and the `scoped` models when there is
    /// a scope, shown first), pre-filtered by `search`.
    pub fn new(
        theme: Arc<Theme>,
        current: &Model,
        mut available: Vec<Model>,
        scoped: Vec<Model>,
        search: Option<&str>,
    ) -> Self {
        let current = (current.provider.as_str().to_owned(), current.id.clone());
        // Current model first, then by provider (stable: registry order within one).
        available.sort_by(|a, b| {
            (!same(a, &current), a.provider.as_str())
                .cmp(&(!same(b, &current), b.provider.as_str()))
        });
        let scope = if scoped.is_empty() {
            Scope::All
        } else {
            Scope::Scoped
        };
        let mut selector = Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            current,
            all: available,
            scoped,
            scope,
            filtered: Vec::new(),
            selected: 0,
            keys: default_keys(),
        };
        if let Some(search) = search {
            selector.input.set_value(search);
        }
        selector.filter();
        let at = selector
            .filtered
            .iter()
            .position(|&i| same(&selector.active()[i], &selector.current));
        selector.selected = at.unwrap_or(0);
        selector
    }

    fn active(&self) -> &[Model] {
        match self.scope {
            Scope::All => &self.all,
            Scope::Scoped => &self.scoped,
        }
    }

    fn filter(&mut self) {
        let query = self.input.value().to_owned();
        let models = self.active();
        let indices: Vec<usize> = (0..models.len()).collect();
        self.filtered = fuzzy_filter(indices, &query, |&i| {
            let (id, provider) = (&models[i].id, models[i].provider.as_str());
            format!("{id} {provider} {provider}/{id} {provider} {id}")
        });
        self.selected = self.selected.min(self.filtered.len().saturating_sub(1));
    }

    /// The highlighted model.
    pub fn selected(&self) -> Option<&Model> {
        self.filtered
            .get(self.selected)
            .and_then(|&i| self.active().get(i))
    }

    fn toggle_scope(&mut self) {
        if self.scoped.is_empty() {
            return;
        }
        self.scope = match self.scope {
            Scope::All => Scope::Scoped,
            Scope::Scoped => Scope::All,
        };
        let current = self.current.clone();
        self.selected = self
            .active()
            .iter()
            .position(|m| same(m, &current))
            .unwrap_or(0);
        self.filter();
    }

    fn scope_line(&self) -> String {
        let t = &self.theme;
        let pick = |scope: Scope, name: &str| {
            let token = if self.scope == scope {
                Token::Accent
            } else {
                Token::Muted
            };
            t.fg(token, name)
        };
        format!(
            "{}{}{}{}",
            t.fg(Token::Muted, "Scope: "),
            pick(Scope::All, "all"),
            t.fg(Token::Muted, " | "),
            pick(Scope::Scoped, "scoped")
        )
    }

    fn row(&self, model: &Model, selected: bool) -> String {
        let t = &self.theme;
        let badge = t.fg(Token::Muted, &format!("[{}]", model.provider.as_str()));
        let check = if same(model, &self.current) {
            t.fg(Token::Success, " ✓")
        } else {
            String::new()
        };
        if selected {
            format!(
                "{}{} {badge}{check}",
                t.fg(Token::Accent, "→ "),
                t.fg(Token::Accent, &model.id)
            )
        } else {
            format!("  {} {badge}{check}", model.id)
        }
    }
}

impl ModelSelector {
    /// Reads keys with `keys` (`tui.select.*`, `tui.input.tab`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.input.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for ModelSelector {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        let len = self.filtered.len();
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        if is("tui.input.tab") {
            self.toggle_scope();
        } else if is("tui.select.up") {
            if len > 0 {
                self.selected = self.selected.checked_sub(1).unwrap_or(len - 1);
            }
        } else if is("tui.select.down") {
            if len > 0 {
                self.selected = (self.selected + 1) % len;
            }
        } else if is("tui.select.confirm") {
            return self.selected().map_or(Outcome::Stay, |m| {
                Outcome::Done(Action::Model(Box::new(m.clone())))
            });
        } else if is("tui.select.cancel") {
            return Outcome::Cancel;
        } else if self.input.handle_key(key) {
            self.filter();
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = Arc::clone(&self.theme);
        let mut lines = vec![border(&t, width), String::new()];
        if self.scoped.is_empty() {
            lines.push(t.fg(
                Token::Warning,
                "Only showing models from configured providers. Use /login to add providers.",
            ));
        } else {
            lines.push(self.scope_line());
            lines.push(format!(
                "{}{}",
                id_hint(&t, &self.keys, "tui.input.tab", "scope"),
                t.fg(Token::Muted, " (all/scoped)")
            ));
        }
        lines.push(String::new());
        lines.push(self.input.render(width));
        lines.push(String::new());
        let len = self.filtered.len();
        let start = window_start(self.selected, VISIBLE, len);
        let end = (start + VISIBLE).min(len);
        for at in start..end {
            let model = &self.active()[self.filtered[at]];
            lines.push(self.row(model, at == self.selected));
        }
        if start > 0 || end < len {
            lines.push(t.fg(Token::Muted, &format!("  ({}/{len})", self.selected + 1)));
        }
        match self.selected() {
            None => lines.push(t.fg(Token::Muted, "  No matching models")),
            Some(model) => {
                lines.push(String::new());
                lines.push(t.fg(Token::Muted, &format!("  Model Name: {}", model.name)));
            }
        }
        lines.push(String::new());
        lines.push(border(&t, width));
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        self.input.paste(text);
        self.filter();
    }
}
