//! pi's prompt editor: multi-line, wrapping, history, emacs keys, kill ring, undo, paste
//! markers and autocomplete.
//!
//! The editor is pure state: [`Editor::handle_key`] and [`Editor::handle_paste`] change it,
//! [`Editor::render`] draws it for a width (pi's top and bottom `─` rules, a reverse-video
//! cursor, `─── ↑ N more` rules when it scrolls, and the autocomplete dropdown below).
//! Keys the editor does not use come back as [`EditorAction::Ignored`] for the app.

mod autocomplete;
mod complete;
mod edit;
mod keys;
mod nav;
mod rings;
mod segment;
mod view;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crossterm::event::KeyEvent;

pub use autocomplete::{
    AutocompleteProvider, CompletionItem, CompletionRequest, CompletionTrigger, Suggestions,
};
pub use rings::HISTORY_LIMIT;

use crate::keybindings::Keybindings;
use crate::select::SelectList;
use crate::theme::{Theme, Token};
use rings::{History, KillRing, UndoStack};

/// What a key did to the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorAction {
    /// The editor used the key (redraw).
    Handled,
    /// The key is not the editor's (the app may bind it: Ctrl+C, Esc, Ctrl+D on empty, ...).
    Ignored,
    /// Enter: the text (paste markers expanded, trimmed). The editor is now empty; the app
    /// adds the text to the history when it accepts it.
    Submit(String),
    /// Alt+Enter: the text (expanded, trimmed), for the app to queue as a follow-up (or submit
    /// when idle). The editor is now empty.
    FollowUp(String),
}

/// Text and cursor (a byte offset into the cursor's line); what undo restores.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Buf {
    lines: Vec<String>,
    line: usize,
    col: usize,
}

impl Default for Buf {
    fn default() -> Self {
        Self {
            lines: vec![String::new()],
            line: 0,
            col: 0,
        }
    }
}

/// The last editing action, for undo coalescing, kill accumulation and yank-pop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LastAction {
    TypeWord,
    Kill,
    Yank,
}

/// Direction of a pending Ctrl+] character jump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Jump {
    Forward,
    Backward,
}

/// An open autocomplete dropdown.
struct Completion {
    list: SelectList,
    prefix: String,
    /// Opened by Tab (path completion forced): refinements keep asking with Tab.
    forced: bool,
}

/// The multi-line prompt editor.
pub struct Editor {
    theme: Arc<Theme>,
    border: Token,
    /// Put [`crate::renderer::CURSOR_MARKER`] at the cursor (the focused editor: the terminal's
    /// cursor, and an IME's candidate window, go there).
    cursor_marker: bool,
    padding_x: usize,
    buf: Buf,
    pastes: BTreeMap<u32, String>,
    paste_ids: HashSet<u32>,
    paste_counter: u32,
    history: History,
    history_index: Option<usize>,
    kill_ring: KillRing,
    undo: UndoStack<Buf>,
    last_action: Option<LastAction>,
    /// Sticky column (display cells) for vertical moves.
    preferred_col: Option<usize>,
    jump: Option<Jump>,
    scroll: usize,
    /// Layout width of the last render (cursor navigation uses the same wrapping).
    layout_width: usize,
    /// Visible rows of the last render (page size).
    page_rows: usize,
    provider: Option<Box<dyn AutocompleteProvider + Send>>,
    completion: Option<Completion>,
    max_dropdown: usize,
    /// The effective key bindings (`tui.*` ids are used here).
    keys: Arc<Keybindings>,
}

impl Editor {
    /// An empty editor.
    pub fn new(theme: Arc<Theme>) -> Self {
        Self {
            theme,
            border: Token::BorderMuted,
            cursor_marker: false,
            padding_x: 0,
            buf: Buf::default(),
            pastes: BTreeMap::new(),
            paste_ids: HashSet::new(),
            paste_counter: 0,
            history: History::default(),
            history_index: None,
            kill_ring: KillRing::default(),
            undo: UndoStack::default(),
            last_action: None,
            preferred_col: None,
            jump: None,
            scroll: 0,
            layout_width: 80,
            page_rows: 5,
            provider: None,
            completion: None,
            max_dropdown: 5,
            keys: Arc::new(Keybindings::default()),
        }
    }

    /// Sets the colour of the top and bottom rules (thinking level, or `bashMode`).
    pub fn set_border_token(&mut self, token: Token) {
        self.border = token;
    }

    /// Marks the cursor's place in the rendered lines with
    /// [`crate::renderer::CURSOR_MARKER`] (pi's technique for IME candidate windows).
    pub fn set_cursor_marker(&mut self, on: bool) {
        self.cursor_marker = on;
    }

    /// Sets the theme.
    pub fn set_theme(&mut self, theme: Arc<Theme>) {
        self.theme = theme;
    }

