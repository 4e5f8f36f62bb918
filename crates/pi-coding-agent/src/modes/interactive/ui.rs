//! The interactive mode's state, independent of the terminal: the
//! transcript, the editor, the queued messages, the spinner and the footer;
//! the app's events applied to them; and each frame's lines (those to
//! commit into the scrollback, and the live region). Keys and commands are
//! in [`super::input`] and `super::commands`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent_core::{AgentMessage, PromptInput};
use pi_ai::Message;
use pi_tui::Component;
use pi_tui::editor::Editor;
use pi_tui::loader::Loader;
use pi_tui::theme::{Theme, Token};
use tokio::sync::mpsc::UnboundedSender;

use super::blocks::{BashBlock, Block, BlockKind, Notice, RenderCtx};
use super::complete::Completer;
use super::events::UiEvent;
use super::footer::{FooterInfo, UsageTotals, render_footer};
use super::format::shorten_home;
use super::transcript::{Transcript, user_text};
use crate::app::{App, BashResult, CompactionReason, SessionEvent};
use crate::messages::CodingMessage;

/// Which queue a message waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    /// Delivered after the current tool calls (Enter while streaming).
    Steer,
    /// Delivered when the agent would stop (Alt+Enter while streaming).
    FollowUp,
}

/// What the spinner says.
pub(crate) enum Status {
    /// Nothing runs.
    Idle,
    /// `Working...` (a run) or a compaction's message.
    Busy(Loader),
    /// `Retrying (n/max) in Ns...`, counting down to `until`.
    Retry {
        /// The spinner.
        loader: Loader,
        /// Attempt number.
        attempt: u64,
        /// Attempts allowed.
        max: u64,
        /// When the retry starts.
        until: Instant,
    },
}

/// The interactive mode's state.
pub struct Ui {
    pub(crate) app: Arc<App>,
    pub(crate) theme: Arc<Theme>,
    pub(crate) transcript: Transcript,
    pub(crate) editor: Editor,
    pub(crate) footer: FooterInfo,
    /// Messages queued while streaming, oldest first.
    pub(crate) queue: Vec<(QueueKind, String)>,
    /// Prompts typed while the app compacts or retries (sent when it is done).
    pub(crate) deferred: Vec<String>,
    /// `!cmd` blocks run while streaming (moved into the chat when the run ends).
    pub(crate) pending_bash: Vec<Block>,
    /// Where the running `!cmd` block is: the chat (index) or the pending area.
    pub(crate) bash_running: Option<BashSlot>,
    pub(crate) status: Status,
    pub(crate) expanded: bool,
    pub(crate) hide_thinking: bool,
    /// A prompt run (with its retries and compactions) is in progress.
    pub(crate) running: bool,
    pub(crate) last_ctrl_c: Option<Instant>,
    pub(crate) quit: bool,
    /// The whole chat must be printed again (Ctrl+O, Ctrl+T).
    pub(crate) reprint: bool,
    pub(crate) tx: UnboundedSender<UiEvent>,
    pub(crate) home: Option<PathBuf>,
    /// Context use is unknown until the first answer after a compaction.
    pub(crate) context_unknown: bool,
    /// The last session save error shown (a failing disk repeats it per entry).
    shown_save_error: Option<String>,
    /// Key bindings, themes and the dialogs replacing the editor.
    pub(crate) extras: super::extras::Extras,
    /// The open selector and double-Esc / branch-summary state.
    pub(crate) nav: super::selectors::nav::NavState,
}

/// Where a running `!cmd` block lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BashSlot {
    /// In the chat, at this block index.
    Chat(usize),
    /// In the pending area, at this index.
    Pending(usize),
}

impl Ui {
    /// The state for `app`, with the chat of its session so far.
    pub fn new(app: Arc<App>, theme: Arc<Theme>, tx: UnboundedSender<UiEvent>) -> Self {
        let mut editor = Editor::new(Arc::clone(&theme));
        let models = app
            .registry()
            .available_models(app.cli_api_key.as_deref(), &app.auth)
            .iter()
            .map(|m| format!("{}/{}", m.provider.as_str(), m.id))
            .collect();
        editor.set_autocomplete(Box::new(
            Completer::new(app.cwd.clone()).with_models(models),
        ));
        let mut ui = Self {
            app,
            theme,
            transcript: Transcript::new(),
            editor,
            footer: FooterInfo::default(),
            queue: Vec::new(),
            deferred: Vec::new(),
            pending_bash: Vec::new(),
            bash_running: None,
            status: Status::Idle,
            expanded: false,
            hide_thinking: false,
            running: false,
            last_ctrl_c: None,
            quit: false,
            reprint: false,
            tx,
            home: dirs::home_dir(),
            context_unknown: false,
            shown_save_error: None,
            extras: super::extras::Extras::default(),
            nav: Default::default(),
        };
        ui.transcript.notice(Notice::Header {
            version: crate::VERSION.to_owned(),
        });
        ui.load_session();
        ui.init_footer();
        ui.update_border();
        ui
    }

