//! One connection to one MCP server on the official SDK (`rmcp`): a
//! spawned process on stdio pipes (its own process group, killed with the
//! connection) or a streamable HTTP endpoint; the `initialize` handshake,
//! which negotiates the protocol version (the newest this SDK offers that
//! the server accepts); and the notifications pi-rs listens to: tool,
//! prompt and resource list changes, and the progress of tool calls.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
    ClientRequest, GetPromptRequestParams, GetPromptResult, Implementation, NumberOrString,
    ProgressNotificationParam, ProgressToken, Prompt, ReadResourceRequestParams,
    ReadResourceResult, Resource, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use tokio::io::AsyncBufReadExt;
use tokio::sync::oneshot::error::RecvError;

use super::config::{MissingVariable, Transport, expand_env};
use super::http::ReqwestClient;

/// The largest message read from a stdio server (the SDK's default, 16
/// MiB, would drop a bigger tool result, which pi truncates instead).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// What a server told pi-rs between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerNotice {
    /// `notifications/tools/list_changed`.
    ToolsChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
}

/// Hears a tool call's progress: `(progress, total, message)`.
pub type ProgressFn = Arc<dyn Fn(f64, Option<f64>, Option<String>) + Send + Sync>;

/// The client side of the protocol: answers nothing, hears notices.
pub struct Handler {
    notices: Arc<dyn Fn(ServerNotice) + Send + Sync>,
    progress: super::progress::ProgressRouter,
}

impl rmcp::ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("pi-rs", crate::VERSION),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(
            token_key(&params.progress_token),
            (params.progress, params.total, params.message),
        );
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.notices)(ServerNotice::ToolsChanged);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.notices)(ServerNotice::PromptsChanged);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.notices)(ServerNotice::ResourcesChanged);
    }
}

fn token_key(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.to_string(),
    }
}

/// How a tool call ended without a result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The user cancelled it (Esc).
    #[error("cancelled")]
    Cancelled,
    /// It took longer than the server's `timeout`.
    #[error("timed out")]
    TimedOut,
    /// It failed.
    #[error(transparent)]
    Failed(ClientError),
}

/// Why a server could not be reached or a request failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// A `${VAR}` of the definition is not set.
    #[error(transparent)]
    Variable(#[from] MissingVariable),
    /// A header name or value is not valid HTTP.
    #[error("invalid header {0}")]
    Header(String),
    /// The process could not be spawned.
    #[error("cannot start {command}: {source}")]
    Spawn {
        /// The program.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The handshake failed (the process's last stderr line, if any, follows).
    #[error("{reason}{}", stderr.as_deref().map(|s| format!(" (stderr: {s})")).unwrap_or_default())]
    Handshake {
        /// The SDK's reason.
        reason: String,
        /// The last line the server wrote on stderr.
        stderr: Option<String>,
    },
    /// The start took longer than `startupTimeout`.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// A request failed.
    #[error("{0}")]
    Request(String),
}

/// The last lines a server wrote on stderr (kept for failure reasons, never
/// printed).
#[derive(Default)]
pub struct StderrTail {
    lines: Mutex<Vec<String>>,
    /// Set when the stream ended.
    closed: tokio::sync::Notify,
    ended: std::sync::atomic::AtomicBool,
}

impl StderrTail {
    const LINES: usize = 20;

    fn close(&self) {
        self.ended.store(true, std::sync::atomic::Ordering::SeqCst);
        self.closed.notify_waiters();
    }

    /// Waits (at most `limit`) for the stream to end: after the process
    /// exited, its last lines are still being read.
    pub async fn wait_closed(&self, limit: Duration) {
        let closed = self.closed.notified();
        if self.ended.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let _ = tokio::time::timeout(limit, closed).await;
    }

    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == Self::LINES {
            lines.remove(0);
        }
        lines.push(line);
    }

    /// The last non-empty line.
    pub fn last(&self) -> Option<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.chars().take(300).collect())
    }
}

/// A spawned server process: its group is killed when dropped.
pub struct ChildGuard {
    child: tokio::process::Child,
}

