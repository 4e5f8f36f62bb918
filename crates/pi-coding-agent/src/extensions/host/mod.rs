//! The out-of-process extension host (`docs/extension-protocol.md`): pi's
//! TypeScript and JavaScript extensions run in a Node process that speaks
//! a JSON-lines protocol with pi-rs over a Unix socket. Each extension it
//! loads becomes one [`Extension`] of the runner, so every rule of the
//! extension system (order, result semantics, isolation, fail-closed
//! `tool_call`) is the runner's own. No host process exists unless there
//! is a script extension to load.

mod calls;
mod component;
mod connection;
mod context;
mod hosted;
pub mod install;
mod mirror;
mod output;
mod process;
pub mod protocol;
mod render;
mod streams;
mod terminal_input;
mod ui_calls;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use pi_ai::CancellationToken;
use serde_json::{Value, json};

pub use connection::HostError;
pub use output::{OutputSink, route_output};

use super::{Extension, ExtensionContext, NotifyLevel};
use calls::Calls;
use connection::Connection;
use mirror::Mirror;
use process::{HostKind, HostProcess};

/// How many times a host that went down is started again in one run.
const MAX_RESTARTS: u32 = 3;

/// Where and how the host runs.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    /// The working directory (the extensions' `ctx.cwd`).
    pub cwd: PathBuf,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// `interactive`, `print`, `json` or `rpc`.
    pub mode: String,
    /// Whether the host's output goes to the terminal (the interactive
    /// mode) rather than to stderr.
    pub output_to_terminal: bool,
    /// The `pi` that extensions starting pi run (`None`: this process's
    /// executable).
    pub pi_executable: Option<PathBuf>,
}

/// What starting the host gave.
#[derive(Default)]
pub struct HostStart {
    /// One extension per script that loaded, in order.
    pub extensions: Vec<Arc<dyn Extension>>,
    /// One line per script that could not be loaded because its host
    /// could not start (no Node, offline before the first install): the
    /// run goes on without it.
    pub warnings: Vec<String>,
    /// pi's error line per script that failed to load (it threw, or
    /// exports no factory): pi reports it and exits with status 1.
    pub errors: Vec<String>,
    /// The running hosts.
    pub handles: Vec<HostHandle>,
}

/// A running host, to end it when the app ends.
#[derive(Clone)]
pub struct HostHandle(Arc<Host>);

impl std::fmt::Debug for HostHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHandle").finish_non_exhaustive()
    }
}

impl HostHandle {
    /// Asks the host to end (`shutdown`), waits briefly, then ends it.
    pub async fn stop(&self) {
        self.0.stop().await;
    }
}

impl std::fmt::Debug for HostStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostStart")
            .field("extensions", &self.extensions.len())
            .field("warnings", &self.warnings)
            .finish()
    }
}

/// A running host and everything its extensions share.
pub(crate) struct Host {
    kind: HostKind,
    options: HostOptions,
    files: Vec<PathBuf>,
    process: tokio::sync::Mutex<Option<HostProcess>>,
    connection: RwLock<Option<Arc<Connection>>>,
    calls: Arc<Calls>,
    mirror: tokio::sync::Mutex<Mirror>,
    restarts: AtomicU32,
    stopping: AtomicBool,
    /// A fingerprint of the theme last sent with a `render` request.
    theme_sent: AtomicU64,
    /// The render hooks this host process has answered (`render::hook_key`):
    /// a hook's first call gets a longer wait.
    rendered: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The transcript last sent with a `context` event.
    context_sent: tokio::sync::Mutex<context::SentContext>,
    /// Values components closed with (`component_done`), not yet taken.
    done: std::sync::Mutex<std::collections::HashMap<u64, Value>>,
    /// Its extensions' terminal input listeners, by the host's id.
    listeners:
        std::sync::Mutex<std::collections::HashMap<u64, crate::extensions::TerminalInputHandle>>,
}

/// Starts the hosts for `files` (script extensions, in load order) and
/// loads them: one Node host for the TypeScript and JavaScript ones, and
/// each Python extension as its own host. Never fails: what could not load
/// is a warning line each. The extensions keep `files`' order.
pub async fn start(files: &[PathBuf], options: HostOptions) -> HostStart {
    let mut groups: Vec<(HostKind, Vec<PathBuf>)> = Vec::new();
    for file in files {
        let kind = HostKind::of(file);
        match groups.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, group)) => group.push(file.clone()),
            None => groups.push((kind, vec![file.clone()])),
        }
    }
    let mut all = HostStart::default();
    let mut by_path: Vec<(PathBuf, Arc<dyn Extension>)> = Vec::new();
    for (kind, group) in groups {
        let started = start_one(kind, &group, options.clone()).await;
        all.warnings.extend(started.warnings);
        all.errors.extend(started.errors);
        all.handles.extend(started.handles);
        for extension in started.extensions {
            by_path.push((PathBuf::from(extension.path()), extension));
        }
    }
    for file in files {
        if let Some(index) = by_path.iter().position(|(p, _)| p == file) {
            all.extensions.push(by_path.remove(index).1);
        }
    }
    all.extensions.extend(by_path.into_iter().map(|(_, e)| e));
    all
}

