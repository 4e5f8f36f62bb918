//! What an extension does to the running app (the action half of pi's
//! `ExtensionAPI`): send messages, keep state in the session, name and
//! label it, run commands, pick tools, model and thinking level, read its
//! flags, and talk to other extensions over the event bus.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pi_ai::{ImageContent, Model, ThinkingLevel};
use serde_json::Value;

use super::context::Shared;
use super::handler::ExtensionError;
use super::run_events::NewCustomMessage;

/// How a message sent during a run is delivered (pi's `deliverAs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Delivery {
    /// After the current tool calls (the default while a run is active).
    #[default]
    Steer,
    /// When the run would stop.
    FollowUp,
    /// With the next prompt.
    NextTurn,
}

/// The output of [`ExtensionHandle::exec`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecOutput {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit code (`None` when killed).
    pub code: Option<i32>,
    /// Killed by the timeout.
    pub killed: bool,
}

type BusListener = Arc<dyn Fn(&Value) + Send + Sync>;

/// The inter-extension event bus (pi's `pi.events`).
#[derive(Default)]
pub struct EventBus {
    listeners: Mutex<HashMap<String, Vec<BusListener>>>,
}

/// The actions of an extension (pi's `pi`), cheap to clone into handlers
/// and tools. Before the app is built they fail with "Extension runtime
/// not initialized", as pi's do.
#[derive(Clone)]
pub struct ExtensionHandle {
    shared: Arc<Shared>,
    /// The extension it belongs to (`None` for `ctx.pi()`).
    extension_path: Option<Arc<str>>,
}

impl std::fmt::Debug for ExtensionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionHandle").finish_non_exhaustive()
    }
}

fn failed(error: impl std::fmt::Display) -> ExtensionError {
    ExtensionError::new(error.to_string())
}

