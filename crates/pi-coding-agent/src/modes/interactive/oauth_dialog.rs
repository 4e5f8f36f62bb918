//! The subscription login of `/login` (pi's `LoginDialogComponent` for an
//! OAuth provider): the login runs as a task ([`crate::auth::login_events`]),
//! its events reach the UI loop as [`UiEvent::OAuth`], and the dialog shows
//! the URL, instructions, progress and the prompt or paste field that the
//! flow is waiting for. Escape cancels (the task is aborted, which closes the
//! callback server and stops polling).

use std::sync::{Arc, Mutex, PoisonError};

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::keybindings::Keybindings;
use pi_tui::slot::{Outcome, SlotComponent};
use pi_tui::text::truncate_to_width;
use pi_tui::theme::{Theme, Token};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use super::action::Action;
use super::events::{LoginUpdate, OAuthUpdate, UiEvent};
use crate::auth::{LoginEvent, OAuthProvider, OAuthStore, login_events};

/// One line of the dialog's content.
enum Line {
    Blank,
    Text(Token, String),
    /// The input field (while a reply is pending).
    Input,
    /// A key hint: cancel, or cancel and submit.
    Hint {
        submit: bool,
    },
}

/// The dialog of a running subscription login.
pub(crate) struct OAuthDialog {
    provider: OAuthProvider,
    lines: Vec<Line>,
    input: String,
    reply: Option<oneshot::Sender<String>>,
    task: tokio::task::JoinHandle<()>,
    /// Open authorize URLs in the browser (as pi); off in tests.
    open_browser: bool,
}

impl Drop for OAuthDialog {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl OAuthDialog {
    /// The dialog of the login `task` for `provider`.
    pub(crate) fn new(provider: OAuthProvider, task: tokio::task::JoinHandle<()>) -> Self {
        Self {
            provider,
            lines: Vec::new(),
            input: String::new(),
            reply: None,
            task,
            open_browser: true,
        }
    }

    /// The provider logged in to.
    pub(crate) fn provider(&self) -> OAuthProvider {
        self.provider
    }

    /// Shows what the login reported (or asks what it asks).
    pub(crate) fn event(&mut self, event: LoginEvent) {
        match event {
            LoginEvent::Auth(info) => {
                self.lines.clear();
                self.lines.push(Line::Blank);
                self.lines.push(Line::Text(Token::Accent, info.url.clone()));
                if let Some(instructions) = info.instructions {
                    self.lines.push(Line::Blank);
                    self.lines.push(Line::Text(Token::Warning, instructions));
                }
                if self.open_browser {
                    crate::auth::terminal::open_url(&info.url);
                }
                if !self.provider.uses_callback_server() {
                    self.lines.push(Line::Blank);
                    self.lines.push(Line::Text(
                        Token::Dim,
                        "Waiting for browser authentication...".to_owned(),
                    ));
                    self.lines.push(Line::Hint { submit: false });
                }
            }
            LoginEvent::Prompt { prompt, reply } => {
                self.lines.push(Line::Blank);
                self.lines.push(Line::Text(Token::Text, prompt.message));
                if let Some(example) = prompt.placeholder {
                    self.lines
                        .push(Line::Text(Token::Dim, format!("e.g., {example}")));
                }
                self.ask(reply, true);
            }
            LoginEvent::ManualInput { reply } => {
                self.lines.push(Line::Blank);
                self.lines.push(Line::Text(
                    Token::Dim,
                    "Paste redirect URL below, or complete login in browser:".to_owned(),
                ));
                self.ask(reply, false);
            }
            LoginEvent::Progress(message) => self.lines.push(Line::Text(Token::Dim, message)),
        }
    }

    fn ask(&mut self, reply: oneshot::Sender<String>, submit: bool) {
        self.settle_input();
        self.input.clear();
        self.lines.push(Line::Input);
        self.lines.push(Line::Hint { submit });
        self.reply = Some(reply);
    }

    /// The input field becomes the text it held.
    fn settle_input(&mut self) {
        let shown = format!("> {}", self.input);
        for line in &mut self.lines {
            if matches!(line, Line::Input) {
                *line = Line::Text(Token::Dim, shown.clone());
            }
        }
    }

    /// Handles a key; true when the dialog should close (cancelled).
    pub(crate) fn handle_key(&mut self, key: &KeyEvent, kb: &Keybindings) -> bool {
        if kb.matches(key, "tui.select.cancel") {
            return true;
        }
        if kb.matches(key, "tui.select.confirm") {
            if let Some(reply) = self.reply.take() {
                let _ = reply.send(self.input.clone());
                self.settle_input();
            }
            return false;
        }
        match key.code {
            _ if kb.matches(key, "tui.editor.deleteCharBackward") => {
                self.input.pop();
            }
            KeyCode::Char(c)
                if (key.modifiers - KeyModifiers::SHIFT).is_empty() && !c.is_control() =>
            {
                self.input.push(c);
            }
            _ => {}
        }
        false
    }

    /// A paste goes into the input field.
    pub(crate) fn paste(&mut self, text: &str) {
        self.input.extend(text.chars().filter(|c| !c.is_control()));
    }