    /// Shows the current session's chat (a resumed session's history), seeds
    /// the editor's history with its prompts and notes its compactions.
    pub fn load_session(&mut self) {
        let now = Instant::now();
        let app = Arc::clone(&self.app);
        let editor = &mut self.editor;
        let transcript = &mut self.transcript;
        app.agent.with_state(|state| {
            transcript.load_history(state.messages.iter(), now);
            for message in &state.messages {
                if let AgentMessage::Standard(Message::User(user)) = message {
                    let text = user_text(&user.content);
                    if !text.is_empty() {
                        editor.add_to_history(&text);
                    }
                }
            }
        });
        let (_, compactions) = self.app.session().message_and_compaction_counts();
        if compactions > 0 {
            let times = if compactions == 1 {
                "1 time".to_owned()
            } else {
                format!("{compactions} times")
            };
            self.transcript
                .status(&format!("Session compacted {times}"));
        }
    }

    /// The footer's session-wide data (totals over every assistant entry).
    pub fn init_footer(&mut self) {
        let mut totals = UsageTotals::default();
        let (name, cwd) = {
            let session = self.app.session();
            // One entry at a time: a long resumed session is not read
            // into memory whole for its totals.
            session.for_each_entry(|entry| {
                if let Some(AgentMessage::Standard(Message::Assistant(a))) = entry.as_message() {
                    totals.add(&a.usage);
                }
            });
            (
                session.session_name().map(str::to_owned),
                session.cwd().to_owned(),
            )
        };
        let providers: std::collections::BTreeSet<String> = self
            .app
            .registry()
            .available_models(self.app.cli_api_key.as_deref(), &self.app.auth)
            .iter()
            .map(|m| m.provider.as_str().to_owned())
            .collect();
        self.footer = FooterInfo {
            cwd: shorten_home(&cwd, self.home.as_deref()),
            branch: super::git::current_branch(&self.app.cwd),
            session_name: name,
            totals,
            auto_compact: self.app.auto_compaction(),
            several_providers: providers.len() > 1,
            ..FooterInfo::default()
        };
        self.refresh_footer();
    }

    /// Model, thinking level and context use, read again.
    pub fn refresh_footer(&mut self) {
        let model = self.app.agent.model();
        let (level, tokens) = self.app.agent.with_state(|s| {
            (
                s.thinking_level,
                crate::compaction::estimate_context_tokens(&s.messages).tokens,
            )
        });
        let window = model.context_window;
        self.footer.context_window = window;
        // Token counts are far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let percent = (window > 0).then(|| tokens as f64 / window as f64 * 100.0);
        self.footer.context_percent = if self.context_unknown { None } else { percent };
        self.footer.model = Some(model.id.clone());
        self.footer.provider = model.provider.as_str().to_owned();
        self.footer.reasoning = model.reasoning;
        self.footer.thinking = pi_ai::ThinkingLevel::setting_name(level).to_owned();
        self.footer.auto_compact = self.app.auto_compaction();
        self.footer.session_name = self.app.session().session_name().map(str::to_owned);
    }

    /// The editor's rule colour: bash mode, else the thinking level's.
    pub fn update_border(&mut self) {
        let token = if self.editor.text().trim_start().starts_with('!') {
            Token::BashMode
        } else {
            match self.footer.thinking.as_str() {
                "minimal" => Token::ThinkingMinimal,
                "low" => Token::ThinkingLow,
                "medium" => Token::ThinkingMedium,
                "high" => Token::ThinkingHigh,
                "xhigh" => Token::ThinkingXhigh,
                _ => Token::ThinkingOff,
            }
        };
        self.editor.set_border_token(token);
    }

    fn busy(&mut self, message: &str) {
        self.status = Status::Busy(Loader::new(Arc::clone(&self.theme), message));
    }

