//! pi's `ExtensionContext` (what every handler gets) and
//! `ExtensionCommandContext` (what a command gets besides), backed by the
//! running app. Reads go through the app's locks; nothing is copied up
//! front.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, Weak};

use pi_ai::{CancellationToken, Model};

use super::actions::ExtensionHandle;
use super::handler::ExtensionError;
use super::ui::{ExtensionUi, NoUi};
use crate::app::{App, ContextUsage};
use crate::config::ModelRegistry;
use crate::session::SessionManager;

/// What the extensions of one app share: the app (once built), the UI of
/// the mode it runs in, and the requests they made.
pub struct Shared {
    pub(crate) app: OnceLock<Weak<App>>,
    pub(crate) ui: RwLock<Arc<dyn ExtensionUi>>,
    pub(crate) cwd: PathBuf,
    pub(crate) shutdown_requested: AtomicBool,
    pub(crate) flags: RwLock<std::collections::HashMap<String, serde_json::Value>>,
    pub(crate) bus: super::actions::EventBus,
    /// The tools and commands (those registered at load and those added
    /// while the app runs), and who hears warnings.
    pub(crate) live: super::live::Live,
}

impl Shared {
    pub(crate) fn new(cwd: PathBuf) -> Self {
        Self {
            app: OnceLock::new(),
            ui: RwLock::new(Arc::new(NoUi)),
            cwd,
            shutdown_requested: AtomicBool::new(false),
            flags: RwLock::new(std::collections::HashMap::new()),
            bus: super::actions::EventBus::default(),
            live: super::live::Live::default(),
        }
    }

    /// The app, once built and while it lives.
    pub(crate) fn app(&self) -> Result<Arc<App>, ExtensionError> {
        self.app
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| ExtensionError::new("Extension runtime not initialized"))
    }

    /// The UI of the mode.
    pub(crate) fn ui(&self) -> Arc<dyn ExtensionUi> {
        Arc::clone(&self.ui.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What a handler can see and do (pi's `ctx`).
#[derive(Clone)]
pub struct ExtensionContext {
    shared: Arc<Shared>,
    system_prompt: Option<String>,
}

impl std::fmt::Debug for ExtensionContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionContext")
            .field("cwd", &self.shared.cwd)
            .finish_non_exhaustive()
    }
}

impl ExtensionContext {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            system_prompt: None,
        }
    }

    /// The same context, reporting `prompt` as the system prompt (during
    /// `before_agent_start`: the prompt as chained so far).
    pub(crate) fn with_system_prompt(mut self, prompt: String) -> Self {
        self.system_prompt = Some(prompt);
        self
    }

    /// What the extensions of the app share.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The UI (pi's `ctx.ui`).
    pub fn ui(&self) -> Arc<dyn ExtensionUi> {
        self.shared.ui()
    }

    /// Whether a user can answer dialogs (false in print and json modes).
    pub fn has_ui(&self) -> bool {
        self.shared.ui().has_ui()
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.shared.cwd
    }

    /// The agent directory (`~/.pi/agent` or `$PI_CODING_AGENT_DIR`:
    /// settings, auth, sessions); `None` before the app exists.
    pub fn agent_dir(&self) -> Option<PathBuf> {
        self.app().ok().map(|app| app.agent_dir.clone())
    }

    /// The extension actions (pi's `pi` object).
    pub fn pi(&self) -> ExtensionHandle {
        ExtensionHandle::new(Arc::clone(&self.shared))
    }

    fn app(&self) -> Result<Arc<App>, ExtensionError> {
        self.shared.app()
    }

    /// Reads the session (pi's read-only `ctx.sessionManager`).
    pub fn with_session<R>(&self, read: impl FnOnce(&SessionManager) -> R) -> Option<R> {
        let app = self.app().ok()?;
        let session = app.session();
        Some(read(&session))
    }

    /// Reads the model registry (pi's `ctx.modelRegistry`).
    pub fn with_model_registry<R>(&self, read: impl FnOnce(&ModelRegistry) -> R) -> Option<R> {
        let app = self.app().ok()?;
        let registry = app.registry();
        Some(read(&registry))
    }

    /// The current model.
    pub fn model(&self) -> Option<Model> {
        self.app().ok().map(|app| app.agent.model())
    }

    /// The API key the app would use for `model`.
    pub fn api_key_for(&self, model: &Model) -> Option<String> {
        self.app().ok()?.api_key_for(model)
    }

    /// The current run's abort signal (`None` while idle).
    pub fn signal(&self) -> Option<CancellationToken> {
        self.app().ok()?.agent.cancel_token()
    }

    /// Whether no run is active.
    pub fn is_idle(&self) -> bool {
        self.app().is_ok_and(|app| !app.agent.is_streaming())
    }

    /// Aborts the current run.
    pub fn abort(&self) {
        if let Ok(app) = self.app() {
            app.agent.abort();
        }
    }

    /// Whether steering or follow-up messages are queued.
    pub fn has_pending_messages(&self) -> bool {
        self.app().is_ok_and(|app| app.pending_message_count() > 0)
    }

    /// Asks pi-rs to shut down once idle (the mode decides when).
    pub fn shutdown(&self) {
        self.shared.shutdown_requested.store(true, Ordering::SeqCst);
    }

    /// Context usage of the current model.
    pub fn context_usage(&self) -> Option<ContextUsage> {
        self.app().ok()?.context_usage()
    }

    /// Starts a compaction without waiting for it; `done` gets its outcome.
    pub fn compact(
        &self,
        custom_instructions: Option<String>,
        done: impl FnOnce(Result<(), ExtensionError>) + Send + 'static,
    ) {
        let Ok(app) = self.app() else {
            done(Err(ExtensionError::new(
                "Extension runtime not initialized",
            )));
            return;
        };
        // As pi: a run in progress is aborted (and heard no more) at once,
        // or, when idle, the compaction starts at once.
        let started = app.begin_manual_compaction();
        tokio::spawn(async move {
            let result = app
                .finish_manual_compaction(custom_instructions.as_deref(), started)
                .await
                .map(|_| ())
                .map_err(|e| ExtensionError::new(e.to_string()));
            done(result);
        });
    }

    /// The system prompt (during `before_agent_start`: as chained so far).
    pub fn system_prompt(&self) -> String {
        if let Some(prompt) = &self.system_prompt {
            return prompt.clone();
        }
        self.app()
            .map(|app| app.agent.with_state(|s| s.system_prompt.clone()))
            .unwrap_or_default()
    }
}

