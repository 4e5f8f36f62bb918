//! The UI side of the selectors: opening them (commands, Ctrl+L, double
//! Esc, `pi -r`), routing keys to the open one, and carrying out what they
//! chose (switch model, resume, move in the tree with an optional branch
//! summary, fork, clone, import) with pi's status messages.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent_core::AgentMessage;
use pi_ai::{CancellationToken, Message};
use pi_tui::crossterm::event::{KeyCode, KeyEvent};
use pi_tui::loader::Loader;
use pi_tui::theme::Token;

use super::choice::{Choice, ChoiceKind, TextKind, TextPrompt};
use super::fork::ForkSelector;
use super::model::ModelSelector;
use super::session::{SessionPicker, SessionStore};
use super::tree::TreeSelector;
use super::tree_rows::{Filter, build_items};
use super::{Action, Outcome, Selector};
use crate::app::{App, NavigateError, NavigateOptions};
use crate::modes::interactive::blocks::Notice;
use crate::modes::interactive::events::{TreeDone, TreeOutcome, UiEvent};
use crate::modes::interactive::input::Effect;
use crate::modes::interactive::transcript::{Transcript, user_text};
use crate::modes::interactive::ui::{Status, Ui};
use crate::session::{SessionEntry, SessionInfo, SessionManager};

/// Double-Esc window.
const DOUBLE_ESCAPE: Duration = Duration::from_millis(500);

/// The navigation state of the UI.
#[derive(Default)]
pub struct NavState {
    /// The selector shown instead of the editor.
    pub selector: Option<Box<dyn Selector>>,
    /// The last Esc on an empty editor (double Esc opens the tree).
    last_escape: Option<Instant>,
    /// Cancels the running branch summary.
    summary_cancel: Option<CancellationToken>,
}

/// The session picker's store: this app's session files.
struct AppStore {
    app: Arc<App>,
}

impl SessionStore for AppStore {
    fn list_all(&self) -> Vec<SessionInfo> {
        crate::session::list_all_sessions(None).unwrap_or_else(|e| {
            tracing::warn!("cannot list sessions: {e}");
            Vec::new()
        })
    }

