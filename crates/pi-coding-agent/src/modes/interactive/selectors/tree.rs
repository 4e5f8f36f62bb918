//! The session tree navigator (`/tree`, double Esc): every entry of the
//! session with `├─ └─ │` gutters, `•` on the active path, folds, labels
//! (Shift+L), filters (Ctrl+D/T/U/L/A, Ctrl+O cycles) and type-to-search.
//! Enter asks the UI to move the leaf to the entry.

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Datelike, Local};
use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::text::truncate_to_width;
use pi_tui::theme::{Theme, Token};

use super::tree_rows::{Display, Filter, Item, Layout, View, display_order, layout};
use super::{Action, Outcome, SlotComponent, border, default_keys, fit, id_hint, key_text};
use crate::session::SessionError;

/// Saves a label (`None` clears it).
pub type Labeler = Box<dyn FnMut(&str, Option<&str>) -> Result<(), SessionError>>;

/// pi's `TreeSelectorComponent`.
pub struct TreeSelector {
    theme: Arc<Theme>,
    items: Vec<Item>,
    order: Vec<usize>,
    active: HashSet<usize>,
    leaf: Option<usize>,
    filter: Filter,
    query: String,
    folded: HashSet<usize>,
    layout: Layout,
    selected: usize,
    label_times: bool,
    label_edit: Option<(usize, Input)>,
    labeler: Labeler,
    error: Option<String>,
    /// Terminal rows at the last render (the page size follows it).
    rows_seen: usize,
    keys: Arc<Keybindings>,
}

impl TreeSelector {
    /// A tree over `items` with the leaf `leaf_id`, the selection on
    /// `selected_id` (default: the leaf).
    pub fn new(
        theme: Arc<Theme>,
        items: Vec<Item>,
        leaf_id: Option<&str>,
        selected_id: Option<&str>,
        filter: Filter,
        labeler: Labeler,
    ) -> Self {
        let find = |id: Option<&str>| id.and_then(|id| items.iter().position(|i| i.id == id));
        let leaf = find(leaf_id);
        let wanted = find(selected_id).or(leaf);
        let mut active = HashSet::new();
        let mut at = leaf;
        while let Some(i) = at {
            if !active.insert(i) {
                break;
            }
            at = items[i].parent;
        }
        let order = display_order(&items, leaf);
        let mut tree = Self {
            theme,
            items,
            order,
            active,
            leaf,
            filter,
            query: String::new(),
            folded: HashSet::new(),
            layout: Layout::default(),
            selected: 0,
            label_times: false,
            label_edit: None,
            labeler,
            error: None,
            rows_seen: 24,
            keys: default_keys(),
        };
        tree.relayout(wanted);
        tree
    }

    fn selected_item(&self) -> Option<usize> {
        self.layout.rows.get(self.selected).map(|r| r.item)
    }

    /// Lays the rows out again, keeping the selection on `keep` (or its
    /// nearest shown ancestor).
    fn relayout(&mut self, keep: Option<usize>) {
        let tokens: Vec<String> = self
            .query
            .to_lowercase()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let view = View {
            filter: self.filter,
            tokens: &tokens,
            folded: &self.folded,
            leaf: self.leaf,
        };
        self.layout = layout(&self.items, &self.order, &view);
        self.selected = self.layout.nearest_row(&self.items, keep);
    }

    fn refilter(&mut self) {
        let keep = self.selected_item();
        self.folded.clear();
        self.relayout(keep);
    }

    fn set_filter(&mut self, filter: Filter, toggle: bool) {
        self.filter = if toggle && self.filter == filter {
            Filter::Default
        } else {
            filter
        };
        self.refilter();
    }

    fn cycle_filter(&mut self, backward: bool) {
        let modes = Filter::CYCLE;
        let at = modes.iter().position(|f| *f == self.filter).unwrap_or(0);
        let next = if backward {
            (at + modes.len() - 1) % modes.len()
        } else {
            (at + 1) % modes.len()
        };
        self.set_filter(modes[next], false);
    }

    fn visible_lines(rows: usize) -> usize {
        (rows / 2).max(5)
    }

