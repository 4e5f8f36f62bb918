//! The process-wide state of the WebSocket transport, per session id as in
//! pi: one cached socket per session (closed after five idle minutes) with
//! the continuation of its last call, the sessions that fell back to SSE
//! after a socket failure, and pi's debug counters.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::ws_request::Continuation;

/// A client socket.
pub(crate) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long an idle cached socket stays open (pi: five minutes).
pub const SESSION_WEBSOCKET_CACHE_TTL: Duration = Duration::from_secs(5 * 60);

/// pi's `getOpenAICodexWebSocketDebugStats`: what the transport did for
/// one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebSocketDebugStats {
    /// Calls sent over a socket.
    pub requests: u64,
    /// Sockets opened.
    pub connections_created: u64,
    /// Calls on the cached socket of an earlier call.
    pub connections_reused: u64,
    /// Calls with a continuing transport (`auto`, `websocket-cached`).
    pub cached_context_requests: u64,
    /// Calls whose body had `store: true`.
    pub store_true_requests: u64,
    /// Calls that sent the whole input.
    pub full_context_requests: u64,
    /// Calls that sent `previous_response_id` and only the new input.
    pub delta_requests: u64,
    /// Input items of the last call.
    pub last_input_items: usize,
    /// Input items of the last delta call.
    pub last_delta_input_items: Option<usize>,
    /// `previous_response_id` of the last delta call.
    pub last_previous_response_id: Option<String>,
    /// Socket failures.
    pub websocket_failures: u64,
    /// Calls that went over SSE instead.
    pub sse_fallbacks: u64,
    /// The last socket failure's text.
    pub last_websocket_error: Option<String>,
    /// Whether the session now uses SSE.
    pub websocket_fallback_active: bool,
}

/// A cached socket of one session.
struct Entry {
    id: u64,
    socket: Option<Socket>,
    busy: bool,
    continuation: Option<Continuation>,
    idle_epoch: u64,
}

static CACHE: LazyLock<Mutex<HashMap<String, Entry>>> = LazyLock::new(Mutex::default);
static FALLBACK_SESSIONS: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Mutex::default);
static STATS: LazyLock<Mutex<HashMap<String, WebSocketDebugStats>>> = LazyLock::new(Mutex::default);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn lock<T>(mutex: &'static Mutex<T>) -> MutexGuard<'static, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Changes the debug counters of `session`.
pub(crate) fn update_stats(session: &str, f: impl FnOnce(&mut WebSocketDebugStats)) {
    f(lock(&STATS).entry(session.to_owned()).or_default());
}

/// The debug counters of `session`, if the transport has seen it.
pub fn websocket_debug_stats(session: &str) -> Option<WebSocketDebugStats> {
    lock(&STATS).get(session).cloned()
}

/// Forgets the counters and the SSE fallback of `session` (of every
/// session when `None`).
pub fn reset_websocket_debug_stats(session: Option<&str>) {
    match session {
        Some(session) => {
            lock(&STATS).remove(session);
            lock(&FALLBACK_SESSIONS).remove(session);
        }
        None => {
            lock(&STATS).clear();
            lock(&FALLBACK_SESSIONS).clear();
        }
    }
}

/// Closes the cached socket of `session` (of every session when `None`),
/// as pi does when a session's resources are released.
pub fn close_websocket_sessions(session: Option<&str>) {
    let entries: Vec<Entry> = {
        let mut cache = lock(&CACHE);
        match session {
            Some(session) => cache.remove(session).into_iter().collect(),
            None => cache.drain().map(|(_, entry)| entry).collect(),
        }
    };
    for socket in entries.into_iter().filter_map(|entry| entry.socket) {
        close_quietly(socket, "debug_close");
    }
}

/// Whether `session` fell back to SSE for good.
pub(crate) fn sse_fallback_active(session: Option<&str>) -> bool {
    session.is_some_and(|session| lock(&FALLBACK_SESSIONS).contains(session))
}

/// Counts a call of `session` that goes over SSE instead of a socket.
pub(crate) fn record_sse_fallback(session: Option<&str>) {
    if let Some(session) = session {
        let active = sse_fallback_active(Some(session));
        update_stats(session, |stats| {
            stats.sse_fallbacks += 1;
            stats.websocket_fallback_active = active;
        });
    }
}

/// A socket failure of `session`: its later calls use SSE.
pub(crate) fn record_websocket_failure(session: Option<&str>, error: &str) {
    if let Some(session) = session {
        lock(&FALLBACK_SESSIONS).insert(session.to_owned());
        update_stats(session, |stats| {
            stats.websocket_failures += 1;
            stats.last_websocket_error = Some(error.to_owned());
            stats.websocket_fallback_active = true;
        });
    }
}

/// Closes `socket` in the background (code 1000, `reason`).
pub(crate) fn close_quietly(mut socket: Socket, reason: &'static str) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        let frame = CloseFrame {
            code: CloseCode::Normal,
            reason: reason.into(),
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), socket.close(Some(frame))).await;
    });
}