    /// Applies one event.
    pub fn handle_event(&mut self, event: UiEvent) {
        let now = Instant::now();
        match event {
            UiEvent::AgentStart => self.busy("Working..."),
            UiEvent::AgentEnd => {
                self.transcript.agent_end(now);
                self.status = Status::Idle;
                self.flush_pending_bash();
                self.footer.branch = super::git::current_branch(&self.app.cwd);
                self.refresh_footer();
            }
            UiEvent::MessageStart(message) => {
                if let AgentMessage::Standard(Message::User(user)) = &message {
                    let text = user_text(&user.content);
                    if let Some(at) = self.queue.iter().position(|(_, t)| *t == text) {
                        self.queue.remove(at);
                    }
                }
                self.transcript.message_start(&message, now);
            }
            UiEvent::MessageUpdate(event) => self.transcript.message_update(&event),
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
            UiEvent::App(event) => self.handle_app_event(event, now),
            UiEvent::PromptDone(error) => {
                self.running = false;
                self.status = Status::Idle;
                if let Some(error) = error {
                    self.transcript.notice(Notice::Error(error));
                }
                self.refresh_footer();
                if !self.deferred.is_empty() {
                    let text = self.deferred.remove(0);
                    self.queue.retain(|(_, t)| *t != text);
                    self.start_prompt(text);
                }
            }
            UiEvent::BashDone(result) => self.bash_done(Ok(&result)),
            UiEvent::BashFailed(error) => self.bash_done(Err(&error)),
            UiEvent::Tree(done) => self.tree_done(*done),
            UiEvent::CompactDone => {
                self.running = false;
                self.status = Status::Idle;
                self.refresh_footer();
            }
            UiEvent::OAuth(update) => self.oauth_update(&update),
        }
    }

