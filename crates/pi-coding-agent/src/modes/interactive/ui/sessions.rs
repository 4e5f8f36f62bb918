//! The session side of the [`Ui`]: what the selectors chose (switch model,
//! resume, fork, move in the tree with an optional branch summary, import)
//! and `/new`, `/clone`, with pi's status lines. After a switch or a move
//! the chat is shown again from scratch.

use std::path::Path;
use std::sync::Arc;

use pi_ai::CancellationToken;
use pi_tui::theme::Token;

use super::Ui;
use crate::app::{NavigateError, NavigateOptions};
use crate::modes::interactive::action::{ChoiceKind, TextKind};
use crate::modes::interactive::blocks::Notice;
use crate::modes::interactive::events::{SessionDone, TreeDone, TreeOutcome, UiEvent};
use crate::modes::interactive::parts::status::Status;
use crate::modes::interactive::selectors::choice::{Choice, TextPrompt};

impl Ui {
    /// Runs a session replacement in the background (the extensions are
    /// asked first and may cancel it); the result comes back as
    /// [`UiEvent::Session`].
    fn replace_session<F>(&self, work: F)
    where
        F: std::future::Future<Output = SessionDone> + Send + 'static,
    {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(UiEvent::Session(work.await));
        });
    }

    /// `/new`: a new session, the chat cleared.
    pub(super) fn new_session(&mut self) {
        let app = Arc::clone(&self.app);
        self.replace_session(async move {
            SessionDone::New(
                app.new_session_with_extensions(None)
                    .await
                    .map_err(Arc::new),
            )
        });
    }

    /// `/clone`: the current branch copied into a new session.
    pub(super) fn clone_session(&mut self) {
        if self.app.session().leaf_id().is_none() {
            self.status_line("Nothing to clone yet");
            return;
        }
        let app = Arc::clone(&self.app);
        self.replace_session(async move {
            SessionDone::Clone(app.clone_with_extensions().await.map_err(Arc::new))
        });
    }

    /// A session replacement ended: the new session's chat and pi's line,
    /// nothing when an extension cancelled it.
    pub(super) fn session_done(&mut self, done: SessionDone) {
        match done {
            SessionDone::New(Ok(true)) => {
                self.reload_chat();
                self.transcript
                    .notice(Notice::Success("✓ New session started".to_owned()));
            }
            SessionDone::Clone(Ok(true)) => {
                self.reload_chat();
                self.editor.set_text("");
                self.status_line("Cloned to new session");
            }
            SessionDone::Resume(Ok(true)) => {
                self.reload_chat();
                self.status_line("Resumed session");
            }
            SessionDone::Fork(Ok(Some(text))) => {
                self.reload_chat();
                self.editor.set_text(&text);
                self.status_line("Forked to new session");
            }
            SessionDone::New(Ok(false))
            | SessionDone::Clone(Ok(false))
            | SessionDone::Resume(Ok(false))
            | SessionDone::Fork(Ok(None)) => {}
            SessionDone::New(Err(e))
            | SessionDone::Clone(Err(e))
            | SessionDone::Resume(Err(e))
            | SessionDone::Fork(Err(e)) => self.error(e.to_string()),
        }
    }

    /// Switches to `model` (the model selector, `/model <exact id>`).
    pub(super) fn set_model(&mut self, model: pi_ai::Model) {
        let id = model.id.clone();
        self.app.set_model(model);
        self.refresh_footer();
        self.update_border();
        self.status_line(&format!("Model: {id}"));
        self.warn_about_anthropic_extra_usage();
    }

    /// Resumes the session file `path`.
    pub(super) fn resume(&mut self, path: &Path) {
        let app = Arc::clone(&self.app);
        let path = path.to_path_buf();
        self.replace_session(async move {
            SessionDone::Resume(
                app.switch_session_with_extensions(&path)
                    .await
                    .map_err(Arc::new),
            )
        });
    }

    /// Forks into a new session at the user message `id` (its text back in the editor).
    pub(super) fn fork(&mut self, id: &str) {
        let app = Arc::clone(&self.app);
        let id = id.to_owned();
        self.replace_session(async move {
            SessionDone::Fork(app.fork_with_extensions(&id).await.map_err(Arc::new))
        });
    }

    /// The tree chose `target`: move there, asking about a summary first
    /// unless `branchSummary.skipPrompt` is set.
    pub(super) fn tree_target(&mut self, target: String) {
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
        self.slot.show(Box::new(
            Choice::new(
                Arc::clone(&self.theme),
                "Summarize branch?",
                &["No summary", "Summarize", "Summarize with custom prompt"],
                ChoiceKind::Summarize(target),
            )
            .with_keys(Arc::clone(&self.look.keys)),
        ));
    }

    /// An answer to a confirmation or choice.
    pub(super) fn choice(&mut self, kind: ChoiceKind, answer: Option<usize>) {
        match (kind, answer) {
            (ChoiceKind::Summarize(target), None) => self.open_tree(Some(&target)),
            (ChoiceKind::Summarize(target), Some(0)) => self.navigate(target, false, None),
            (ChoiceKind::Summarize(target), Some(1)) => self.navigate(target, true, None),
            (ChoiceKind::Summarize(target), Some(_)) => {
                self.slot.show(Box::new(
                    TextPrompt::new(
                        Arc::clone(&self.theme),
                        "Custom summarization instructions",
                        TextKind::SummaryInstructions(target),
                    )
                    .with_keys(Arc::clone(&self.look.keys)),
                ));
            }
            (ChoiceKind::Import(path), Some(0)) => self.import(&path),
            (ChoiceKind::Import(_), _) => self.status_line("Import cancelled"),
        }
    }

    /// Text typed into a prompt (`None`: cancelled).
    pub(super) fn text_answer(&mut self, kind: TextKind, text: Option<String>) {
        match (kind, text) {
            (TextKind::SummaryInstructions(target), Some(text)) => {
                self.navigate(target, true, Some(text));
            }
            (TextKind::SummaryInstructions(target), None) => self.ask_summary(target),
        }
    }

    /// `/import <file>` confirmed: the file is copied into the session
    /// folder (unless it is there) and resumed.
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
            self.status = Status::busy_in(
                &self.theme,
                "Summarizing branch... (escape to cancel)",
                Token::Accent,
            );
            self.work.summary_cancel = Some(cancel.clone());
        }
        self.work.running = true;
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
}
