//! The dialogs extensions open (pi's `ExtensionSelectorComponent`,
//! `ExtensionInputComponent` and `ExtensionEditorComponent`), shown in the
//! editor slot between borders. Each one answers its extension through a
//! oneshot channel: Enter sends the choice or text, Esc (or Ctrl+C) sends
//! `None`, and a dialog closed any other way (replaced, timed out) drops
//! its sender, which answers `None` too. A timed dialog shows pi's
//! countdown after its title: `Title (5s)`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::editor::{Editor, EditorAction};
use pi_tui::input::Input;
use pi_tui::keybindings::Keybindings;
use pi_tui::theme::{Theme, Token};
use tokio::sync::oneshot;

use super::{Action, Outcome, SlotComponent, border, default_keys, fit, id_hint, key_hint, padded};

/// Where a dialog's answer goes.
pub type Reply = oneshot::Sender<Option<String>>;

/// A bare line feed (Ctrl+J in a terminal without key reports), which pi's
/// select and input dialogs take as Enter besides `tui.select.confirm`.
fn is_line_feed(key: &KeyEvent) -> bool {
    key.code == KeyCode::Char('j') && key.modifiers == KeyModifiers::CONTROL
}

/// Sends `answer` (once) and closes.
fn answer(reply: &mut Option<Reply>, value: Option<String>) -> Outcome {
    if let Some(reply) = reply.take() {
        let _ = reply.send(value);
    }
    Outcome::Cancel
}

/// The countdown of a timed dialog: whole seconds left, rounded up (pi's
/// `CountdownTimer`).
#[derive(Debug, Clone, Copy)]
pub struct Countdown {
    deadline: Instant,
}

impl Countdown {
    /// A countdown of `timeout` from now (`None` without a timeout).
    pub fn new(timeout: Option<Duration>) -> Option<Self> {
        timeout.filter(|t| !t.is_zero()).map(|t| Self {
            deadline: Instant::now() + t,
        })
    }

    /// `title (Ns)`.
    fn title(self, title: &str) -> String {
        let left = self.deadline.saturating_duration_since(Instant::now());
        let seconds = left.as_millis().div_ceil(1000);
        format!("{title} ({seconds}s)")
    }
}

/// The title lines (a title may span lines: `confirm`'s title and message).
fn title_lines(
    theme: &Theme,
    title: &str,
    countdown: Option<Countdown>,
    bold: bool,
) -> Vec<String> {
    let title = countdown.map_or_else(|| title.to_owned(), |c| c.title(title));
    title
        .split('\n')
        .map(|line| {
            let styled = if bold {
                theme.bold(line)
            } else {
                line.to_owned()
            };
            theme.fg(Token::Accent, &styled)
        })
        .collect()
}

/// `select` and `confirm`: a list of options; Enter picks, Esc cancels.
pub struct ExtSelect {
    theme: Arc<Theme>,
    title: String,
    options: Vec<String>,
    selected: usize,
    countdown: Option<Countdown>,
    reply: Option<Reply>,
    keys: Arc<Keybindings>,
}

impl ExtSelect {
    /// A selector of `options` under `title`, answering on `reply`.
    pub fn new(
        theme: Arc<Theme>,
        title: &str,
        options: Vec<String>,
        timeout: Option<Duration>,
        reply: Reply,
    ) -> Self {
        Self {
            theme,
            title: title.to_owned(),
            options,
            selected: 0,
            countdown: Countdown::new(timeout),
            reply: Some(reply),
            keys: default_keys(),
        }
    }

