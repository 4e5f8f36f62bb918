//! pi's `ExtensionAPI` at load time, in Rust shape: an [`Extension`]
//! registers its handlers, tools, commands, shortcuts, flags, message
//! renderers and providers on an [`ExtensionApi`], and keeps an
//! [`ExtensionHandle`] for what it does later (`send_message`,
//! `append_entry`, ...).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use pi_agent_core::AgentTool;
use serde_json::Value;

use super::actions::ExtensionHandle;
use super::context::{CommandContext, ExtensionContext};
use super::events::Event;
use super::handler::{Handler, HandlerResult};
use super::render::{
    MessageRenderContext, RegisteredMessageRenderer, RenderCallFn, RenderResultFn, RenderShell,
    ResultRenderOptions, ToolRenderContext,
};
use crate::messages::CustomMessage;

/// An extension: registers what it adds when the runtime loads it (pi's
/// factory function). Rust extensions implement it directly; an
/// out-of-process host implements it by replaying what its extension
/// registered, with JSON handlers ([`ExtensionApi::on_json`]).
pub trait Extension: Send + Sync {
    /// Where it comes from (a path, or a name for built-in and library
    /// extensions): `extension_error` reports it as `extensionPath`.
    fn path(&self) -> String;

    /// Registers handlers and the rest.
    fn register(&self, api: &mut ExtensionApi<'_>);
}

/// An extension made of a path and a registration closure (a small
/// extension, or one built at run time).
pub struct FnExtension {
    path: String,
    register: Box<dyn Fn(&mut ExtensionApi<'_>) + Send + Sync>,
}

impl FnExtension {
    /// An extension at `path` that registers with `register`.
    pub fn new(
        path: impl Into<String>,
        register: impl Fn(&mut ExtensionApi<'_>) + Send + Sync + 'static,
    ) -> Self {
        Self {
            path: path.into(),
            register: Box::new(register),
        }
    }
}

impl Extension for FnExtension {
    fn path(&self) -> String {
        self.path.clone()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        (self.register)(api);
    }
}

/// A future returned by command and shortcut handlers.
pub type ActionFuture = Pin<Box<dyn Future<Output = Result<(), super::ExtensionError>> + Send>>;

/// A `/command` handler: its arguments and a command context.
pub type CommandFn = Arc<dyn Fn(String, CommandContext) -> ActionFuture + Send + Sync>;

/// Argument completions of a command: `(value, label)` pairs for a prefix.
pub type CompletionFn = Arc<dyn Fn(&str) -> Option<Vec<(String, String)>> + Send + Sync>;

/// A registered `/command`.
#[derive(Clone)]
pub struct RegisteredCommand {
    /// Its name without the slash.
    pub name: String,
    /// Shown in the `/` menu.
    pub description: Option<String>,
    /// Runs it.
    pub handler: CommandFn,
    /// Completes its arguments.
    pub completions: Option<CompletionFn>,
    /// The extension that registered it.
    pub extension_path: String,
}

/// A future returned by rpc command handlers: the response's `data`
/// (`None`: none), or the failure its `error` tells.
pub type RpcFuture =
    Pin<Box<dyn Future<Output = Result<Option<Value>, super::ExtensionError>> + Send>>;

/// An rpc command handler: the command's whole JSON line and a context.
pub type RpcCommandFn = Arc<dyn Fn(Value, ExtensionContext) -> RpcFuture + Send + Sync>;

/// A command of rpc mode's protocol an extension adds
/// ([`ExtensionApi::register_rpc_command`]).
#[derive(Clone)]
pub struct RegisteredRpcCommand {
    /// Its `type`.
    pub name: String,
    /// Answers it.
    pub handler: RpcCommandFn,
    /// The extension that registered it.
    pub extension_path: String,
}

/// A registered keyboard shortcut (pi's key ids, e.g. `ctrl+shift+p`).
#[derive(Clone)]
pub struct RegisteredShortcut {
    /// The key.
    pub key: String,
    /// Shown in `/hotkeys`.
    pub description: Option<String>,
    /// Runs it.
    pub handler: Arc<dyn Fn(ExtensionContext) -> ActionFuture + Send + Sync>,
    /// The extension that registered it.
    pub extension_path: String,
}

/// A command-line flag an extension adds (`--name`), listed in `--help`.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisteredFlag {
    /// The name without dashes.
    pub name: String,
    /// Shown in `--help`.
    pub description: Option<String>,
    /// `"boolean"` or `"string"`.
    pub kind: FlagKind,
    /// The value when not given.
    pub default: Option<Value>,
    /// The extension that registered it.
    pub extension_path: String,
}

/// What a flag takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagKind {
    /// `--name` alone.
    Boolean,
    /// `--name VALUE`.
    String,
}

/// A tool an extension adds (or a built-in it overrides, by name). Its
/// per-tool execution mode, argument preparation and streaming updates are
/// the [`AgentTool`]'s own (`execution_mode`, `prepare_arguments`,
/// `on_update`). Its card in the interactive mode may be drawn by its
/// render hooks (pi's `renderCall`, `renderResult`, `renderShell`).
#[derive(Clone)]
pub struct RegisteredTool {
    /// The tool.
    pub tool: Arc<dyn AgentTool>,
    /// One line for the system prompt's tool list.
    pub prompt_snippet: Option<String>,
    /// Bullets for the system prompt's guidelines.
    pub prompt_guidelines: Vec<String>,
    /// The extension that registered it.
    pub extension_path: String,
    /// Draws the call's header (pi's `renderCall`; without it, or when it
    /// fails: the tool's name, or a built-in's own header).
    pub render_call: Option<RenderCallFn>,
    /// Draws the result (pi's `renderResult`; without it, or when it
    /// fails: the result's text, or a built-in's own output).
    pub render_result: Option<RenderResultFn>,
    /// Who draws the card's frame (pi's `renderShell`).
    pub render_shell: RenderShell,
}

impl RegisteredTool {
    /// `tool` with no prompt lines, no render hooks and the default shell
    /// (what [`ExtensionApi::register_tool`] starts from; for
    /// [`super::ExtensionHandle::register_tool`], which fills in the
    /// extension's path).
    pub fn new(tool: Arc<dyn AgentTool>) -> Self {
        Self {
            tool,
            prompt_snippet: None,
            prompt_guidelines: Vec::new(),
            extension_path: String::new(),
            render_call: None,
            render_result: None,
            render_shell: RenderShell::Default,
        }
    }

