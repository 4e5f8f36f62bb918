//! The extension runtime (pi 0.73.1's extension system, in process).
//!
//! An [`Extension`] registers handlers of pi's events and what it adds
//! (tools, commands, shortcuts, flags, providers) on an [`ExtensionApi`].
//! The app's [`ExtensionRunner`] calls the handlers at pi's moments, in
//! extension load order then registration order, with pi's result
//! semantics; a failing handler is reported (`extension_error`) and the
//! others still run, except that a failing `tool_call` handler blocks the
//! call. Handlers see an [`ExtensionContext`]; the UI they talk to is the
//! mode's ([`ExtensionUi`]): the terminal, rpc's extension UI protocol, or
//! none.
//!
//! Rust extensions are added through [`crate::app::StartOptions::extensions`].
//! An out-of-process host (pi's TypeScript extensions) is one more
//! [`Extension`]: it registers JSON handlers ([`ExtensionApi::on_json`])
//! that receive exactly pi's event JSON.
//!
//! ```
//! use pi_coding_agent::extensions::*;
//!
//! /// Asks before any `git push --force`.
//! struct NoForcePush;
//!
//! impl Extension for NoForcePush {
//!     fn path(&self) -> String {
//!         "<no-force-push>".into()
//!     }
//!
//!     fn register(&self, api: &mut ExtensionApi<'_>) {
//!         api.on::<ToolCallEvent, _, _>(|event, ctx| async move {
//!             let command = event.input["command"].as_str().unwrap_or_default();
//!             if event.tool_name != "bash" || !command.contains("push --force") {
//!                 return Ok(None);
//!             }
//!             let allowed = ctx
//!                 .ui()
//!                 .confirm("Force push?", command, DialogOptions::default())
//!                 .await;
//!             Ok((!allowed).then(|| ToolCallResult {
//!                 block: true,
//!                 reason: Some("Force push refused".into()),
//!                 input: None,
//!             }))
//!         });
//!     }
//! }
//!
//! let mut extensions = ExtensionSet::default();
//! extensions.push(NoForcePush);
//! // `pi_coding_agent::cli::run_main(extensions)` is `pi` with it.
//! ```

mod actions;
mod api;
mod context;
mod events;
mod gate;
mod handler;
pub mod host;
mod live;
pub use gate::CommandGuard;
pub mod loader;
mod notify;
mod panic_guard;
#[cfg(feature = "cli")]
pub(crate) use panic_guard::catch as catch_panics;
mod render;
mod run_events;
mod runner;
mod ui;
mod ui_parts;

use std::path::PathBuf;
use std::sync::Arc;

pub use actions::{Delivery, EventBus, ExecOutput, ExtensionHandle};
pub use api::{
    ActionFuture, CommandFn, CompletionFn, Extension, ExtensionApi, FlagKind, FnExtension,
    RegisteredCommand, RegisteredFlag, RegisteredProvider, RegisteredRpcCommand,
    RegisteredShortcut, RegisteredTool, RpcCommandFn, RpcFuture,
};
pub use context::{CommandContext, ExtensionContext};
pub use events::*;
pub use handler::{ExtensionError, HandlerFuture, HandlerResult};
pub use live::WarningListener;
pub use render::{
    ExtensionComponent, ExtensionKey, FooterFn, MessageRenderContext, MessageRendererFn,
    PlainTheme, RegisteredMessageRenderer, RenderCallFn, RenderResultFn, RenderShell, RenderTheme,
    ResultRenderOptions, ToolRenderContext, run_hook,
};
pub use run_events::*;
pub use runner::{BeforeAgentStartOutcome, ErrorListener, ExtensionErrorReport, ExtensionRunner};
pub use ui::{DialogOptions, ExtensionUi, NoUi, NotifyLevel, WidgetPlacement, within_dialog};
pub use ui_parts::{
    AutocompleteProvider, AutocompleteProviders, CompletionItem, Completions, EditorComponentFn,
    HeaderFn, SetThemeError, TerminalInput, TerminalInputFn, TerminalInputHandle, WidgetFn,
    WorkingIndicator,
};