    fn label_key(&mut self, key: &KeyEvent) {
        let Some((item, input)) = &mut self.label_edit else {
            return;
        };
        let keys = Arc::clone(&self.keys);
        if keys.matches(key, "tui.select.confirm") {
            {
                let item = *item;
                let value = input.value().trim().to_owned();
                let label = Some(value).filter(|v| !v.is_empty());
                self.label_edit = None;
                let id = self.items[item].id.clone();
                match (self.labeler)(&id, label.as_deref()) {
                    Ok(()) => {
                        self.items[item].label_time =
                            label.as_ref().map(|_| chrono::Utc::now().to_rfc3339());
                        self.items[item].label = label;
                        self.relayout(Some(item));
                    }
                    Err(e) => self.error = Some(e.to_string()),
                }
            }
        } else if keys.matches(key, "tui.select.cancel") {
            self.label_edit = None;
        } else {
            input.handle_key(key);
        }
    }

    fn fold_or_branch(&mut self, up: bool) {
        let Some(item) = self.selected_item() else {
            return;
        };
        if up && self.layout.foldable(item) && !self.folded.contains(&item) {
            self.folded.insert(item);
            self.relayout(Some(item));
        } else if !up && self.folded.remove(&item) {
            self.relayout(Some(item));
        } else {
            self.selected = self.layout.branch_jump(self.selected, up);
        }
    }

    fn content(&self, item: &Item, selected: bool) -> String {
        let t = &self.theme;
        let user = || t.fg(Token::Accent, "user: ");
        let assistant = || t.fg(Token::Success, "assistant: ");
        let text = match &item.display {
            Display::User(text) => format!("{}{text}", user()),
            Display::Assistant(text) => format!("{}{text}", assistant()),
            Display::Aborted => format!("{}{}", assistant(), t.fg(Token::Muted, "(aborted)")),
            Display::Failed(e) => format!("{}{}", assistant(), t.fg(Token::Error, e)),
            Display::Empty => format!("{}{}", assistant(), t.fg(Token::Muted, "(no content)")),
            Display::Tool(call) => t.fg(Token::Muted, call),
            Display::Bash(cmd) => t.fg(Token::Dim, &format!("[bash]: {cmd}")),
            Display::Role(role) => t.fg(Token::Dim, &format!("[{role}]")),
            Display::CustomMessage(kind, text) => {
                format!(
                    "{}{text}",
                    t.fg(Token::CustomMessageLabel, &format!("[{kind}]: "))
                )
            }
            Display::Compaction(k) => {
                t.fg(Token::BorderAccent, &format!("[compaction: {k}k tokens]"))
            }
            Display::BranchSummary(text) => {
                format!("{}{text}", t.fg(Token::Warning, "[branch summary]: "))
            }
            Display::Tag(tag) => t.fg(Token::Dim, tag),
            Display::Title(Some(name)) => t.fg(Token::Dim, &format!("[title: {name}]")),
            Display::Title(None) => format!(
                "{}{}{}",
                t.fg(Token::Dim, "[title: "),
                t.italic(&t.fg(Token::Dim, "empty")),
                t.fg(Token::Dim, "]")
            ),
        };
        if selected { t.bold(&text) } else { text }
    }

    fn prefix(&self, row: &super::tree_rows::Row) -> String {
        let display_indent = if self.layout.multiple_roots {
            row.indent.saturating_sub(1)
        } else {
            row.indent
        };
        let connector = row.connector && !row.virtual_root_child;
        let connector_at = if connector {
            display_indent.checked_sub(1)
        } else {
            None
        };
        let folded = self.folded.contains(&row.item);
        let mut prefix = String::new();
        for i in 0..display_indent * 3 {
            let (level, pos) = (i / 3, i % 3);
            if let Some(g) = row.gutters.iter().find(|g| g.position == level) {
                prefix.push(if pos == 0 && g.show { '│' } else { ' ' });
            } else if connector_at == Some(level) {
                prefix.push(match pos {
                    0 if row.is_last => '└',
                    0 => '├',
                    1 if folded => '⊞',
                    1 if self.layout.foldable(row.item) => '⊟',
                    1 => '─',
                    _ => ' ',
                });
            } else {
                prefix.push(' ');
            }
        }
        prefix
    }

