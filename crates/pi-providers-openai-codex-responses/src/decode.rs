//! The stream decoder: the ChatGPT backend's Responses events as pi's
//! `mapCodexEvents` + `processResponsesStream` read them. Events go to
//! openai-responses' decoder, except:
//! - `error` ends the stream with `Codex error: <message|code|event>`;
//! - `response.failed` with its error message, else `Codex response failed`;
//! - `response.done`, `response.completed` and `response.incomplete` all
//!   complete the response (an unknown status counts as none), and a
//!   response tier `default` prices at the requested `flex`/`priority`;
//! - a frame that is not JSON is `Invalid Codex SSE JSON: ..`; JSON without
//!   a string `type` is skipped.
//!
//! A body that ends before a completion, a failure or an error is an error,
//! as on openai-responses (`Stream ended without response.completed`).
//!
//! HTTP errors are worded by [`http_error_message`] (pi's
//! `parseErrorResponse`, with its usage-limit text).

use std::sync::LazyLock;

use memchr::memmem::Finder;
use pi_ai::{EventSink, Model, now_ms};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd, is_truthy};
use pi_providers_openai_responses::OpenAiResponsesDecoder;
use pi_providers_openai_responses::wire::ResponseObject;
use serde::Deserialize;
use serde_json::Value;

use crate::wire::StreamEvent;

/// Response statuses the backend may report; others are dropped.
const CODEX_RESPONSE_STATUSES: [&str; 6] = [
    "completed",
    "incomplete",
    "failed",
    "cancelled",
    "queued",
    "in_progress",
];

/// The `type` that openai-responses does not know but Codex completes on.
static RESPONSE_DONE: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(b"\"response.done\""));
/// `"error"`: in JSON only a key or a string that is exactly `error`.
static ERROR: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"error\""));
/// The start of every event type; what follows tells the lifecycle ones.
static RESPONSE_DOT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"response."));

/// Whether a frame may be one Codex reads differently from openai-responses
/// (`error`, `response.failed`, `response.done`, `response.completed`,
/// `response.incomplete`): any such `type` string appears in it whole.
/// False positives (an `"error":null` field, a `"response.done"` text) only
/// take the slow path.
fn may_be_special(data: &[u8]) -> bool {
    if ERROR.find(data).is_some() {
        return true;
    }
    RESPONSE_DOT.find_iter(data).any(|at| {
        let rest = &data[at + b"\"response.".len()..];
        [&b"done\""[..], b"failed\"", b"completed\"", b"incomplete\""]
            .iter()
            .any(|kind| rest.starts_with(kind))
    })
}

/// `response.done`, read only when a frame names that type.
#[derive(Debug, Deserialize)]
struct DoneEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    response: Option<ResponseObject>,
}

/// Decodes one Codex stream into events.
#[derive(Debug, Clone)]
pub struct OpenAiCodexDecoder {
    inner: OpenAiResponsesDecoder,
    service_tier: Option<String>,
    /// `SSE` or `WebSocket`, in the text of a frame that is not JSON.
    transport: &'static str,
}

impl OpenAiCodexDecoder {
    /// A decoder for a call to `model` with the requested `service_tier`.
    pub fn new(model: Model, service_tier: Option<String>) -> Self {
        Self {
            inner: OpenAiResponsesDecoder::new(model, service_tier.clone()),
            service_tier,
            transport: "SSE",
        }
    }

    /// The decoder of a WebSocket call: the same events, a message that is
    /// not JSON worded `Invalid Codex WebSocket JSON: ..`.
    pub fn for_websocket(model: Model, service_tier: Option<String>) -> Self {
        Self {
            transport: "WebSocket",
            ..Self::new(model, service_tier)
        }
    }

    /// A frame that is not a readable event: `Invalid Codex SSE JSON` when
    /// it is no JSON, skipped when it has no string `type` (pi's
    /// `mapCodexEvents`), else `error`.
    fn unparsed(&self, data: &str, error: DecodeError) -> Result<Option<StreamEnd>, DecodeError> {
        match serde_json::from_str::<Value>(data) {
            Err(json) => Err(format!("Invalid Codex {} JSON: {json}", self.transport).into()),
            Ok(value) if !value.get("type").is_some_and(Value::is_string) => Ok(None),
            Ok(_) => Err(error),
        }
    }

    /// Completes the response: status normalized, tier resolved as pi's
    /// `resolveCodexServiceTier`.
    fn complete(
        &mut self,
        mut response: ResponseObject,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        response.status = response
            .status
            .filter(|status| CODEX_RESPONSE_STATUSES.contains(&status.as_str()));
        if response.service_tier.as_deref() == Some("default")
            && matches!(self.service_tier.as_deref(), Some("flex" | "priority"))
        {
            response.service_tier.clone_from(&self.service_tier);
        }
        self.inner.apply(StreamEvent::Completed { response }, sink)
    }
}

