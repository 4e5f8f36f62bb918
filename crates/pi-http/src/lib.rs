//! Transport shared by every provider crate: HTTP with `reqwest` (rustls),
//! linear-time SSE framing, a first-byte timeout and an idle timeout per read,
//! cancellation, retries with backoff that honour `retry-after`, and HTTP
//! error classification. It knows no wire format: providers hand it a URL,
//! headers and a body, and get back SSE frames or a classified error.

mod client;
mod driver;
mod error;
mod retry;
mod sse;
mod sse_parser;

pub use client::{HttpClient, HttpRequest};
pub use driver::{EMPTY_STREAM_MESSAGE, SseCall, SseDecoder, StreamEnd, stream_sse};
pub use error::{ErrorClass, HttpError, error_text_from_body, status_error_message};
pub use retry::RetryPolicy;
pub use sse::{DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, SseFrame, sse_frames};
pub use sse_parser::{MAX_EVENT_BYTES, SseParseError, SseParser};
