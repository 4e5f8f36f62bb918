//! SSE framing over a streaming response body, with an idle timeout per read.

use std::time::Duration;

use futures::Stream;

use crate::HttpError;
use crate::framing::framed_body;
use crate::sse_parser::SseParser;

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
/// stream ends ([`crate::framing::framed_body`] with the SSE parser).
pub fn sse_frames(
    response: reqwest::Response,
    idle_timeout: Duration,
) -> impl Stream<Item = Result<SseFrame, HttpError>> + Send + 'static {
    framed_body(response, idle_timeout, Box::new(SseParser::new()))
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
