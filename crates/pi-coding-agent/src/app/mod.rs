//! The running coding agent (pi's `AgentSession`): an [`Agent`] over the
//! coding agent's messages, kept in step with its session file, with
//! auto-retry of transient provider errors and auto-compaction wired in.
//! The modes (print, json, rpc) drive it.

mod bash;
mod cli_choice;
mod compact;
mod controls;
mod cycle;
mod error;
mod events;
#[cfg(feature = "cli")]
mod export;
mod extension_flow;
mod extension_hooks;
pub mod files;
pub mod first_run;
mod navigate;
mod persist;
mod reload;
mod request_headers;
mod retry;
mod sessions;
mod setup;
mod start_model;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};
use std::time::Duration;

use pi_agent_core::{Agent, AgentError, AgentMessage, PromptInput, QueueMode};
use pi_ai::{AssistantMessage, CancellationToken, Message, Model, ThinkingLevel};
use serde_json::{Value, json};

use crate::config::{AuthStorage, ModelRegistry, Settings, SettingsWarning, SettingsWriter};
use crate::messages::CodingMessage;
use crate::resources::Resources;
use crate::session::SessionManager;

pub use bash::BashResult;
pub use controls::{ContextUsage, clamp_level, js_number, supported_levels};
pub use cycle::CycledModel;
pub use error::{AppError, SaveError};
pub use events::{CompactionReason, SessionEvent};
#[cfg(feature = "cli")]
pub use export::{export_from_file, share_file};
pub use extension_flow::InputSource;
pub use navigate::{NavigateError, NavigateOptions, TreeNavigation};
use persist::EventHub;
pub use persist::{AppEvent, AppListener};
pub use request_headers::RegistryHeaders;
pub use retry::is_retryable_error;
#[cfg(feature = "cli")]
pub(crate) use setup::transport_setting;
pub use setup::{
    SESSION_DIR_ENV, SessionChoice, SetupError, StartOptions, build_app, register_providers,
    resolve_session_dir,
};

/// The coding agent: agent, session, configuration.
pub struct App {
    /// The agent loop and transcript.
    pub agent: Arc<Agent<CodingMessage>>,
    /// The session file.
    pub session: Arc<Mutex<SessionManager>>,
    /// Known models; rebuilt by [`App::reload_models`] after a login.
    registry: RwLock<ModelRegistry>,
    /// Stored keys.
    pub auth: AuthStorage,
    /// `--api-key`.
    pub cli_api_key: Option<String>,
    /// Merged settings.
    pub settings: Settings,
    /// Writes changed defaults (model, thinking level) to the global settings file.
    pub settings_writer: SettingsWriter,
    /// Settings files that could not be used (their defaults apply).
    pub settings_warnings: Vec<SettingsWarning>,
    /// What choosing the model at start-up warned about (pi's `--model`
    /// warnings, e.g. a custom model id), one line each.
    pub model_warnings: Vec<String>,
    /// The warning the terminal UI opens with when the session's model
    /// could not be restored or no model is usable (pi's wording).
    pub model_fallback: Option<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// The agent dir (settings, auth.json, keybindings.json, themes).
    pub agent_dir: PathBuf,
    auto_retry: AtomicBool,
    auto_compaction: AtomicBool,
    retry_cancel: Mutex<Option<CancellationToken>>,
    bash_cancel: Mutex<Option<CancellationToken>>,
    compaction_cancel: Mutex<Option<CancellationToken>>,
    pending_bash: Mutex<Vec<AgentMessage<CodingMessage>>>,
    /// Manual or automatic compactions running now (pi's `isCompacting`).
    compactions: std::sync::atomic::AtomicUsize,
    /// The level a switch to a reasoning model starts from (pi's settings
    /// `defaultThinkingLevel`, updated by every level change; kept in memory).
    default_thinking: Mutex<Option<ThinkingLevel>>,
    hub: Arc<EventHub>,
    /// Skills, prompt templates and system prompt files (replaced when
    /// extensions add resource paths).
    resources: RwLock<Arc<Resources>>,
    /// What the resources were loaded from.
    resource_options: crate::resources::ResourceOptions,
    /// What the system prompt is built from (rebuilt when the active tools
    /// or the skills change).
    prompt_options: Mutex<crate::system_prompt::SystemPromptOptions>,
    /// The `--models` / `enabledModels` scope, in pattern order (empty:
    /// no scope); model cycling goes through these. `/scoped-models`
    /// replaces it while pi runs.
    scoped_models: Mutex<Vec<crate::config::ScopedModel>>,
    /// The loaded extensions.
    pub extensions: Arc<crate::extensions::ExtensionRunner>,
    /// Extension files that could not be loaded, one line each (the mode
    /// shows them).
    pub extension_warnings: Vec<String>,
    /// Where this mode's prompts come from (`input` events name it).
    input_source: Mutex<InputSource>,
    /// Messages extensions queued for the next prompt (`deliverAs: "nextTurn"`).
    next_turn: Mutex<Vec<AgentMessage<CodingMessage>>>,
    /// The system prompt before `before_agent_start` changes.
    base_system_prompt: Mutex<String>,
    /// Every tool that can be active (built-in and from extensions).
    available_tools: Mutex<Vec<Arc<dyn pi_agent_core::AgentTool>>>,
    /// `--tools`: the only names a tool an extension adds later may be
    /// active under (`None`: any).
    allowed_tools: Option<Vec<String>>,
    /// The command line's `--model` and `--thinking`, applied again to
    /// every session `/new` and `/resume` open, as in pi.
    cli_choice: cli_choice::CliChoice,
    /// Set while the app does not hear the agent's events (a manual
    /// compaction aborting the run in progress).
    detached: Arc<std::sync::atomic::AtomicBool>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A queue mode as pi writes it.
fn queue_mode_name(mode: QueueMode) -> &'static str {
    match mode {
        QueueMode::All => "all",
        QueueMode::OneAtATime => "one-at-a-time",
    }
}

