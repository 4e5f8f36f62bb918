//! One call over the WebSocket transport (pi's `processWebSocketStream`):
//! a socket from the session cache or a new one, one `response.create`
//! message, every message after it decoded as an SSE frame by the same
//! decoder, until the response completes. A socket that fails before the
//! first event hands the call back for SSE; after it, the call fails. Both
//! put pi's `provider_transport_failure` diagnostic on the message.

use std::borrow::Cow;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use pi_ai::{
    ABORTED_MESSAGE, CancellationToken, DoneReason, ErrorClass, ErrorReason, EventSink, Model,
    ProviderResponse, ResponseHook, Transport, now_ms,
};
use pi_http::{SseDecoder, SseFrameRef, StreamEnd};
use serde_json::{Map, Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::{self, Bytes, Message};

use crate::decode::OpenAiCodexDecoder;
use crate::ws_cache::{self, Cached, Lease, Socket};
use crate::ws_request::{Continuation, response_create_message};

/// The close code of a message the server found too big.
const MESSAGE_TOO_BIG: u16 = 1009;

/// A failure of the socket itself (not of the response it carries).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebSocketError {
    /// The socket could not be opened (refused, no upgrade, TLS, timeout).
    #[error("{0}")]
    Connect(String),
    /// The socket closed before the response completed: `WebSocket closed
    /// <code> <reason>`.
    #[error("{}", close_text(*code, reason))]
    Closed {
        /// The close code (1006 when the connection just ended).
        code: u16,
        /// The close reason.
        reason: String,
    },
    /// Reading or writing failed.
    #[error("{0}")]
    Socket(String),
    /// No message within the idle timeout.
    #[error("No WebSocket message for {} s", .0.as_secs())]
    Idle(Duration),
}

impl WebSocketError {
    /// The error's `name` in the diagnostic, as pi's error classes.
    fn name(&self) -> &'static str {
        match self {
            Self::Closed { .. } => "WebSocketCloseError",
            _ => "Error",
        }
    }
}

/// pi's close text: `WebSocket closed <code>[ <reason>]`, `message too
/// big` for 1009 without a reason.
fn close_text(code: u16, reason: &str) -> String {
    let reason = if reason.is_empty() && code == MESSAGE_TOO_BIG {
        "message too big"
    } else {
        reason
    };
    if reason.is_empty() {
        format!("WebSocket closed {code}")
    } else {
        format!("WebSocket closed {code} {reason}")
    }
}

/// Everything a WebSocket call needs.
pub(crate) struct WebSocketCall {
    /// `ws(s)://.../codex/responses`.
    pub url: String,
    /// Handshake headers.
    pub headers: Vec<(String, String)>,
    /// The full request body.
    pub body: Map<String, Value>,
    /// Bytes of the body as SSE would send it (the diagnostic's `requestBytes`).
    pub request_bytes: usize,
    /// The configured transport (not SSE).
    pub transport: Transport,
    /// The session id, the cache key.
    pub session: Option<String>,
    /// Longest wait for the socket to open.
    pub connect_timeout: Duration,
    /// Longest silence between messages.
    pub idle_timeout: Duration,
    /// The model called.
    pub model: Model,
    /// Called with the upgrade's answer (101) when a socket is opened for
    /// the call; a reused socket has none.
    pub on_response: Option<ResponseHook>,
}

/// How a WebSocket call ended.
pub(crate) enum Outcome {
    /// The stream ended (done or error).
    Finished,
    /// The socket failed before the first event: send the call over SSE.
    Fallback(EventSink),
}

/// How reading the answer ended.
enum Read {
    /// The decoder ended the stream (or could not read an event).
    Ended(Result<StreamEnd, pi_http::DecodeError>),
    /// The socket failed.
    Failed(WebSocketError),
    /// The call was cancelled.
    Aborted,
}

/// Runs `call` over a socket.
pub(crate) async fn run(
    sink: EventSink,
    call: WebSocketCall,
    mut decoder: OpenAiCodexDecoder,
    cancel: CancellationToken,
) -> Outcome {
    if decoder.ends_blocks_on_abort() {
        sink.end_blocks_on_abort();
    }
    let session = call.session.as_deref();
    let lease = match ws_cache::acquire(session) {
        Cached::Reused(lease) => *lease,
        cached => {
            let opened = tokio::select! {
                () = cancel.cancelled() => return aborted(sink),
                opened = connect(&call.url, &call.headers, call.connect_timeout) => opened,
            };
            if let (Some(hook), Some(answer)) = (&call.on_response, &opened.1) {
                tokio::select! {
                    () = cancel.cancelled() => return aborted(sink),
                    () = hook.call(answer.clone()) => {}
                }
            }
            let opened = opened.0;
            match opened {
                Ok(socket) => {
                    ws_cache::lease_new(socket, session, matches!(cached, Cached::Connect))
                }
                Err(error) => return failed(sink, &call, error, false),
            }
        }
    };
    exchange(sink, &call, lease, &mut decoder, &cancel).await
}

