//! What the app tells the [`Ui`]: the agent's events, the app's own typed
//! [`SessionEvent`]s, and the results of the work the UI started (prompt
//! runs, shell commands, compactions, tree moves, logins).

use std::time::{Duration, Instant};

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantMessageEvent, Message};

use super::{BashSlot, Ui};
use crate::app::{BashResult, CompactionReason, SessionEvent};
use crate::modes::interactive::blocks::{BlockKind, Notice};
use crate::modes::interactive::events::{TreeDone, TreeOutcome, UiEvent};
use crate::modes::interactive::parts::status::Status;
use crate::modes::interactive::transcript::user_text;

impl Ui {
    /// Applies one event.
    pub fn handle_event(&mut self, event: UiEvent) {
        let now = Instant::now();
        match event {
            UiEvent::AgentStart => {
                self.view.working = true;
                self.view.work_started = true;
                self.status = self.working_status();
            }
            UiEvent::AgentEnd => {
                self.view.working = false;
                self.transcript.agent_end(now);
                self.status = Status::Idle;
                self.flush_pending_bash();
                self.footer.branch = crate::modes::interactive::git::current_branch(&self.app.cwd);
                self.refresh_footer();
            }
            UiEvent::MessageStart(message) => {
                if let AgentMessage::Standard(Message::User(user)) = &message {
                    self.queue.started(&user_text(&user.content));
                }
                self.transcript.message_start(&message, now);
            }
            UiEvent::MessageUpdate(event) => {
                if let AssistantMessageEvent::ToolCallEnd { tool_call, .. } = &event
                    && tool_call.name == "edit"
                {
                    self.start_edit_preview(tool_call.id.clone(), tool_call.arguments.clone());
                }
                self.transcript.message_update(&event);
            }
            UiEvent::EditPreview { id, diff } => self.transcript.set_edit_preview(&id, diff),
            UiEvent::MessageEnd(message) => {
                if let Some(a) = message.as_assistant() {
                    self.footer.totals.add(&a.usage);
                    if !a.stop_reason.is_failure() && a.usage.total_tokens > 0 {
                        self.context_unknown = false;
                    }
                }
                self.transcript.message_end(&message, now);
                self.refresh_footer();
            }
            UiEvent::ToolStart { id, name, args } => {
                self.transcript.tool_start(&id, &name, &args, now);
            }
            UiEvent::ToolUpdate { id, partial } => {
                self.transcript.tool_result(&id, &partial, false, true, now);
            }
            UiEvent::ToolEnd {
                id,
                result,
                is_error,
            } => self
                .transcript
                .tool_result(&id, &result, is_error, false, now),
            UiEvent::App(event) => self.session_event(event, now),
            UiEvent::PromptDone(error) => {
                self.work.running = false;
                self.status = Status::Idle;
                if let Some(error) = error {
                    self.transcript.notice(Notice::Error(error));
                }
                self.refresh_footer();
                if let Some(text) = self.queue.next_deferred() {
                    self.start_prompt(text);
                }
            }
            UiEvent::Warning(text) => self.transcript.notice(Notice::Warning(text)),
            UiEvent::Status(text) => self.status_line(&text),
            UiEvent::PastedImage(path) => self.editor.insert_text(&path.to_string_lossy()),
            UiEvent::BashOutput(output) => self.bash_output(&output),
            UiEvent::BashDone(result) => self.bash_done(Ok(&result)),
            UiEvent::BashFailed(error) => self.bash_done(Err(&error)),
            UiEvent::Tree(done) => self.tree_done(*done),
            UiEvent::CompactDone => {
                self.work.running = false;
                self.status = Status::Idle;
                self.refresh_footer();
            }
            UiEvent::ShareDone(Ok(links)) => self.status_line(&links),
            UiEvent::ShareDone(Err(error)) => self.error(error.to_string()),
            UiEvent::OAuth(update) => self.oauth_update(&update),
            UiEvent::Extension(request) => self.extension_call(&request),
            UiEvent::Session(done) => self.session_done(done),
            UiEvent::Reloaded => self.reloaded(),
            UiEvent::ThemeFileChanged(path) => self.theme_file_changed(&path),
        }
    }