impl App {
    /// Known models (read-locked while the guard lives).
    pub fn registry(&self) -> RwLockReadGuard<'_, ModelRegistry> {
        self.registry.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// pi's `modelRegistry.refresh()` after `/login` or `/logout`: the
    /// models rebuilt from the catalog, models.json and the logins now in
    /// auth.json (a GitHub Copilot login moves its models to the token's
    /// API base), so a login takes effect at once. The current model is
    /// replaced by its rebuilt self. A models.json that no longer loads
    /// keeps the models as they were.
    pub fn reload_models(&self) {
        let mut registry = match ModelRegistry::load(&self.agent_dir) {
            Ok(registry) => registry,
            Err(e) => {
                tracing::warn!("cannot reload the models: {e}");
                return;
            }
        };
        registry.apply_oauth_logins(&self.auth);
        if let Err(e) = registry.apply_extension_providers(
            self.extensions.providers(),
            self.extensions.unregistered_providers(),
        ) {
            tracing::warn!("{e}");
        }
        let current = self.agent.model();
        let rebuilt = registry
            .models()
            .iter()
            .find(|m| m.provider == current.provider && m.id == current.id)
            .filter(|m| **m != current)
            .cloned();
        *self
            .registry
            .write()
            .unwrap_or_else(PoisonError::into_inner) = registry;
        if let Some(model) = rebuilt {
            self.agent.set_model(model);
        }
    }

    /// The current model scope (a copy; empty: no scope).
    pub fn scoped_models(&self) -> Vec<crate::config::ScopedModel> {
        lock(&self.scoped_models).clone()
    }

    /// Replaces the model scope with what `patterns` (pi's `enabledModels`
    /// syntax) select among the models with a key, as `/scoped-models`
    /// does when saved; the scope's warnings are logged.
    pub fn set_scoped_models(&self, patterns: &[String]) {
        let registry = self.registry();
        let available = registry.available_models(self.cli_api_key.as_deref(), &self.auth);
        let scope = crate::config::resolve_model_scope(patterns, &available);
        for warning in &scope.warnings {
            tracing::warn!("{warning}");
        }
        *lock(&self.scoped_models) = scope.models;
    }

