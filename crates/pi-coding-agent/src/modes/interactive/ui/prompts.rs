//! The prompt side of the [`Ui`]: submitting (a prompt, a `!cmd` or a
//! slash command), steering and follow-ups while streaming, Esc and
//! Ctrl+C, the queue back into the editor, and the model and thinking
//! level keys.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent_core::{AgentMessage, PromptInput};

use super::{BashSlot, Ui};
use crate::messages::CodingMessage;
use crate::modes::interactive::action::Effect;
use crate::modes::interactive::blocks::{BashBlock, Block, BlockKind, Notice};
use crate::modes::interactive::commands;
use crate::modes::interactive::events::UiEvent;
use crate::modes::interactive::parts::queue::QueueKind;

/// Double Ctrl+C window.
const DOUBLE_PRESS: Duration = Duration::from_millis(500);
/// Double-Esc window.
const DOUBLE_ESCAPE: Duration = Duration::from_millis(500);

impl Ui {
    /// Enter.
    pub(super) fn submit(&mut self, text: &str) -> Effect {
        let text = text.trim();
        if text.is_empty() {
            return Effect::None;
        }
        if let Some(action) = commands::parse(text) {
            return self.dispatch(action);
        }
        if self.is_extension_command(text) {
            self.run_extension_command(text);
            return Effect::None;
        }
        if let Some(rest) = text.strip_prefix('!') {
            let exclude = rest.starts_with('!');
            let command = rest.strip_prefix('!').unwrap_or(rest).trim();
            if !command.is_empty() {
                if self.work.bash.is_some() {
                    self.transcript.notice(Notice::Warning(
                        "A bash command is already running. Press Esc to cancel it first."
                            .to_owned(),
                    ));
                    self.editor.set_text(text);
                    return Effect::None;
                }
                self.editor.add_to_history(text);
                self.start_bash(command.to_owned(), exclude);
                return Effect::None;
            }
        }
        self.editor.add_to_history(text);
        self.send(text.to_owned(), QueueKind::Steer);
        Effect::None
    }

    /// Alt+Enter: a follow-up while streaming, else a normal submit.
    pub(super) fn follow_up(&mut self, text: &str) -> Effect {
        let text = text.trim();
        if text.is_empty() {
            return Effect::None;
        }
        if !self.work.running {
            return self.submit(text);
        }
        self.editor.add_to_history(text);
        self.send(text.to_owned(), QueueKind::FollowUp);
        Effect::None
    }

    /// Sends a prompt: queued while the agent streams, deferred while the
    /// app compacts or retries, else a new run.
    fn send(&mut self, text: String, kind: QueueKind) {
        if self.app.agent.is_streaming() {
            // Queued text is expanded like a prompt (`/skill:`, templates), as pi does.
            let text = self.app.expand_input(&text);
            let message = AgentMessage::user_text(text.clone());
            match kind {
                QueueKind::Steer => self.app.agent.steer(message),
                QueueKind::FollowUp => self.app.agent.follow_up(message),
            }
            self.queue.push(kind, text);
        } else if self.work.running {
            self.queue.defer(text);
        } else {
            self.start_prompt(text);
        }
    }

    /// Starts a prompt run.
    pub fn start_prompt(&mut self, text: String) {
        self.start_input(PromptInput::from(text.as_str()));
    }