/// Sends the request on `lease` and decodes the answer.
async fn exchange(
    mut sink: EventSink,
    call: &WebSocketCall,
    mut lease: Lease,
    decoder: &mut OpenAiCodexDecoder,
    cancel: &CancellationToken,
) -> Outcome {
    let cached_context = matches!(call.transport, Transport::Auto | Transport::WebsocketCached);
    let body: Cow<'_, Map<String, Value>> = if cached_context && lease.is_cached() {
        match lease
            .continuation
            .as_ref()
            .and_then(|c| c.request_body(&call.body))
        {
            Some(continued) => Cow::Owned(continued),
            None => {
                lease.continuation = None;
                Cow::Borrowed(&call.body)
            }
        }
    } else {
        Cow::Borrowed(&call.body)
    };
    if let Some(session) = call.session.as_deref() {
        count_request(session, &body, lease.reused, cached_context);
    }
    let message = Message::Text(response_create_message(&body).into());
    drop(body);
    let sent = tokio::select! {
        () = cancel.cancelled() => return aborted_with(sink, lease),
        sent = lease.socket.send(message) => sent,
    };
    if let Err(error) = sent {
        lease.release(false, None);
        return failed(sink, call, WebSocketError::Socket(error.to_string()), false);
    }
    let shared = sink.partial().clone();
    let mut started = false;
    let read = read_answer(
        &mut sink,
        &mut lease.socket,
        decoder,
        &mut started,
        call,
        cancel,
    )
    .await;
    match read {
        Read::Aborted => aborted_with(sink, lease),
        Read::Failed(error) => {
            lease.release(false, None);
            failed(sink, call, error, started)
        }
        Read::Ended(Ok(StreamEnd::Done(reason))) => {
            let continuation = if cached_context && lease.is_cached() {
                Continuation::after(&call.model, call.body.clone(), shared.snapshot())
                    .or(lease.continuation.take())
            } else {
                lease.continuation.take()
            };
            lease.release(true, continuation);
            done(sink, reason);
            Outcome::Finished
        }
        Read::Ended(Ok(StreamEnd::Error(text))) => {
            lease.release(false, None);
            sink.error(ErrorReason::Error, text);
            Outcome::Finished
        }
        Read::Ended(Err(error)) => {
            lease.release(false, None);
            sink.error(ErrorReason::Error, error.into_message());
            Outcome::Finished
        }
    }
}

/// Reads messages until the decoder ends the stream. `start` is emitted
/// before the first event that is one (a string `type`, not `error` or
/// `response.failed`), as pi's first-event wrapper does.
async fn read_answer(
    sink: &mut EventSink,
    socket: &mut Socket,
    decoder: &mut OpenAiCodexDecoder,
    started: &mut bool,
    call: &WebSocketCall,
    cancel: &CancellationToken,
) -> Read {
    loop {
        let next = tokio::select! {
            () = cancel.cancelled() => return Read::Aborted,
            next = tokio::time::timeout(call.idle_timeout, socket.next()) => next,
        };
        let data: Cow<'_, str> = match next {
            Err(_) => return Read::Failed(WebSocketError::Idle(call.idle_timeout)),
            Ok(None) => return Read::Failed(closed(1006, String::new())),
            Ok(Some(Err(error))) => return Read::Failed(WebSocketError::Socket(error.to_string())),
            Ok(Some(Ok(Message::Close(frame)))) => {
                return Read::Failed(match frame {
                    Some(frame) => closed(frame.code.into(), frame.reason.to_string()),
                    None => closed(1005, String::new()),
                });
            }
            Ok(Some(Ok(Message::Text(text)))) => Cow::Owned(text.as_str().to_owned()),
            Ok(Some(Ok(Message::Binary(bytes)))) => Cow::Owned(utf8(&bytes)),
            Ok(Some(Ok(_))) => continue,
        };
        if data.is_empty() {
            continue;
        }
        if !*started {
            match first_event_kind(&data) {
                FirstEvent::Skip => continue,
                FirstEvent::Start => {
                    *started = true;
                    sink.start();
                }
                FirstEvent::Failure => {}
            }
        }
        let frame = SseFrameRef {
            event: "",
            data: &data,
        };
        match decoder.frame(frame, sink) {
            Ok(None) => {}
            Ok(Some(end)) => return Read::Ended(Ok(end)),
            Err(error) => return Read::Ended(Err(error)),
        }
    }
}

/// A binary message as text (invalid bytes replaced, as `TextDecoder`).
fn utf8(bytes: &Bytes) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a message before the stream started is.
enum FirstEvent {
    /// No string `type`: dropped unseen.
    Skip,
    /// An event: the stream starts.
    Start,
    /// Not JSON, `error` or `response.failed`: the decoder fails the call
    /// before it starts.
    Failure,
}

fn first_event_kind(data: &str) -> FirstEvent {
    let Ok(value) = serde_json::from_str::<Value>(data) else {
        return FirstEvent::Failure;
    };
    match value.get("type").and_then(Value::as_str) {
        None => FirstEvent::Skip,
        Some("error" | "response.failed") => FirstEvent::Failure,
        Some(_) => FirstEvent::Start,
    }
}