    /// The session, locked.
    pub fn session(&self) -> MutexGuard<'_, SessionManager> {
        lock(&self.session)
    }

    /// Adds a listener of every agent event and app event, in pi's order
    /// (an agent event reaches listeners before it is persisted).
    pub fn subscribe(&self, listener: AppListener) {
        self.hub.subscribe(listener);
    }

    /// The last failure to save the session since it was last taken (the
    /// interactive mode shows it; it is also sent to listeners as a
    /// `session_save_error` app event).
    pub fn last_save_error(&self) -> Option<SaveError> {
        lock(&self.hub.save_error).clone()
    }

    /// Takes the last failure to save the session, clearing it.
    pub fn take_save_error(&self) -> Option<SaveError> {
        lock(&self.hub.save_error).take()
    }

    fn emit(&self, event: &SessionEvent) {
        self.hub.emit(AppEvent::App(event));
    }

    /// Whether transient errors are retried automatically.
    pub fn set_auto_retry(&self, enabled: bool) {
        self.auto_retry.store(enabled, Ordering::SeqCst);
        // As pi: remembered in the global settings (`retry.enabled`).
        if let Err(e) = self
            .settings_writer
            .set_nested("retry", "enabled", json!(enabled))
        {
            tracing::error!("cannot save retry.enabled: {e}");
        }
    }

    /// Whether the context is compacted automatically.
    pub fn set_auto_compaction(&self, enabled: bool) {
        self.auto_compaction.store(enabled, Ordering::SeqCst);
        // As pi: remembered in the global settings (`compaction.enabled`).
        if let Err(e) = self
            .settings_writer
            .set_nested("compaction", "enabled", json!(enabled))
        {
            tracing::error!("cannot save compaction.enabled: {e}");
        }
    }

    /// Sets how steering messages are delivered and remembers it in the
    /// global settings (`steeringMode`), as pi.
    pub fn set_steering_mode(&self, mode: QueueMode) {
        self.agent.set_steering_mode(mode);
        self.save_setting("steeringMode", json!(queue_mode_name(mode)));
    }

    /// Sets how follow-up messages are delivered and remembers it in the
    /// global settings (`followUpMode`), as pi.
    pub fn set_follow_up_mode(&self, mode: QueueMode) {
        self.agent.set_follow_up_mode(mode);
        self.save_setting("followUpMode", json!(queue_mode_name(mode)));
    }

    fn save_setting(&self, key: &str, value: Value) {
        if let Err(e) = self.settings_writer.set(&[(key, Some(value))]) {
            tracing::error!("cannot save {key}: {e}");
        }
    }

    /// Whether the context is compacted automatically.
    pub fn auto_compaction(&self) -> bool {
        self.auto_compaction.load(Ordering::SeqCst)
    }

    /// Stops a pending auto-retry wait.
    pub fn abort_retry(&self) {
        if let Some(token) = lock(&self.retry_cancel).as_ref() {
            token.cancel();
        }
    }

    /// `/skill:name args` and `/template args` expanded as pi expands user
    /// input (see [`Resources::expand_input`]).
    pub fn expand_input(&self, text: &str) -> String {
        self.resources().expand_input(text)
    }

    /// Skills, prompt templates and system prompt files.
    pub fn resources(&self) -> Arc<Resources> {
        Arc::clone(
            &self
                .resources
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Sends a prompt (its text expanded by [`App::expand_input`]) and runs
    /// it to completion, retrying transient errors and compacting as
    /// configured.
    ///
    /// Text goes through pi's preflight first: an extension command runs
    /// instead, `input` handlers may transform or handle it, and
    /// `before_agent_start` handlers may add messages and change the
    /// system prompt.
    pub async fn prompt(
        &self,
        input: impl Into<PromptInput<CodingMessage>>,
    ) -> Result<(), AgentError> {
        let input = match input.into() {
            PromptInput::Text { text, images } => {
                match self.prompt_messages(text, images, None).await {
                    Some(messages) => PromptInput::Messages(messages),
                    None => return Ok(()),
                }
            }
            other => other,
        };
        self.run_prompt(input).await
    }

    /// Runs prepared prompt messages to completion (retries, compaction).
    async fn run_prompt(&self, input: PromptInput<CodingMessage>) -> Result<(), AgentError> {
        if !self.agent.is_streaming() {
            self.check_model_auth()?;
            self.check_compaction_before_prompt().await;
        }
        let result = self.agent.prompt(input).await;
        if result.is_ok() {
            self.after_run().await;
            self.flush_pending_bash();
        }
        result
    }

    /// Ends the app's work before the process exits: a pending auto-retry
    /// wait and a user shell command are cancelled, a run still going is
    /// aborted (its partial answer saved as pi saves an aborted one) and
    /// waited for, shell commands that finished during it are recorded, and
    /// the session file's lock is released. The app stays usable for reads.
    pub async fn shutdown(&self) {
        self.abort_retry();
        self.abort_user_bash();
        if self.agent.is_streaming() {
            self.agent.abort();
            self.agent.wait_for_idle().await;
        }
        self.flush_pending_bash();
        self.extensions
            .emit(crate::extensions::SessionShutdownEvent {
                reason: "quit".to_owned(),
                target_session_file: None,
            })
            .await;
        self.session().release_lock();
    }

    /// The last assistant message of the transcript.
    pub fn last_assistant(&self) -> Option<AssistantMessage> {
        self.agent.with_state(|state| {
            state
                .messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        })
    }

    /// The text of the last assistant message, trimmed, skipping aborted
    /// messages without content (`None` when there is none or it is empty),
    /// as pi's `getLastAssistantText`.
    pub fn last_assistant_text(&self) -> Option<String> {
        let text = self.agent.with_state(|state| {
            state.messages.iter().rev().find_map(|m| {
                m.as_assistant()
                    .filter(|a| {
                        !(a.stop_reason == pi_ai::StopReason::Aborted && a.content.is_empty())
                    })
                    .map(AssistantMessage::text)
            })
        })?;
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_owned())
    }

    /// The last message, when it is an assistant message.
    pub fn trailing_assistant(&self) -> Option<AssistantMessage> {
        self.agent
            .with_state(|s| s.messages.last().and_then(|m| m.as_assistant().cloned()))
    }

    /// pi's checks after a run: auto-retry of transient errors (2 s, 4 s,
    /// 8 s, ...), then the compaction check (an overflow is compacted and
    /// the run retried once; a context over the threshold is compacted).
    async fn after_run(&self) {
        let retry = self.settings.retry();
        let window = self.agent.model().context_window;
        loop {
            let Some(last) = self.trailing_assistant() else {
                return;
            };
            let retryable = self.auto_retry.load(Ordering::SeqCst)
                && retry.enabled
                && is_retryable_error(&last, window);
            if retryable {
                let attempt = self.hub.retry_attempt.fetch_add(1, Ordering::SeqCst) + 1;
                if attempt <= retry.max_retries {
                    if !self
                        .wait_to_retry(attempt, &last, retry.base_delay_ms)
                        .await
                        || self.agent.continue_().await.is_err()
                    {
                        return;
                    }
                    continue;
                }
                self.hub.retry_attempt.store(0, Ordering::SeqCst);
                self.emit(&SessionEvent::AutoRetryEnd {
                    success: false,
                    attempt: attempt - 1,
                    final_error: Some(last.error_message.clone().unwrap_or_default()),
                });
            }
            match self.check_compaction(&last, false).await {
                compact::Checked::OverflowCompacted => {
                    if self.agent.continue_().await.is_err() {
                        return;
                    }
                }
                compact::Checked::Done => return,
            }
        }
    }

    /// Announces retry `attempt` of `last`, drops it from the transcript and
    /// waits; false when the wait was cancelled.
    async fn wait_to_retry(
        &self,
        attempt: u32,
        last: &AssistantMessage,
        base_delay_ms: u64,
    ) -> bool {
        let delay = Duration::from_millis(base_delay_ms.saturating_mul(1 << (attempt - 1).min(20)));
        // Cancellable from the moment it is announced: a client may answer
        // `auto_retry_start` with `abort_retry` at once.
        let token = CancellationToken::new();
        *lock(&self.retry_cancel) = Some(token.clone());
        self.emit(&SessionEvent::AutoRetryStart {
            attempt,
            max_attempts: self.settings.retry().max_retries,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error_message: last
                .error_message
                .clone()
                .unwrap_or_else(|| "Unknown error".to_owned()),
        });
        self.drop_last_assistant();
        let cancelled = tokio::select! {
            () = token.cancelled() => true,
            () = tokio::time::sleep(delay) => false,
        };
        *lock(&self.retry_cancel) = None;
        if cancelled {
            self.hub.retry_attempt.store(0, Ordering::SeqCst);
            self.emit(&SessionEvent::AutoRetryEnd {
                success: false,
                attempt,
                final_error: Some("Retry cancelled".to_owned()),
            });
        }
        !cancelled
    }

    /// Removes the trailing failed assistant message from the agent's
    /// transcript (it stays in the session file, as in pi).
    fn drop_last_assistant(&self) {
        self.agent.pop_message_if(|message| {
            matches!(message, AgentMessage::Standard(Message::Assistant(_)))
        });
    }

    /// The key a model call made by the app itself (a compaction's or a
    /// branch summary's) uses, resolved as the agent's calls resolve it:
    /// through the agent's key resolver when it has one (an expired
    /// subscription login is refreshed first, as pi's
    /// `modelRegistry.getApiKey`), else [`App::api_key_for`].
    pub async fn resolve_api_key(&self, model: &Model) -> Option<String> {
        let resolver = self.agent.update_settings(|s| s.get_api_key.clone());
        // The resolver falls back to the configured sources itself.
        match resolver {
            Some(resolver) => resolver.api_key(&model.provider).await,
            None => self.api_key_for(model),
        }
    }

    /// The API key for `model`'s provider: `--api-key`, auth.json, the
    /// environment, then models.json.
    pub fn api_key_for(&self, model: &Model) -> Option<String> {
        self.registry()
            .api_key(
                model.provider.as_str(),
                self.cli_api_key.as_deref(),
                &self.auth,
            )
            .unwrap_or_else(|e| {
                tracing::warn!("{e}");
                None
            })
    }
}
