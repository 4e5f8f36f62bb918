//! `/scoped-models`: which models Ctrl+P cycles through, and in which
//! order. Enter toggles, Ctrl+A enables all (or the matches), Ctrl+X clears,
//! Ctrl+P toggles the provider, Alt+Up/Down reorder, Ctrl+S saves the list
//! as `enabledModels` (pi's `provider/id` patterns).

use std::sync::Arc;

use pi_ai::Model;
use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::fuzzy::fuzzy_filter;
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::theme::{Theme, Token};

use super::{Action, Outcome, SlotComponent, border, default_keys, fit, window_start};
use crate::config::ConfigError;

/// Rows shown at once.
const VISIBLE: usize = 8;

/// Saves the enabled models (`provider/id`, in order).
pub type SaveScope = Box<dyn FnMut(&[String]) -> Result<(), ConfigError>>;

/// pi's `ScopedModelsSelectorComponent`.
pub struct ScopedModels {
    theme: Arc<Theme>,
    models: Vec<Model>,
    all_ids: Vec<String>,
    /// `None`: every model is enabled (no scope).
    enabled: Option<Vec<String>>,
    input: Input,
    /// Ids shown, in order.
    shown: Vec<String>,
    selected: usize,
    dirty: bool,
    save: SaveScope,
    error: Option<String>,
    keys: Arc<Keybindings>,
}

fn full_id(model: &Model) -> String {
    format!("{}/{}", model.provider.as_str(), model.id)
}

impl ScopedModels {
    /// A selector over `models` with `enabled` (`provider/id`; empty: all).
    pub fn new(
        theme: Arc<Theme>,
        models: Vec<Model>,
        enabled: Vec<String>,
        save: SaveScope,
    ) -> Self {
        let all_ids: Vec<String> = models.iter().map(full_id).collect();
        let mut selector = Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            models,
            all_ids,
            enabled: (!enabled.is_empty()).then_some(enabled),
            shown: Vec::new(),
            selected: 0,
            dirty: false,
            save,
            error: None,
            keys: default_keys(),
        };
        selector.refresh();
        selector
    }

    /// Reads keys with `keys` (`tui.select.*`, `app.models.*`, the
    /// search's `tui.editor.*`; Ctrl+C and Esc stay pi's fixed keys).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.input.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }

    fn is_enabled(&self, id: &str) -> bool {
        self.enabled
            .as_ref()
            .is_none_or(|e| e.iter().any(|x| x == id))
    }

    fn model(&self, id: &str) -> Option<&Model> {
        self.all_ids
            .iter()
            .position(|x| x == id)
            .map(|i| &self.models[i])
    }

    fn refresh(&mut self) {
        let sorted: Vec<String> = match &self.enabled {
            None => self.all_ids.clone(),
            Some(enabled) => enabled
                .iter()
                .filter(|id| self.all_ids.contains(id))
                .cloned()
                .chain(
                    self.all_ids
                        .iter()
                        .filter(|id| !enabled.contains(id))
                        .cloned(),
                )
                .collect(),
        };
        let query = self.input.value().to_owned();
        self.shown = fuzzy_filter(sorted, &query, |id| {
            self.model(id)
                .map(|m| format!("{} {}", m.id, m.provider.as_str()))
                .unwrap_or_default()
        });
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
    }

    fn enable(&mut self, targets: &[String]) {
        let Some(enabled) = &mut self.enabled else {
            return;
        };
        for id in targets {
            if !enabled.contains(id) {
                enabled.push(id.clone());
            }
        }
        if enabled.len() == self.all_ids.len() {
            self.enabled = None;
        }
    }

    fn clear(&mut self, targets: Option<&[String]>) {
        self.enabled = Some(match (&self.enabled, targets) {
            (None, Some(targets)) => self
                .all_ids
                .iter()
                .filter(|id| !targets.contains(id))
                .cloned()
                .collect(),
            (None, None) => Vec::new(),
            (Some(enabled), Some(targets)) => enabled
                .iter()
                .filter(|id| !targets.contains(id))
                .cloned()
                .collect(),
            (Some(_), None) => Vec::new(),
        });
    }

    fn toggle(&mut self, id: &str) {
        match &mut self.enabled {
            None => self.enabled = Some(vec![id.to_owned()]),
            Some(enabled) => match enabled.iter().position(|x| x == id) {
                Some(at) => {
                    enabled.remove(at);
                }
                None => enabled.push(id.to_owned()),
            },
        }
    }

    fn reorder(&mut self, up: bool) {
        let Some(id) = self.shown.get(self.selected).cloned() else {
            return;
        };
        let Some(enabled) = &mut self.enabled else {
            return;
        };
        let Some(at) = enabled.iter().position(|x| *x == id) else {
            return;
        };
        let to = if up { at.checked_sub(1) } else { Some(at + 1) };
        if let Some(to) = to.filter(|&t| t < enabled.len()) {
            enabled.swap(at, to);
            self.selected = if up {
                self.selected.saturating_sub(1)
            } else {
                self.selected + 1
            };
            self.dirty = true;
            self.refresh();
        }
    }

    fn footer(&self) -> String {
        let count = match &self.enabled {
            None => "all enabled".to_owned(),
            Some(e) => format!("{}/{} enabled", e.len(), self.all_ids.len()),
        };
        let parts = [
            "enter toggle",
            "ctrl+a all",
            "ctrl+x clear",
            "ctrl+p provider",
            "alt+up/alt+down reorder",
            "ctrl+s save",
            &count,
        ]
        .join(" · ");
        let t = &self.theme;
        if self.dirty {
            format!(
                "{}{}",
                t.fg(Token::Dim, &format!("  {parts} ")),
                t.fg(Token::Warning, "(unsaved)")
            )
        } else {
            t.fg(Token::Dim, &format!("  {parts}"))
        }
    }
}

