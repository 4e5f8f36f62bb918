//! One configured server while pi runs: its state (what `/mcp` shows), its
//! connection, started in the background and again on the first call
//! after it ended (a crash is reported once, then the next call restarts
//! it), and what it offers (tools, prompts, resources), listed again when
//! it says its lists changed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pi_agent_core::{AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::CancellationToken;
use rmcp::model::{Prompt, Resource, Tool};
use serde::Serialize;
use serde_json::{Map, Value};

use super::client::{CallError, ChildGuard, ClientError, Connection, ServerNotice, connect};
use super::config::{ServerDef, Transport};

/// A server's state, as `/mcp` and the rpc command report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "reason", rename_all = "camelCase")]
pub enum State {
    /// `"disabled": true` in its file.
    Disabled,
    /// A project server the user has not approved (yet).
    NotApproved,
    /// Spawning, handshaking, listing.
    Starting,
    /// Connected; its tools are offered.
    Ready,
    /// It could not start, or it ended: why.
    Failed(String),
    /// pi stopped it (on exit).
    Stopped,
}

impl State {
    /// The state's one-word name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::NotApproved => "not approved",
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Failed(_) => "failed",
            Self::Stopped => "stopped",
        }
    }
}

/// What a server offers, as last listed.
#[derive(Debug, Clone, Default)]
pub struct Offer {
    /// Its tools (all of them; the allow/deny lists apply when registering).
    pub tools: Vec<Tool>,
    /// Its prompts.
    pub prompts: Vec<Prompt>,
    /// Its resources.
    pub resources: Vec<Resource>,
}

/// What is known of a server now.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Its state.
    pub state: State,
    /// The negotiated protocol version (once connected).
    pub protocol_version: Option<String>,
    /// The server's `name version`.
    pub server_info: Option<String>,
    /// What it offers.
    pub offer: Offer,
}

/// Hears what happens to servers: `Listed` after every (re)listing,
/// `Crashed` when a ready server ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerEvent {
    /// Its lists were read (after a start or a change notice).
    Listed,
    /// It ended without being asked to; the reason is in its state.
    Crashed,
    /// It could not start; the reason is in its state.
    StartFailed,
}

/// Hears every [`ServerEvent`] of a server.
pub type EventFn = Arc<dyn Fn(&Arc<Server>, ServerEvent) + Send + Sync>;

struct Live {
    connection: Arc<Connection>,
    /// Stops the process watcher (which then kills the process).
    stop: CancellationToken,
}

