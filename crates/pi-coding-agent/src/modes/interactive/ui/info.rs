//! The [`Ui`]'s commands that show or hand out what the session holds:
//! `/name`, `/session`, `/copy`, `/export` and `/share`, and Ctrl+V's image paste.

use super::Ui;
use crate::modes::interactive::action::Effect;
use crate::modes::interactive::blocks::Notice;
use crate::modes::interactive::events::UiEvent;
use crate::modes::interactive::session_info::session_info;
use crate::modes::interactive::{clipboard, clipboard_image};

impl Ui {
    /// `/name [name]`: shows or sets the session's name.
    pub(super) fn name(&mut self, name: Option<&str>) {
        let Some(name) = name else {
            let current = self.app.session().session_name().map(str::to_owned);
            match current {
                Some(current) => self.dim_text(&format!("Session name: {current}")),
                None => self
                    .transcript
                    .notice(Notice::Warning("Usage: /name <name>".to_owned())),
            }
            return;
        };
        let saved = self.app.session().append_session_info(name);
        if let Err(e) = saved {
            self.error(e.to_string());
            return;
        }
        self.refresh_footer();
        self.dim_text(&format!("Session name set: {name}"));
    }

    fn dim_text(&mut self, text: &str) {
        let line = self.theme.fg(pi_tui::theme::Token::Dim, text);
        self.transcript.notice(Notice::Text(line));
    }

    /// `/copy`: the last answer to the clipboard (OSC 52 when no tool can).
    /// Ctrl+V: reads the clipboard's image off the UI thread and saves it to
    /// a temporary file, whose path then goes into the editor at the cursor
    /// ([`UiEvent::PastedImage`]); no image (or a failure) changes nothing, as
    /// in pi.
    pub(super) fn paste_image(&mut self) {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let env = |name: &str| std::env::var(name).ok();
            let Some(image) = clipboard_image::read(&env).await else {
                return;
            };
            match clipboard_image::save(&image, &std::env::temp_dir()).await {
                Ok(path) => {
                    let _ = tx.send(UiEvent::PastedImage(path));
                }
                Err(e) => tracing::debug!("clipboard image: {e}"),
            }
        });
    }

    pub(super) fn copy(&mut self) -> Effect {
        let Some(text) = self.app.last_assistant_text().filter(|t| !t.is_empty()) else {
            self.error("No agent messages to copy yet.");
            return Effect::None;
        };
        let copied = clipboard::copy_with_tools(&text);
        self.status_line("Copied last agent message to clipboard");
        if copied && !clipboard::is_remote() {
            Effect::None
        } else {
            Effect::Copy(text)
        }
    }

    /// `/export [path]`: HTML, or JSONL when the path ends in `.jsonl`.
    pub(super) fn export(&mut self, path: Option<&str>) {
        let result = match path {
            Some(path) if path.ends_with(".jsonl") => {
                self.app.export_jsonl(std::path::Path::new(path))
            }
            Some(path) => self.app.export_html_themed(
                Some(std::path::Path::new(path)),
                Some((*self.theme).clone()),
            ),
            None => self
                .app
                .export_html_themed(None, Some((*self.theme).clone())),
        };
        match result {
            Ok(path) => self.status_line(&format!("Session exported to: {}", path.display())),
            Err(e) => self.error(format!("Failed to export session: {e}")),
        }
    }

    /// `/share`: uploads the session page as a secret gist in the background
    /// (`gh`), then shows its link or why it failed.
    pub(super) fn share(&mut self) {
        self.status_line("Creating gist...");
        let app = std::sync::Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let done = app
                .share()
                .await
                .map(|shared| shared.message())
                .map_err(std::sync::Arc::new);
            let _ = tx.send(super::super::events::UiEvent::ShareDone(done));
        });
    }

    /// `/session`: file, id, message counts, tokens and cost.
    pub(super) fn session_info(&mut self) {
        let info = session_info(&self.app, &self.theme);
        self.transcript.notice(Notice::Text(info));
    }
}
