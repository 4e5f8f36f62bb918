//! `/settings`: pi's settings list in place of the editor. A search line, rows
//! `→ Label<pad>  value` (10 visible), the selected row's description and a hint.
//! Enter or Space cycles a row's values or opens its submenu (a list with the current
//! value selected; the theme submenu previews each theme as the selection moves).

use std::sync::Arc;

use pi_tui::Component;
use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::keybindings::Keybindings;
use pi_tui::select::{SelectItem, SelectList};
use pi_tui::slot::{Outcome, SlotComponent};
use pi_tui::text::{truncate_to_width, visible_width, wrap};
use pi_tui::theme::{Theme, Token};

use super::action::Action;

const MAX_VISIBLE: usize = 10;

/// One row of the list.
#[derive(Debug, Clone)]
pub struct SettingRow {
    /// pi's id (`autocompact`, `theme`, ...).
    pub id: &'static str,
    /// The label.
    pub label: &'static str,
    /// Shown below the list when the row is selected.
    pub description: &'static str,
    /// The current value as shown.
    pub value: String,
    /// Values Enter cycles through; empty when the row opens a submenu.
    pub values: Vec<String>,
    /// The submenu: title, description and (value, description) options.
    pub submenu: Option<Submenu>,
}

/// A row's submenu.
#[derive(Debug, Clone)]
pub struct Submenu {
    /// Bold accent title.
    pub title: &'static str,
    /// Muted line under the title.
    pub description: &'static str,
    /// The options: value and optional description.
    pub options: Vec<(String, Option<String>)>,
}

