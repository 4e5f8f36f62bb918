//! The `openai-codex-responses` wire: the ChatGPT backend's Responses API
//! that pi 0.73.1 uses with a ChatGPT (Plus/Pro) subscription login
//! (`POST {baseUrl}/codex/responses`, the OAuth access token as bearer, the
//! account id from its claims in `chatgpt-account-id`).
//!
//! Laid out as every wire crate: [`wire`] holds the typed request body (its
//! input items and stream events are openai-responses' own); `request` the
//! pure encoder ([`build_request_body`]: instructions, `store: false`,
//! encrypted reasoning, text verbosity); `auth` the token's account id and
//! pi's user agent; `decode` the stream decoder ([`OpenAiCodexDecoder`]:
//! openai-responses' decoding plus the backend's `response.done`, its error
//! events and the usage-limit text of [`http_error_message`]); `options`
//! ([`OpenAiCodexOptions`]); `provider` the [`pi_http::Wire`] impl
//! ([`OpenAiCodexWire`]) and [`OpenAiCodexProvider`], which checks the token
//! before each call. [`register`] adds it to the global api registry.
//!
//! The transport is pi's `options.transport`: `sse`, or (the default
//! `auto`, `websocket`, `websocket-cached`) a WebSocket per session
//! (`ws_request`: URL, handshake headers, `response.create`, continuation;
//! `ws_cache`: the per-session socket cache, the sessions that fell back to
//! SSE, debug counters; `ws_stream`: one call over a socket, decoded by the
//! same decoder, falling back to SSE when the socket fails before the
//! first event).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod auth;
mod decode;
mod options;
mod provider;
mod request;
pub mod wire;
mod ws_cache;
mod ws_request;
mod ws_stream;

use pi_ai::Api;

pub use auth::{CodexAuthError, account_id, user_agent};
pub use decode::{OpenAiCodexDecoder, http_error_message, usage_limit_message};
pub use options::OpenAiCodexOptions;
pub use provider::{DEFAULT_BASE_URL, OpenAiCodexProvider, OpenAiCodexWire, codex_url};
pub use request::{DEFAULT_INSTRUCTIONS, build_request_body};
pub use ws_cache::{
    SESSION_WEBSOCKET_CACHE_TTL, WebSocketDebugStats, close_websocket_sessions,
    reset_websocket_debug_stats, websocket_debug_stats,
};
pub use ws_request::{
    Continuation, OPENAI_BETA_RESPONSES_WEBSOCKETS, codex_websocket_url, response_create_message,
    websocket_headers,
};
pub use ws_stream::{WebSocketError, transport_failure};

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-openai-codex-responses";

/// Registers [`OpenAiCodexProvider`] for `openai-codex-responses` in the
/// global api registry (source id [`SOURCE_ID`]).
pub fn register() {
    OpenAiCodexProvider::new().register(Api::OPENAI_CODEX_RESPONSES, SOURCE_ID);
}