/// One server.
pub struct Server {
    /// Its definition.
    pub def: ServerDef,
    cwd: PathBuf,
    status: Mutex<Snapshot>,
    live: tokio::sync::Mutex<Option<Live>>,
    events: EventFn,
    /// Set once pi stops it: no more restarts.
    stopped: CancellationToken,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.def.name)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server in `state` (not started).
    pub fn new(def: ServerDef, cwd: PathBuf, state: State, events: EventFn) -> Arc<Self> {
        Arc::new(Self {
            def,
            cwd,
            status: Mutex::new(Snapshot {
                state,
                protocol_version: None,
                server_info: None,
                offer: Offer::default(),
            }),
            live: tokio::sync::Mutex::new(None),
            events,
            stopped: CancellationToken::new(),
        })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// What is known of it now.
    pub fn snapshot(&self) -> Snapshot {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_state(&self, state: State) {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .state = state;
    }

    /// Offers `tools` (a cached list) until the server lists its own.
    pub fn seed_tools(&self, tools: Vec<Tool>) {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .offer
            .tools = tools;
    }

    /// Starts it in the background (for a server that may start).
    pub fn start_in_background(self: &Arc<Self>) {
        self.set_state(State::Starting);
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let _ = me.connection().await;
        });
    }

    /// The live connection, started (again) when there is none.
    async fn connection(self: &Arc<Self>) -> Result<Arc<Connection>, ToolError> {
        let mut live = self.live.lock().await;
        if let Some(current) = live.as_ref()
            && !current.connection.is_closed()
        {
            return Ok(Arc::clone(&current.connection));
        }
        if self.stopped.is_cancelled() {
            return Err(ToolError::new(format!(
                "MCP server {} is stopped",
                self.def.name
            )));
        }
        if let Some(old) = live.take() {
            old.stop.cancel();
        }
        self.set_state(State::Starting);
        match self.start().await {
            Ok(started) => {
                let connection = Arc::clone(&started.connection);
                *live = Some(started);
                drop(live);
                self.relist(&connection).await;
                Ok(connection)
            }
            Err(_) if self.stopped.is_cancelled() => {
                self.set_state(State::Stopped);
                Err(ToolError::new(format!(
                    "MCP server {} is stopped",
                    self.def.name
                )))
            }
            Err(error) => {
                let reason = error.to_string();
                tracing::debug!(server = %self.def.name, "MCP server failed to start: {reason}");
                self.set_state(State::Failed(reason.clone()));
                (self.events)(self, ServerEvent::StartFailed);
                Err(ToolError::new(format!(
                    "MCP server {} is not available: {reason}",
                    self.def.name
                )))
            }
        }
    }

    async fn start(self: &Arc<Self>) -> Result<Live, ClientError> {
        let transport: &Transport = self
            .def
            .transport
            .as_ref()
            .map_err(|e| ClientError::Request(e.to_string()))?;
        let weak = Arc::downgrade(self);
        let notices = Arc::new(move |notice: ServerNotice| {
            if let Some(server) = weak.upgrade() {
                tokio::spawn(async move { server.on_notice(notice).await });
            }
        });
        let limit = self.def.startup_timeout;
        // pi quitting does not wait for a slow start (its process is
        // killed with the dropped future).
        let connecting = tokio::time::timeout(limit, connect(transport, &self.cwd, notices));
        let (connection, child) = tokio::select! {
            started = connecting => started.map_err(|_| ClientError::Timeout(limit))??,
            () = self.stopped.cancelled() => {
                return Err(ClientError::Request("stopped".to_owned()));
            }
        };
        {
            let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
            status.protocol_version = Some(connection.protocol_version.clone());
            status.server_info = connection.server_info.clone();
        }
        let connection = Arc::new(connection);
        let stop = CancellationToken::new();
        if let Some(child) = child {
            self.watch(child, Arc::clone(&connection), stop.clone());
        }
        Ok(Live { connection, stop })
    }

    /// Waits for the process to end: asked to (`stop`), it is killed; by
    /// itself, the server failed and that is reported.
    fn watch(
        self: &Arc<Self>,
        mut child: ChildGuard,
        connection: Arc<Connection>,
        stop: CancellationToken,
    ) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => drop(child),
                status = child.wait() => {
                    let Some(server) = weak.upgrade() else { return };
                    if stop.is_cancelled() || server.stopped.is_cancelled() {
                        return;
                    }
                    connection.stderr.wait_closed(Duration::from_millis(500)).await;
                    let mut reason = format!("exited ({status})");
                    if let Some(line) = connection.stderr.last() {
                        reason.push_str(&format!("; stderr: {line}"));
                    }
                    server.set_state(State::Failed(reason));
                    (server.events)(&server, ServerEvent::Crashed);
                }
            }
        });
    }

    async fn on_notice(self: Arc<Self>, notice: ServerNotice) {
        tracing::debug!(server = %self.def.name, ?notice, "MCP list changed");
        let connection = self
            .live
            .lock()
            .await
            .as_ref()
            .map(|l| Arc::clone(&l.connection));
        if let Some(connection) = connection {
            self.relist(&connection).await;
        }
    }

    /// Reads its lists again and tells the listener.
    async fn relist(self: &Arc<Self>, connection: &Connection) {
        // The lists get the start's time limit too.
        let limit = self.def.startup_timeout;
        let tools = tokio::time::timeout(limit, connection.tools())
            .await
            .unwrap_or(Err(ClientError::Timeout(limit)));
        let prompts = tokio::time::timeout(limit, connection.prompts())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let resources = tokio::time::timeout(limit, connection.resources())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        match tools {
            Ok(tools) => {
                self.status
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .offer = Offer {
                    tools,
                    prompts,
                    resources,
                };
                // Ready once its tools are registered.
                (self.events)(self, ServerEvent::Listed);
                self.set_state(State::Ready);
            }
            Err(error) => {
                self.set_state(State::Failed(format!("tools/list failed: {error}")));
                (self.events)(self, ServerEvent::StartFailed);
            }
        }
    }

    /// Calls tool `tool` (its MCP name) with `args`, within the server's
    /// time limit; `cancel` (Esc) cancels the call on the server.
    pub async fn call_tool(
        self: &Arc<Self>,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let connection = tokio::select! {
            connection = self.connection() => connection?,
            () = cancel.cancelled() => return Err(ToolError::new("MCP tool call aborted")),
        };
        let arguments = match args {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::new(format!(
                    "MCP tool arguments must be an object, not {other}"
                )));
            }
        };
        // Notifications may arrive out of order: only growth is shown.
        let shown = Mutex::new(f64::NEG_INFINITY);
        let progress: super::client::ProgressFn = Arc::new(move |done, total, message| {
            {
                let mut last = shown.lock().unwrap_or_else(PoisonError::into_inner);
                if done <= *last {
                    return;
                }
                *last = done;
            }
            let amount = match total {
                Some(total) => format!("{done}/{total}"),
                None => format!("{done}"),
            };
            let text = match message {
                Some(message) => format!("{message} ({amount})"),
                None => format!("Progress: {amount}"),
            };
            on_update(AgentToolResult::text(text));
        });
        let limit = self.def.call_timeout;
        let outcome = connection
            .call_tool(tool, arguments, progress, &cancel, limit)
            .await;
        match outcome {
            Ok(result) => super::result::to_agent_result(&self.def.name, tool, result),
            Err(CallError::Cancelled) => Err(ToolError::new("MCP tool call aborted")),
            Err(CallError::TimedOut) => Err(ToolError::new(format!(
                "MCP tool {tool} on {} timed out after {}s (its \"timeout\")",
                self.def.name,
                limit.as_secs_f64()
            ))),
            Err(CallError::Failed(error)) => {
                // A stdio server's end is reported by its watcher, with
                // its exit status; an HTTP server's here.
                let http = matches!(self.def.transport, Ok(Transport::Http { .. }));
                if http && connection.is_closed() && !self.stopped.is_cancelled() {
                    self.set_state(State::Failed(format!("connection lost: {error}")));
                }
                Err(ToolError::new(format!(
                    "MCP server {}: {error}",
                    self.def.name
                )))
            }
        }
    }

    /// The live connection for a prompt or a resource read (started when
    /// there is none).
    pub async fn connected(self: &Arc<Self>) -> Result<Arc<Connection>, ToolError> {
        self.connection().await
    }

    /// Stops it for good (its process is killed).
    pub async fn stop(&self) {
        self.stopped.cancel();
        let live = self.live.lock().await.take();
        if let Some(live) = live {
            live.stop.cancel();
            if let Ok(connection) = Arc::try_unwrap(live.connection) {
                connection.close().await;
            }
        }
        self.set_state(State::Stopped);
    }
}