    /// Replaces the key bindings (`/reload`, `keybindings.json`).
    pub fn set_keybindings(&mut self, keys: Arc<Keybindings>) {
        self.keys = keys;
    }

    /// Takes the text as a submission (paste markers expanded, trimmed) and empties the
    /// editor, as Enter does (the app's follow-up key uses it).
    pub fn take_text(&mut self) -> String {
        self.take_submission()
    }

    /// Horizontal padding inside the rules (pi's `editorPaddingX`, 0-3).
    pub fn set_padding_x(&mut self, padding: usize) {
        self.padding_x = padding.min(3);
    }

    /// Rows the autocomplete dropdown shows (pi: 5, range 3-20).
    pub fn set_autocomplete_max_visible(&mut self, rows: usize) {
        self.max_dropdown = rows.clamp(3, 20);
    }

    /// Installs the autocomplete provider.
    pub fn set_autocomplete(&mut self, provider: Box<dyn AutocompleteProvider + Send>) {
        self.provider = Some(provider);
    }

    /// The content rows shown for a terminal `rows` high: `max(5, 30%)`, as pi.
    pub fn visible_rows_for(terminal_rows: usize) -> usize {
        (terminal_rows * 3 / 10).max(5)
    }

    /// Handles one key press (release events are ignored).
    pub fn handle_key(&mut self, key: KeyEvent) -> EditorAction {
        keys::dispatch(self, key)
    }

    /// Inserts bracketed-paste content (normalised; large pastes become a marker).
    pub fn handle_paste(&mut self, text: &str) {
        self.paste(text);
    }

    /// Inserts text at the cursor as one undo step (for example an image path).
    pub fn insert_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.close_completion();
        self.push_undo();
        self.last_action = None;
        self.history_index = None;
        self.insert_raw(&normalize(text));
    }

    /// The text with paste markers expanded (what is submitted or edited externally).
    pub fn text(&self) -> String {
        self.expand_markers(&self.buf.lines.join("\n"))
    }

    /// The text as shown, paste markers unexpanded.
    pub fn raw_text(&self) -> String {
        self.buf.lines.join("\n")
    }

    /// The logical lines as shown.
    pub fn lines(&self) -> &[String] {
        &self.buf.lines
    }

    /// The cursor as (line, byte offset in the line).
    pub fn cursor(&self) -> (usize, usize) {
        (self.buf.line, self.buf.col)
    }

    /// Replaces the text (cursor at the end); undoable.
    pub fn set_text(&mut self, text: &str) {
        self.close_completion();
        self.last_action = None;
        self.history_index = None;
        let text = normalize(text);
        if self.raw_text() != text {
            self.push_undo();
        }
        self.set_text_internal(&text);
    }

    /// Empties the editor (also forgets paste contents).
    pub fn clear(&mut self) {
        self.set_text("");
        self.pastes.clear();
        self.paste_ids.clear();
        self.paste_counter = 0;
    }

    /// True when the editor holds no text.
    pub fn is_empty(&self) -> bool {
        self.buf.lines.len() == 1 && self.buf.lines[0].is_empty()
    }

    /// Adds a submitted prompt to the history (trimmed, no consecutive duplicates, 100 kept).
    pub fn add_to_history(&mut self, text: &str) {
        self.history.add(text);
    }

    /// Whether the autocomplete dropdown is open.
    pub fn is_autocomplete_open(&self) -> bool {
        self.completion.is_some()
    }

    /// Closes the autocomplete dropdown.
    pub fn close_autocomplete(&mut self) {
        self.close_completion();
    }

    /// Renders the rules, at most `max_rows` content rows and the dropdown when open.
    pub fn render(&mut self, width: usize, max_rows: usize) -> Vec<String> {
        view::render(self, width, max_rows)
    }

    fn set_text_internal(&mut self, text: &str) {
        let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        self.buf.lines = if lines.is_empty() {
            vec![String::new()]
        } else {
            lines
        };
        self.buf.line = self.buf.lines.len() - 1;
        self.buf.col = self.buf.lines[self.buf.line].len();
        self.preferred_col = None;
        self.scroll = 0;
    }

    fn push_undo(&mut self) {
        self.undo.push(self.buf.clone());
    }

    fn cur_line(&self) -> &str {
        self.buf.lines.get(self.buf.line).map_or("", String::as_str)
    }

    fn expand_markers(&self, text: &str) -> String {
        if self.pastes.is_empty() || !text.contains("[paste #") {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("[paste #") {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            match segment::parse_marker(tail) {
                Some((id, len)) if self.pastes.contains_key(&id) => {
                    out.push_str(&self.pastes[&id]);
                    rest = &tail[len..];
                }
                _ => {
                    out.push('[');
                    rest = &tail[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// CRLF / CR to LF, tabs to 4 spaces, other control characters dropped.
fn normalize(text: &str) -> String {
    crate::text::sanitize(text)
}