impl SseDecoder for OpenAiCodexDecoder {
    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        let data = frame.data.trim();
        if data.is_empty() {
            return Ok(None);
        }
        if data == "[DONE]" {
            self.inner.saw_done_line();
            return Ok(None);
        }
        if !may_be_special(data.as_bytes()) {
            // An event both wires read alike. A frame openai-responses
            // cannot parse changes nothing before failing; it is judged
            // again as Codex judges it.
            return match self.inner.frame(frame, sink) {
                Err(error) if serde_json::from_str::<StreamEvent>(data).is_err() => {
                    self.unparsed(data, error)
                }
                other => other,
            };
        }
        match serde_json::from_str::<StreamEvent>(data) {
            Ok(StreamEvent::Error { code, message, .. }) => {
                Err(codex_error_text(code.as_ref(), message.as_deref(), data).into())
            }
            Ok(StreamEvent::Failed { response }) => Err(response
                .error
                .and_then(|error| error.message)
                .filter(|message| !message.is_empty())
                .unwrap_or_else(|| "Codex response failed".to_owned())
                .into()),
            Ok(StreamEvent::Completed { response } | StreamEvent::Incomplete { response }) => {
                self.complete(response, sink)
            }
            Ok(StreamEvent::Other) if RESPONSE_DONE.find(data.as_bytes()).is_some() => {
                match serde_json::from_str::<DoneEvent>(data) {
                    Ok(done) if done.kind == "response.done" => {
                        self.complete(done.response.unwrap_or_default(), sink)
                    }
                    _ => Ok(None),
                }
            }
            Ok(event) => self.inner.apply(event, sink),
            Err(error) => self.unparsed(data, format!("Invalid Codex SSE event: {error}").into()),
        }
    }

    /// A body that ends without a completion is an error (pi calls it a
    /// stop), unless `data: [DONE]` closed it: openai-responses' rule.
    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd {
        self.inner.end_of_stream(sink)
    }

    fn http_error_message(&self, status: u16, body: &str) -> String {
        http_error_message(status, body)
    }

    fn ends_blocks_on_abort(&self) -> bool {
        self.inner.ends_blocks_on_abort()
    }
}

/// `Codex error: <message || code || JSON of the event>`.
fn codex_error_text(code: Option<&Value>, message: Option<&str>, data: &str) -> String {
    let detail = match (message.filter(|m| !m.is_empty()), code) {
        (Some(message), _) => message.to_owned(),
        (None, Some(Value::String(code))) if !code.is_empty() => code.clone(),
        (None, Some(code)) if is_truthy(code) => code.to_string(),
        _ => {
            serde_json::from_str::<Value>(data).map_or_else(|_| data.to_owned(), |v| v.to_string())
        }
    };
    format!("Codex error: {detail}")
}

/// pi's `parseErrorResponse` for an HTTP error answer, now.
pub fn http_error_message(status: u16, body: &str) -> String {
    error_message_at(status, body, now_ms())
}

/// pi's friendly usage-limit text: `You have hit your ChatGPT usage
/// limit (<plan> plan). Try again in ~<n> min.` (parts present as known).
pub fn usage_limit_message(plan: Option<&str>, minutes: Option<i64>) -> String {
    let plan = plan.map_or_else(String::new, |p| format!(" ({} plan)", p.to_lowercase()));
    let when = minutes.map_or_else(String::new, |m| format!(" Try again in ~{m} min."));
    format!("You have hit your ChatGPT usage limit{plan}.{when}")
}

/// [`http_error_message`] at `now` (ms since the epoch): the usage-limit
/// text for usage/rate-limit codes and every 429, else the body's
/// `error.message`, else the body, else the status text.
pub(crate) fn error_message_at(status: u16, body: &str, now: i64) -> String {
    let fallback = if body.is_empty() {
        status_text(status).to_owned()
    } else {
        body.to_owned()
    };
    let Ok(parsed) = serde_json::from_str::<Value>(body) else {
        return fallback;
    };
    let Some(error) = parsed.get("error").filter(|e| is_truthy(e)) else {
        return fallback;
    };
    let field = |name: &str| error.get(name).filter(|v| is_truthy(v));
    let code = field("code").or_else(|| field("type"));
    let code_text = match code {
        Some(Value::String(code)) => code.to_lowercase(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let limited = [
        "usage_limit_reached",
        "usage_not_included",
        "rate_limit_exceeded",
    ]
    .iter()
    .any(|needle| code_text.contains(needle));
    let friendly = if limited || status == 429 {
        let plan = match field("plan_type") {
            None => None,
            Some(Value::String(plan)) => Some(plan.as_str()),
            // pi calls `toLowerCase` on it, throws, and keeps the raw text.
            Some(_) => return fallback,
        };
        let minutes = field("resets_at").and_then(Value::as_f64).map(|resets_at| {
            let minutes = ((resets_at * 1000.0 - now as f64) / 60_000.0 + 0.5).floor();
            // Bounded by the float's range; pi prints whole minutes.
            minutes.max(0.0) as i64
        });
        Some(usage_limit_message(plan, minutes))
    } else {
        None
    };
    if let Some(friendly) = friendly {
        return friendly;
    }
    match field("message") {
        Some(Value::String(message)) => message.clone(),
        Some(other) => other.to_string(),
        None => fallback,
    }
}

/// The reason phrase of common statuses (what `fetch` reports as `statusText`).
fn status_text(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Request failed",
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