    /// Sets the header hook (pi's `renderCall`).
    pub fn set_render_call(
        &mut self,
        hook: impl Fn(&Value, &ToolRenderContext<'_>) -> Result<Vec<String>, super::ExtensionError>
        + Send
        + Sync
        + 'static,
    ) -> &mut Self {
        self.render_call = Some(Arc::new(hook));
        self
    }

    /// Sets the result hook (pi's `renderResult`).
    pub fn set_render_result(
        &mut self,
        hook: impl Fn(
            &pi_agent_core::AgentToolResult,
            ResultRenderOptions,
            &ToolRenderContext<'_>,
        ) -> Result<Vec<String>, super::ExtensionError>
        + Send
        + Sync
        + 'static,
    ) -> &mut Self {
        self.render_result = Some(Arc::new(hook));
        self
    }

    /// Sets who draws the frame (pi's `renderShell`).
    pub fn set_render_shell(&mut self, shell: RenderShell) -> &mut Self {
        self.render_shell = shell;
        self
    }

    /// True when the tool draws (part of) its own card.
    pub fn has_render_hooks(&self) -> bool {
        self.render_call.is_some()
            || self.render_result.is_some()
            || self.render_shell == RenderShell::SelfDrawn
    }
}

/// A custom provider an extension registers (pi's `ProviderConfig`, as JSON
/// in models.json's provider shape).
#[derive(Debug, Clone, PartialEq)]
pub struct RegisteredProvider {
    /// The provider's name.
    pub name: String,
    /// Its configuration (`baseUrl`, `api`, `apiKey`, `models`, ...).
    pub config: Value,
}

/// Everything the loaded extensions registered, in load order.
#[derive(Default, Clone)]
pub(crate) struct Registry {
    /// Extension paths, in load order.
    pub(crate) extensions: Vec<String>,
    /// Handlers by event name, in load order then registration order.
    pub(crate) handlers: std::collections::HashMap<String, Vec<(usize, Handler)>>,
    pub(crate) tools: Vec<RegisteredTool>,
    pub(crate) commands: Vec<RegisteredCommand>,
    pub(crate) shortcuts: Vec<RegisteredShortcut>,
    pub(crate) flags: Vec<RegisteredFlag>,
    pub(crate) providers: Vec<RegisteredProvider>,
    pub(crate) unregistered_providers: Vec<String>,
    pub(crate) renderers: Vec<RegisteredMessageRenderer>,
    pub(crate) rpc_commands: Vec<RegisteredRpcCommand>,
}

/// The registration surface one extension gets while it loads.
pub struct ExtensionApi<'a> {
    registry: &'a mut Registry,
    index: usize,
    handle: ExtensionHandle,
}

impl<'a> ExtensionApi<'a> {
    pub(crate) fn new(registry: &'a mut Registry, index: usize, handle: ExtensionHandle) -> Self {
        Self {
            registry,
            index,
            handle,
        }
    }

    fn path(&self) -> String {
        self.registry
            .extensions
            .get(self.index)
            .cloned()
            .unwrap_or_default()
    }