    /// Reads keys with `keys` (`tui.select.*`; `j` / `k` and a bare line
    /// feed stay pi's fixed alternatives).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for ExtSelect {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        let plain = key.modifiers.is_empty() || key.modifiers == KeyModifiers::SHIFT;
        let keys = Arc::clone(&self.keys);
        let is = |id: &str| keys.matches(key, id);
        if is("tui.select.up") || (plain && key.code == KeyCode::Char('k')) {
            self.selected = self.selected.saturating_sub(1);
        } else if is("tui.select.down") || (plain && key.code == KeyCode::Char('j')) {
            self.selected = (self.selected + 1).min(self.options.len().saturating_sub(1));
        } else if is("tui.select.confirm") || is_line_feed(key) {
            if let Some(option) = self.options.get(self.selected).cloned() {
                return answer(&mut self.reply, Some(option));
            }
        } else if is("tui.select.cancel") {
            return answer(&mut self.reply, None);
        }
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = &self.theme;
        let mut lines = vec![border(t, width), String::new()];
        for line in title_lines(t, &self.title, self.countdown, true) {
            lines.push(padded(&line, width));
        }
        lines.push(String::new());
        for (i, option) in self.options.iter().enumerate() {
            let line = if i == self.selected {
                format!(
                    "{}{}",
                    t.fg(Token::Accent, "→ "),
                    t.fg(Token::Accent, option)
                )
            } else {
                format!("  {}", t.fg(Token::Text, option))
            };
            lines.push(padded(&line, width));
        }
        lines.push(String::new());
        let hint = format!(
            "{}  {}  {}",
            key_hint(t, "↑↓", "navigate"),
            id_hint(t, &self.keys, "tui.select.confirm", "select"),
            id_hint(t, &self.keys, "tui.select.cancel", "cancel")
        );
        lines.push(padded(&hint, width));
        lines.push(String::new());
        lines.push(border(t, width));
        fit(lines, width)
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.theme = Arc::clone(theme);
    }
}

/// `input`: one line of text; Enter submits, Esc cancels.
pub struct ExtInput {
    theme: Arc<Theme>,
    title: String,
    input: Input,
    countdown: Option<Countdown>,
    reply: Option<Reply>,
    keys: Arc<Keybindings>,
}

impl ExtInput {
    /// A text prompt under `title`, answering on `reply`.
    pub fn new(theme: Arc<Theme>, title: &str, timeout: Option<Duration>, reply: Reply) -> Self {
        Self {
            input: Input::new(Arc::clone(&theme)),
            theme,
            title: title.to_owned(),
            countdown: Countdown::new(timeout),
            reply: Some(reply),
            keys: default_keys(),
        }
    }

    /// Reads keys with `keys` (`tui.select.confirm` / `cancel`, the
    /// input's `tui.editor.*`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.input.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for ExtInput {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        if self.keys.matches(key, "tui.select.confirm") || is_line_feed(key) {
            let value = self.input.value().to_owned();
            return answer(&mut self.reply, Some(value));
        }
        if self.keys.matches(key, "tui.select.cancel") {
            return answer(&mut self.reply, None);
        }
        self.input.handle_key(key);
        Outcome::Stay
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        let t = &self.theme;
        let mut lines = vec![border(t, width), String::new()];
        for line in title_lines(t, &self.title, self.countdown, false) {
            lines.push(padded(&line, width));
        }
        lines.push(String::new());
        lines.push(self.input.render(width));
        lines.push(String::new());
        let hint = format!(
            "{}  {}",
            id_hint(t, &self.keys, "tui.select.confirm", "submit"),
            id_hint(t, &self.keys, "tui.select.cancel", "cancel")
        );
        lines.push(padded(&hint, width));
        lines.push(String::new());
        lines.push(border(t, width));
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        self.input.paste(text);
    }
}

/// `editor`: multi-line text; Enter submits, Shift+Enter is a new line,
/// Esc cancels.
pub struct ExtEditor {
    theme: Arc<Theme>,
    title: String,
    editor: Editor,
    reply: Option<Reply>,
    keys: Arc<Keybindings>,
}

impl ExtEditor {
    /// An editor under `title` holding `prefill`, answering on `reply`.
    pub fn new(theme: Arc<Theme>, title: &str, prefill: Option<&str>, reply: Reply) -> Self {
        let mut editor = Editor::new(Arc::clone(&theme));
        if let Some(text) = prefill {
            editor.set_text(text);
        }
        Self {
            theme,
            title: title.to_owned(),
            editor,
            reply: Some(reply),
            keys: default_keys(),
        }
    }

    /// Reads keys with `keys` (`tui.select.cancel`, the editor's
    /// `tui.editor.*` and `tui.input.*`).
    pub fn with_keys(mut self, keys: Arc<Keybindings>) -> Self {
        self.editor.set_keybindings(Arc::clone(&keys));
        self.keys = keys;
        self
    }
}

