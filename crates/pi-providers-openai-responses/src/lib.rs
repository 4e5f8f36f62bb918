//! The `openai-responses` wire: OpenAI Responses API input items, reasoning
//! replay and its SSE stream (`POST {baseUrl}/responses`).
//!
//! Layout: [`wire`] holds the typed JSON, [`build_request_body`] is the pure
//! encoder, [`ResponsesDecoder`] the pure SSE decoder, and
//! [`OpenAiResponsesProvider`] the [`StreamFunction`] that joins them over
//! `pi-http`'s driver. [`register`] puts it in the global api registry.
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

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessageEventStream, Context, Model, SimpleStreamOptions, StreamFunction,
    StreamOptions, register_api_provider,
};
use pi_http::RetryPolicy;

mod decode;
mod options;
mod provider;
mod request;
pub mod wire;

pub use decode::{ResponsesDecoder, decode_frames};
pub use options::{ReasoningSummary, ResponsesOptions, clamp_thinking_level};
pub use provider::{DEFAULT_BASE_URL, build_headers, request_url};
pub use request::{build_request_body, short_hash};

/// Source id of this crate's registrations in the api registry.
pub const SOURCE_ID: &str = "pi-providers-openai-responses";

/// The openai-responses [`StreamFunction`].
#[derive(Debug, Clone, Default)]
pub struct OpenAiResponsesProvider {
    retry_policy: Option<RetryPolicy>,
}

impl OpenAiResponsesProvider {
    /// A provider with the transport's default retry policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `policy` for retries before the stream starts (tests use short delays).
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry_policy = Some(policy);
        self
    }

    /// Streams with this wire's full options (reasoning effort and
    /// summary, service tier).
    pub fn stream_with(
        &self,
        model: &Model,
        context: &Context,
        options: ResponsesOptions,
    ) -> AssistantMessageEventStream {
        provider::stream(model, context, options, self.retry_policy)
    }
}

impl StreamFunction for OpenAiResponsesProvider {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let options = ResponsesOptions {
            base: options,
            ..ResponsesOptions::default()
        };
        self.stream_with(model, context, options)
    }

    /// pi's `streamSimpleOpenAIResponses`: `maxTokens` defaults to
    /// `min(model.maxTokens, 32000)`, and the reasoning level is clamped to
    /// what the model supports (`off` sends no effort).
    fn stream_simple(
        &self,
        model: &Model,
        context: &Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let max_tokens = options.max_tokens_for(model);
        let reasoning_effort = options
            .reasoning
            .and_then(|level| clamp_thinking_level(model, level));
        let mut base = options.base;
        base.max_tokens = Some(max_tokens);
        let options = ResponsesOptions {
            base,
            reasoning_effort,
            ..ResponsesOptions::default()
        };
        self.stream_with(model, context, options)
    }
}

/// Registers [`OpenAiResponsesProvider`] for api `openai-responses` in the
/// global registry, with source id [`SOURCE_ID`].
pub fn register() {
    register_api_provider(
        Api::OPENAI_RESPONSES,
        Arc::new(OpenAiResponsesProvider::new()),
        SOURCE_ID,
    );
}
