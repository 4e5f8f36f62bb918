//! SSE framing over a streaming response body, with an idle timeout per read.

use std::collections::VecDeque;
use std::time::Duration;

use futures::{Stream, StreamExt};

use crate::HttpError;
use crate::sse_parser::{SseParseError, SseParser};

/// How long a stream may stay silent before it is treated as dead (undici's
/// default body timeout, which pi 0.73.1 disables).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How long to wait for response headers (the OpenAI and Anthropic SDKs'
/// default request timeout).
pub const DEFAULT_FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(600);

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    /// The `event:` name (`message` when absent).
    pub event: String,
    /// The `data:` payload, lines joined with `\n`.
    pub data: String,
}

/// Frames of `response`'s body. Transport failures, invalid UTF-8 and
/// silence longer than `idle_timeout` become one `Err` item, after which the
/// stream ends.
pub fn sse_frames(
    response: reqwest::Response,
    idle_timeout: Duration,
) -> impl Stream<Item = Result<SseFrame, HttpError>> + Send + 'static {
    let state = State {
        body: Box::pin(response.bytes_stream()),
        parser: SseParser::new(),
        ready: VecDeque::new(),
        failed: None,
    };
    futures::stream::unfold(Some(state), move |state| async move {
        let mut state = state?;
        loop {
            if let Some(frame) = state.ready.pop_front() {
                return Some((Ok(frame), Some(state)));
            }
            if let Some(error) = state.failed.take() {
                return Some((Err(HttpError::Stream(error.to_string())), None));
            }
            let chunk = match tokio::time::timeout(idle_timeout, state.body.next()).await {
                Err(_) => return Some((Err(HttpError::Idle(idle_timeout)), None)),
                Ok(None) => return None,
                Ok(Some(Err(error))) => {
                    return Some((Err(HttpError::Stream(describe(&error))), None));
                }
                Ok(Some(Ok(chunk))) => chunk,
            };
            let mut frames = Vec::new();
            let parsed = state.parser.push(&chunk, &mut frames);
            state.ready.extend(frames);
            // Frames completed before bad bytes are still delivered first.
            state.failed = parsed.err();
        }
    })
}

type Body = std::pin::Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

struct State {
    body: Body,
    parser: SseParser,
    ready: VecDeque<SseFrame>,
    failed: Option<SseParseError>,
}

/// A reqwest error with its source chain, which holds the useful part
/// ("connection reset by peer").
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
