//! Transport shared by every provider crate: HTTP with `reqwest` (rustls),
//! linear-time SSE framing, a first-byte timeout and an idle timeout per read,
//! cancellation, retries with backoff that honour `retry-after`, and HTTP
//! error classification. It knows no wire format: a provider implements
//! [`Wire`] (URL, headers, body, decoder) and [`stream_wire`] runs the call,
//! ending failed streams with a message that carries its [`ErrorClass`].

mod body_capacity;
mod client;
pub mod cloudflare;
mod copilot;
mod driver;
mod error;
mod framing;
mod headers;
mod js;
mod redirect;
mod retry;
mod sse;
mod sse_parser;
mod wire;

pub use client::{HttpClient, HttpRequest, MAX_ERROR_BODY_BYTES};
pub use copilot::{copilot_dynamic_headers, set_copilot_dynamic_headers};
pub use driver::{
    DecodeError, EMPTY_STREAM_MESSAGE, MAX_RESPONSE_BYTES, SseCall, SseDecoder, StreamEnd,
    drive_framed, drive_sse, named, replay_body, replay_sse, stream_framed, stream_sse,
};
pub use error::{HttpError, error_text_from_body, status_error_message};
pub use framing::{BodyFraming, FramingError, framed_body};
pub use headers::Headers;
pub use js::is_truthy;
pub use pi_ai::ErrorClass;
pub use retry::RetryPolicy;
pub use sse::{DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, SseFrame, sse_frames};
pub use sse_parser::{MAX_EVENT_BYTES, SseFrameRef, SseParseError, SseParser};
pub use wire::{
    EncodedBody, PreparedRequest, Wire, WireError, WireHeaders, WireOptions, WireProvider,
    encode_body, prepare_request, resolve_api_key, stream_wire, wire_headers,
};
