//! The session picker (`/resume`, `pi -r`): this folder's sessions or all
//! of them, threaded (forks under their parent), by recency or by search
//! relevance; rename (Ctrl+R) and delete with confirmation (Ctrl+D).
//! Rows come from the bounded summaries of `session::list` (head and tail
//! of each file), never from whole transcripts; a typed query searches the
//! files themselves, on worker threads, and the matches are listed as
//! they come ([`super::session_searcher`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use pi_tui::crossterm::event::KeyEvent;
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::text::{truncate_to_width, visible_width};
use pi_tui::theme::{Theme, Token};

pub use super::session_rows::format_age;
use super::session_rows::{Row, threaded};
use super::session_search::{Query, parse_query};
use super::session_searcher::{SearchStatus, SessionSearch, Waker, rank, target};
use super::{Action, Outcome, SlotComponent, default_keys, fit, id_hint, one_line, window_start};
use crate::session::{SessionError, SessionInfo};

/// Rows shown at once.
const VISIBLE: usize = 10;

/// Why a store could not rename or delete a session.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The session file could not be opened or written.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The file could not be removed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Where the picker gets more sessions and how it changes them.
pub trait SessionStore {
    /// Every project's sessions, newest first.
    fn list_all(&self) -> Vec<SessionInfo>;
    /// Names a session.
    fn rename(&self, path: &Path, name: &str) -> Result<(), StoreError>;
    /// Deletes a session file; true when it went to the trash.
    fn delete(&self, path: &Path) -> Result<bool, StoreError>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Threaded,
    Recent,
    Relevance,
}

/// pi's `SessionSelectorComponent`.
pub struct SessionPicker {
    theme: Arc<Theme>,
    store: Box<dyn SessionStore>,
    current_path: Option<PathBuf>,
    home: Option<PathBuf>,
    now: DateTime<Utc>,
    current: Vec<SessionInfo>,
    all: Option<Vec<SessionInfo>>,
    show_all: bool,
    sort: Sort,
    named_only: bool,
    show_path: bool,
    input: Input,
    rows: Vec<Row>,
    selected: usize,
    confirming_delete: Option<PathBuf>,
    status: Option<(bool, String)>,
    rename: Option<(PathBuf, Input)>,
    exit_on_cancel: bool,
    keys: Arc<Keybindings>,
    /// The running (or finished) search of the typed query.
    search: Option<SessionSearch>,
    /// How far it is.
    search_status: Option<SearchStatus>,
    /// Its matches so far: session position -> score.
    hits: HashMap<usize, f64>,
    /// Tells the screen to draw when the search found more.
    waker: Option<Waker>,
}