/// `context` handlers as the agent's `transform_context`.
struct ContextHook(Arc<ExtensionRunner>);

/// The `context` pipeline as an agent's `transform_context` (what the app
/// installs when a `context` handler exists).
pub fn context_transform(
    runner: &Arc<ExtensionRunner>,
) -> Arc<dyn pi_agent_core::TransformContext<crate::messages::CodingMessage>> {
    Arc::new(ContextHook(Arc::clone(runner)))
}

#[async_trait::async_trait]
impl pi_agent_core::TransformContext<crate::messages::CodingMessage> for ContextHook {
    async fn transform(
        &self,
        messages: Vec<Message>,
        _cancel: &pi_ai::CancellationToken,
    ) -> Result<Vec<Message>, pi_agent_core::HookError> {
        let shared = Arc::new(messages);
        match self.0.emit_context(Arc::clone(&shared)).await {
            Some(changed) => Ok(changed),
            None => Ok(Arc::unwrap_or_clone(shared)),
        }
    }

    async fn transform_shared(
        &self,
        messages: Arc<Vec<Message>>,
        _cancel: &pi_ai::CancellationToken,
    ) -> Result<Option<Vec<Message>>, pi_agent_core::HookError> {
        Ok(self.0.emit_context(messages).await)
    }
}

/// The Rust extensions an app starts with, in load order.
#[derive(Clone, Default)]
pub struct ExtensionSet(pub Vec<Arc<dyn Extension>>);

impl std::fmt::Debug for ExtensionSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|e| e.path()))
            .finish()
    }
}

impl<E: Extension + 'static> FromIterator<E> for ExtensionSet {
    fn from_iter<I: IntoIterator<Item = E>>(extensions: I) -> Self {
        Self(
            extensions
                .into_iter()
                .map(|e| Arc::new(e) as Arc<dyn Extension>)
                .collect(),
        )
    }
}

impl ExtensionSet {
    /// Adds an extension after the others.
    pub fn push(&mut self, extension: impl Extension + 'static) {
        self.0.push(Arc::new(extension));
    }
}

/// pi's `sourceInfo` of an extension: a file is `local` (its folder the
/// base dir); a built-in or library extension named `<name>` or
/// `<name:detail>` has source `name` (pi's inline factories: `<inline>`).
pub fn source_info(extension_path: &str) -> crate::resources::discovery::SourceInfo {
    let inner = extension_path
        .strip_prefix('<')
        .and_then(|p| p.strip_suffix('>'));
    let (source, base_dir) = match inner {
        Some(inner) => (
            inner
                .split(':')
                .next()
                .filter(|s| !s.is_empty())
                .unwrap_or("temporary"),
            None,
        ),
        None => (
            "local",
            std::path::Path::new(extension_path)
                .parent()
                .map(|dir| dir.display().to_string()),
        ),
    };
    crate::resources::discovery::SourceInfo {
        path: extension_path.to_owned(),
        source: source.to_owned(),
        scope: "temporary".to_owned(),
        origin: "top-level".to_owned(),
        base_dir,
    }
}

/// The command-line flags `extensions` register (each registers once more,
/// into a registry that is then dropped: registration has no effects).
pub fn registered_flags(extensions: &ExtensionSet) -> Vec<RegisteredFlag> {
    load(extensions, PathBuf::new()).registry.flags
}

/// Loads `extensions` in order into a runner for an app in `cwd`.
pub fn load(extensions: &ExtensionSet, cwd: PathBuf) -> ExtensionRunner {
    let shared = Arc::new(context::Shared::new(cwd));
    let mut registry = api::Registry::default();
    for (index, extension) in extensions.0.iter().enumerate() {
        registry.extensions.push(extension.path());
        let handle = ExtensionHandle::for_extension(Arc::clone(&shared), extension.path());
        let mut api = ExtensionApi::new(&mut registry, index, handle);
        extension.register(&mut api);
    }
    {
        let mut flags = shared
            .flags
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for flag in &registry.flags {
            if let Some(default) = &flag.default {
                flags.insert(flag.name.clone(), default.clone());
            }
        }
    }
    ExtensionRunner::new(registry, shared)
}

