//! The `anthropic-messages` wire: encodes a `pi_ai::Context` into an
//! Anthropic Messages request (`POST {baseUrl}/v1/messages`) and decodes its
//! SSE stream into `pi_ai` events, as pi 0.73.1 does.
//!
//! Laid out as every wire crate: [`wire`] holds the typed request and event
//! JSON; `request` the pure encoder ([`build_request_body`]: system prompt
//! blocks, tools, turns, thinking, cache breakpoints); `decode` the pure SSE
//! decoder ([`AnthropicDecoder`]: text, thinking with signatures, redacted
//! thinking, tool calls, usage with cost, stop reasons); `options`
//! ([`AnthropicOptions`], the model `compat` switches, the mapping of pi's
//! reasoning levels); `provider` the [`pi_http::Wire`] impl
//! ([`AnthropicWire`]: URL, headers, decoder).
//!
//! Call it with [`AnthropicProvider`] (`stream_with` for the full options,
//! or as a [`pi_ai::StreamFunction`]); [`register`] adds it to the global
//! api registry.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod decode;
mod fast_event;
mod options;
mod provider;
mod request;
pub mod wire;

use pi_ai::Api;

pub use decode::AnthropicDecoder;
pub use options::{
    AnthropicCompat, AnthropicOptions, Effort, ThinkingDisplay, ToolChoiceOption,
    simple_to_anthropic,
};
pub use provider::{
    ANTHROPIC_VERSION, AnthropicProvider, AnthropicWire, CLAUDE_CODE_VERSION, DEFAULT_BASE_URL,
    FINE_GRAINED_TOOL_STREAMING_BETA, INTERLEAVED_THINKING_BETA, OAUTH_BETAS,
};
pub use request::build_request_body;

/// The source id of this crate's registrations.
pub const SOURCE_ID: &str = "pi-providers-anthropic";

/// Registers [`AnthropicProvider`] for `anthropic-messages` in the global
/// registry, with source id [`SOURCE_ID`].
pub fn register() {
    AnthropicProvider::new().register(Api::ANTHROPIC_MESSAGES, SOURCE_ID);
}