impl SessionPicker {
    /// A picker over `current` (this folder's sessions, newest first).
    pub fn new(
        theme: Arc<Theme>,
        current: Vec<SessionInfo>,
        current_path: Option<PathBuf>,
        store: Box<dyn SessionStore>,
    ) -> Self {
        let mut picker = Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            store,
            current_path,
            home: dirs::home_dir(),
            now: Utc::now(),
            current,
            all: None,
            show_all: false,
            sort: Sort::Threaded,
            named_only: false,
            show_path: false,
            rows: Vec::new(),
            selected: 0,
            confirming_delete: None,
            status: None,
            rename: None,
            exit_on_cancel: false,
            keys: default_keys(),
            search: None,
            search_status: None,
            hits: HashMap::new(),
            waker: None,
        };
        picker.refilter();
        picker
    }

    /// Calls `waker` (from another thread) when a running search has
    /// found more, so the screen draws it.
    pub fn with_waker(mut self, waker: Waker) -> Self {
        self.waker = Some(waker);
        self
    }

    /// Waits for the running search to end and lists its matches (tests,
    /// benchmarks).
    pub fn wait_for_search(&mut self) {
        if let Some(search) = &self.search {
            search.wait();
        }
        self.pull();
    }

    /// True while a search is running.
    pub fn searching(&self) -> bool {
        self.search_status.is_some_and(|s| !s.finished)
    }

    /// Esc leaves pi (the picker of `pi -r`, shown at startup).
    pub fn exit_on_cancel(mut self) -> Self {
        self.exit_on_cancel = true;
        self
    }

    /// Reads keys with `keys` (`tui.select.*`, `tui.input.tab`,
    /// `app.session.*`, the search's `tui.editor.*`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.input.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }

    /// Fixes "now" (for the ages; tests).
    pub fn with_now(mut self, now: DateTime<Utc>) -> Self {
        self.now = now;
        self
    }

    fn sessions(&self) -> &[SessionInfo] {
        if self.show_all {
            self.all.as_deref().unwrap_or_default()
        } else {
            &self.current
        }
    }

    /// Starts searching the sessions in scope for the typed query (the
    /// older search, if any, is cancelled), then lists what is known.
    fn research(&mut self) {
        self.search = None;
        self.search_status = None;
        self.hits.clear();
        let query = self.input.value();
        if !query.trim().is_empty() {
            let query = parse_query(query);
            // An invalid regex lists nothing (pi).
            if !matches!(query, Query::Regex(Err(_))) {
                let targets = self.sessions().iter().map(target).collect();
                self.search = Some(SessionSearch::start(targets, query, self.waker.clone()));
                self.pull();
            }
        }
        self.refilter();
    }

    /// Takes the search's new matches; true when the rows changed.
    fn pull(&mut self) -> bool {
        let Some(search) = &self.search else {
            return false;
        };
        let mut found = Vec::new();
        let status = search.take(&mut found);
        let changed = !found.is_empty() || Some(status) != self.search_status;
        self.search_status = Some(status);
        if !found.is_empty() {
            // The row under the cursor stays under it as matches come in.
            let selected = self.rows.get(self.selected).map(|r| r.index);
            self.hits.extend(found);
            self.refilter();
            if let Some(at) = selected.and_then(|i| self.rows.iter().position(|r| r.index == i)) {
                self.selected = at;
            }
        }
        changed
    }

    fn refilter(&mut self) {
        let blank = self.input.value().trim().is_empty();
        let sessions = self.sessions();
        let candidates: Vec<usize> = (0..sessions.len())
            .filter(|&i| {
                !self.named_only
                    || sessions[i]
                        .name
                        .as_deref()
                        .is_some_and(|n| !n.trim().is_empty())
            })
            .collect();
        let rows = if blank && self.sort == Sort::Threaded {
            threaded(sessions, &candidates)
        } else {
            let order = if blank {
                candidates
            } else {
                rank(sessions, candidates, &self.hits, self.sort == Sort::Recent)
            };
            order
                .into_iter()
                .map(|index| Row {
                    index,
                    depth: 0,
                    is_last: true,
                    continues: Vec::new(),
                })
                .collect()
        };
        self.rows = rows;
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
    }

    fn selected_session(&self) -> Option<&SessionInfo> {
        self.rows
            .get(self.selected)
            .and_then(|r| self.sessions().get(r.index))
    }

    fn is_current(&self, path: &Path) -> bool {
        self.current_path.as_deref() == Some(path)
    }

    fn toggle_scope(&mut self) {
        self.show_all = !self.show_all;
        if self.show_all && self.all.is_none() {
            self.all = Some(self.store.list_all());
        }
        self.selected = 0;
        self.research();
    }

    fn start_delete(&mut self) {
        let Some(path) = self.selected_session().map(|s| s.path.clone()) else {
            return;
        };
        if self.is_current(&path) {
            self.status = Some((
                true,
                "Cannot delete the currently active session".to_owned(),
            ));
            return;
        }
        self.confirming_delete = Some(path);
    }

    fn delete(&mut self, path: &Path) {
        match self.store.delete(path) {
            Ok(trashed) => {
                self.current.retain(|s| s.path != path);
                if let Some(all) = &mut self.all {
                    all.retain(|s| s.path != path);
                }
                let message = if trashed {
                    "Session moved to trash"
                } else {
                    "Session deleted"
                };
                self.status = Some((false, message.to_owned()));
                self.research();
            }
            Err(e) => self.status = Some((true, format!("Failed to delete session: {e}"))),
        }
    }

    fn rename_key(&mut self, key: &KeyEvent) -> Outcome {
        let Some((path, input)) = &mut self.rename else {
            return Outcome::Stay;
        };
        let keys = Arc::clone(&self.keys);
        if keys.matches(key, "tui.select.cancel") {
            self.rename = None;
            return Outcome::Stay;
        }
        if keys.matches(key, "tui.input.submit") {
            {
                let name = input.value().trim().to_owned();
                let path = path.clone();
                self.rename = None;
                if name.is_empty() {
                    return Outcome::Stay;
                }
                match self.store.rename(&path, &name) {
                    Ok(()) => {
                        for list in [Some(&mut self.current), self.all.as_mut()]
                            .into_iter()
                            .flatten()
                        {
                            for s in list.iter_mut().filter(|s| s.path == path) {
                                s.name = Some(name.clone());
                            }
                        }
                        self.research();
                    }
                    Err(e) => self.status = Some((true, e.to_string())),
                }
            }
        } else {
            input.handle_key(key);
        }
        Outcome::Stay
    }

    fn cancel(&self) -> Outcome {
        if self.exit_on_cancel {
            Outcome::Done(Action::Quit)
        } else {
            Outcome::Cancel
        }
    }

    fn header(&self, width: usize) -> Vec<String> {
        let t = &self.theme;
        let k = &self.keys;
        let title = if self.show_all {
            "Resume Session (All)"
        } else {
            "Resume Session (Current Folder)"
        };
        let sort = match self.sort {
            Sort::Threaded => "Threaded",
            Sort::Recent => "Recent",
            Sort::Relevance => "Fuzzy",
        };
        let scope = if self.show_all {
            format!(
                "{}{}",
                t.fg(Token::Muted, "○ Current Folder | "),
                t.fg(Token::Accent, "◉ All")
            )
        } else {
            format!(
                "{}{}",
                t.fg(Token::Accent, "◉ Current Folder"),
                t.fg(Token::Muted, " | ○ All")
            )
        };
        let name = if self.named_only { "Named" } else { "All" };
        let right = truncate_to_width(
            &format!(
                "{scope}  {}{}  {}{}",
                t.fg(Token::Muted, "Name: "),
                t.fg(Token::Accent, name),
                t.fg(Token::Muted, "Sort: "),
                t.fg(Token::Accent, sort)
            ),
            width,
            "",
        );
        let left_room = width.saturating_sub(visible_width(&right) + 1);
        let left = truncate_to_width(&t.bold(title), left_room, "");
        let gap = width.saturating_sub(visible_width(&left) + visible_width(&right));
        let first = format!("{left}{}{right}", " ".repeat(gap));
        let (hint1, hint2) = if self.confirming_delete.is_some() {
            let hint = format!(
                "Delete session? {} · {}",
                id_hint(t, k, "tui.select.confirm", "confirm"),
                id_hint(t, k, "tui.select.cancel", "cancel")
            );
            (
                t.fg(Token::Error, &truncate_to_width(&hint, width, "…")),
                String::new(),
            )
        } else if let Some((error, message)) = &self.status {
            let token = if *error { Token::Error } else { Token::Accent };
            (
                t.fg(token, &truncate_to_width(message, width, "…")),
                String::new(),
            )
        } else {
            let sep = t.fg(Token::Muted, " · ");
            let hint1 = format!(
                "{}{sep}{}",
                id_hint(t, k, "tui.input.tab", "scope"),
                t.fg(Token::Muted, "re:<pattern> regex · \"phrase\" exact")
            );
            let path = if self.show_path { "(on)" } else { "(off)" };
            let hint2 = [
                id_hint(t, k, "app.session.toggleSort", "sort"),
                id_hint(t, k, "app.session.toggleNamedFilter", "named"),
                id_hint(t, k, "app.session.delete", "delete"),
                id_hint(t, k, "app.session.togglePath", &format!("path {path}")),
                id_hint(t, k, "app.session.rename", "rename"),
            ]
            .join(&sep);
            (
                truncate_to_width(&hint1, width, "…"),
                truncate_to_width(&hint2, width, "…"),
            )
        };
        vec![first, hint1, hint2]
    }

    fn shorten(&self, path: &str) -> String {
        super::super::format::shorten_home(path, self.home.as_deref())
    }

    fn row_line(&self, row: &Row, selected: bool, width: usize) -> String {
        let t = &self.theme;
        let session = &self.sessions()[row.index];
        let prefix = if row.depth == 0 {
            String::new()
        } else {
            let mut p: String = row
                .continues
                .iter()
                .map(|c| if *c { "│  " } else { "   " })
                .collect();
            p.push_str(if row.is_last { "└─ " } else { "├─ " });
            p
        };
        let text = one_line(session.name.as_deref().unwrap_or(&session.first_message));
        let mut right = format!(
            "{} {}",
            session.message_count,
            format_age(session.modified, self.now)
        );
        if self.show_all && !session.cwd.is_empty() {
            right = format!("{} {right}", self.shorten(&session.cwd));
        }
        if self.show_path {
            right = format!("{} {right}", self.shorten(&session.path.to_string_lossy()));
        }
        let cursor = if selected {
            t.fg(Token::Accent, "› ")
        } else {
            "  ".to_owned()
        };
        let room = width.saturating_sub(2 + visible_width(&prefix) + visible_width(&right) + 2);
        let text = truncate_to_width(&text, room.max(10), "…");
        let deleting = self.confirming_delete.as_deref() == Some(session.path.as_path());
        let token = if deleting {
            Some(Token::Error)
        } else if self.is_current(&session.path) {
            Some(Token::Accent)
        } else if session.name.is_some() {
            Some(Token::Warning)
        } else {
            None
        };
        let mut styled = token.map_or_else(|| text.clone(), |tk| t.fg(tk, &text));
        if selected {
            styled = t.bold(&styled);
        }
        let left = format!("{cursor}{}{styled}", t.fg(Token::Dim, &prefix));
        let gap = width
            .saturating_sub(visible_width(&left) + visible_width(&right))
            .max(1);
        let right = t.fg(if deleting { Token::Error } else { Token::Dim }, &right);
        let mut line = format!("{left}{}{right}", " ".repeat(gap));
        if selected {
            line = t.bg(Token::SelectedBg, &line);
        }
        truncate_to_width(&line, width, "")
    }

    fn list_lines(&self, width: usize) -> Vec<String> {
        let t = &self.theme;
        let mut lines = vec![self.input.render(width), String::new()];
        let searching = self
            .search_status
            .filter(|s| !s.finished)
            .map(|s| format!("  Searching {}/{} sessions…", s.done, s.total));
        if self.rows.is_empty() {
            if let Some(searching) = searching {
                lines.push(t.fg(Token::Muted, &truncate_to_width(&searching, width, "…")));
                return lines;
            }
            let message = match (self.named_only, self.show_all) {
                (true, true) => "  No named sessions found. Press ctrl+n to show all.",
                (true, false) => {
                    "  No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
                }
                (false, true) => "  No sessions found",
                (false, false) => "  No sessions in current folder. Press Tab to view all.",
            };
            lines.push(t.fg(Token::Muted, &truncate_to_width(message, width, "…")));
            return lines;
        }
        let len = self.rows.len();
        let start = window_start(self.selected, VISIBLE, len);
        let end = (start + VISIBLE).min(len);
        for at in start..end {
            lines.push(self.row_line(&self.rows[at], at == self.selected, width));
        }
        if start > 0 || end < len {
            let info = format!("  ({}/{len})", self.selected + 1);
            lines.push(t.fg(Token::Muted, &truncate_to_width(&info, width, "")));
        }
        if let Some(searching) = searching {
            lines.push(t.fg(Token::Muted, &truncate_to_width(&searching, width, "…")));
        }
        lines
    }
}