    /// Starts a prompt run with `input` (text and images).
    pub fn start_input(&mut self, input: PromptInput<CodingMessage>) {
        self.flush_pending_bash();
        self.work.running = true;
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let error = app.prompt(input).await.err().map(|e| e.to_string());
            let _ = tx.send(UiEvent::PromptDone(error));
        });
    }

    /// Runs a user shell command (`!cmd`).
    fn start_bash(&mut self, command: String, exclude: bool) {
        let block = Block::new(BlockKind::Bash(BashBlock::running(
            &command,
            exclude,
            Instant::now(),
        )));
        self.work.bash = Some(if self.app.agent.is_streaming() {
            BashSlot::Pending(self.queue.add_bash(block))
        } else {
            BashSlot::Chat(self.transcript.push(block.kind))
        });
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        // The output so far, while it runs (pi streams it into the block).
        let output_tx = self.tx.clone();
        let on_output: pi_agent_core::ToolUpdateFn = Arc::new(move |update| {
            let text = update
                .content
                .iter()
                .filter_map(pi_ai::UserBlock::as_text)
                .collect::<String>();
            let _ = output_tx.send(UiEvent::BashOutput(text));
        });
        tokio::spawn(async move {
            let event = match app.run_editor_bash(&command, exclude, &on_output).await {
                Ok(result) => UiEvent::BashDone(result),
                Err(e) => UiEvent::BashFailed(e.to_string()),
            };
            let _ = tx.send(event);
        });
    }

    /// Ctrl+C: clears the editor; the second within 500 ms quits.
    pub(super) fn clear(&mut self) -> Effect {
        let now = Instant::now();
        if self
            .last_ctrl_c
            .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_PRESS)
        {
            return Effect::Quit;
        }
        self.last_ctrl_c = Some(now);
        self.editor.set_text("");
        Effect::None
    }

    /// Esc: cancel a running compaction, else abort the run (queued
    /// messages back into the editor), else cancel a running `!cmd`, a
    /// retry wait, or leave bash mode.
    pub(super) fn interrupt(&mut self) {
        if self.app.is_compacting() {
            self.app.abort_compaction();
        } else if self.app.agent.is_streaming() {
            self.restore_queue();
            self.app.agent.abort();
        } else if self.work.bash.is_some() {
            self.app.abort_user_bash();
        } else if self.work.running {
            self.app.abort_retry();
            self.app.agent.abort();
        } else if self.editor.text().trim_start().starts_with('!') {
            self.editor.set_text("");
        } else if self.editor.text().trim().is_empty() {
            self.escape_on_empty();
        }
    }

    /// Esc on an empty editor: the second within 500 ms opens pi's
    /// `doubleEscapeAction` (the tree by default, or the fork selector).
    fn escape_on_empty(&mut self) {
        // Read now: a change in `/settings` applies at once, as in pi.
        let action = self.setting_value("double-escape-action", "tree");
        if action == "none" {
            return;
        }
        let now = Instant::now();
        if self
            .last_escape
            .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_ESCAPE)
        {
            self.last_escape = None;
            if action == "fork" {
                self.open_fork();
            } else {
                self.open_tree(None);
            }
        } else {
            self.last_escape = Some(now);
        }
    }

    /// Alt+Up: the queued messages back into the editor, with a status line.
    pub(super) fn dequeue(&mut self) {
        let restored = self.restore_queue();
        if restored == 0 {
            self.status_line("No queued messages to restore");
        } else {
            let s = if restored > 1 { "s" } else { "" };
            self.status_line(&format!("Restored {restored} queued message{s} to editor"));
        }
    }

    /// Moves every queued message back into the editor (before its text);
    /// returns how many.
    fn restore_queue(&mut self) -> usize {
        self.app.agent.clear_all_queues();
        let texts = self.queue.take_texts();
        let count = texts.len();
        if count > 0 {
            let current = self.editor.text();
            let combined: Vec<String> = texts
                .into_iter()
                .chain(std::iter::once(current))
                .filter(|t| !t.trim().is_empty())
                .collect();
            self.editor.set_text(&combined.join("\n\n"));
        }
        count
    }

    /// Ctrl+T: hides or shows thinking blocks; saved as `hideThinkingBlock`
    /// (the /settings row), as pi does.
    pub(super) fn toggle_thinking(&mut self) {
        let hide = !self.view.hide_thinking;
        self.apply_setting("hide-thinking", if hide { "true" } else { "false" });
        let state = if self.view.hide_thinking {
            "hidden"
        } else {
            "visible"
        };
        self.status_line(&format!("Thinking blocks: {state}"));
    }

    /// Shift+Tab: the next thinking level the model supports.
    pub(super) fn cycle_thinking(&mut self) {
        // The levels the model supports (its catalog `thinkingLevelMap`
        // decides `xhigh`), as pi's `cycleThinkingLevel`.
        let Some(next) = self.app.cycle_thinking_level() else {
            self.status_line("Current model does not support thinking");
            return;
        };
        self.refresh_footer();
        let name = pi_ai::ThinkingLevel::setting_name(next);
        self.status_line(&format!("Thinking level: {name}"));
    }

    /// Ctrl+P / Shift+Ctrl+P: the next (previous) scoped or available model.
    pub(super) fn cycle_model(&mut self, backward: bool) {
        let Some(cycled) = self.app.cycle_model(backward) else {
            let what = if self.app.scoped_models().is_empty() {
                "available"
            } else {
                "in scope"
            };
            self.status_line(&format!("Only one model {what}"));
            return;
        };
        let model = cycled.model;
        let name = if model.name.is_empty() {
            model.id
        } else {
            model.name
        };
        self.refresh_footer();
        let level = &self.footer.thinking;
        let thinking = if self.footer.reasoning && level != "off" {
            format!(" (thinking: {level})")
        } else {
            String::new()
        };
        let text = format!("Switched to {name}{thinking}");
        if self.app.extensions.has_handlers("model_select") {
            // As pi: the line follows what `model_select` handlers show.
            let runner = Arc::clone(&self.app.extensions);
            let tx = self.tx.clone();
            tokio::spawn(async move {
                runner.settle_notifications().await;
                let _ = tx.send(UiEvent::Status(text));
            });
        } else {
            self.status_line(&text);
        }
        self.warn_about_anthropic_extra_usage();
    }

    /// `/compact [instructions]`: runs in the background; its cards come
    /// from the app's compaction events.
    pub(super) fn compact(&mut self, instructions: Option<String>) {
        let (messages, _) = self.app.session().message_and_compaction_counts();
        if messages < 2 {
            self.transcript.notice(Notice::Warning(
                "Nothing to compact (no messages yet)".to_owned(),
            ));
            return;
        }
        if self.work.running {
            self.transcript.notice(Notice::Warning(
                "Wait for the current run to finish before compacting".to_owned(),
            ));
            return;
        }
        self.work.running = true;
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let _ = app.compact(instructions.as_deref()).await;
            let _ = tx.send(UiEvent::CompactDone);
        });
    }
}