    fn row_line(&self, at: usize, width: usize) -> String {
        let t = &self.theme;
        let row = &self.layout.rows[at];
        let item = &self.items[row.item];
        let selected = at == self.selected;
        let cursor = if selected {
            t.fg(Token::Accent, "› ")
        } else {
            "  ".to_owned()
        };
        let connector = row.connector && !row.virtual_root_child;
        let fold = if self.folded.contains(&row.item) && !connector {
            t.fg(Token::Accent, "⊞ ")
        } else {
            String::new()
        };
        let path = if self.active.contains(&row.item) {
            t.fg(Token::Accent, "• ")
        } else {
            String::new()
        };
        let label = item
            .label
            .as_ref()
            .map(|l| t.fg(Token::Warning, &format!("[{l}] ")))
            .unwrap_or_default();
        let time = match (&item.label, &item.label_time) {
            (Some(_), Some(time)) if self.label_times => {
                t.fg(Token::Muted, &format!("{} ", label_time(time)))
            }
            _ => String::new(),
        };
        let mut line = format!(
            "{cursor}{}{fold}{path}{label}{time}{}",
            t.fg(Token::Dim, &self.prefix(row)),
            self.content(item, selected)
        );
        if selected {
            line = t.bg(Token::SelectedBg, &line);
        }
        truncate_to_width(&line, width, "")
    }

    fn status(&self) -> String {
        let mut tags = self.filter.status().to_owned();
        if self.label_times {
            tags.push_str(" [+label time]");
        }
        tags
    }
}

/// pi's label time: `HH:MM` today, `M/D HH:MM` this year, else `YY/M/D HH:MM`.
fn label_time(iso: &str) -> String {
    let Ok(time) = DateTime::parse_from_rfc3339(iso) else {
        return String::new();
    };
    let time = time.with_timezone(&Local);
    let now = Local::now();
    let clock = time.format("%H:%M").to_string();
    if time.date_naive() == now.date_naive() {
        clock
    } else if time.year() == now.year() {
        format!("{}/{} {clock}", time.month(), time.day())
    } else {
        format!(
            "{:02}/{}/{} {clock}",
            time.year() % 100,
            time.month(),
            time.day()
        )
    }
}