/// One host for `files`.
async fn start_one(kind: HostKind, files: &[PathBuf], options: HostOptions) -> HostStart {
    let host = Arc::new(Host {
        kind,
        options,
        files: files.to_vec(),
        process: tokio::sync::Mutex::new(None),
        connection: RwLock::new(None),
        calls: Arc::new(Calls::default()),
        mirror: tokio::sync::Mutex::new(Mirror::default()),
        restarts: AtomicU32::new(0),
        stopping: AtomicBool::new(false),
        theme_sent: AtomicU64::new(0),
        rendered: std::sync::Mutex::new(std::collections::HashSet::new()),
        done: std::sync::Mutex::new(std::collections::HashMap::new()),
        listeners: std::sync::Mutex::new(std::collections::HashMap::new()),
        context_sent: tokio::sync::Mutex::new(context::SentContext::default()),
    });
    *host
        .calls
        .host
        .write()
        .unwrap_or_else(PoisonError::into_inner) = Arc::downgrade(&host);
    let loaded = match host.launch().await {
        Ok(loaded) => loaded,
        Err(error) => {
            return HostStart {
                extensions: Vec::new(),
                handles: Vec::new(),
                errors: Vec::new(),
                warnings: files
                    .iter()
                    .map(|f| format!("Extension {} not loaded: {error}", f.display()))
                    .collect(),
            };
        }
    };
    let weak = Arc::downgrade(&host);
    *host
        .calls
        .on_down
        .write()
        .unwrap_or_else(PoisonError::into_inner) = Some(Box::new(move |reason: &str| {
        if let Some(host) = weak.upgrade() {
            host.went_down(reason);
        }
    }));
    let mut start = HostStart {
        handles: vec![HostHandle(Arc::clone(&host))],
        ..HostStart::default()
    };
    for (index, loaded) in loaded.into_iter().enumerate() {
        if let Some(error) = &loaded.error {
            start.errors.push(format!(
                "Failed to load extension \"{}\": {error}",
                loaded.path
            ));
            continue;
        }
        start.extensions.push(Arc::new(hosted::HostedExtension {
            host: Arc::clone(&host),
            index,
            loaded,
        }));
    }
    start
}

/// pi-rs's built-in tools as the host's tool factories describe them.
fn builtin_tools(cwd: &std::path::Path) -> Vec<Value> {
    crate::tools::ALL_TOOLS
        .iter()
        .filter_map(|name| crate::tools::create_tool(cwd, name).ok())
        .map(|tool| {
            json!({
                "name": tool.name(),
                "label": tool.label(),
                "description": tool.description(),
                "parameters": tool.parameters(),
                "promptSnippet": crate::tools::tool_summary(tool.name()),
                "promptGuidelines": [],
            })
        })
        .collect()
}

impl Host {
    /// The connection while it is up (no restart).
    fn live_connection(&self) -> Option<Arc<Connection>> {
        self.connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .filter(|c| c.down_reason().is_none())
    }

