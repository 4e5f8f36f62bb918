//! Switching the running app to another session: a new one, an existing
//! file, or a fork of the current one at a user message; and a plain HTML
//! export of the transcript.

use std::path::{Path, PathBuf};

use pi_agent_core::AgentMessage;
use pi_ai::{Message, ThinkingLevel, UserBlock, UserContent};

use super::{App, AppError};
use crate::session::{NewSessionOptions, SessionEntry, SessionManager};

fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(UserBlock::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

impl App {
    fn refuse_while_streaming(&self) -> Result<(), AppError> {
        if self.agent.is_streaming() {
            return Err(AppError::Streaming);
        }
        Ok(())
    }

    /// Rebuilds the transcript, model and thinking level from the session,
    /// recording what pi records when it opens one: a session with messages
    /// gets a `thinking_level_change` only when it has none; one without
    /// messages gets the model and the thinking level, like a new session.
    fn load_from_session(&self) {
        let (context, has_level) = {
            let mut session = self.session();
            let has_level = session.branch_has_thinking_level_change();
            // The branch's messages move into the agent, not copied; the
            // session reads entries again from its file if it needs them.
            (session.take_session_context(), has_level)
        };
        let resumed = !context.messages.is_empty();
        // As pi: `--model` wins over the session's model.
        if !self.restore_cli_model()
            && self.cli_choice.model.is_none()
            && resumed
            && let Some(model) = context
                .model
                .as_ref()
                .and_then(|r| self.registry().find(Some(&r.provider), &r.model_id).ok())
        {
            self.agent.set_model(model);
        }
        let level = if let Some(level) = self.cli_thinking() {
            level
        } else if resumed && has_level {
            ThinkingLevel::parse_setting(&context.thinking_level).unwrap_or(None)
        } else {
            super::start_model::default_thinking_level(&self.settings)
        };
        let model = self.agent.model();
        let level = if model.reasoning { level } else { None };
        self.agent.set_thinking_level(level);
        self.agent.replace_messages(context.messages);
        let mut session = self.session();
        let written = if !resumed {
            session
                .append_model_change(model.provider.as_str(), &model.id)
                .and_then(|_| {
                    session.append_thinking_level_change(ThinkingLevel::setting_name(level))
                })
        } else if !has_level {
            session.append_thinking_level_change(ThinkingLevel::setting_name(level))
        } else {
            return;
        };
        if let Err(e) = written {
            tracing::error!("cannot save the session's model and thinking level: {e}");
        }
    }

    /// Starts a new, empty session (optionally naming its parent) with the
    /// current model and thinking level.
    pub fn new_session(&self, parent_session: Option<String>) -> Result<(), AppError> {
        self.new_session_as(NewSessionOptions {
            parent_session,
            ..NewSessionOptions::default()
        })
    }

    /// [`App::new_session`] with the new session's id and start time
    /// from `options`.
    pub(super) fn new_session_as(&self, options: NewSessionOptions) -> Result<(), AppError> {
        self.refuse_while_streaming()?;
        // As pi: the new session starts on `--model` / `--thinking` when given.
        let model_restored = self.restore_cli_model();
        let model = self.agent.model();
        let level = match self.cli_thinking() {
            Some(level) => level,
            None if model_restored => *super::lock(&self.default_thinking),
            None => self.agent.with_state(|s| s.thinking_level),
        };
        let level = super::clamp_level(&model, level);
        self.agent.set_thinking_level(level);
        {
            let mut session = self.session();
            session.new_session(options);
            session.append_model_change(model.provider.as_str(), &model.id)?;
            session.append_thinking_level_change(ThinkingLevel::setting_name(level))?;
        }
        self.agent.replace_messages(Vec::new());
        Ok(())
    }

    /// Switches to the session file at `path`.
    pub fn switch_session(&self, path: &Path) -> Result<(), AppError> {
        self.refuse_while_streaming()?;
        // A new file there could never be written: refuse rather than
        // lose every later message.
        if !path.exists()
            && let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.is_dir()
        {
            return Err(AppError::MissingSessionDir(parent.to_path_buf()));
        }
        let dir = self.session().session_dir().map(Path::to_path_buf);
        {
            let mut current = self.session();
            // The current file may be the one asked for: its lock goes first,
            // and the new file is read under its own lock.
            current.release_lock();
            let relock = |current: &mut SessionManager| {
                if let Err(relock) = current.lock() {
                    tracing::error!("cannot lock the current session file again: {relock}");
                }
            };
            let opened = match SessionManager::open_locked(path, dir.as_deref()) {
                Ok(opened) => opened,
                Err(e) => {
                    relock(&mut current);
                    return Err(e.into());
                }
            };
            if let Some(message) = super::setup::missing_session_cwd(&opened, &self.cwd) {
                drop(opened);
                relock(&mut current);
                return Err(AppError::MissingSessionCwd(message));
            }
            *current = opened;
        }
        self.load_from_session();
        Ok(())
    }

    /// Forks the session at user message `entry_id`: a new session file
    /// holding the path up to that message's parent. Returns the message's
    /// text (for the caller to edit and send again).
    pub fn fork(&self, entry_id: &str) -> Result<String, AppError> {
        self.fork_as(entry_id, NewSessionOptions::default())
    }

    /// [`App::fork`] with the new session's id and start time from `options`.
    pub(super) fn fork_as(
        &self,
        entry_id: &str,
        options: NewSessionOptions,
    ) -> Result<String, AppError> {
        self.refuse_while_streaming()?;
        let (text, parent) = {
            let session = self.session();
            let Some(SessionEntry::Message(message)) = session.entry(entry_id) else {
                return Err(AppError::InvalidForkEntry);
            };
            let AgentMessage::Standard(Message::User(user)) = &message.message else {
                return Err(AppError::InvalidForkEntry);
            };
            (user_text(&user.content), message.parent_id.clone())
        };
        {
            let mut session = self.session();
            let parent_file = session.session_file().map(|p| p.display().to_string());
            match parent {
                Some(parent) => {
                    session.create_branched_session_as(&parent, options)?;
                }
                None => {
                    session.new_session(NewSessionOptions {
                        parent_session: parent_file,
                        ..options
                    });
                }
            }
        }
        self.load_from_session();
        Ok(text)
    }

    /// rpc `clone`: continues in a new session file holding the current
    /// branch up to and including the leaf (pi's fork "at" the leaf).
    pub fn clone_session(&self) -> Result<(), AppError> {
        self.clone_session_as(NewSessionOptions::default())
    }

    /// [`App::clone_session`] with the new session's id and start time
    /// from `options`.
    pub(super) fn clone_session_as(&self, options: NewSessionOptions) -> Result<(), AppError> {
        self.refuse_while_streaming()?;
        {
            let mut session = self.session();
            let leaf = session
                .leaf_id()
                .map(str::to_owned)
                .ok_or(AppError::NoCurrentEntry)?;
            // pi forks from the file: before its first write (no assistant
            // message yet) the leaf is not found there.
            if session.session_file().is_some_and(|f| !f.exists()) {
                return Err(AppError::EntryNotFound(leaf));
            }
            session.create_branched_session_as(&leaf, options)?;
        }
        self.load_from_session();
        Ok(())
    }

    /// Writes the transcript as a self-contained HTML page; returns its path
    /// as pi reports it: `output`, else `pi-session-<session file name>.html`
    /// (relative, written into the working directory). An in-memory session,
    /// or one whose file is not written yet, is refused with pi's messages.
    pub fn export_html(&self, output: Option<&Path>) -> Result<PathBuf, AppError> {
        #[cfg(feature = "cli")]
        return self.export_html_themed(output, None);
        #[cfg(not(feature = "cli"))]
        {
            let _ = output;
            Err(AppError::ExportUnavailable)
        }
    }

    /// [`Self::export_html`] in `theme`'s colours (the terminal's, for
    /// `/export`); without one, the `theme` setting's built-in theme.
    #[cfg(feature = "cli")]
    pub fn export_html_themed(
        &self,
        output: Option<&Path>,
        theme: Option<pi_tui::theme::Theme>,
    ) -> Result<PathBuf, AppError> {
        let (file, path, options) = {
            let session = self.session();
            let file = session.session_file().ok_or(AppError::InMemoryExport)?;
            if !file.exists() {
                return Err(AppError::NothingToExport);
            }
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
            let default = PathBuf::from(format!("pi-session-{}.html", stem.unwrap_or_default()));
            let (system_prompt, tools) = self.agent.with_state(|state| {
                let tools = state
                    .tools
                    .iter()
                    .map(|t| crate::export::html::ToolInfo {
                        name: t.name().to_owned(),
                        description: t.description().to_owned(),
                    })
                    .collect();
                (state.system_prompt.clone(), tools)
            });
            let mode = pi_tui::theme::ColorMode::TrueColor;
            let theme = theme.unwrap_or_else(|| {
                self.settings
                    .theme()
                    .and_then(|name| pi_tui::theme::Theme::builtin(name, mode))
                    .unwrap_or_else(|| pi_tui::theme::Theme::dark(mode))
            });
            let options = crate::export::html::PageOptions {
                theme,
                leaf_id: session.leaf_id().map(str::to_owned),
                system_prompt: Some(system_prompt),
                tools,
                ..crate::export::html::PageOptions::default()
            };
            (
                file.to_path_buf(),
                output.map_or(default, Path::to_path_buf),
                options,
            )
        };
        // The page is read from the session file, streamed: every entry the
        // session holds is in it (entries are written as they are appended).
        crate::export::write_session_page(&file, &self.cwd.join(&path), &options)
            .map_err(|e| export_error(e, &path))?;
        Ok(path)
    }

    /// `/share`: the page of [`Self::export_html`] uploaded as a secret gist
    /// ([`crate::export::share`]); nothing is written when `gh` is missing or
    /// not logged in.
    pub async fn share(
        self: &std::sync::Arc<Self>,
    ) -> Result<crate::export::share::Shared, AppError> {
        let app = std::sync::Arc::clone(self);
        let shared =
            crate::export::share::share_with(move |page| app.export_html(Some(page)).map(|_| ()))
                .await?;
        Ok(shared)
    }

    /// `/export <path>.jsonl`: writes the active branch as a session file of its
    /// own (pi's `exportToJsonl`); returns the path written.
    pub fn export_jsonl(&self, output: &Path) -> Result<PathBuf, AppError> {
        let text = {
            let session = self.session();
            crate::export::branch_jsonl(&session, &crate::session::now_iso())?
        };
        let path = self.cwd.join(output);
        crate::export::write_file(&path, text.as_bytes()).map_err(|source| {
            AppError::WriteFile {
                path: path.clone(),
                source,
            }
        })?;
        Ok(path)
    }
}

/// An export's error as the app reports it: the session's own error, or the
/// output file's.
#[cfg(feature = "cli")]
pub(super) fn export_error(error: crate::export::html::ExportError, path: &Path) -> AppError {
    match error {
        crate::export::html::ExportError::Session(e) => AppError::Session(e),
        crate::export::html::ExportError::Io(source) => AppError::WriteFile {
            path: path.to_path_buf(),
            source,
        },
    }
}