    /// One of the app's own events. Queue, thinking level and session name
    /// changes show through the footer's next refresh.
    fn handle_app_event(&mut self, event: SessionEvent, now: Instant) {
        match event {
            SessionEvent::CompactionStart { reason } => {
                let message = match reason {
                    CompactionReason::Manual => "Compacting context... (escape to cancel)",
                    CompactionReason::Overflow => {
                        "Context overflow detected, Auto-compacting... (escape to cancel)"
                    }
                    CompactionReason::Threshold => "Auto-compacting... (escape to cancel)",
                };
                self.busy(message);
            }
            SessionEvent::CompactionEnd {
                reason,
                result,
                error_message,
                ..
            } => {
                self.status = if self.app.agent.is_streaming() {
                    Status::Busy(Loader::new(Arc::clone(&self.theme), "Working..."))
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
                let delay = Duration::from_millis(delay_ms);
                let mut loader = Loader::new(Arc::clone(&self.theme), "");
                loader.set_spinner_token(Token::Warning);
                self.status = Status::Retry {
                    loader,
                    attempt: u64::from(attempt),
                    max: u64::from(max_attempts),
                    until: now + delay,
                };
            }
            SessionEvent::SessionSaveError { error } => {
                if self.shown_save_error.as_deref() != Some(error.as_str()) {
                    self.transcript
                        .notice(Notice::Error(format!("Cannot save the session: {error}")));
                    self.shown_save_error = Some(error);
                }
            }
            SessionEvent::AutoRetryEnd {
                success,
                attempt,
                final_error,
            } => {
                if let Status::Retry { .. } = self.status {
                    self.status = Status::Idle;
                }
                if !success {
                    let error = final_error.as_deref().unwrap_or("Unknown error");
                    self.transcript.notice(Notice::Error(format!(
                        "Retry failed after {attempt} attempts: {error}"
                    )));
                }
            }
            SessionEvent::QueueUpdate { .. }
            | SessionEvent::ThinkingLevelChanged { .. }
            | SessionEvent::SessionInfoChanged { .. } => {}
        }
    }

    /// Starts a prompt run.
    pub fn start_prompt(&mut self, text: String) {
        self.start_input(PromptInput::from(text.as_str()));
    }

    /// Starts a prompt run with `input` (text and images).
    pub fn start_input(&mut self, input: PromptInput<CodingMessage>) {
        self.flush_pending_bash();
        self.running = true;
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let error = app.prompt(input).await.err().map(|e| e.to_string());
            let _ = tx.send(UiEvent::PromptDone(error));
        });
    }

    /// Runs a user shell command (`!cmd`).
    pub fn start_bash(&mut self, command: String, exclude: bool) {
        let block = Block::new(BlockKind::Bash(BashBlock::running(
            &command,
            exclude,
            Instant::now(),
        )));
        self.bash_running = Some(if self.app.agent.is_streaming() {
            self.pending_bash.push(block);
            BashSlot::Pending(self.pending_bash.len() - 1)
        } else {
            self.transcript.push(block.kind);
            BashSlot::Chat(self.transcript.len() - 1)
        });
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let event = match app.run_user_bash(&command, exclude).await {
                Ok(result) => UiEvent::BashDone(result),
                Err(e) => UiEvent::BashFailed(e.to_string()),
            };
            let _ = tx.send(event);
        });
    }

    fn bash_done(&mut self, result: Result<&BashResult, &str>) {
        let block = match self.bash_running.take() {
            Some(BashSlot::Chat(i)) => self.transcript.get_mut(i),
            Some(BashSlot::Pending(i)) => self.pending_bash.get_mut(i),
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
    fn flush_pending_bash(&mut self) {
        if matches!(self.bash_running, Some(BashSlot::Pending(_))) {
            return;
        }
        for block in std::mem::take(&mut self.pending_bash) {
            self.transcript.push(block.kind);
        }
    }

    /// True while something on screen animates (the tick timer runs).
    pub fn is_animating(&self) -> bool {
        !matches!(self.status, Status::Idle)
            || self.transcript.is_animating()
            || self.pending_bash.iter().any(Block::is_animating)
    }

    /// Advances spinners and countdowns; true when the frame changed.
    pub fn tick(&mut self, now: Instant) -> bool {
        match &mut self.status {
            Status::Idle => {
                self.transcript.is_animating() || self.pending_bash.iter().any(Block::is_animating)
            }
            Status::Busy(loader) => loader.tick(now) || self.transcript.is_animating(),
            Status::Retry {
                loader,
                attempt,
                max,
                until,
            } => {
                let seconds = until.saturating_duration_since(now).as_secs_f64().ceil();
                loader.set_message(format!(
                    "Retrying ({attempt}/{max}) in {seconds}s... (escape to cancel)"
                ));
                loader.tick(now);
                true
            }
        }
    }

    fn ctx(&self) -> (bool, bool, Option<PathBuf>) {
        (self.expanded, self.hide_thinking, self.home.clone())
    }

    /// The lines to commit into the scrollback now (all of them after a reprint request).
    pub fn take_commits(&mut self, width: usize) -> Vec<String> {
        let (expanded, hide_thinking, home) = self.ctx();
        let theme = Arc::clone(&self.theme);
        let ctx = RenderCtx {
            theme: &theme,
            expanded,
            hide_thinking,
            home,
            now: Instant::now(),
        };
        let mut lines = Vec::new();
        if std::mem::take(&mut self.reprint) {
            lines = self.transcript.committed_lines(&ctx, width);
        }
        lines.extend(self.transcript.take_committable(&ctx, width));
        lines
    }

    /// The live region for a terminal `width` x `rows`.
    pub fn live_lines(&mut self, width: usize, rows: usize) -> Vec<String> {
        let (expanded, hide_thinking, home) = self.ctx();
        let theme = Arc::clone(&self.theme);
        let ctx = RenderCtx {
            theme: &theme,
            expanded,
            hide_thinking,
            home,
            now: Instant::now(),
        };
        let mut lines = Vec::new();
        self.transcript.live_lines(&ctx, width, rows, &mut lines);
        if !self.queue.is_empty() {
            lines.push(String::new());
            for (kind, text) in &self.queue {
                let label = match kind {
                    QueueKind::Steer => "Steering",
                    QueueKind::FollowUp => "Follow-up",
                };
                let line = theme.fg(Token::Dim, &format!("{label}: {}", one_line(text)));
                lines.push(pi_tui::text::truncate_to_width(
                    &format!(" {line}"),
                    width,
                    "",
                ));
            }
            let hint = theme.fg(Token::Dim, "↳ Alt+Up to edit all queued messages");
            lines.push(pi_tui::text::truncate_to_width(
                &format!(" {hint}"),
                width,
                "",
            ));
        }
        for block in &mut self.pending_bash {
            lines.extend_from_slice(block.render(&ctx, width));
        }
        match &mut self.status {
            Status::Idle => {}
            Status::Busy(loader) | Status::Retry { loader, .. } => {
                lines.extend(loader.render(width));
            }
        }
        lines.push(String::new());
        match self
            .dialog_lines(width)
            .or_else(|| self.selector_lines(width, rows))
        {
            Some(lines_in_place) => lines.extend(lines_in_place),
            None => lines.extend(self.editor.render(width, (rows * 3 / 10).max(5))),
        }
        lines.extend(render_footer(&theme, &self.footer, width));
        lines
    }

    /// Adds an error line to the chat.
    pub fn error(&mut self, text: impl Into<String>) {
        self.transcript.notice(Notice::Error(text.into()));
    }

    /// Adds a status line to the chat.
    pub fn status_line(&mut self, text: &str) {
        self.transcript.status(text);
    }
}

/// A queued message on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