/// What the app must do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsOutcome {
    /// Nothing (redraw).
    None,
    /// Esc: the list is closed.
    Close,
    /// A row's value changed: apply and save it.
    Change(&'static str, String),
    /// The selection in a submenu moved (or it was cancelled): show this value without
    /// saving it (theme preview).
    Preview(&'static str, String),
}

struct OpenSubmenu {
    row: usize,
    list: SelectList,
    original: String,
}

/// The settings list.
pub struct SettingsView {
    rows: Vec<SettingRow>,
    query: String,
    /// Index into the filtered rows.
    selected: usize,
    submenu: Option<OpenSubmenu>,
}

/// True when the characters of `query` appear in `text` in order (case-insensitive).
fn fuzzy(text: &str, query: &str) -> bool {
    let mut chars = text.chars().flat_map(char::to_lowercase);
    query
        .chars()
        .flat_map(char::to_lowercase)
        .all(|q| chars.any(|c| c == q))
}

impl SettingsView {
    /// A list of `rows`, the first selected.
    pub fn new(rows: Vec<SettingRow>) -> Self {
        Self {
            rows,
            query: String::new(),
            selected: 0,
            submenu: None,
        }
    }

    fn filtered(&self) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|&i| fuzzy(self.rows[i].label, &self.query))
            .collect()
    }

    /// Handles a key.
    pub fn handle_key(
        &mut self,
        key: &KeyEvent,
        kb: &Keybindings,
        theme: &Arc<Theme>,
    ) -> SettingsOutcome {
        if let Some(open) = &mut self.submenu {
            let id = self.rows[open.row].id;
            if kb.matches(key, "tui.select.cancel") {
                let original = open.original.clone();
                self.submenu = None;
                return SettingsOutcome::Preview(id, original);
            }
            if kb.matches(key, "tui.select.confirm") {
                let value = open.list.selected().map(|i| i.value.clone());
                let row = open.row;
                self.submenu = None;
                return match value {
                    Some(value) => {
                        self.rows[row].value.clone_from(&value);
                        SettingsOutcome::Change(id, value)
                    }
                    None => SettingsOutcome::None,
                };
            }
            let moved = if kb.matches(key, "tui.select.up") {
                open.list.up();
                true
            } else if kb.matches(key, "tui.select.down") {
                open.list.down();
                true
            } else {
                false
            };
            return match open.list.selected() {
                Some(item) if moved => SettingsOutcome::Preview(id, item.value.clone()),
                _ => SettingsOutcome::None,
            };
        }
        let shown = self.filtered();
        if kb.matches(key, "tui.select.up") {
            if !shown.is_empty() {
                self.selected = self.selected.checked_sub(1).unwrap_or(shown.len() - 1);
            }
        } else if kb.matches(key, "tui.select.down") {
            if !shown.is_empty() {
                self.selected = (self.selected + 1) % shown.len();
            }
        } else if kb.matches(key, "tui.select.confirm")
            || (key.code == KeyCode::Char(' ') && key.modifiers == KeyModifiers::NONE)
        {
            if let Some(&row) = shown.get(self.selected) {
                return self.activate(row, theme);
            }
        } else if kb.matches(key, "tui.select.cancel") {
            return SettingsOutcome::Close;
        } else if kb.matches(key, "tui.editor.deleteCharBackward") {
            self.query.pop();
            self.selected = 0;
        } else if let KeyCode::Char(c) = key.code
            && (key.modifiers - KeyModifiers::SHIFT).is_empty()
            && !c.is_control()
        {
            self.query.push(c);
            self.selected = 0;
        }
        SettingsOutcome::None
    }

    fn activate(&mut self, row: usize, theme: &Arc<Theme>) -> SettingsOutcome {
        let current = &self.rows[row];
        if let Some(submenu) = &current.submenu {
            let items: Vec<SelectItem> = submenu
                .options
                .iter()
                .map(|(value, description)| {
                    let item = SelectItem::new(value.clone());
                    match description {
                        Some(d) => item.with_description(d.clone()),
                        None => item,
                    }
                })
                .collect();
            let at = submenu
                .options
                .iter()
                .position(|(v, _)| *v == current.value)
                .unwrap_or(0);
            let mut list = SelectList::new(
                Arc::clone(theme),
                items,
                MAX_VISIBLE.min(submenu.options.len()).max(1),
            );
            list.set_selected(at);
            self.submenu = Some(OpenSubmenu {
                row,
                list,
                original: current.value.clone(),
            });
            return SettingsOutcome::None;
        }
        if current.values.is_empty() {
            return SettingsOutcome::None;
        }
        let at = current.values.iter().position(|v| *v == current.value);
        let next = current.values[at.map_or(0, |i| (i + 1) % current.values.len())].clone();
        let id = current.id;
        self.rows[row].value.clone_from(&next);
        SettingsOutcome::Change(id, next)
    }

    /// The lines for `width`, between two border rules.
    pub fn render(&mut self, theme: &Theme, width: usize) -> Vec<String> {
        let rule = theme.fg(Token::Border, &"─".repeat(width.max(1)));
        let mut lines = vec![rule.clone()];
        match &mut self.submenu {
            Some(open) => {
                let Some(menu) = self.rows[open.row].submenu.as_ref() else {
                    return lines;
                };
                lines.push(theme.bold(&theme.fg(Token::Accent, menu.title)));
                if !menu.description.is_empty() {
                    lines.push(String::new());
                    lines.push(theme.fg(Token::Muted, menu.description));
                }
                lines.push(String::new());
                lines.extend(open.list.render(width));
                lines.push(String::new());
                lines.push(theme.fg(Token::Dim, "  Enter to select · Esc to go back"));
            }
            None => self.render_list(theme, width, &mut lines),
        }
        lines.push(rule);
        lines
            .into_iter()
            .map(|l| truncate_to_width(&l, width, ""))
            .collect()
    }

    fn render_list(&self, theme: &Theme, width: usize, lines: &mut Vec<String>) {
        let cursor = if theme.has_color() {
            "\x1b[7m \x1b[27m".to_owned()
        } else {
            "█".to_owned()
        };
        lines.push(format!("> {}{cursor}", self.query));
        lines.push(String::new());
        let hint = |lines: &mut Vec<String>| {
            lines.push(String::new());
            lines.push(theme.fg(
                Token::Dim,
                "  Type to search · Enter/Space to change · Esc to cancel",
            ));
        };
        let shown = self.filtered();
        if shown.is_empty() {
            lines.push(theme.fg(Token::Dim, "  No matching settings"));
            hint(lines);
            return;
        }
        let selected = self.selected.min(shown.len() - 1);
        let start = selected
            .saturating_sub(MAX_VISIBLE / 2)
            .min(shown.len().saturating_sub(MAX_VISIBLE));
        let end = (start + MAX_VISIBLE).min(shown.len());
        let label_width = self
            .rows
            .iter()
            .map(|r| visible_width(r.label))
            .max()
            .unwrap_or(0)
            .min(30);
        for (i, &row) in shown.iter().enumerate().take(end).skip(start) {
            let row = &self.rows[row];
            let is_selected = i == selected;
            let pad = " ".repeat(label_width.saturating_sub(visible_width(row.label)));
            let label = format!("{}{pad}", row.label);
            let value_width = width.saturating_sub(2 + label_width + 2 + 2);
            let value = truncate_to_width(&row.value, value_width, "");
            let line = if is_selected {
                format!(
                    "{}{}  {}",
                    theme.fg(Token::Accent, "→ "),
                    theme.fg(Token::Accent, &label),
                    theme.fg(Token::Accent, &value)
                )
            } else {
                format!("  {label}  {}", theme.fg(Token::Muted, &value))
            };
            lines.push(line);
        }
        if start > 0 || end < shown.len() {
            let info = format!("  ({}/{})", selected + 1, shown.len());
            lines.push(theme.fg(
                Token::Dim,
                &truncate_to_width(&info, width.saturating_sub(2), ""),
            ));
        }
        let description = self.rows[shown[selected]].description;
        if !description.is_empty() {
            lines.push(String::new());
            for line in wrap(description, width.saturating_sub(4).max(1)) {
                lines.push(theme.fg(Token::Dim, &format!("  {line}")));
            }
        }
        hint(lines);
    }
}