    /// One of the app's own events. Queue, thinking level and session name
    /// changes show through the footer's next refresh.
    fn session_event(&mut self, event: SessionEvent, now: Instant) {
        match event {
            SessionEvent::CompactionStart { reason } => {
                self.view.working = true;
                self.view.work_started = true;
                let message = match reason {
                    CompactionReason::Manual => "Compacting context... (escape to cancel)",
                    CompactionReason::Overflow => {
                        "Context overflow detected, Auto-compacting... (escape to cancel)"
                    }
                    CompactionReason::Threshold => "Auto-compacting... (escape to cancel)",
                };
                self.status = Status::busy(&self.theme, message);
            }
            SessionEvent::CompactionEnd {
                reason,
                aborted,
                result,
                error_message,
                ..
            } => {
                // As pi: the end of a compaction turns the progress off.
                self.view.working = false;
                self.status = if self.app.agent.is_streaming() {
                    self.working_status()
                } else {
                    Status::Idle
                };
                if let Some(result) = result {
                    let message = crate::messages::create_compaction_summary_message(
                        &result.summary,
                        result.tokens_before,
                        &chrono::Utc::now().to_rfc3339(),
                    );
                    self.transcript.add_message(&message, now);
                    self.context_unknown = true;
                    self.refresh_footer();
                } else if aborted {
                    // pi's texts for a compaction cancelled with Esc.
                    if reason == CompactionReason::Manual {
                        self.error("Compaction cancelled");
                    } else {
                        self.status_line("Auto-compaction cancelled");
                    }
                } else if let Some(message) = error_message {
                    if reason == CompactionReason::Manual {
                        self.transcript.notice(Notice::Error(message));
                    } else {
                        self.transcript.notice(Notice::ErrorText(message));
                    }
                }
            }
            SessionEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                ..
            } => {
                let until = now + Duration::from_millis(delay_ms);
                self.status = Status::retry(
                    &self.theme,
                    u64::from(attempt),
                    u64::from(max_attempts),
                    until,
                );
            }
            SessionEvent::AutoRetryEnd {
                success,
                attempt,
                final_error,
            } => {
                if self.status.is_retry() {
                    self.status = Status::Idle;
                }
                if !success {
                    let error = final_error.as_deref().unwrap_or("Unknown error");
                    self.transcript.notice(Notice::Error(format!(
                        "Retry failed after {attempt} attempts: {error}"
                    )));
                }
            }
            SessionEvent::SessionSaveError { error } => {
                if self.shown_save_error.as_deref() != Some(error.as_str()) {
                    self.transcript
                        .notice(Notice::Error(format!("Cannot save the session: {error}")));
                    self.shown_save_error = Some(error);
                }
            }
            SessionEvent::QueueUpdate { .. }
            | SessionEvent::ThinkingLevelChanged { .. }
            | SessionEvent::SessionInfoChanged { .. } => {}
        }
    }

    /// Computes, off the UI thread, the diff an edit whose arguments are
    /// complete will make (pi previews it before the tool runs).
    fn start_edit_preview(&self, id: String, args: serde_json::Value) {
        let cwd = self.app.cwd.clone();
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            if let Some(diff) = crate::tools::preview_diff(&cwd, &args) {
                let _ = tx.send(UiEvent::EditPreview { id, diff });
            }
        });
    }

    /// The running user shell command's output so far.
    fn bash_output(&mut self, output: &str) {
        let block = match self.work.bash {
            Some(BashSlot::Chat(i)) => self.transcript.get_mut(i),
            Some(BashSlot::Pending(i)) => self.queue.bash_mut(i),
            None => None,
        };
        if let Some(block) = block {
            block.invalidate();
            if let BlockKind::Bash(bash) = &mut block.kind {
                bash.set_output(output);
            }
        }
    }

    /// A user shell command ended (or failed to run).
    fn bash_done(&mut self, result: Result<&BashResult, &str>) {
        let block = match self.work.bash.take() {
            Some(BashSlot::Chat(i)) => self.transcript.get_mut(i),
            Some(BashSlot::Pending(i)) => self.queue.bash_mut(i),
            None => None,
        };
        if let Some(block) = block {
            block.invalidate();
            if let BlockKind::Bash(bash) = &mut block.kind {
                bash.complete(result.ok());
            }
        }
        if let Err(e) = result {
            self.transcript
                .notice(Notice::Error(format!("Bash command failed: {e}")));
        }
        if !self.app.agent.is_streaming() {
            self.flush_pending_bash();
        }
    }

    /// Moves finished deferred `!cmd` blocks into the chat.
    pub(super) fn flush_pending_bash(&mut self) {
        if matches!(self.work.bash, Some(BashSlot::Pending(_))) {
            return;
        }
        for block in self.queue.take_bash() {
            self.transcript.push(block.kind);
        }
    }

    /// A tree move finished.
    fn tree_done(&mut self, done: TreeDone) {
        self.work.running = false;
        self.status = Status::Idle;
        self.work.summary_cancel = None;
        match done.outcome {
            TreeOutcome::Moved(nav) if nav.cancelled => {
                self.status_line("Navigation cancelled");
            }
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