impl SlotComponent<Action> for ExtEditor {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        if self.keys.matches(key, "tui.select.cancel") {
            return answer(&mut self.reply, None);
        }
        match self.editor.handle_key(*key) {
            EditorAction::Submit(text) | EditorAction::FollowUp(text) => {
                answer(&mut self.reply, Some(text))
            }
            EditorAction::Handled | EditorAction::Ignored => Outcome::Stay,
        }
    }

    fn render(&mut self, width: usize, rows: usize) -> Vec<String> {
        let t = &self.theme;
        let mut lines = vec![border(t, width), String::new()];
        for line in title_lines(t, &self.title, None, false) {
            lines.push(padded(&line, width));
        }
        lines.push(String::new());
        lines.extend(self.editor.render(width, (rows * 3 / 10).max(5)));
        lines.push(String::new());
        let hint = format!(
            "{}  {}  {}",
            id_hint(t, &self.keys, "tui.input.submit", "submit"),
            id_hint(t, &self.keys, "tui.input.newLine", "newline"),
            id_hint(t, &self.keys, "tui.select.cancel", "cancel")
        );
        lines.push(padded(&hint, width));
        lines.push(String::new());
        lines.push(border(t, width));
        fit(lines, width)
    }

    fn paste(&mut self, text: &str) {
        self.editor.handle_paste(text);
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.theme = Arc::clone(theme);
        self.editor.set_theme(Arc::clone(theme));
    }
}

#[cfg(test)]
mod tests {
    use pi_tui::theme::ColorMode;

    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn plain() -> Arc<Theme> {
        Arc::new(Theme::dark(ColorMode::NoColor))
    }

    #[test]
    fn select_picks_cancels_and_counts_down() {
        let (tx, mut rx) = oneshot::channel();
        let mut select = ExtSelect::new(
            plain(),
            "Pick\nOne of them",
            vec!["a".into(), "b".into()],
            Some(Duration::from_secs(5)),
            tx,
        );
        let screen = select.render(40, 24).join("\n");
        assert!(screen.contains(" Pick\n One of them (5s)"), "{screen}");
        assert!(screen.contains("→ a"));
        assert_eq!(select.handle_key(&key(KeyCode::Down)), Outcome::Stay);
        assert!(select.render(40, 24).join("\n").contains("→ b"));
        assert_eq!(select.handle_key(&key(KeyCode::Enter)), Outcome::Cancel);
        assert_eq!(rx.try_recv().ok(), Some(Some("b".to_owned())));

        let (tx, mut rx) = oneshot::channel();
        let mut select = ExtSelect::new(plain(), "Pick", vec!["a".into()], None, tx);
        assert!(!select.render(40, 24).join("\n").contains("s)"));
        assert_eq!(select.handle_key(&key(KeyCode::Esc)), Outcome::Cancel);
        assert_eq!(rx.try_recv().ok(), Some(None));
    }

    #[test]
    fn input_and_editor_answer_text() {
        let (tx, mut rx) = oneshot::channel();
        let mut input = ExtInput::new(plain(), "Name", None, tx);
        input.handle_key(&key(KeyCode::Char('x')));
        input.paste("yz");
        assert!(input.render(40, 24).join("\n").contains("> xyz"));
        assert_eq!(input.handle_key(&key(KeyCode::Enter)), Outcome::Cancel);
        assert_eq!(rx.try_recv().ok(), Some(Some("xyz".to_owned())));

        let (tx, mut rx) = oneshot::channel();
        let mut editor = ExtEditor::new(plain(), "Edit", Some("draft"), tx);
        assert!(editor.render(40, 24).join("\n").contains("draft"));
        assert_eq!(editor.handle_key(&key(KeyCode::Enter)), Outcome::Cancel);
        assert_eq!(rx.try_recv().ok(), Some(Some("draft".to_owned())));

        let (tx, mut rx) = oneshot::channel();
        drop(ExtInput::new(plain(), "Gone", None, tx));
        assert!(rx.try_recv().is_err(), "a dropped dialog answers nothing");
    }
}