    fn rename(&self, path: &Path, name: &str) -> Result<(), String> {
        let mut session = self.app.session();
        if session.session_file() == Some(path) {
            return session
                .append_session_info(name)
                .map(|_| ())
                .map_err(|e| e.to_string());
        }
        drop(session);
        let mut other = SessionManager::open(path, None).map_err(|e| e.to_string())?;
        other
            .append_session_info(name)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn delete(&self, path: &Path) -> Result<bool, String> {
        let trashed = std::process::Command::new("trash")
            .arg("--")
            .arg(path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if trashed && !path.exists() {
            return Ok(true);
        }
        std::fs::remove_file(path)
            .map(|()| false)
            .map_err(|e| e.to_string())
    }
}

impl Ui {
    /// Keys for the open selector, or Esc cancelling a branch summary;
    /// `None` when neither applies.
    pub(crate) fn nav_key(&mut self, key: &KeyEvent) -> Option<Effect> {
        if key.code == KeyCode::Esc
            && let Some(cancel) = &self.nav.summary_cancel
        {
            cancel.cancel();
            return Some(Effect::None);
        }
        let selector = self.nav.selector.as_mut()?;
        match selector.handle_key(key) {
            Outcome::Stay => Some(Effect::None),
            Outcome::Cancel => {
                self.nav.selector = None;
                Some(Effect::None)
            }
            Outcome::Done(action) => {
                self.nav.selector = None;
                Some(self.apply_action(action))
            }
        }
    }

    /// Pasted text for the open selector; false when none is open.
    pub(crate) fn nav_paste(&mut self, text: &str) -> bool {
        match &mut self.nav.selector {
            Some(selector) => {
                selector.paste(text);
                true
            }
            None => false,
        }
    }

    /// The open selector's lines, if one is open.
    pub(crate) fn selector_lines(&mut self, width: usize, rows: usize) -> Option<Vec<String>> {
        self.nav
            .selector
            .as_mut()
            .map(|selector| selector.render(width, rows))
    }

    /// Esc on an empty editor: the second within 500 ms opens pi's
    /// `doubleEscapeAction` (the tree by default, or the fork selector).
    pub(crate) fn escape_on_empty(&mut self) {
        let action = self.app.settings.double_escape_action().to_owned();
        if action == "none" {
            return;
        }
        let now = Instant::now();
        if self
            .nav
            .last_escape
            .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_ESCAPE)
        {
            self.nav.last_escape = None;
            if action == "fork" {
                self.open_fork();
            } else {
                self.open_tree(None);
            }
        } else {
            self.nav.last_escape = Some(now);
        }
    }

    /// The navigation commands: `/resume`, `/tree`, `/fork`, `/clone`,
    /// `/import <file>`, `/scoped-models`; `None` for anything else.
    pub(crate) fn nav_command(&mut self, text: &str) -> Option<()> {
        match text {
            "/resume" => self.open_session_picker(false),
            "/tree" => self.open_tree(None),
            "/fork" => self.open_fork(),
            "/clone" => self.clone_session(),
            "/scoped-models" => self.open_scoped_models(),
            "/import" => self.error("Usage: /import <path.jsonl>"),
            _ => {
                let path = text.strip_prefix("/import ")?.trim();
                let path = path
                    .strip_prefix('"')
                    .and_then(|p| p.strip_suffix('"'))
                    .unwrap_or(path);
                if path.is_empty() {
                    self.error("Usage: /import <path.jsonl>");
                } else {
                    let theme = Arc::clone(&self.theme);
                    self.nav.selector = Some(Box::new(Choice::confirm(
                        theme,
                        "Import session",
                        &format!("Replace current session with {path}?"),
                        ChoiceKind::Import(PathBuf::from(path)),
                    )));
                }
            }
        }
        Some(())
    }

    /// Opens the model selector, pre-filtered by `search`.
    pub(crate) fn open_model_selector(&mut self, search: Option<&str>) {
        let available: Vec<pi_ai::Model> = self
            .app
            .registry()
            .available_models(self.app.cli_api_key.as_deref(), &self.app.auth)
            .into_iter()
            .cloned()
            .collect();
        let scoped = self
            .app
            .scoped_models()
            .iter()
            .map(|s| s.model.clone())
            .collect();
        let current = self.app.agent.model();
        self.nav.selector = Some(Box::new(ModelSelector::new(
            Arc::clone(&self.theme),
            &current,
            available,
            scoped,
            search,
        )));
    }

    /// Opens the session picker over this folder's sessions; with
    /// `startup`, Esc leaves pi (`pi -r`).
    pub fn open_session_picker(&mut self, startup: bool) {
        let (dir, cwd, current) = {
            let session = self.app.session();
            (
                session.session_dir().map(Path::to_path_buf),
                session.cwd().to_owned(),
                session.session_file().map(Path::to_path_buf),
            )
        };
        let listed = match &dir {
            Some(dir) => crate::session::list_sessions_in(dir),
            None => crate::session::list_sessions(&cwd, None),
        };
        let sessions = listed.unwrap_or_else(|e| {
            tracing::warn!("cannot list sessions: {e}");
            Vec::new()
        });
        let store = Box::new(AppStore {
            app: Arc::clone(&self.app),
        });
        let picker = SessionPicker::new(Arc::clone(&self.theme), sessions, current, store);
        self.nav.selector = Some(Box::new(if startup {
            picker.exit_on_cancel()
        } else {
            picker
        }));
    }

    /// Opens the tree with `selected` (default: the leaf) highlighted.
    pub(crate) fn open_tree(&mut self, selected: Option<&str>) {
        let (items, leaf) = {
            let session = self.app.session();
            let entries = session.entries();
            if entries.is_empty() {
                drop(session);
                self.status_line("No entries in session");
                return;
            }
            let home = self
                .home
                .as_ref()
                .and_then(|h| h.to_str())
                .map(str::to_owned);
            let labels = |id: &str| session.label(id).map(str::to_owned);
            (
                build_items(&entries, &labels, home.as_deref()),
                session.leaf_id().map(str::to_owned),
            )
        };
        let filter = self
            .app
            .settings
            .extra
            .get("treeFilterMode")
            .and_then(serde_json::Value::as_str)
            .map_or(Filter::Default, Filter::from_setting);
        let app = Arc::clone(&self.app);
        let labeler = Box::new(move |id: &str, label: Option<&str>| {
            app.set_entry_label(id, label).map_err(|e| e.to_string())
        });
        self.nav.selector = Some(Box::new(TreeSelector::new(
            Arc::clone(&self.theme),
            items,
            leaf.as_deref(),
            selected,
            filter,
            labeler,
        )));
    }

    fn open_fork(&mut self) {
        let messages: Vec<(String, String)> = {
            let session = self.app.session();
            session
                .entries()
                .iter()
                .filter_map(|e| match e {
                    SessionEntry::Message(m) => match &m.message {
                        AgentMessage::Standard(Message::User(u)) => {
                            Some((m.id.clone(), user_text(&u.content)))
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect()
        };
        if messages.is_empty() {
            self.status_line("No messages to fork from");
            return;
        }
        self.nav.selector = Some(Box::new(ForkSelector::new(
            Arc::clone(&self.theme),
            messages,
        )));
    }

    fn open_scoped_models(&mut self) {
        let available: Vec<pi_ai::Model> = self
            .app
            .registry()
            .available_models(self.app.cli_api_key.as_deref(), &self.app.auth)
            .into_iter()
            .cloned()
            .collect();
        let enabled: Vec<String> = self
            .app
            .scoped_models()
            .iter()
            .map(|s| format!("{}/{}", s.model.provider.as_str(), s.model.id))
            .collect();
        let app = Arc::clone(&self.app);
        let save = Box::new(move |patterns: &[String]| {
            app.set_scoped_models(patterns);
            app.settings_writer
                .set(&[("enabledModels", Some(serde_json::json!(patterns)))])
                .map_err(|e| e.to_string())
        });
        self.nav.selector = Some(Box::new(super::scoped::ScopedModels::new(
            Arc::clone(&self.theme),
            available,
            enabled,
            save,
        )));
    }

    /// `/new`: a new session, the chat cleared.
    pub(crate) fn new_session_command(&mut self) {
        match self.app.new_session(None) {
            Ok(()) => {
                self.reload_chat();
                self.transcript
                    .notice(Notice::Success("✓ New session started".to_owned()));
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    fn clone_session(&mut self) {
        if self.app.session().leaf_id().is_none() {
            self.status_line("Nothing to clone yet");
            return;
        }
        match self.app.clone_session() {
            Ok(()) => {
                self.reload_chat();
                self.editor.set_text("");
                self.status_line("Cloned to new session");
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    /// Shows the current session from scratch (after a switch or a move in
    /// the tree): header, history, footer; the screen is printed again.
    pub(crate) fn reload_chat(&mut self) {
        self.transcript = Transcript::new();
        self.transcript.notice(Notice::Header {
            version: crate::VERSION.to_owned(),
        });
        self.load_session();
        self.init_footer();
        self.update_border();
        self.reprint = true;
    }

    fn apply_action(&mut self, action: Action) -> Effect {
        match action {
            Action::Quit => return Effect::Quit,
            Action::Status(text) => self.status_line(&text),
            Action::Model(model) => {
                let id = model.id.clone();
                self.app.set_model(*model);
                self.refresh_footer();
                self.update_border();
                self.status_line(&format!("Model: {id}"));
            }
            Action::Resume(path) => match self.app.switch_session(&path) {
                Ok(()) => {
                    self.reload_chat();
                    self.status_line("Resumed session");
                }
                Err(e) => self.error(e.to_string()),
            },
            Action::Fork(id) => match self.app.fork(&id) {
                Ok(text) => {
                    self.reload_chat();
                    self.editor.set_text(&text);
                    self.status_line("Forked to new session");
                }
                Err(e) => self.error(e.to_string()),
            },
            Action::TreeTarget(id) => self.tree_target(id),
            Action::Choice(kind, answer) => self.choice(kind, answer),
            Action::Text(TextKind::SummaryInstructions(target), text) => match text {
                Some(text) => self.navigate(target, true, Some(text)),
                None => self.ask_summary(target),
            },
        }
        Effect::None
    }

    fn tree_target(&mut self, target: String) {
        if self.app.session().leaf_id() == Some(target.as_str()) {
            self.status_line("Already at this point");
            return;
        }
        let skip = self
            .app
            .settings
            .extra
            .get("branchSummary")
            .and_then(|b| b.get("skipPrompt"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        if skip {
            self.navigate(target, false, None);
        } else {
            self.ask_summary(target);
        }
    }

    fn ask_summary(&mut self, target: String) {
        self.nav.selector = Some(Box::new(Choice::new(
            Arc::clone(&self.theme),
            "Summarize branch?",
            &["No summary", "Summarize", "Summarize with custom prompt"],
            ChoiceKind::Summarize(target),
        )));
    }

    fn choice(&mut self, kind: ChoiceKind, answer: Option<usize>) {
        match (kind, answer) {
            (ChoiceKind::Summarize(target), None) => self.open_tree(Some(&target)),
            (ChoiceKind::Summarize(target), Some(0)) => self.navigate(target, false, None),
            (ChoiceKind::Summarize(target), Some(1)) => self.navigate(target, true, None),
            (ChoiceKind::Summarize(target), Some(_)) => {
                self.nav.selector = Some(Box::new(TextPrompt::new(
                    Arc::clone(&self.theme),
                    "Custom summarization instructions",
                    TextKind::SummaryInstructions(target),
                )));
            }
            (ChoiceKind::Import(path), Some(0)) => self.import(&path),
            (ChoiceKind::Import(_), _) => self.status_line("Import cancelled"),
        }
    }

    fn import(&mut self, input: &Path) {
        let source = self.app.cwd.join(input);
        if !source.is_file() {
            self.error(format!("File not found: {}", source.display()));
            return;
        }
        let dir = self.app.session().session_dir().map(Path::to_path_buf);
        let target = match (&dir, source.file_name()) {
            (Some(dir), Some(name)) => dir.join(name),
            _ => source.clone(),
        };
        let same = std::fs::canonicalize(&source).ok() == std::fs::canonicalize(&target).ok();
        if !same {
            if target.exists() {
                self.error(format!(
                    "Cannot import: {} already exists in the session directory",
                    target.display()
                ));
                return;
            }
            let copied = target
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::copy(&source, &target));
            if let Err(e) = copied {
                self.error(format!("Cannot import {}: {e}", source.display()));
                return;
            }
        }
        match self.app.switch_session(&target) {
            Ok(()) => {
                self.reload_chat();
                self.status_line(&format!("Session imported from: {}", input.display()));
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    /// Moves the leaf to `target` in the background (the summary may take a
    /// model call); the result comes back as [`UiEvent::Tree`].
    fn navigate(&mut self, target: String, summarize: bool, instructions: Option<String>) {
        let cancel = CancellationToken::new();
        if summarize {
            let mut loader = Loader::new(
                Arc::clone(&self.theme),
                "Summarizing branch... (escape to cancel)",
            );
            loader.set_spinner_token(Token::Accent);
            self.status = Status::Busy(loader);
            self.nav.summary_cancel = Some(cancel.clone());
        }
        self.running = true;
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let options = NavigateOptions {
                summarize,
                custom_instructions: instructions,
                cancel,
            };
            let outcome = match app.navigate_tree(&target, options).await {
                Ok(nav) => TreeOutcome::Moved(nav),
                Err(NavigateError::Aborted) => TreeOutcome::Cancelled,
                Err(e) => TreeOutcome::Failed(e.to_string()),
            };
            let _ = tx.send(UiEvent::Tree(Box::new(TreeDone { target, outcome })));
        });
    }

    /// A tree move finished.
    pub(crate) fn tree_done(&mut self, done: TreeDone) {
        self.running = false;
        self.status = Status::Idle;
        self.nav.summary_cancel = None;
        match done.outcome {
            TreeOutcome::Moved(nav) => {
                self.reload_chat();
                if let Some(text) = nav.editor_text
                    && self.editor.text().trim().is_empty()
                {
                    self.editor.set_text(&text);
                }
                self.status_line("Navigated to selected point");
            }
            TreeOutcome::Cancelled => {
                self.status_line("Branch summarization cancelled");
                self.open_tree(Some(&done.target));
            }
            TreeOutcome::Failed(message) => self.error(message),
        }
    }
}