/// `/settings` in the editor slot: the list with the key bindings and the
/// screen's theme (a previewed theme redraws it).
pub(crate) struct SettingsDialog {
    view: SettingsView,
    keys: Arc<Keybindings>,
    theme: Arc<Theme>,
}

impl SettingsDialog {
    /// Shows `view` with the key bindings `keys` in `theme`.
    pub(crate) fn new(view: SettingsView, keys: Arc<Keybindings>, theme: Arc<Theme>) -> Self {
        Self { view, keys, theme }
    }
}

impl SlotComponent<Action> for SettingsDialog {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<Action> {
        match self.view.handle_key(key, &self.keys, &self.theme) {
            SettingsOutcome::None => Outcome::Stay,
            SettingsOutcome::Close => Outcome::Cancel,
            SettingsOutcome::Change(id, value) => Outcome::Emit(Action::Setting(id, value)),
            SettingsOutcome::Preview(id, value) => Outcome::Emit(Action::PreviewSetting(id, value)),
        }
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        self.view.render(&self.theme, width)
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.theme = Arc::clone(theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tui::theme::ColorMode;

    fn rows() -> Vec<SettingRow> {
        let row = |id, label, value: &str, values: &[&str]| SettingRow {
            id,
            label,
            description: "What this setting does, in a sentence long enough to wrap at forty columns.",
            value: value.to_owned(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
            submenu: None,
        };
        vec![
            row("autocompact", "Auto-compact", "true", &["true", "false"]),
            row(
                "editor-padding",
                "Editor padding",
                "0",
                &["0", "1", "2", "3"],
            ),
            row(
                "steering-mode",
                "Steering mode",
                "one-at-a-time",
                &["one-at-a-time", "all"],
            ),
            SettingRow {
                submenu: Some(Submenu {
                    title: "Theme",
                    description: "Select color theme",
                    options: vec![("dark".to_owned(), None), ("light".to_owned(), None)],
                }),
                ..row("theme", "Theme", "dark", &[])
            },
        ]
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn list_search_cycle_and_submenu() {
        let kb = crate::keybindings::defaults();
        let theme = Arc::new(Theme::dark(ColorMode::NoColor));
        let mut view = SettingsView::new(rows());
        insta::assert_snapshot!("settings_list", view.render(&theme, 60).join("\n"));
        assert_eq!(
            view.handle_key(&key(KeyCode::Char(' ')), &kb, &theme),
            SettingsOutcome::Change("autocompact", "false".to_owned())
        );
        for c in "pad".chars() {
            view.handle_key(&key(KeyCode::Char(c)), &kb, &theme);
        }
        insta::assert_snapshot!(
            "settings_filtered_narrow",
            view.render(&theme, 40).join("\n")
        );
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb, &theme),
            SettingsOutcome::Change("editor-padding", "1".to_owned())
        );
        for _ in 0..3 {
            view.handle_key(&key(KeyCode::Backspace), &kb, &theme);
        }
        view.handle_key(&key(KeyCode::Up), &kb, &theme);
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb, &theme),
            SettingsOutcome::None
        );
        insta::assert_snapshot!("settings_theme_submenu", view.render(&theme, 60).join("\n"));
        assert_eq!(
            view.handle_key(&key(KeyCode::Down), &kb, &theme),
            SettingsOutcome::Preview("theme", "light".to_owned())
        );
        assert_eq!(
            view.handle_key(&key(KeyCode::Esc), &kb, &theme),
            SettingsOutcome::Preview("theme", "dark".to_owned())
        );
        assert_eq!(
            view.handle_key(&key(KeyCode::Esc), &kb, &theme),
            SettingsOutcome::Close
        );
        for w in 0..70 {
            for line in view.render(&theme, w) {
                assert!(visible_width(&line) <= w.max(1), "{w}: {line:?}");
            }
        }
    }
}