impl ChildGuard {
    /// Waits for the process to end; its exit status as text.
    pub async fn wait(&mut self) -> String {
        match self.child.wait().await {
            Ok(status) => status.to_string(),
            Err(e) => e.to_string(),
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.child.id().and_then(|p| i32::try_from(p).ok()) {
            // The server's own children (an `npx` launcher's node) too.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        let _ = self.child.start_kill();
    }
}

/// A live connection.
pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The server's `name version`, as it introduced itself.
    pub server_info: Option<String>,
    /// Its stderr (stdio servers).
    pub stderr: Arc<StderrTail>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("protocol_version", &self.protocol_version)
            .finish_non_exhaustive()
    }
}

fn request_error(error: impl std::fmt::Display) -> ClientError {
    ClientError::Request(error.to_string())
}

/// A started connection, and for stdio its process.
pub type Started = (Connection, Option<ChildGuard>);

/// Connects to a server as `transport` says, `cwd` being pi's working
/// directory; `notices` hears its list changes.
pub async fn connect(
    transport: &Transport,
    cwd: &Path,
    notices: Arc<dyn Fn(ServerNotice) + Send + Sync>,
) -> Result<Started, ClientError> {
    let handler = Handler {
        notices,
        progress: super::progress::ProgressRouter::default(),
    };
    let stderr = Arc::new(StderrTail::default());
    let (service, child) = match transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd: dir,
        } => {
            let program = expand_env(command)?;
            let mut spawn = tokio::process::Command::new(&program);
            for arg in args {
                spawn.arg(expand_env(arg)?);
            }
            for (key, value) in env {
                spawn.env(key, expand_env(value)?);
            }
            let dir = match dir {
                Some(dir) => cwd.join(expand_env(dir)?),
                None => cwd.to_path_buf(),
            };
            spawn
                .current_dir(dir)
                .env(crate::tools::PI_CODING_AGENT_ENV, "true")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .kill_on_drop(true);
            let mut child = spawn.spawn().map_err(|source| ClientError::Spawn {
                command: program.clone(),
                source,
            })?;
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(ClientError::Request("no pipes to the server".to_owned()));
            };
            if let Some(err) = child.stderr.take() {
                let tail = Arc::clone(&stderr);
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(err).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tail.push(line);
                    }
                    tail.close();
                });
            }
            let guard = ChildGuard { child };
            let transport =
                rmcp::transport::async_rw::AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin)
                    .with_max_line_length(MAX_MESSAGE_BYTES);
            let service = rmcp::serve_client(handler, transport).await.map_err(|e| {
                ClientError::Handshake {
                    reason: e.to_string(),
                    stderr: stderr.last(),
                }
            })?;
            (service, Some(guard))
        }
        Transport::Http { url, headers } => {
            use rmcp::transport::StreamableHttpClientTransport;
            use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let header = http::HeaderName::try_from(name.as_str())
                    .map_err(|_| ClientError::Header(name.clone()))?;
                let value = http::HeaderValue::try_from(expand_env(value)?)
                    .map_err(|_| ClientError::Header(name.clone()))?;
                custom.insert(header, value);
            }
            let config = StreamableHttpClientTransportConfig::with_uri(expand_env(url)?)
                .custom_headers(custom);
            let transport =
                StreamableHttpClientTransport::with_client(ReqwestClient::default(), config);
            let service = rmcp::serve_client(handler, transport).await.map_err(|e| {
                ClientError::Handshake {
                    reason: e.to_string(),
                    stderr: None,
                }
            })?;
            (service, None)
        }
    };
    let info = service.peer_info();
    let protocol_version = info
        .as_ref()
        .map(|i| i.protocol_version.to_string())
        .unwrap_or_default();
    let server_info = info
        .as_ref()
        .and_then(|i| i.server_info.as_ref())
        .map(|s| format!("{} {}", s.name, s.version));
    Ok((
        Connection {
            service,
            protocol_version,
            server_info,
            stderr,
        },
        child,
    ))
}