    /// Component `id` closed with `value`.
    fn component_done(&self, id: u64, value: Value) {
        self.done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, value);
    }

    /// The value component `id` closed with, once.
    fn take_done(&self, id: u64) -> Option<Value> {
        self.done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id)
    }

    /// A tool's `prepareArguments` in the host (synchronous in the agent
    /// loop: a short blocking request; none when the host does not answer).
    fn prepare_arguments(&self, ext: usize, name: &str, arguments: &Value) -> Option<Value> {
        let connection = self
            .connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        let params = json!({ "ext": ext, "name": name, "args": arguments });
        match connection.request_blocking(
            "prepare_arguments",
            params,
            std::time::Duration::from_secs(5),
        )? {
            Ok(prepared) => Some(prepared),
            Err(error) => {
                tracing::warn!("prepareArguments of {name} failed: {error}");
                None
            }
        }
    }

    /// Sends what changed now (after a session change the host reads at
    /// once).
    pub(super) async fn sync_now(&self, ctx: &ExtensionContext) {
        let connection = self
            .connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(connection) = connection {
            self.sync(ctx, &connection).await;
        }
    }

    /// Starts the process and loads the extensions.
    async fn launch(&self) -> Result<Vec<protocol::Loaded>, HostError> {
        let incoming: Arc<dyn connection::Incoming> = self.calls.clone();
        let (process, connection) = process::spawn(&self.kind, &self.options, incoming).await?;
        let answer = connection
            .request(
                "load",
                json!({
                    "protocol": protocol::PROTOCOL,
                    "cwd": self.options.cwd,
                    "agentDir": self.options.agent_dir,
                    "mode": self.options.mode,
                    "hasUI": self.options.mode == "interactive" || self.options.mode == "rpc",
                    "piExecutable": self
                        .options
                        .pi_executable
                        .clone()
                        .or_else(|| std::env::current_exe().ok()),
                    "version": crate::VERSION,
                    "extensions": self.files.iter().map(|f| json!({ "path": f })).collect::<Vec<_>>(),
                    "builtinTools": builtin_tools(&self.options.cwd),
                }),
            )
            .await?;
        let loaded: Vec<protocol::Loaded> =
            serde_json::from_value(answer.get("extensions").cloned().unwrap_or(Value::Null))
                .map_err(|e| {
                    HostError::Start(format!("the host's answer to load is not valid: {e}"))
                })?;
        *self.process.lock().await = Some(process);
        *self
            .connection
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(connection);
        self.mirror.lock().await.reset();
        self.theme_sent.store(0, Ordering::SeqCst);
        self.rendered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        Ok(loaded)
    }

    fn went_down(&self, reason: &str) {
        if self.stopping.load(Ordering::SeqCst) {
            return;
        }
        tracing::error!("extension host went down: {reason}");
        if let Ok(pi) = self.calls_handle() {
            let restarts = self.restarts.load(Ordering::SeqCst);
            let next = if restarts < MAX_RESTARTS {
                "it starts again with the next event"
            } else {
                "its extensions are disabled"
            };
            pi.context().ui().notify(
                &format!("Extension host stopped ({reason}); {next}"),
                Some(NotifyLevel::Error),
            );
        }
    }

    fn calls_handle(&self) -> Result<super::ExtensionHandle, protocol::RemoteError> {
        self.calls.handle()
    }

    /// The live connection, starting the host again if it went down.
    async fn connection(&self) -> Result<Arc<Connection>, HostError> {
        let current = self
            .connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match current {
            Some(connection) if connection.down_reason().is_none() => Ok(connection),
            Some(connection) => {
                let reason = connection.down_reason().unwrap_or_default();
                if self.stopping.load(Ordering::SeqCst)
                    || self.restarts.fetch_add(1, Ordering::SeqCst) >= MAX_RESTARTS
                {
                    return Err(HostError::Down(reason));
                }
                let mut process = self.process.lock().await;
                if let Some(mut old) = process.take() {
                    old.kill().await;
                }
                drop(process);
                self.launch().await?;
                self.connection
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone()
                    .ok_or(HostError::Down(reason))
            }
            None => Err(HostError::Down("it never started".into())),
        }
    }

    /// Brings the host's mirrored state up to date with `ctx`.
    async fn sync(&self, ctx: &ExtensionContext, connection: &Connection) {
        let mut mirror = self.mirror.lock().await;
        for (method, params) in mirror.updates(ctx) {
            connection.send_notify(method, params);
        }
    }

    /// A request, after the state it may read is sent.
    async fn call(
        &self,
        ctx: &ExtensionContext,
        method: &str,
        params: Value,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, HostError> {
        let connection = self.connection().await?;
        self.sync(ctx, &connection).await;
        connection.request_with(method, params, None, cancel).await
    }

    /// A tool call, with its streaming updates.
    async fn call_tool(
        &self,
        params: Value,
        updates: tokio::sync::mpsc::UnboundedSender<Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, HostError> {
        let connection = self.connection().await?;
        if let Ok(pi) = self.calls_handle() {
            self.sync(&pi.context(), &connection).await;
        }
        connection
            .request_with("tool", params, Some(updates), Some(cancel))
            .await
    }

    /// Asks the host to end, and ends it.
    pub(crate) async fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let connection = self
            .connection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(connection) = connection
            && connection.down_reason().is_none()
        {
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(2),
                connection.request("shutdown", json!({})),
            )
            .await;
        }
        if let Some(mut process) = self.process.lock().await.take() {
            process.finish().await;
        }
    }
}