/// pi's `isWebSocketReusable`: the socket was not closed while idle.
/// Frames that arrived meanwhile (pings, stray events) are dropped.
fn still_open(socket: &mut Socket) -> bool {
    loop {
        match socket.next().now_or_never() {
            None => return true,
            Some(Some(Ok(Message::Close(_)) | Err(_)) | None) => return false,
            Some(Some(Ok(_))) => {}
        }
    }
}

/// The cache entry a leased socket belongs to; a lease dropped without
/// [`Lease::release`] (the call was cancelled and its task dropped) forgets
/// the entry, so the session connects afresh next time.
struct Guard(Option<(String, u64)>);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some((session, id)) = self.0.take() {
            let mut cache = lock(&CACHE);
            if cache.get(&session).is_some_and(|entry| entry.id == id) {
                cache.remove(&session);
            }
        }
    }
}

/// A socket for one call.
pub(crate) struct Lease {
    /// The socket.
    pub socket: Socket,
    /// The cached socket of an earlier call.
    pub reused: bool,
    /// The continuation of the session's socket (a cached socket only).
    pub continuation: Option<Continuation>,
    guard: Guard,
}

impl Lease {
    /// Whether this is the session's cached socket (its continuation applies).
    pub fn is_cached(&self) -> bool {
        self.guard.0.is_some()
    }

    /// Gives the socket back: kept open for the session's next call with
    /// `continuation` when `keep`, else closed and forgotten.
    pub fn release(self, keep: bool, continuation: Option<Continuation>) {
        let Self {
            socket, mut guard, ..
        } = self;
        let Some((session, id)) = guard.0.take() else {
            close_quietly(socket, "done");
            return;
        };
        let mut cache = lock(&CACHE);
        let Some(entry) = cache.get_mut(&session).filter(|entry| entry.id == id) else {
            drop(cache);
            close_quietly(socket, "done");
            return;
        };
        if !keep {
            cache.remove(&session);
            drop(cache);
            close_quietly(socket, "done");
            return;
        }
        entry.socket = Some(socket);
        entry.busy = false;
        entry.continuation = continuation;
        entry.idle_epoch += 1;
        let epoch = entry.idle_epoch;
        drop(cache);
        schedule_expiry(session, id, epoch);
    }
}

/// Closes the session's socket after [`SESSION_WEBSOCKET_CACHE_TTL`] unless
/// it was used again meanwhile.
fn schedule_expiry(session: String, id: u64, epoch: u64) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        tokio::time::sleep(SESSION_WEBSOCKET_CACHE_TTL).await;
        let mut cache = lock(&CACHE);
        let idle = cache
            .get(&session)
            .is_some_and(|e| e.id == id && e.idle_epoch == epoch && !e.busy);
        if idle && let Some(socket) = cache.remove(&session).and_then(|e| e.socket) {
            drop(cache);
            close_quietly(socket, "idle_timeout");
        }
    });
}

/// What [`acquire`] found in the cache.
pub(crate) enum Cached {
    /// The session's idle socket, now busy.
    Reused(Box<Lease>),
    /// Connect a socket and cache it for the session.
    Connect,
    /// The session's socket is busy: connect one for this call only.
    ConnectOwn,
}

/// pi's `acquireWebSocket` before connecting: the cached socket of
/// `session` when it is idle and open.
pub(crate) fn acquire(session: Option<&str>) -> Cached {
    let Some(session) = session else {
        return Cached::ConnectOwn;
    };
    let mut cache = lock(&CACHE);
    let Some(entry) = cache.get_mut(session) else {
        return Cached::Connect;
    };
    if entry.busy {
        return Cached::ConnectOwn;
    }
    entry.idle_epoch += 1;
    let mut socket = entry.socket.take();
    match socket.take_if(still_open) {
        Some(socket) => {
            entry.busy = true;
            Cached::Reused(Box::new(Lease {
                socket,
                reused: true,
                continuation: entry.continuation.take(),
                guard: Guard(Some((session.to_owned(), entry.id))),
            }))
        }
        None => {
            cache.remove(session);
            drop(cache);
            if let Some(socket) = socket {
                close_quietly(socket, "done");
            }
            Cached::Connect
        }
    }
}

/// A freshly connected `socket`, cached for `session` (busy) when `cache`.
pub(crate) fn lease_new(socket: Socket, session: Option<&str>, cache: bool) -> Lease {
    let Some(session) = session.filter(|_| cache) else {
        return Lease {
            socket,
            reused: false,
            continuation: None,
            guard: Guard(None),
        };
    };
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let replaced = lock(&CACHE).insert(
        session.to_owned(),
        Entry {
            id,
            socket: None,
            busy: true,
            continuation: None,
            idle_epoch: 0,
        },
    );
    if let Some(socket) = replaced.and_then(|entry| entry.socket) {
        close_quietly(socket, "done");
    }
    Lease {
        socket,
        reused: false,
        continuation: None,
        guard: Guard(Some((session.to_owned(), id))),
    }
}