impl TreeSelector {
    /// Reads keys with `keys` (`tui.select.*`, `app.tree.*`, the label's
    /// and search's `tui.editor.*`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for TreeSelector {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        if self.label_edit.is_some() {
            self.label_key(key);
            return Outcome::Stay;
        }
        self.error = None;
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let len = self.layout.rows.len();
        let page = Self::visible_lines(self.last_rows());
        // pi's order of checks (tree-selector's handleInput).
        if is("tui.select.up") {
            if len > 0 {
                self.selected = self.selected.checked_sub(1).unwrap_or(len - 1);
            }
        } else if is("tui.select.down") {
            if len > 0 {
                self.selected = (self.selected + 1) % len;
            }
        } else if is("app.tree.foldOrUp") {
            self.fold_or_branch(true);
        } else if is("app.tree.unfoldOrDown") {
            self.fold_or_branch(false);
        } else if is("tui.editor.cursorLeft") || is("tui.select.pageUp") {
            self.selected = self.selected.saturating_sub(page);
        } else if is("tui.editor.cursorRight") || is("tui.select.pageDown") {
            self.selected = (self.selected + page).min(len.saturating_sub(1));
        } else if is("tui.select.confirm") {
            if let Some(item) = self.selected_item() {
                return Outcome::Done(Action::TreeTarget(self.items[item].id.clone()));
            }
        } else if is("tui.select.cancel") {
            if self.query.is_empty() {
                return Outcome::Cancel;
            }
            self.query.clear();
            self.refilter();
        } else if is("app.tree.filter.default") {
            self.set_filter(Filter::Default, false);
        } else if is("app.tree.filter.noTools") {
            self.set_filter(Filter::NoTools, true);
        } else if is("app.tree.filter.userOnly") {
            self.set_filter(Filter::UserOnly, true);
        } else if is("app.tree.filter.labeledOnly") {
            self.set_filter(Filter::LabeledOnly, true);
        } else if is("app.tree.filter.all") {
            self.set_filter(Filter::All, true);
        } else if is("app.tree.filter.cycleBackward") {
            self.cycle_filter(true);
        } else if is("app.tree.filter.cycleForward") {
            self.cycle_filter(false);
        } else if is("tui.editor.deleteCharBackward") {
            if self.query.pop().is_some() {
                self.refilter();
            }
        } else if is("app.tree.editLabel") {
            if let Some(item) = self.selected_item() {
                let mut input = Input::new(Arc::clone(&self.theme));
                input.set_keybindings(Arc::clone(&keys));
                input.set_value(self.items[item].label.as_deref().unwrap_or_default());
                self.label_edit = Some((item, input));
            }
        } else if is("app.tree.toggleLabelTimestamp") {
            self.label_times = !self.label_times;
        } else if let KeyCode::Char(c) = key.code
            && !ctrl
            && !alt
            && !c.is_control()
        {
            self.query.push(c);
            self.refilter();
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, rows: usize) -> Vec<String> {
        self.rows_seen = rows;
        let t = Arc::clone(&self.theme);
        // pi's help line, with the keys bound now.
        let k = |id: &str| key_text(&self.keys, id);
        let filters = [
            "app.tree.filter.default",
            "app.tree.filter.noTools",
            "app.tree.filter.userOnly",
            "app.tree.filter.labeledOnly",
            "app.tree.filter.all",
        ]
        .map(k)
        .join("/");
        let help = format!(
            "  ↑/↓: move. ←/→: page. ^←/^→ or Alt+←/Alt+→: fold/branch. {}: label. {filters}: filters ({}/{} cycle). {}: label time",
            k("app.tree.editLabel"),
            k("app.tree.filter.cycleForward"),
            k("app.tree.filter.cycleBackward"),
            k("app.tree.toggleLabelTimestamp"),
        );
        let search = if self.query.is_empty() {
            format!("  {}", t.fg(Token::Muted, "Type to search:"))
        } else {
            format!(
                "  {} {}",
                t.fg(Token::Muted, "Type to search:"),
                t.fg(Token::Accent, &self.query)
            )
        };
        let mut lines = vec![
            String::new(),
            border(&t, width),
            format!(" {}", t.bold("  Session Tree")),
            t.fg(Token::Muted, &truncate_to_width(&help, width, "...")),
            search,
            border(&t, width),
            String::new(),
        ];
        if let Some((_, input)) = &self.label_edit {
            lines.push(format!(
                "  {}",
                t.fg(Token::Muted, "Label (empty to remove):")
            ));
            lines.push(format!("  {}", input.render(width.saturating_sub(2))));
            lines.push(format!(
                "  {}  {}",
                id_hint(&t, &self.keys, "tui.select.confirm", "save"),
                id_hint(&t, &self.keys, "tui.select.cancel", "cancel")
            ));
        } else if self.layout.rows.is_empty() {
            lines.push(t.fg(Token::Muted, "  No entries found"));
            lines.push(t.fg(Token::Muted, &format!("  (0/0){}", self.status())));
        } else {
            let len = self.layout.rows.len();
            let visible = Self::visible_lines(rows);
            let start = super::window_start(self.selected, visible, len);
            for at in start..(start + visible).min(len) {
                lines.push(self.row_line(at, width));
            }
            lines.push(t.fg(
                Token::Muted,
                &format!("  ({}/{len}){}", self.selected + 1, self.status()),
            ));
        }
        if let Some(error) = &self.error {
            lines.push(t.fg(Token::Error, &format!("  {error}")));
        }
        lines.push(String::new());
        lines.push(border(&t, width));
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        match &mut self.label_edit {
            Some((_, input)) => input.paste(text),
            None => {
                self.query.push_str(&super::one_line(text));
                self.refilter();
            }
        }
    }
}

impl TreeSelector {
    fn last_rows(&self) -> usize {
        self.rows_seen
    }
}
