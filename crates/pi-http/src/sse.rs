//! SSE framing over a streaming response body, with an idle timeout per read.

use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};

use crate::HttpError;

/// How long a stream may stay silent before it is treated as dead.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

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
    let events = response.bytes_stream().eventsource();
    futures::stream::unfold(Some(Box::pin(events)), move |state| async move {
        let mut events = state?;
        match tokio::time::timeout(idle_timeout, events.next()).await {
            Err(_) => Some((Err(HttpError::Idle(idle_timeout)), None)),
            Ok(None) => None,
            Ok(Some(Ok(event))) => {
                let frame = SseFrame {
                    event: event.event,
                    data: event.data,
                };
                Some((Ok(frame), Some(events)))
            }
            Ok(Some(Err(error))) => {
                let error = match error {
                    EventStreamError::Transport(e) => HttpError::Stream(describe(&e)),
                    EventStreamError::Utf8(e) => {
                        HttpError::Stream(format!("invalid UTF-8 in stream: {e}"))
                    }
                    EventStreamError::Parser(e) => {
                        HttpError::Stream(format!("invalid SSE framing: {e}"))
                    }
                };
                Some((Err(error), None))
            }
        }
    })
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