/// What a command handler gets: the context plus session control (pi's
/// `ExtensionCommandContext`; not offered to event handlers, which would
/// deadlock waiting for a run they are part of).
#[derive(Clone, Debug)]
pub struct CommandContext {
    ctx: ExtensionContext,
}

impl std::ops::Deref for CommandContext {
    type Target = ExtensionContext;

    fn deref(&self) -> &ExtensionContext {
        &self.ctx
    }
}

impl CommandContext {
    pub(crate) fn new(ctx: ExtensionContext) -> Self {
        Self { ctx }
    }

    /// Waits until no run is active.
    pub async fn wait_for_idle(&self) {
        if let Ok(app) = self.ctx.app() {
            app.agent.wait_for_idle().await;
        }
    }

    /// Starts a new session; false when an extension cancelled it.
    pub async fn new_session(
        &self,
        parent_session: Option<String>,
    ) -> Result<bool, ExtensionError> {
        let app = self.ctx.app()?;
        app.new_session_with_extensions(parent_session)
            .await
            .map_err(|e| ExtensionError::new(e.to_string()))
    }

    /// Forks at user message `entry_id`; false when cancelled.
    pub async fn fork(&self, entry_id: &str) -> Result<bool, ExtensionError> {
        let app = self.ctx.app()?;
        app.fork_with_extensions(entry_id)
            .await
            .map(|forked| forked.is_some())
            .map_err(|e| ExtensionError::new(e.to_string()))
    }

    /// Moves the leaf to `target_id`; false when cancelled.
    pub async fn navigate_tree(
        &self,
        target_id: &str,
        summarize: bool,
    ) -> Result<bool, ExtensionError> {
        let app = self.ctx.app()?;
        let options = crate::app::NavigateOptions {
            summarize,
            ..Default::default()
        };
        app.navigate_tree(target_id, options)
            .await
            .map(|n| !n.cancelled)
            .map_err(|e| ExtensionError::new(e.to_string()))
    }

    /// Switches to the session file at `path`; false when cancelled.
    pub async fn switch_session(&self, path: &Path) -> Result<bool, ExtensionError> {
        let app = self.ctx.app()?;
        app.switch_session_with_extensions(path)
            .await
            .map_err(|e| ExtensionError::new(e.to_string()))
    }

    /// Reloads as `/reload` reloads the app (pi's `session.reload()`):
    /// `session_shutdown` and `session_start` (`reload`), the skills, prompt
    /// templates, context files and system prompt read again, then
    /// `resources_discover` (`reload`).
    pub async fn reload(&self) -> Result<(), ExtensionError> {
        let app = self.ctx.app()?;
        app.reload().await;
        Ok(())
    }
}