    /// The lines for `width`.
    pub(crate) fn render(&self, theme: &Theme, width: usize, kb: &Keybindings) -> Vec<String> {
        let rule = theme.fg(Token::Border, &"─".repeat(width.max(1)));
        let cursor = if theme.has_color() {
            "\x1b[7m \x1b[27m"
        } else {
            "█"
        };
        let hint = |id: &str, what: &str| {
            format!(
                "{}{}",
                theme.fg(Token::Dim, &kb.keys(id).join("/")),
                theme.fg(Token::Muted, &format!(" {what}"))
            )
        };
        let title = format!("Login to {}", self.provider.name());
        let mut lines = vec![
            rule.clone(),
            format!(" {}", theme.fg(Token::Accent, &theme.bold(&title))),
        ];
        for line in &self.lines {
            lines.push(match line {
                Line::Blank => String::new(),
                Line::Text(token, text) => format!(" {}", theme.fg(*token, text)),
                Line::Input => format!("> {}{cursor}", self.input),
                Line::Hint { submit: false } => {
                    format!(" ({})", hint("tui.select.cancel", "to cancel"))
                }
                Line::Hint { submit: true } => format!(
                    " ({} {})",
                    hint("tui.select.cancel", "to cancel,"),
                    hint("tui.select.confirm", "to submit")
                ),
            });
        }
        lines.push(rule);
        lines
            .into_iter()
            .map(|l| truncate_to_width(&l, width, ""))
            .collect()
    }
}

/// The dialog in the editor slot. The dialog is shared with the UI, which
/// passes it the login's events while it is shown; closing the slot drops
/// it, which aborts the login.
pub(crate) struct OAuthSlot {
    dialog: Arc<Mutex<OAuthDialog>>,
    keys: Arc<Keybindings>,
    theme: Arc<Theme>,
}

impl OAuthSlot {
    /// Shows `dialog` with the key bindings `keys` in `theme`.
    pub(crate) fn new(
        dialog: Arc<Mutex<OAuthDialog>>,
        keys: Arc<Keybindings>,
        theme: Arc<Theme>,
    ) -> Self {
        Self {
            dialog,
            keys,
            theme,
        }
    }

    fn dialog(&self) -> std::sync::MutexGuard<'_, OAuthDialog> {
        self.dialog.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SlotComponent<Action> for OAuthSlot {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<Action> {
        if self.dialog().handle_key(key, &self.keys) {
            Outcome::Cancel
        } else {
            Outcome::Stay
        }
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        self.dialog().render(&self.theme, width, &self.keys)
    }

    fn paste(&mut self, text: &str) {
        self.dialog().paste(text);
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.theme = Arc::clone(theme);
    }
}

/// Runs the login, forwarding its events to the UI loop.
pub(crate) async fn run_login(
    store: OAuthStore,
    provider: OAuthProvider,
    tx: UnboundedSender<UiEvent>,
) {
    let (callbacks, mut events) = login_events(provider);
    let send = |update| {
        let _ = tx.send(UiEvent::OAuth(OAuthUpdate::new(update)));
    };
    let login = store.login(provider, &callbacks);
    tokio::pin!(login);
    let result = loop {
        tokio::select! {
            Some(event) = events.recv() => send(LoginUpdate::Event(event)),
            result = &mut login => break result,
        }
    };
    while let Ok(event) = events.try_recv() {
        send(LoginUpdate::Event(event));
    }
    send(LoginUpdate::Done(provider, result.map(|_| ())));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{AuthInfo, Prompt};
    use pi_tui::theme::ColorMode;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[tokio::test]
    async fn the_dialog_asks_shows_the_device_code_and_cancels() {
        let kb = crate::keybindings::defaults();
        let theme = Theme::dark(ColorMode::NoColor);
        let mut dialog = OAuthDialog {
            provider: OAuthProvider::GithubCopilot,
            lines: Vec::new(),
            input: String::new(),
            reply: None,
            task: tokio::spawn(async {}),
            open_browser: false,
        };
        let (reply, answer) = oneshot::channel();
        dialog.event(LoginEvent::Prompt {
            prompt: Prompt {
                message: "GitHub Enterprise URL/domain (blank for github.com)".to_owned(),
                placeholder: Some("company.ghe.com".to_owned()),
                allow_empty: true,
            },
            reply,
        });
        for c in "ghe.io".chars() {
            assert!(!dialog.handle_key(&key(KeyCode::Char(c)), &kb));
        }
        insta::assert_snapshot!("oauth_prompt", dialog.render(&theme, 60, &kb).join("\n"));
        assert!(!dialog.handle_key(&key(KeyCode::Enter), &kb));
        assert_eq!(answer.await.unwrap(), "ghe.io");
        dialog.event(LoginEvent::Auth(AuthInfo {
            url: "https://ghe.io/login/device".to_owned(),
            instructions: Some("Enter code: ABCD-1234".to_owned()),
        }));
        dialog.event(LoginEvent::Progress("Enabling models...".to_owned()));
        insta::assert_snapshot!(
            "oauth_device_code",
            dialog.render(&theme, 60, &kb).join("\n")
        );
        assert!(dialog.handle_key(&key(KeyCode::Esc), &kb), "escape cancels");
    }
}
