//! Keys and submissions: an open dialog takes every key; else pi's app
//! actions (`app.clear`, `app.exit`, `app.suspend`, ...) are matched in the
//! key bindings before the editor, then submit (or steer while streaming) and
//! the follow-up key. Every key goes through `keybindings.json`'s table.

use std::time::{Duration, Instant};

use pi_agent_core::AgentMessage;
use pi_ai::ThinkingLevel;
use pi_tui::crossterm::event::{KeyEvent, KeyEventKind};
use pi_tui::editor::EditorAction;

use super::ui::{QueueKind, Ui};

/// Double Ctrl+C window.
const DOUBLE_PRESS: Duration = Duration::from_millis(500);

/// What the terminal loop must do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond a redraw.
    None,
    /// Leave the interactive mode.
    Quit,
    /// Ctrl+Z: suspend the process.
    Suspend,
    /// Ctrl+G: edit the prompt in `$VISUAL` / `$EDITOR`.
    ExternalEditor,
    /// Write this text to the clipboard (OSC 52 fallback).
    Copy(String),
}

impl Ui {
    /// Handles a key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> Effect {
        if key.kind == KeyEventKind::Release {
            return Effect::None;
        }
        if let Some(effect) = self.dialog_key(&key) {
            return effect;
        }
        let effect = self.app_key(&key).unwrap_or_else(|| self.editor_key(key));
        self.update_border();
        effect
    }

    /// The app's own bindings; `None` passes the key to the editor.
    fn app_key(&mut self, key: &KeyEvent) -> Option<Effect> {
        let kb = std::sync::Arc::clone(&self.extras.keys);
        let is = |id: &str| kb.matches(key, id);
        if is("app.clear") {
            let now = Instant::now();
            if self
                .last_ctrl_c
                .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_PRESS)
            {
                return Some(Effect::Quit);
            }
            self.last_ctrl_c = Some(now);
            self.editor.set_text("");
            return Some(Effect::None);
        }
        if is("app.exit") && self.editor.is_empty() {
            return Some(Effect::Quit);
        }
        if is("app.suspend") {
            return Some(Effect::Suspend);
        }
        if is("app.editor.external") {
            return Some(Effect::ExternalEditor);
        }
        if is("app.tools.expand") {
            self.expanded = !self.expanded;
            self.reprint = true;
            return Some(Effect::None);
        }
        if is("app.thinking.toggle") {
            let hide = !self.hide_thinking;
            // As pi: persisted as `hideThinkingBlock` (the /settings row).
            self.apply_setting("hide-thinking", if hide { "true" } else { "false" });
            let state = if self.hide_thinking {
                "hidden"
            } else {
                "visible"
            };
            self.status_line(&format!("Thinking blocks: {state}"));
            return Some(Effect::None);
        }
        if is("app.model.cycleForward") || is("app.model.cycleBackward") {
            self.cycle_model(is("app.model.cycleBackward"));
            return Some(Effect::None);
        }
        if is("app.thinking.cycle") {
            self.cycle_thinking();
            return Some(Effect::None);
        }
        // Actions that run a slash command (unbound by default, except Ctrl+L).
        for (id, command) in [
            ("app.model.select", "/model"),
            ("app.session.new", "/new"),
            ("app.session.tree", "/tree"),
            ("app.session.fork", "/fork"),
            ("app.session.resume", "/resume"),
        ] {
            if is(id) {
                // The command clears the editor; a key must not lose the draft.
                let draft = self.editor.text();
                let effect = self.command(command).unwrap_or(Effect::None);
                if self.editor.is_empty() && !draft.is_empty() {
                    self.editor.set_text(&draft);
                }
                return Some(effect);
            }
        }
        if is("app.message.followUp") {
            let text = self.editor.take_text();
            return Some(self.follow_up(&text));
        }
        if is("app.message.dequeue") {
            let restored = self.restore_queue();
            if restored == 0 {
                self.status_line("No queued messages to restore");
            } else {
                let s = if restored > 1 { "s" } else { "" };
                self.status_line(&format!("Restored {restored} queued message{s} to editor"));
            }
            return Some(Effect::None);
        }
        None
    }

    fn editor_key(&mut self, key: KeyEvent) -> Effect {
        let is_escape = self.extras.keys.matches(&key, "app.interrupt");
        match self.editor.handle_key(key) {
            EditorAction::Submit(text) => self.submit(&text),
            EditorAction::FollowUp(text) => self.follow_up(&text),
            EditorAction::Ignored if is_escape => {
                self.escape();
                Effect::None
            }
            EditorAction::Handled | EditorAction::Ignored => Effect::None,
        }
    }

    /// Esc: abort the run (queued messages back into the editor), else
    /// cancel a running `!cmd`, a retry wait, or leave bash mode.
    fn escape(&mut self) {
        if self.app.agent.is_streaming() {
            self.restore_queue();
            self.app.agent.abort();
        } else if self.bash_running.is_some() {
            self.app.abort_user_bash();
        } else if self.running {
            self.app.abort_retry();
            self.app.agent.abort();
        } else if self.editor.text().trim_start().starts_with('!') {
            self.editor.set_text("");
        }
    }

    /// Moves every queued message back into the editor (before its text);
    /// returns how many.
    pub fn restore_queue(&mut self) -> usize {
        self.app.agent.clear_all_queues();
        let mut texts: Vec<String> = self.queue.drain(..).map(|(_, t)| t).collect();
        texts.append(&mut self.deferred);
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

    /// Enter.
    pub fn submit(&mut self, text: &str) -> Effect {
        let text = text.trim();
        if text.is_empty() {
            return Effect::None;
        }
        if let Some(effect) = self.command(text) {
            return effect;
        }
        if let Some(rest) = text.strip_prefix('!') {
            let exclude = rest.starts_with('!');
            let command = rest.strip_prefix('!').unwrap_or(rest).trim();
            if !command.is_empty() {
                if self.bash_running.is_some() {
                    self.transcript.notice(super::blocks::Notice::Warning(
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
    pub fn follow_up(&mut self, text: &str) -> Effect {
        let text = text.trim();
        if text.is_empty() {
            return Effect::None;
        }
        if !self.running {
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
            let message = AgentMessage::user_text(text.clone());
            match kind {
                QueueKind::Steer => self.app.agent.steer(message),
                QueueKind::FollowUp => self.app.agent.follow_up(message),
            }
            self.queue.push((kind, text));
        } else if self.running {
            self.queue.push((QueueKind::FollowUp, text.clone()));
            self.deferred.push(text);
        } else {
            self.start_prompt(text);
        }
    }

    /// Shift+Tab: the next thinking level the model supports.
    fn cycle_thinking(&mut self) {
        let model = self.app.agent.model();
        if !model.reasoning {
            self.status_line("Current model does not support thinking");
            return;
        }
        let mut levels = vec![
            None,
            Some(ThinkingLevel::Minimal),
            Some(ThinkingLevel::Low),
            Some(ThinkingLevel::Medium),
            Some(ThinkingLevel::High),
        ];
        if pi_ai::supports_xhigh(&model) {
            levels.push(Some(ThinkingLevel::Xhigh));
        }
        let current = self.app.agent.with_state(|s| s.thinking_level);
        let at = levels.iter().position(|l| *l == current).unwrap_or(0);
        let next = levels[(at + 1) % levels.len()];
        self.app.set_thinking_level(next);
        self.refresh_footer();
        let name = crate::app::thinking_level_name(next);
        self.status_line(&format!("Thinking level: {name}"));
    }

    /// Ctrl+P / Shift+Ctrl+P: the next (previous) scoped or available model.
    fn cycle_model(&mut self, backward: bool) {
        let Some(cycled) = self.app.cycle_model(backward) else {
            let what = if self.app.scoped_models.is_empty() {
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
        self.status_line(&format!("Switched to {name}{thinking}"));
    }
}