impl ExtensionHandle {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            extension_path: None,
        }
    }

    /// The handle of the extension at `path` (what `api.handle()` gives).
    pub(crate) fn for_extension(shared: Arc<Shared>, path: String) -> Self {
        Self {
            shared,
            extension_path: Some(path.into()),
        }
    }

    /// pi's `registerTool` while the app runs, with render hooks: adds
    /// `tool` (replacing a tool of the same name, a built-in included),
    /// activates it unless `--tools` left its name out, and lists it in
    /// the system prompt (its `prompt_snippet`, else its description; its
    /// guidelines too), as pi's tool refresh does. From this handle's
    /// extension (`api.handle()`) the tool's `extension_path` is set to
    /// it. Before the app exists the tool joins those registered at load.
    pub fn add_tool(&self, mut tool: super::RegisteredTool) {
        if let Some(path) = &self.extension_path {
            tool.extension_path = path.to_string();
        }
        let name = tool.tool.name().to_owned();
        self.shared.live.add_tool(tool);
        if let Ok(app) = self.shared.app() {
            app.refresh_extension_tool(&name);
        }
    }

    /// Removes the tool `name` an extension registered (beyond pi, which
    /// cannot): it is no longer available, active, or listed in the
    /// system prompt; a built-in it replaced does not come back. False
    /// when no extension registered it.
    pub fn unregister_tool(&self, name: &str) -> bool {
        let removed = self.shared.live.remove_tool(name);
        if removed && let Ok(app) = self.shared.app() {
            app.refresh_extension_tool(name);
        }
        removed
    }

    /// pi's `registerCommand` while the app runs: adds `/name` (replacing
    /// an extension command of that name) for the prompt paths of every
    /// mode, rpc's `get_commands` and the terminal's `/` menu.
    pub fn register_command<F, Fut>(&self, name: &str, description: Option<&str>, handler: F)
    where
        F: Fn(String, super::CommandContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), ExtensionError>> + Send + 'static,
    {
        self.shared.live.add_command(super::RegisteredCommand {
            name: name.trim_start_matches('/').to_owned(),
            description: description.map(str::to_owned),
            handler: Arc::new(move |args, ctx| Box::pin(handler(args, ctx))),
            completions: None,
            extension_path: self
                .extension_path
                .as_deref()
                .unwrap_or_default()
                .to_owned(),
        });
    }

    /// Removes the extension command `name`; false when there is none.
    pub fn unregister_command(&self, name: &str) -> bool {
        self.shared.live.remove_command(name)
    }

    /// A warning for the user, whatever the mode (beyond pi, whose
    /// extensions print with `console.error`): print and json modes write
    /// `Warning: <message>` on stderr (their `notify` is silent, as in
    /// pi); the terminal UI and rpc show it as a warning notification.
    pub fn warn(&self, message: &str) {
        tracing::debug!("extension warning: {message}");
        let listeners = self.shared.live.warning_listeners();
        if listeners.is_empty() {
            self.shared
                .ui()
                .notify(message, Some(super::NotifyLevel::Warning));
        }
        for listener in listeners {
            listener(message);
        }
    }

    /// A context over the same app (for calls made outside any handler:
    /// an out-of-process host's requests).
    pub(crate) fn context(&self) -> super::ExtensionContext {
        super::ExtensionContext::new(Arc::clone(&self.shared))
    }

    /// pi's `sendMessage`: a custom message. During a run it is delivered
    /// as `delivery` says; otherwise it starts a turn (`trigger_turn`) or
    /// is added to the transcript and saved.
    pub async fn send_message(
        &self,
        message: NewCustomMessage,
        delivery: Option<Delivery>,
        trigger_turn: bool,
    ) -> Result<(), ExtensionError> {
        let app = self.shared.app()?;
        app.send_custom_message(message.into_message(), delivery, trigger_turn)
            .await
            .map_err(failed)
    }

    /// pi's `sendUserMessage`: a user message that always starts a turn
    /// (queued as `delivery` says while a run is active).
    pub async fn send_user_message(
        &self,
        text: &str,
        images: Vec<ImageContent>,
        delivery: Option<Delivery>,
    ) -> Result<(), ExtensionError> {
        let app = self.shared.app()?;
        app.send_extension_user_message(text, images, delivery)
            .await
            .map_err(failed)
    }

    /// Waits until no extension command is being answered (a run that an
    /// out-of-process extension starts from a command begins after it).
    pub(crate) async fn commands_answered(&self) {
        if let Ok(app) = self.shared.app() {
            app.extensions.commands_answered().await;
        }
    }

    /// pi's `appendEntry`: extension state saved in the session (a `custom`
    /// entry, never sent to the model).
    pub fn append_entry(
        &self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<(), ExtensionError> {
        let app = self.shared.app()?;
        app.session()
            .append_custom_entry(custom_type, data)
            .map(|_| ())
            .map_err(failed)
    }

    /// Names the session.
    pub fn set_session_name(&self, name: &str) -> Result<(), ExtensionError> {
        self.shared.app()?.set_session_name(name).map_err(failed)
    }

    /// The session's name.
    pub fn session_name(&self) -> Option<String> {
        let app = self.shared.app().ok()?;
        app.session().session_name().map(str::to_owned)
    }

    /// Labels (or, with `None`, unlabels) an entry.
    pub fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), ExtensionError> {
        self.shared
            .app()?
            .set_entry_label(entry_id, label)
            .map_err(failed)
    }

    /// Runs `command` with `args` in the working directory (no shell), with
    /// `PI_CODING_AGENT=true` set, killed after `timeout`.
    pub async fn exec(
        &self,
        command: &str,
        args: &[String],
        timeout: Option<Duration>,
    ) -> Result<ExecOutput, ExtensionError> {
        run_command(&self.shared.cwd, command, args, timeout).await
    }

    /// The names of the active tools.
    pub fn active_tools(&self) -> Vec<String> {
        self.shared
            .app()
            .map(|app| {
                app.agent
                    .with_state(|s| s.tools.iter().map(|t| t.name().to_owned()).collect())
            })
            .unwrap_or_default()
    }

    /// Every tool that can be activated: `(name, description)`.
    pub fn all_tools(&self) -> Vec<(String, String)> {
        self.shared
            .app()
            .map(|app| app.all_tool_infos())
            .unwrap_or_default()
    }

    /// Activates exactly the tools named (unknown names are ignored).
    pub fn set_active_tools(&self, names: &[String]) -> Result<(), ExtensionError> {
        self.shared.app()?.set_active_tools(names);
        Ok(())
    }

    /// Registers `tool` after load (pi's `registerTool` from a handler or a
    /// command), with its prompt line and guidelines: what
    /// [`ExtensionHandle::add_tool`] does with a [`super::RegisteredTool`]
    /// of them. Before the app exists it fails, as pi's actions do.
    pub fn register_tool(
        &self,
        tool: Arc<dyn pi_agent_core::AgentTool>,
        prompt_snippet: Option<String>,
        prompt_guidelines: &[String],
    ) -> Result<(), ExtensionError> {
        self.shared.app()?;
        let mut registered = super::RegisteredTool::new(tool);
        registered.prompt_snippet = prompt_snippet;
        registered.prompt_guidelines = prompt_guidelines.to_vec();
        self.add_tool(registered);
        Ok(())
    }

    /// The extension commands: `(name, description)`.
    pub fn commands(&self) -> Vec<(String, Option<String>)> {
        self.shared
            .app()
            .map(|app| {
                app.extensions
                    .commands()
                    .iter()
                    .map(|c| (c.name.clone(), c.description.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Switches the model; false when it has no key.
    pub async fn set_model(&self, model: Model) -> Result<bool, ExtensionError> {
        let app = self.shared.app()?;
        if app.api_key_for(&model).is_none() {
            return Ok(false);
        }
        app.set_model(model);
        Ok(true)
    }

    /// The thinking level (`None`: off).
    pub fn thinking_level(&self) -> Option<ThinkingLevel> {
        self.shared
            .app()
            .ok()?
            .agent
            .with_state(|s| s.thinking_level)
    }

    /// Sets the thinking level (clamped to the model).
    pub fn set_thinking_level(&self, level: Option<ThinkingLevel>) -> Result<(), ExtensionError> {
        self.shared.app()?.set_thinking_level(level);
        Ok(())
    }

    /// The value of a registered flag (its default when not given).
    pub fn flag(&self, name: &str) -> Option<Value> {
        self.shared
            .flags
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// Sends `data` to the bus listeners of `channel`.
    pub fn emit_bus(&self, channel: &str, data: &Value) {
        let listeners = self
            .shared
            .bus
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(channel)
            .cloned()
            .unwrap_or_default();
        for listener in listeners {
            listener(data);
        }
    }

    /// Listens to `channel` on the bus.
    pub fn on_bus(&self, channel: &str, listener: impl Fn(&Value) + Send + Sync + 'static) {
        self.shared
            .bus
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(channel.to_owned())
            .or_default()
            .push(Arc::new(listener));
    }
}

/// Runs a command for [`ExtensionHandle::exec`].
async fn run_command(
    cwd: &Path,
    command: &str,
    args: &[String],
    timeout: Option<Duration>,
) -> Result<ExecOutput, ExtensionError> {
    let mut child = tokio::process::Command::new(command);
    child
        .args(args)
        .current_dir(cwd)
        .env(crate::tools::PI_CODING_AGENT_ENV, "true")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = child.output();
    let output = match timeout {
        Some(limit) => match tokio::time::timeout(limit, output).await {
            Ok(result) => result,
            Err(_) => {
                return Ok(ExecOutput {
                    killed: true,
                    ..ExecOutput::default()
                });
            }
        },
        None => output.await,
    }
    .map_err(|e| ExtensionError::new(format!("{command}: {e}")))?;
    Ok(ExecOutput {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        killed: false,
    })
}
