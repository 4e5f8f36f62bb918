//! One connection to a host: requests both ways with ids, responses in any
//! order, notifications, streaming tool updates and cancellation. The
//! reader and the writer are tasks of their own; a closed socket or a line
//! that is not a message puts the connection down and fails every request
//! in flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pi_ai::CancellationToken;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::protocol::{Frame, RemoteError};

/// Why a call to the host failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// The host's code threw.
    #[error("{message}")]
    Remote {
        /// The error's message.
        message: String,
        /// Its stack, if any.
        stack: Option<String>,
    },
    /// The host is not running (it exited, closed the socket, or sent
    /// garbage).
    #[error("extension host is down: {0}")]
    Down(String),
    /// The host could not be started.
    #[error("{0}")]
    Start(String),
}

/// Sends notifications on a connection (for an answer in progress:
/// streaming updates tagged with the request's id).
#[derive(Clone)]
pub struct Notifier(mpsc::UnboundedSender<String>);

impl Notifier {
    /// Sends a notification (dropped when the connection is down).
    pub fn notify(&self, method: &str, params: Value) {
        let _ = self.0.send(
            Frame::Notify {
                method: method.to_owned(),
                params,
            }
            .to_line(),
        );
    }
}

/// What the host asks of pi-rs.
#[async_trait::async_trait]
pub trait Incoming: Send + Sync {
    /// Request `id`: its result, or the error to answer with; `notifier`
    /// sends updates while it runs.
    async fn request(
        &self,
        id: u64,
        method: String,
        params: Value,
        notifier: Notifier,
    ) -> Result<Value, RemoteError>;

    /// Whether request `method` is carried out before the host's next
    /// message is read: pi's synchronous API calls (a notification, a
    /// status, a session entry) must take effect before whatever the host
    /// sends after them (the answer of the command that made them). Only
    /// for requests that never wait for the host.
    fn in_order(&self, method: &str, params: &Value) -> bool;

    /// What request `id` does at once, before the host's next message is
    /// read, even when the rest of it runs alongside (a compaction aborts
    /// the run in progress or starts at once, as pi's `ctx.compact` does).
    fn prepare(&self, id: u64, method: &str, params: &Value);

    /// A notification (`tool_update` is routed by the connection itself).
    fn notify(&self, method: &str, params: Value);

    /// The connection went down (called once).
    fn down(&self, reason: &str);
}

/// Where a response goes: an async caller, or a thread blocked on it.
enum Reply {
    Async(oneshot::Sender<Result<Value, HostError>>),
    Blocking(std::sync::mpsc::Sender<Result<Value, HostError>>),
}

impl Reply {
    fn send(self, result: Result<Value, HostError>) {
        match self {
            Self::Async(reply) => {
                let _ = reply.send(result);
            }
            Self::Blocking(reply) => {
                let _ = reply.send(result);
            }
        }
    }
}

struct Pending {
    reply: Reply,
    updates: Option<mpsc::UnboundedSender<Value>>,
    since: std::time::Instant,
}

/// How long a request may wait before the host's liveness is checked.
const SLOW: std::time::Duration = std::time::Duration::from_secs(2);

/// How long the host has to answer that check.
const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// A live connection.
pub struct Connection {
    writer: mpsc::UnboundedSender<String>,
    pending: Mutex<HashMap<u64, Pending>>,
    next_id: AtomicU64,
    down: Mutex<Option<String>>,
    incoming: Arc<dyn Incoming>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("down", &self.down_reason())
            .finish_non_exhaustive()
    }
}

/// Removes a request whose caller went away, and tells the host.
struct InFlight<'a> {
    connection: &'a Connection,
    id: u64,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.connection.lock_pending().remove(&self.id);
            self.connection
                .send_notify("cancel", json!({ "id": self.id }));
        }
    }
}