impl Connection {
    /// Whether the connection is gone (the process ended, the transport
    /// closed).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// What the server can do.
    fn capabilities(&self) -> Option<rmcp::model::ServerCapabilities> {
        self.service.peer_info().map(|i| i.capabilities.clone())
    }

    /// Every tool (all pages).
    pub async fn tools(&self) -> Result<Vec<Tool>, ClientError> {
        if self.capabilities().is_some_and(|c| c.tools.is_none()) {
            return Ok(Vec::new());
        }
        self.service.list_all_tools().await.map_err(request_error)
    }

    /// Every prompt (none when the server has no prompts).
    pub async fn prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        if self.capabilities().is_some_and(|c| c.prompts.is_none()) {
            return Ok(Vec::new());
        }
        self.service.list_all_prompts().await.map_err(request_error)
    }

    /// Every resource (none when the server has no resources).
    pub async fn resources(&self) -> Result<Vec<Resource>, ClientError> {
        if self.capabilities().is_some_and(|c| c.resources.is_none()) {
            return Ok(Vec::new());
        }
        self.service
            .list_all_resources()
            .await
            .map_err(request_error)
    }

    /// `tools/call`, with `progress` hearing its progress notifications;
    /// `cancel` firing or `limit` passing ends it with
    /// `notifications/cancelled` sent for it.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        progress: ProgressFn,
        cancel: &pi_ai::CancellationToken,
        limit: Duration,
    ) -> Result<CallToolResult, CallError> {
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = self.service.peer();
        let mut handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| CallError::Failed(request_error(e)))?;
        // The SDK sets the call's progress token; progress is matched on it.
        let handler = self.service.service();
        let key = token_key(&handle.progress_token);
        handler.progress.listen(key.clone(), progress);
        let _listening = ProgressGuard {
            handler,
            token: key,
        };
        type Answer = Result<Result<ServerResult, rmcp::ServiceError>, RecvError>;
        enum Ended {
            Answer(Box<Answer>),
            Cancelled,
            TimedOut,
        }
        let ended = tokio::select! {
            answer = &mut handle.rx => Ended::Answer(Box::new(answer)),
            () = cancel.cancelled() => Ended::Cancelled,
            () = tokio::time::sleep(limit) => Ended::TimedOut,
        };
        match ended {
            Ended::Answer(answer) => match *answer {
                Ok(Ok(ServerResult::CallToolResult(result))) => Ok(result),
                Ok(Ok(_)) => Err(CallError::Failed(ClientError::Request(
                    "the server answered tools/call with something else".to_owned(),
                ))),
                Ok(Err(error)) => Err(CallError::Failed(request_error(error))),
                Err(_) => Err(CallError::Failed(ClientError::Request(
                    "the connection closed".to_owned(),
                ))),
            },
            Ended::Cancelled => {
                let _ = handle
                    .cancel(Some("cancelled by the user".to_owned()))
                    .await;
                Err(CallError::Cancelled)
            }
            Ended::TimedOut => {
                let _ = handle.cancel(Some("timed out".to_owned())).await;
                Err(CallError::TimedOut)
            }
        }
    }

    /// `prompts/get`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<GetPromptResult, ClientError> {
        let mut params = GetPromptRequestParams::new(name.to_owned());
        if !arguments.is_empty() {
            params = params.with_arguments(arguments);
        }
        self.service.get_prompt(params).await.map_err(request_error)
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.service
            .read_resource(ReadResourceRequestParams::new(uri.to_owned()))
            .await
            .map_err(request_error)
    }

    /// Ends the connection (the process is killed with its guard).
    pub async fn close(mut self) {
        let _ = self
            .service
            .close_with_timeout(Duration::from_millis(500))
            .await;
    }
}

/// Removes a call's progress listener when the call ends, however it ends.
struct ProgressGuard<'h> {
    handler: &'h Handler,
    token: String,
}

impl Drop for ProgressGuard<'_> {
    fn drop(&mut self) {
        self.handler.progress.stop(&self.token);
    }
}