impl SlotComponent<Action> for SessionPicker {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        if self.rename.is_some() {
            return self.rename_key(key);
        }
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        let cancel = is("tui.select.cancel");
        let confirm = is("tui.select.confirm");
        if let Some(path) = self.confirming_delete.clone() {
            if confirm {
                self.confirming_delete = None;
                self.delete(&path);
            } else if cancel {
                self.confirming_delete = None;
            }
            return Outcome::Stay;
        }
        if !confirm && !cancel {
            self.status = None;
        }
        let len = self.rows.len();
        if is("tui.input.tab") {
            self.toggle_scope();
        } else if is("app.session.toggleSort") {
            self.sort = match self.sort {
                Sort::Threaded => Sort::Recent,
                Sort::Recent => Sort::Relevance,
                Sort::Relevance => Sort::Threaded,
            };
            self.refilter();
        } else if is("app.session.toggleNamedFilter") {
            self.named_only = !self.named_only;
            self.refilter();
        } else if is("app.session.togglePath") {
            self.show_path = !self.show_path;
        } else if is("app.session.delete") {
            self.start_delete();
        } else if is("app.session.rename") {
            if let Some(session) = self.selected_session() {
                let mut input = Input::new(Arc::clone(&self.theme));
                input.set_keybindings(Arc::clone(&keys));
                input.set_value(session.name.as_deref().unwrap_or_default());
                self.rename = Some((session.path.clone(), input));
            }
        } else if is("app.session.deleteNoninvasive") && self.input.value().is_empty() {
            // As pi: a delete only while the search is empty; else the
            // search input has the key.
            self.start_delete();
        } else if is("tui.select.up") {
            self.selected = self.selected.saturating_sub(1);
        } else if is("tui.select.down") {
            self.selected = (self.selected + 1).min(len.saturating_sub(1));
        } else if is("tui.select.pageUp") {
            self.selected = self.selected.saturating_sub(VISIBLE);
        } else if is("tui.select.pageDown") {
            self.selected = (self.selected + VISIBLE).min(len.saturating_sub(1));
        } else if confirm {
            if let Some(session) = self.selected_session() {
                return Outcome::Done(Action::Resume(session.path.clone()));
            }
        } else if cancel {
            return self.cancel();
        } else if self.input.handle_key(key) {
            self.research();
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        self.pull();
        let t = Arc::clone(&self.theme);
        let rule = t.fg(Token::Accent, &"─".repeat(width.max(1)));
        let mut lines = vec![String::new(), rule.clone(), String::new()];
        if let Some((_, input)) = &self.rename {
            lines.push(format!(" {}", t.bold("Rename Session")));
            lines.push(String::new());
            lines.push(input.render(width));
            lines.push(String::new());
            lines.push(format!(
                " {}  {}",
                id_hint(&t, &self.keys, "tui.select.confirm", "save"),
                id_hint(&t, &self.keys, "tui.select.cancel", "cancel")
            ));
        } else {
            lines.extend(self.header(width));
            lines.push(String::new());
            lines.extend(self.list_lines(width));
        }
        lines.push(String::new());
        lines.push(rule);
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        match &mut self.rename {
            Some((_, input)) => input.paste(text),
            None => {
                self.input.paste(text);
                self.research();
            }
        }
    }

    fn poll(&mut self) -> Outcome {
        self.pull();
        Outcome::Stay
    }
}

impl SessionPicker {
    /// How many rows the list has now.
    pub fn shown(&self) -> usize {
        self.rows.len()
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