    /// pi's `pi.on(event, handler)`: `handler` runs for every `E`, after the
    /// handlers of extensions loaded earlier and of its own registered before.
    pub fn on<E, F, Fut>(&mut self, handler: F)
    where
        E: Event,
        F: Fn(E, ExtensionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<E::Output>> + Send + 'static,
    {
        self.push(E::NAME, Handler::typed::<E, F, Fut>(handler));
    }

    /// A handler of event `name` that takes pi's event JSON and answers pi's
    /// result JSON (`None` or `null`: no answer). For out-of-process hosts.
    pub fn on_json<F, Fut>(&mut self, name: &str, handler: F)
    where
        F: Fn(Value, ExtensionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<Value>> + Send + 'static,
    {
        self.push(name, Handler::json(handler));
    }

    fn push(&mut self, name: &str, handler: Handler) {
        self.registry
            .handlers
            .entry(name.to_owned())
            .or_default()
            .push((self.index, handler));
    }

    /// Adds a tool (a tool named like a built-in replaces it).
    pub fn register_tool(&mut self, tool: Arc<dyn AgentTool>) -> &mut RegisteredTool {
        let path = self.path();
        self.registry.tools.push(RegisteredTool {
            extension_path: path,
            ..RegisteredTool::new(tool)
        });
        let last = self.registry.tools.len() - 1;
        &mut self.registry.tools[last]
    }

    /// Adds `/name`.
    pub fn register_command<F, Fut>(&mut self, name: &str, description: Option<&str>, handler: F)
    where
        F: Fn(String, CommandContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), super::ExtensionError>> + Send + 'static,
    {
        let path = self.path();
        self.registry.commands.push(RegisteredCommand {
            name: name.trim_start_matches('/').to_owned(),
            description: description.map(str::to_owned),
            handler: Arc::new(move |args, ctx| Box::pin(handler(args, ctx))),
            completions: None,
            extension_path: path,
        });
    }

    /// Sets the argument completions of the command registered last.
    pub fn with_completions(
        &mut self,
        completions: impl Fn(&str) -> Option<Vec<(String, String)>> + Send + Sync + 'static,
    ) {
        if let Some(command) = self.registry.commands.last_mut() {
            command.completions = Some(Arc::new(completions));
        }
    }

    /// Adds a command to rpc mode's protocol (beyond pi, whose commands
    /// keep their meaning): a line `{"type": name, ...}` runs `handler`
    /// with the whole line, and is answered with pi's response shape
    /// (`{"id"?, "type": "response", "command": name, "success", "data"? |
    /// "error"}`). A name pi's protocol uses is never routed here.
    pub fn register_rpc_command<F, Fut>(&mut self, name: &str, handler: F)
    where
        F: Fn(Value, ExtensionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Option<Value>, super::ExtensionError>> + Send + 'static,
    {
        let path = self.path();
        self.registry.rpc_commands.push(RegisteredRpcCommand {
            name: name.to_owned(),
            handler: Arc::new(move |line, ctx| Box::pin(handler(line, ctx))),
            extension_path: path,
        });
    }

    /// Adds a keyboard shortcut (interactive mode).
    pub fn register_shortcut<F, Fut>(&mut self, key: &str, description: Option<&str>, handler: F)
    where
        F: Fn(ExtensionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), super::ExtensionError>> + Send + 'static,
    {
        let path = self.path();
        self.registry.shortcuts.push(RegisteredShortcut {
            key: key.to_owned(),
            description: description.map(str::to_owned),
            handler: Arc::new(move |ctx| Box::pin(handler(ctx))),
            extension_path: path,
        });
    }

    /// Adds `--name` to the command line; read it with
    /// [`ExtensionHandle::flag`].
    pub fn register_flag(
        &mut self,
        name: &str,
        kind: FlagKind,
        description: Option<&str>,
        default: Option<Value>,
    ) {
        let path = self.path();
        self.registry.flags.push(RegisteredFlag {
            name: name.trim_start_matches('-').to_owned(),
            description: description.map(str::to_owned),
            kind,
            default,
            extension_path: path,
        });
    }

    /// Registers a provider (models.json's provider shape).
    pub fn register_provider(&mut self, name: &str, config: Value) {
        self.registry.providers.push(RegisteredProvider {
            name: name.to_owned(),
            config,
        });
    }

    /// Removes a provider an extension registered.
    pub fn unregister_provider(&mut self, name: &str) {
        self.registry.providers.retain(|p| p.name != name);
        self.registry.unregistered_providers.push(name.to_owned());
    }

    /// Draws custom messages of `custom_type` in the interactive mode (pi's
    /// `registerMessageRenderer`): the renderer's lines replace the default
    /// custom message card; `Ok(None)` or an error keeps the default. A
    /// later registration of the same type wins.
    pub fn register_message_renderer(
        &mut self,
        custom_type: &str,
        renderer: impl Fn(
            &CustomMessage,
            &MessageRenderContext<'_>,
        ) -> Result<Option<Vec<String>>, super::ExtensionError>
        + Send
        + Sync
        + 'static,
    ) {
        let path = self.path();
        self.registry.renderers.push(RegisteredMessageRenderer {
            custom_type: custom_type.to_owned(),
            render: Arc::new(renderer),
            extension_path: path,
        });
    }

    /// The handle for what the extension does later.
    pub fn handle(&self) -> ExtensionHandle {
        self.handle.clone()
    }
}