impl ExtensionRunner {
    /// Ties the runner to its app (done once by the app's builder).
    pub(crate) fn attach(&self, app: std::sync::Weak<crate::app::App>) {
        let _ = self.shared.app.set(app);
    }

    /// Sets the UI of the mode (the mode does this before `session_start`).
    pub fn set_ui(&self, ui: Arc<dyn ExtensionUi>) {
        *self
            .shared
            .ui
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = ui;
    }

    /// Sets a flag's value from the command line.
    pub fn set_flag(&self, name: &str, value: serde_json::Value) {
        self.shared
            .flags
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(name.to_owned(), value);
    }

    /// The flags the extensions registered.
    pub fn flags(&self) -> &[RegisteredFlag] {
        &self.registry.flags
    }

    /// The tools the extensions registered, at load and since
    /// ([`ExtensionHandle::register_tool`]), in registration order.
    pub fn tools(&self) -> Vec<RegisteredTool> {
        self.shared.live.tools()
    }

    /// The commands the extensions registered, at load and since
    /// ([`ExtensionHandle::register_command`]).
    pub fn commands(&self) -> Vec<RegisteredCommand> {
        self.shared.live.commands()
    }

    /// The shortcuts the extensions registered.
    pub fn shortcuts(&self) -> &[RegisteredShortcut] {
        &self.registry.shortcuts
    }

    /// The tool an extension registered as `name` (the last one wins, as
    /// in the agent's tool list).
    pub fn tool(&self, name: &str) -> Option<RegisteredTool> {
        self.shared.live.tool(name)
    }

    /// The message renderers the extensions registered.
    pub fn message_renderers(&self) -> &[RegisteredMessageRenderer] {
        &self.registry.renderers
    }

    /// The providers the extensions registered.
    pub fn providers(&self) -> &[RegisteredProvider] {
        &self.registry.providers
    }

    /// The providers the extensions removed.
    pub fn unregistered_providers(&self) -> &[String] {
        &self.registry.unregistered_providers
    }

    /// Whether an extension asked to shut down.
    pub fn shutdown_requested(&self) -> bool {
        self.shared
            .shutdown_requested
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The extension commands as rpc's `get_commands` lists them.
    pub fn command_infos(&self) -> Vec<serde_json::Value> {
        self.commands()
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "description": c.description,
                    "source": "extension",
                    "sourceInfo": self.source_info_of(&c.extension_path),
                })
            })
            .collect()
    }

    /// The command `/name` names, if an extension registered it.
    pub fn command(&self, name: &str) -> Option<RegisteredCommand> {
        self.shared.live.command(name)
    }

    /// The extension command `text` (`/name args`) invokes, with its
    /// arguments.
    fn command_in<'t>(&self, text: &'t str) -> Option<(RegisteredCommand, &'t str)> {
        let rest = text.strip_prefix('/')?;
        let (name, args) = rest.split_once(' ').unwrap_or((rest, ""));
        Some((self.command(name)?, args))
    }

    /// Whether `text` invokes a command an extension registered.
    pub fn is_command(&self, text: &str) -> bool {
        self.command_in(text).is_some()
    }

    /// Runs `/name args` when an extension registered `name`: true when it
    /// was an extension command (its failure is reported, not returned).
    pub async fn run_command(&self, text: &str) -> bool {
        let Some((command, args)) = self.command_in(text) else {
            return false;
        };
        let ctx = CommandContext::new(self.context());
        let run = (command.handler)(args.trim_start().to_owned(), ctx);
        if let Err(error) = panic_guard::catch(run).await.and_then(|r| r) {
            self.report_error(
                &command.extension_path,
                &format!("command:{}", command.name),
                &error,
            );
        }
        true
    }
}
