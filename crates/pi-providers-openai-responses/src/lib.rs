//! The `openai-responses` wire: OpenAI Responses API input items, reasoning
//! replay and its SSE stream (`POST {baseUrl}/responses`).
//!
//! Laid out as every wire crate: [`wire`] holds the typed JSON; `request`
//! the pure encoder ([`build_request_body`]); `decode` the pure SSE decoder
//! ([`OpenAiResponsesDecoder`]); `options` ([`OpenAiResponsesOptions`]);
//! `provider` the [`pi_http::Wire`] impl ([`OpenAiResponsesWire`]: URL,
//! headers, decoder). Call it with [`OpenAiResponsesProvider`]
//! (`stream_with` for the full options, or as a [`pi_ai::StreamFunction`]);
//! [`register`] adds it to the global api registry.
//!
//! What pi stores, and this crate replays:
//! - a reasoning item whole, as JSON, in the thinking block's
//!   `thinkingSignature` (replayed verbatim with its encrypted content);
//! - the message item id and phase in the text block's `textSignature` as
//!   `{"v":1,"id":"msg_…","phase":"…"}`;
//! - tool-call ids as `call_id|item_id`.
//!
//! Behaviour follows pi 0.73.1 (the captured payloads are the reference).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod decode;
mod fast_event;
mod options;
mod provider;
mod request;
pub mod wire;

use pi_ai::Api;

pub use decode::{NO_TERMINAL_EVENT, OpenAiResponsesDecoder};
pub use options::{
    LevelMapping, OpenAiResponsesOptions, ReasoningSummary, clamp_thinking_level, level_mapping,
};
pub use provider::{DEFAULT_BASE_URL, OpenAiResponsesProvider, OpenAiResponsesWire};
pub use request::{
    OPENAI_TOOL_CALL_PROVIDERS, build_request_body, convert_messages, convert_tools,
    reasoning_params,
};

/// Source id of this crate's registrations in the api registry.
pub const SOURCE_ID: &str = "pi-providers-openai-responses";

/// Registers [`OpenAiResponsesProvider`] for api `openai-responses` in the
/// global registry, with source id [`SOURCE_ID`].
pub fn register() {
    OpenAiResponsesProvider::new().register(Api::OPENAI_RESPONSES, SOURCE_ID);
}