fn closed(code: u16, reason: String) -> WebSocketError {
    WebSocketError::Closed { code, reason }
}

/// Opens a socket to `url` with `headers`; with the upgrade's answer (the
/// 101) when it opened.
async fn connect(
    url: &str,
    headers: &[(String, String)],
    limit: Duration,
) -> (Result<Socket, WebSocketError>, Option<ProviderResponse>) {
    let fail = |error: &dyn std::fmt::Display| WebSocketError::Connect(error.to_string());
    let mut request = match url.into_client_request() {
        Ok(request) => request,
        Err(error) => return (Err(fail(&error)), None),
    };
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| fail(&e))
            .and_then(|name| Ok((name, HeaderValue::from_str(value).map_err(|e| fail(&e))?)));
        match header {
            Ok((name, value)) => {
                request.headers_mut().insert(name, value);
            }
            Err(error) => return (Err(error), None),
        }
    }
    match tokio::time::timeout(limit, tokio_tungstenite::connect_async(request)).await {
        Err(_) => (
            Err(WebSocketError::Connect(format!(
                "WebSocket connection timed out after {} s",
                limit.as_secs()
            ))),
            None,
        ),
        // A refused upgrade is not reported: the call goes on over SSE,
        // whose answer is.
        Ok(Err(error)) => (Err(fail(&error)), None),
        Ok(Ok((socket, response))) => (Ok(socket), Some(upgrade_answer(&response))),
    }
}

/// The status and headers of an upgrade answer, as `on_response` sees them.
fn upgrade_answer<B>(response: &tungstenite::http::Response<B>) -> ProviderResponse {
    let pairs = response
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str(), String::from_utf8_lossy(value.as_bytes())));
    ProviderResponse::from_pairs(response.status().as_u16(), pairs)
}

/// Counts one call in the session's debug counters.
fn count_request(session: &str, body: &Map<String, Value>, reused: bool, cached_context: bool) {
    let inputs = body
        .get("input")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let previous = body
        .get("previous_response_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    ws_cache::update_stats(session, |stats| {
        stats.requests += 1;
        if reused {
            stats.connections_reused += 1;
        } else {
            stats.connections_created += 1;
        }
        if cached_context {
            stats.cached_context_requests += 1;
        }
        if body.get("store") == Some(&Value::Bool(true)) {
            stats.store_true_requests += 1;
        }
        stats.last_input_items = inputs;
        if previous.is_some() {
            stats.delta_requests += 1;
            stats.last_delta_input_items = Some(inputs);
        } else {
            stats.full_context_requests += 1;
            stats.last_delta_input_items = None;
        }
        stats.last_previous_response_id = previous;
    });
}

/// A socket failure: pi's diagnostic on the message and the session moved
/// to SSE; before the first event the call goes on over SSE, after it the
/// stream fails with the error's text.
fn failed(sink: EventSink, call: &WebSocketCall, error: WebSocketError, started: bool) -> Outcome {
    let text = error.to_string();
    let diagnostic = transport_failure(&error, call.transport, started, call.request_bytes);
    sink.update(|message| {
        message
            .diagnostics
            .get_or_insert_with(Vec::new)
            .push(diagnostic);
    });
    let session = call.session.as_deref();
    ws_cache::record_websocket_failure(session, &text);
    if started {
        sink.error_with_class(ErrorClass::Connection, text);
        return Outcome::Finished;
    }
    tracing::debug!(error = %text, "Codex WebSocket failed; falling back to SSE");
    ws_cache::record_sse_fallback(session);
    Outcome::Fallback(sink)
}

/// pi's `provider_transport_failure` diagnostic.
pub fn transport_failure(
    error: &WebSocketError,
    transport: Transport,
    started: bool,
    request_bytes: usize,
) -> Value {
    let mut described = json!({"name": error.name(), "message": error.to_string()});
    if let WebSocketError::Closed { code, .. } = error {
        described["code"] = Value::from(*code);
    }
    let mut details = Map::new();
    details.insert("configuredTransport".into(), transport.as_str().into());
    if !started {
        details.insert("fallbackTransport".into(), "sse".into());
    }
    details.insert("eventsEmitted".into(), started.into());
    let phase = if started {
        "after_message_stream_start"
    } else {
        "before_message_stream_start"
    };
    details.insert("phase".into(), phase.into());
    details.insert("requestBytes".into(), request_bytes.into());
    json!({
        "type": "provider_transport_failure",
        "timestamp": now_ms(),
        "error": described,
        "details": details,
    })
}

fn done(sink: EventSink, reason: DoneReason) {
    sink.done(reason);
}

/// The call was cancelled before a socket was leased.
fn aborted(sink: EventSink) -> Outcome {
    sink.error(ErrorReason::Aborted, ABORTED_MESSAGE);
    Outcome::Finished
}

/// The call was cancelled: the socket is closed, not kept.
fn aborted_with(sink: EventSink, lease: Lease) -> Outcome {
    lease.release(false, None);
    aborted(sink)
}
