//! The `anthropic-messages` wire: encodes a `pi_ai::Context` into an
//! Anthropic Messages request (`POST {baseUrl}/v1/messages`) and decodes its
//! SSE stream into `pi_ai` events, as pi 0.73.1 does.
//!
//! - [`request`]: the pure encoder ([`build_request_body`]): system prompt
//!   blocks, tools, user/assistant/tool-result turns, thinking, cache
//!   breakpoints following the cache retention.
//! - [`decode`]: the pure SSE decoder ([`AnthropicDecoder`]): text,
//!   thinking with signatures, redacted thinking, tool calls, usage with
//!   cost, stop reasons.
//! - [`provider`]: headers, URL, API key, and the `pi-http` driver.
//! - [`options`]: [`AnthropicOptions`], the model `compat` switches and the
//!   mapping of pi's reasoning levels to thinking budgets or adaptive effort.
//!
//! [`register`] adds [`AnthropicProvider`] to the global api registry.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod decode;
pub mod options;
pub mod provider;
pub mod request;
pub mod wire;

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessageEventStream, Context, Model, SimpleStreamOptions, StreamFunction,
    StreamOptions, register_api_provider,
};

pub use decode::AnthropicDecoder;
pub use options::{AnthropicCompat, AnthropicOptions, Effort, ThinkingDisplay, ToolChoiceOption};
pub use provider::{build_headers, messages_url, stream_anthropic};
pub use request::build_request_body;

/// The source id of this crate's registrations.
pub const SOURCE_ID: &str = "pi-providers-anthropic";

/// The `anthropic-messages` stream function.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicProvider;

impl StreamFunction for AnthropicProvider {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        stream_anthropic(model, context, AnthropicOptions::from(options))
    }

    /// Maps the reasoning level: none -> thinking disabled (reasoning models);
    /// adaptive models -> an effort; others -> a budget fitted into `max_tokens`.
    fn stream_simple(
        &self,
        model: &Model,
        context: &Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        stream_anthropic(model, context, options::simple_to_anthropic(model, options))
    }
}

/// Registers [`AnthropicProvider`] for `anthropic-messages` in the global
/// registry, with source id [`SOURCE_ID`].
pub fn register() {
    register_api_provider(
        Api::ANTHROPIC_MESSAGES,
        Arc::new(AnthropicProvider),
        SOURCE_ID,
    );
}