impl SlotComponent<Action> for ScopedModels {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let len = self.shown.len();
        let searching = !self.input.value().is_empty();
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        match key.code {
            _ if is("tui.select.up") => {
                if len > 0 {
                    self.selected = self.selected.checked_sub(1).unwrap_or(len - 1);
                }
            }
            _ if is("tui.select.down") => {
                if len > 0 {
                    self.selected = (self.selected + 1) % len;
                }
            }
            _ if is("app.models.reorderUp") => self.reorder(true),
            _ if is("app.models.reorderDown") => self.reorder(false),
            _ if is("tui.select.confirm") => {
                if let Some(id) = self.shown.get(self.selected).cloned() {
                    self.toggle(&id);
                    self.dirty = true;
                    self.refresh();
                }
            }
            _ if is("app.models.enableAll") => {
                let targets = if searching {
                    self.shown.clone()
                } else {
                    self.all_ids.clone()
                };
                self.enable(&targets);
                self.dirty = true;
                self.refresh();
            }
            _ if is("app.models.clearAll") => {
                let targets = searching.then(|| self.shown.clone());
                self.clear(targets.as_deref());
                self.dirty = true;
                self.refresh();
            }
            _ if is("app.models.toggleProvider") => {
                if let Some(provider) = self
                    .shown
                    .get(self.selected)
                    .and_then(|id| self.model(id))
                    .map(|m| m.provider.as_str().to_owned())
                {
                    let ids: Vec<String> = self
                        .models
                        .iter()
                        .filter(|m| m.provider.as_str() == provider)
                        .map(full_id)
                        .collect();
                    if ids.iter().all(|id| self.is_enabled(id)) {
                        self.clear(Some(&ids));
                    } else {
                        self.enable(&ids);
                    }
                    self.dirty = true;
                    self.refresh();
                }
            }
            _ if is("app.models.save") => {
                let list = self.enabled.clone().unwrap_or_default();
                match (self.save)(&list) {
                    Ok(()) => self.dirty = false,
                    Err(e) => self.error = Some(e.to_string()),
                }
            }
            // pi's scoped-models selector has Ctrl+C and Esc fixed.
            KeyCode::Char('c') if ctrl => {
                if !searching {
                    return Outcome::Cancel;
                }
                self.input.set_value("");
                self.refresh();
            }
            KeyCode::Esc => return Outcome::Cancel,
            _ => {
                if self.input.handle_key(key) {
                    self.refresh();
                }
            }
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = Arc::clone(&self.theme);
        let mut lines = vec![
            border(&t, width),
            String::new(),
            t.fg(Token::Accent, &t.bold("Model Configuration")),
            t.fg(Token::Muted, "Session-only. ctrl+s to save to settings."),
            String::new(),
            self.input.render(width),
            String::new(),
        ];
        let len = self.shown.len();
        if len == 0 {
            lines.push(t.fg(Token::Muted, "  No matching models"));
        } else {
            let start = window_start(self.selected, VISIBLE, len);
            let end = (start + VISIBLE).min(len);
            for at in start..end {
                let id = &self.shown[at];
                let Some(model) = self.model(id) else {
                    continue;
                };
                let selected = at == self.selected;
                let prefix = if selected {
                    t.fg(Token::Accent, "→ ")
                } else {
                    "  ".to_owned()
                };
                let name = if selected {
                    t.fg(Token::Accent, &model.id)
                } else {
                    model.id.clone()
                };
                let badge = t.fg(Token::Muted, &format!(" [{}]", model.provider.as_str()));
                let status = match &self.enabled {
                    None => String::new(),
                    Some(_) if self.is_enabled(id) => t.fg(Token::Success, " ✓"),
                    Some(_) => t.fg(Token::Dim, " ✗"),
                };
                lines.push(format!("{prefix}{name}{badge}{status}"));
            }
            if start > 0 || end < len {
                lines.push(t.fg(Token::Muted, &format!("  ({}/{len})", self.selected + 1)));
            }
            if let Some(model) = self.shown.get(self.selected).and_then(|id| self.model(id)) {
                lines.push(String::new());
                lines.push(t.fg(Token::Muted, &format!("  Model Name: {}", model.name)));
            }
        }
        if let Some(error) = &self.error {
            lines.push(t.fg(Token::Error, &format!("  {error}")));
        }
        lines.push(String::new());
        lines.push(self.footer());
        lines.push(border(&t, width));
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        self.input.paste(text);
        self.refresh();
    }
}