impl Connection {
    /// Starts the reader and writer tasks over `read` / `write`.
    pub fn start<R, W>(read: R, write: W, incoming: Arc<dyn Incoming>) -> Arc<Self>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (writer, lines) = mpsc::unbounded_channel::<String>();
        let connection = Arc::new(Self {
            writer,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            down: Mutex::new(None),
            incoming: Arc::clone(&incoming),
        });
        tokio::spawn(write_lines(write, lines));
        tokio::spawn(read_frames(read, Arc::clone(&connection), incoming));
        tokio::spawn(watch(Arc::downgrade(&connection)));
        connection
    }

    /// Whether a request has waited longer than [`SLOW`].
    fn has_slow_request(&self) -> bool {
        self.lock_pending()
            .values()
            .any(|p| p.since.elapsed() > SLOW)
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why the connection is down (`None`: it is up).
    pub fn down_reason(&self) -> Option<String> {
        self.down
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn send(&self, frame: &Frame) -> bool {
        self.writer.send(frame.to_line()).is_ok()
    }

    /// Sends a notification (dropped when the connection is down).
    pub fn send_notify(&self, method: &str, params: Value) {
        self.send(&Frame::Notify {
            method: method.to_owned(),
            params,
        });
    }

    /// A request and its result.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, HostError> {
        self.request_with(method, params, None, None).await
    }

    /// A request whose `tool_update` notifications go to `updates`, and
    /// which `cancel` aborts on the host's side (the host still answers).
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        updates: Option<mpsc::UnboundedSender<Value>>,
        cancel: Option<&CancellationToken>,
    ) -> Result<Value, HostError> {
        if let Some(reason) = self.down_reason() {
            return Err(HostError::Down(reason));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        self.lock_pending().insert(
            id,
            Pending {
                reply: Reply::Async(reply),
                updates,
                since: std::time::Instant::now(),
            },
        );
        let mut in_flight = InFlight {
            connection: self,
            id,
            done: false,
        };
        if !self.send(&Frame::Request {
            id,
            method: method.to_owned(),
            params,
        }) {
            in_flight.done = true;
            self.lock_pending().remove(&id);
            return Err(HostError::Down("the connection is closed".into()));
        }
        let result = match cancel {
            Some(token) => {
                tokio::pin!(answer);
                tokio::select! {
                    result = &mut answer => result,
                    () = token.cancelled() => {
                        self.send_notify("cancel", json!({ "id": id }));
                        answer.await
                    }
                }
            }
            None => answer.await,
        };
        in_flight.done = true;
        result.unwrap_or_else(|_| Err(HostError::Down("the connection closed".into())))
    }

    /// A request from synchronous code (render hooks, components): waits
    /// at most `timeout` for the answer, telling the async runtime it
    /// blocks. `None` where it cannot wait (a single-threaded runtime) or
    /// when the answer is late.
    pub fn request_blocking(
        &self,
        method: &str,
        params: Value,
        timeout: std::time::Duration,
    ) -> Option<Result<Value, HostError>> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        let in_runtime = match Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::CurrentThread => return None,
            Ok(_) => true,
            Err(_) => false,
        };
        if let Some(reason) = self.down_reason() {
            return Some(Err(HostError::Down(reason)));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = std::sync::mpsc::channel();
        self.lock_pending().insert(
            id,
            Pending {
                reply: Reply::Blocking(reply),
                updates: None,
                since: std::time::Instant::now(),
            },
        );
        self.send(&Frame::Request {
            id,
            method: method.to_owned(),
            params,
        });
        let wait = || answer.recv_timeout(timeout).ok();
        let result = if in_runtime {
            tokio::task::block_in_place(wait)
        } else {
            wait()
        };
        if result.is_none() {
            self.lock_pending().remove(&id);
        }
        result
    }

    fn answered(&self, id: u64, result: Result<Value, HostError>) {
        if let Some(pending) = self.lock_pending().remove(&id) {
            pending.reply.send(result);
        }
    }

    fn update(&self, params: &Value) {
        let Some(id) = params.get("id").and_then(Value::as_u64) else {
            return;
        };
        if let Some(updates) = self
            .lock_pending()
            .get(&id)
            .and_then(|p| p.updates.as_ref())
        {
            let _ = updates.send(params.get("partial").cloned().unwrap_or(Value::Null));
        }
    }

    /// Puts the connection down (once): every request in flight fails,
    /// and the other side is told.
    fn go_down(&self, reason: &str) {
        {
            let mut down = self.down.lock().unwrap_or_else(PoisonError::into_inner);
            if down.is_some() {
                return;
            }
            *down = Some(reason.to_owned());
        }
        self.incoming.down(reason);
        let pending: Vec<Pending> = self.lock_pending().drain().map(|(_, p)| p).collect();
        for p in pending {
            p.reply.send(Err(HostError::Down(reason.to_owned())));
        }
    }
}

