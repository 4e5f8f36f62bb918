//! The `mistral-conversations` wire: Mistral's chat completions API as pi
//! 0.73.1 speaks it through Mistral's SDK (`POST {baseUrl}/v1/chat/completions`,
//! streamed, snake_case JSON, `Authorization: Bearer` from `MISTRAL_API_KEY`).
//!
//! Laid out as every wire crate: [`wire`] holds the typed request and chunk
//! JSON; `request` the pure encoder ([`build_request_body`]); `ids` the
//! 9-character tool-call ids Mistral requires ([`MistralToolCallIds`]);
//! `decode` the pure stream decoder ([`MistralDecoder`]); `options`
//! ([`MistralOptions`]); `provider` the [`pi_http::Wire`] impl
//! ([`MistralWire`]). [`register`] adds it to the global api registry.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod decode;
mod ids;
mod options;
mod provider;
mod request;
pub mod wire;

use pi_ai::Api;

pub use decode::{MistralDecoder, NO_FINISH_REASON, http_error_message};
pub use ids::{MistralToolCallIds, derive_tool_call_id};
pub use options::{MistralOptions, PromptMode};
pub use provider::{MistralProvider, MistralWire};
pub use request::build_request_body;
pub use wire::ToolChoice;

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-mistral";

/// Registers [`MistralProvider`] for `mistral-conversations` in the global
/// api registry (source id [`SOURCE_ID`]).
pub fn register() {
    MistralProvider::new().register(Api::MISTRAL_CONVERSATIONS, SOURCE_ID);
}