/// Liveness: while a request waits longer than [`SLOW`] (a handler at
/// work, or a host that hangs), the host is asked a `ping`; any answer,
/// even "unknown method", shows it alive. No answer within
/// [`PING_TIMEOUT`] puts the connection down. Dialogs are requests the
/// host makes, so a dialog open for an hour is never a reason.
async fn watch(connection: std::sync::Weak<Connection>) {
    let mut tick = tokio::time::interval(SLOW);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(live) = connection.upgrade() else {
            return;
        };
        if live.down_reason().is_some() {
            return;
        }
        if !live.has_slow_request() {
            continue;
        }
        let ping = live.request("ping", json!({}));
        match tokio::time::timeout(PING_TIMEOUT, ping).await {
            Ok(Ok(_) | Err(HostError::Remote { .. })) => {}
            Ok(Err(_)) => return,
            Err(_) => {
                live.go_down("it stopped answering");
                return;
            }
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut write: W,
    mut lines: mpsc::UnboundedReceiver<String>,
) {
    while let Some(line) = lines.recv().await {
        if write.write_all(line.as_bytes()).await.is_err() {
            return;
        }
        // Write what is queued in one go before flushing.
        while let Ok(more) = lines.try_recv() {
            if write.write_all(more.as_bytes()).await.is_err() {
                return;
            }
        }
        if write.flush().await.is_err() {
            return;
        }
    }
}

async fn read_frames<R: AsyncRead + Unpin>(
    read: R,
    connection: Arc<Connection>,
    incoming: Arc<dyn Incoming>,
) {
    let mut lines = BufReader::new(read).lines();
    let reason = loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break "it closed the connection".to_owned(),
            Err(e) => break format!("reading from it failed: {e}"),
        };
        if line.trim().is_empty() {
            continue;
        }
        let frame = match Frame::parse(&line) {
            Ok(frame) => frame,
            Err(e) => {
                let shown: String = line.chars().take(120).collect();
                break format!("it sent a line that is not a message ({e}): {shown}");
            }
        };
        match frame {
            Frame::Response { id, result, error } => connection.answered(
                id,
                match error {
                    Some(e) => Err(HostError::Remote {
                        message: e.message,
                        stack: e.stack,
                    }),
                    None => Ok(result.unwrap_or(Value::Null)),
                },
            ),
            Frame::Notify { method, params } if method == "tool_update" => {
                connection.update(&params);
            }
            Frame::Notify { method, params } => incoming.notify(&method, params),
            Frame::Request { id, method, params } => {
                incoming.prepare(id, &method, &params);
                let in_order = incoming.in_order(&method, &params);
                let incoming = Arc::clone(&incoming);
                let connection = Arc::clone(&connection);
                let notifier = Notifier(connection.writer.clone());
                let answer = async move {
                    let frame = match incoming.request(id, method, params, notifier).await {
                        Ok(result) => Frame::Response {
                            id,
                            result: Some(result),
                            error: None,
                        },
                        Err(error) => Frame::Response {
                            id,
                            result: None,
                            error: Some(error),
                        },
                    };
                    connection.send(&frame);
                };
                if in_order {
                    answer.await;
                } else {
                    tokio::spawn(answer);
                }
            }
        }
    };
    connection.go_down(&reason);
}
